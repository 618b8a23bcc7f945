; ppu_scene.s: gpuvet's own SNES picture and sound test (65816, ca65 --cpu 65816), pinned by
; its video and audio hashes in tests/emu/golden.txt. Assembled with -D BENCH it is also the
; benchmark ROM (bench_scene.sfc): the same scene with a game loop that moves 128 large
; sprites every frame and keeps the CPU busy until the next NMI, which copies them to OAM by
; DMA and turns the mode 7 plane. One frame shows, top to bottom:
;   lines 1-150  mode 1 with BG3 in front: BG1 (4 bpp, 8x8 tiles, palettes, priorities,
;                flips) cut by window 1 on the main screen, BG2 (4 bpp, 16x16 tiles,
;                mosaic 2), BG3 (2 bpp) on the sub screen only, added at half strength to
;                BG1 and the backdrop inside the colour window; the fixed colour (the sub
;                screen's backdrop) is a blue gradient written by HDMA channel 2;
;   lines 151-224 mode 7 (HDMA channel 3 writes BGMODE), rotated and scaled, wrapping;
;   over both, 24 sprites of two sizes, palettes 0-7 (4-7 take part in colour math),
;   all four priorities, flips.
; The scroll registers move one pixel a frame (NMI), so every frame differs. Sound: an
; SPC700 program uploaded through the boot protocol plays a looping BRR square wave on voice
; 0 with ADSR and echo, keyed on and off with a rising pitch.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .include "snes.inc"

.ifdef BENCH
        snes_header "GPUVET BENCH SCENE"
.else
        snes_header "GPUVET PPU SCENE"
.endif
        snes_vectors reset, nmi, irq

frame   = $0010                 ; 16-bit frame counter
SHADOW  = $7E2000               ; the benchmark's copy of OAM

; VRAM word addresses
BG1MAP  = $4000
BG2MAP  = $4400
BG3MAP  = $4800
BG12CHR = $5000
BG3CHR  = $7000
OBJCHR  = $6000

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        stz     frame
        snes_blank

        ; ---- palettes: 256 colours by DMA ----
        stz     $2121
        ldx     #palette
        ldy     #512
        lda     #$22
        jsr     dma_rom

        ; ---- tiles: BG1/BG2 4 bpp, BG3 2 bpp, sprites 4 bpp (word-wide DMA to $2118) ----
        lda     #$80
        sta     $2115
        ldx     #BG12CHR
        stx     $2116
        ldx     #tiles4
        ldy     #tiles4_end - tiles4
        jsr     dma_vram
        ldx     #OBJCHR
        stx     $2116
        ldx     #tiles4
        ldy     #tiles4_end - tiles4
        jsr     dma_vram
        ldx     #OBJCHR + $100  ; the next row of sprite tiles (16x16 sprites)
        stx     $2116
        ldx     #tiles4
        ldy     #tiles4_end - tiles4
        jsr     dma_vram
        ldx     #BG3CHR
        stx     $2116
        ldx     #tiles2
        ldy     #tiles2_end - tiles2
        jsr     dma_vram

        ; ---- maps: entries computed from the index i (0-1023) ----
        rep     #$20
        .a16
        ldx     #BG1MAP
        stx     $2116
        ldx     #0
@m1:    txa                     ; tile i & 15, palette i>>5 & 7, priority i>>8 & 1, h-flip i>>9
        and     #$03E0
        asl     a
        asl     a
        asl     a
        asl     a
        asl     a
        sta     $00
        txa
        and     #$000F
        ora     $00
        sta     $2118
        inx
        cpx     #1024
        bne     @m1
        ldx     #BG2MAP
        stx     $2116
        ldx     #0
@m2:    txa                     ; tile (i & 7) * 2 (16x16 tiles), palette, v-flip from bit 4
        and     #$0007
        asl     a
        sta     $00
        txa
        and     #$0010
        beq     @nv
        lda     #$8000
@nv:    ora     $00
        ora     #$0400
        sta     $2118
        inx
        cpx     #1024
        bne     @m2
        ldx     #BG3MAP
        stx     $2116
        ldx     #0
@m3:    txa                     ; tile i & 7, palette i>>5 & 7, priority from bit 3
        and     #$00E0
        asl     a
        asl     a
        asl     a
        asl     a
        asl     a
        sta     $00
        txa
        and     #$0008
        beq     @np
        lda     #$2000
@np:    ora     $00
        sta     $00
        txa
        and     #$0007
        ora     $00
        sta     $2118
        inx
        cpx     #1024
        bne     @m3

        ; ---- mode 7: the map in the low bytes (128x128), 8 tiles of pixels in the high ----
        sep     #$20
        .a8
        stz     $2115           ; increment after the low byte
        ldx     #0
        stx     $2116
@m7m:   txa                     ; tile (x + y/128) & 7
        sta     $00
        rep     #$20
        .a16
        txa
        xba
        asl     a
        sep     #$20
        .a8
        xba
        clc
        adc     $00
        and     #$07
        sta     $2118
        inx
        cpx     #$4000
        bne     @m7m
        lda     #$80
        sta     $2115           ; increment after the high byte
        ldx     #0
        stx     $2116
@m7c:   txa                     ; pixel: (tile * 16 + x ^ y) & 255
        and     #$07
        sta     $00
        rep     #$20
        .a16
        txa
        lsr     a
        lsr     a
        lsr     a
        sep     #$20
        .a8
        eor     $00
        sta     $00
        txa
        and     #$F8
        asl     a
        ora     $00
        sta     $2119
        inx
        cpx     #512
        bne     @m7c

        ; ---- sprites: OAM by DMA ----
        stz     $2102
        stz     $2103
        ldx     #oam
        ldy     #544
        lda     #$04
        jsr     dma_rom

        ; ---- registers ----
        lda     #$09            ; mode 1, BG3 in front
        sta     $2105
        lda     #$12            ; mosaic 2 on BG2
        sta     $2106
        lda     #>BG1MAP >> 2
        sta     $2107
        lda     #(>BG2MAP >> 2)
        sta     $2108
        lda     #(>BG3MAP >> 2)
        sta     $2109
        lda     #$55            ; BG1/BG2 tiles at $5000
        sta     $210B
        lda     #$07            ; BG3 tiles at $7000
        sta     $210C
        lda     #$23            ; sprites at $6000, 8x8 and 16x16
        sta     $2101
        lda     #$20
        sta     $2110           ; BG2 VOFS = $20 (low, then high)
        stz     $2110
        lda     #$FF            ; BG3 VOFS = -1
        sta     $2112
        lda     #$03
        sta     $2112
        ; mode 7 matrix: a rotation by about 30 degrees, scaled by 1.2
        lda     #$DD
        sta     $211B
        lda     #$00
        sta     $211B
        lda     #$80
        sta     $211C
        lda     #$00
        sta     $211C
        lda     #$80
        sta     $211D
        lda     #$FF
        sta     $211D
        lda     #$DD
        sta     $211E
        lda     #$00
        sta     $211E
        lda     #$80
        sta     $211F
        stz     $211F
        lda     #$70
        sta     $2120
        stz     $2120
        stz     $211A
        ; windows: window 1 at x 40-200 masks BG1 on the main screen; the colour window is window 1
        lda     #40
        sta     $2126
        lda     #200
        sta     $2127
        lda     #$02
        sta     $2123
        lda     #$20
        sta     $2125
        lda     #$01
        sta     $212E
        lda     #$17            ; main: BG1 BG2 BG3 OBJ
        sta     $212C
        lda     #$04            ; sub: BG3
        sta     $212D
        lda     #$12            ; colour math with the sub screen, only inside the colour window
        sta     $2130
        lda     #$71            ; add, half: BG1, OBJ, backdrop
        sta     $2131
        lda     #$E0            ; fixed colour black until HDMA writes it
        sta     $2132

        ; ---- HDMA: channel 2 the fixed colour, channel 3 the mode ----
        lda     #$00
        sta     $4320
        lda     #$32
        sta     $4321
        ldx     #grad_tab
        stx     $4322
        stz     $4324
        lda     #$00
        sta     $4330
        lda     #$05
        sta     $4331
        ldx     #mode_tab
        stx     $4332
        stz     $4334
        lda     #$0C
        sta     $420C

        jsr     spc_upload

        lda     #$0F
        sta     $2100           ; display on, full brightness
        lda     #$81
        sta     $4200           ; NMI, auto joypad
        cli
.ifndef BENCH
@idle:  wai
        bra     @idle
.else
; ---- the benchmark's game loop: move 128 sprites in a WRAM copy of OAM, then keep the CPU
; busy (multiplies, a running sum) until the NMI has taken the frame ----
        ldx     #0
@init:  txa                     ; sprite i: x = 2i, y = i + 16, tile i & 15, attributes
        asl     a
        sta     f:SHADOW,x
        txa
        lsr     a
        lsr     a
        clc
        adc     #16
        sta     f:SHADOW+1,x
        txa
        lsr     a
        lsr     a
        and     #$0F
        sta     f:SHADOW+2,x
        txa
        and     #$FE
        ora     #$30
        sta     f:SHADOW+3,x
        inx
        inx
        inx
        inx
        cpx     #512
        bne     @init
        ldx     #0
@hi:    lda     #$AA            ; the high table: every sprite large
        sta     f:SHADOW+512,x
        inx
        cpx     #32
        bne     @hi
@game:  ldx     #0
@move:  lda     f:SHADOW,x      ; x += 1 + (i & 3), y wobbles with the frame
        sec
        adc     #0
        sta     f:SHADOW,x
        txa
        lsr     a
        lsr     a
        and     #$03
        clc
        adc     f:SHADOW,x
        sta     f:SHADOW,x
        lda     frame
        and     #$08
        beq     @up
        lda     f:SHADOW+1,x
        inc     a
        bra     @sety
@up:    lda     f:SHADOW+1,x
        dec     a
@sety:  sta     f:SHADOW+1,x
        inx
        inx
        inx
        inx
        cpx     #512
        bne     @move
        lda     frame
        sta     $02
@busy:  lda     $03             ; work until the next frame: a product into a running sum
        sta     $4202
        lda     $02
        sta     $4203
        nop
        nop
        lda     $4216
        clc
        adc     $04
        sta     $04
        inc     $03
        lda     frame
        cmp     $02
        beq     @busy
        jmp     @game
.endif

; ---- NMI: scroll a pixel a frame ----
nmi:    rep     #$30
        pha
        phx
        sep     #$20
        .a8
        lda     $4210
        inc     frame
        lda     frame
        sta     $210D           ; BG1 HOFS and M7HOFS
        stz     $210D
        sta     $210E           ; BG1 VOFS and M7VOFS
        stz     $210E
        eor     #$FF
        sta     $210F           ; BG2 HOFS
        stz     $210F
        lda     frame
        lsr     a
        sta     $2111           ; BG3 HOFS
        stz     $2111
.ifdef BENCH
        lda     frame           ; mode 7: zoom and shear with the frame
        sta     $211B
        lda     #$01
        sta     $211B
        lda     frame
        sta     $211C
        stz     $211C
        lda     frame
        eor     #$FF
        sta     $211D
        lda     #$FF
        sta     $211D
        lda     frame
        sta     $211E
        lda     #$01
        sta     $211E
        stz     $2102           ; the sprites from the WRAM copy
        stz     $2103
        lda     #$04
        sta     $4301
        stz     $4300
        ldx     #.loword(SHADOW)
        stx     $4302
        lda     #^SHADOW
        sta     $4304
        ldx     #544
        stx     $4305
        lda     #$01
        sta     $420B
.endif
        rep     #$30
        plx
        pla
        sep     #$20
irq:    rti

; dma_rom: DMA Y bytes from bank 0 address X to B-bus register A (one register, increment)
dma_rom:
        sta     $4301
        stz     $4300
        bra     dma_go
; dma_vram: Y bytes from bank 0 address X to $2118/$2119
dma_vram:
        lda     #$18
        sta     $4301
        lda     #$01
        sta     $4300
dma_go: stx     $4302
        stz     $4304
        sty     $4305
        lda     #$01
        sta     $420B
        rts

        spc_upload_code

        .segment "RODATA"
palette:
        .repeat 256, i
        .word   (i & 31) | (((i * 3 + 7) & 31) << 5) | (((i * 7 + 3) & 31) << 10)
        .endrepeat

; the tiles (gen_tiles.py states their pixels)
        .include "scene_tiles.inc"

; OAM: 24 sprites (x, y, tile, attributes), the other 104 below the screen; the high table
; gives sprites 3, 7, 11, ... the large size and sprite 23 x bit 8 (x = -8 + ...)
oam:
        .repeat 24, i
        .byte   (i * 11 + 5) & 255, 30 + (i .mod 6) * 30, (i * 2) & 15
        .byte   ((i & 7) << 1) | ((i & 3) << 4) | ((i & 4) << 4) | ((i & 8) << 4)
        .endrepeat
        .repeat 104
        .byte   0, 240, 0, 0
        .endrepeat
        .byte   $80, $80, $80, $80, $80, $C0
        .res    26, $00
grad_tab:
        .repeat 28, i
        .byte   8, $80 | i      ; 8 lines each: blue rises
        .endrepeat
        .byte   0
mode_tab:
        .byte   $7F, $09        ; lines 1-127: mode 1
        .byte   $17, $09        ; lines 128-150
        .byte   $01, $07        ; then mode 7
        .byte   0

; the SPC700 program (our macro pack), assembled for $0200
spc_prog:
        .include "spc700.inc"
        .org    $0200
        mov     x, #0
@reg:   mov     a, !spc_regs+x          ; register, value pairs until $FF
        cmp     a, #$FF
        beq     @play
        mov     $F2, a
        inc     x
        mov     a, !spc_regs+x
        mov     $F3, a
        inc     x
        bra     @reg
@play:  mov     $FA, #0                 ; timer 0: 32 ms a period
        mov     $F1, #$01
        mov     $F2, #$03               ; pitch high byte
        mov     $F3, #$04
@note:  mov     $F2, #$4C               ; key on voice 0
        mov     $F3, #$01
        mov     y, #3
@on:    mov     a, $FD
        beq     @on
        dbnz    y, @on
        mov     $F2, #$5C               ; key off
        mov     $F3, #$01
        mov     y, #2
@off:   mov     a, $FD
        beq     @off
        dbnz    y, @off
        mov     $F2, #$5C
        mov     $F3, #$00
        mov     $F2, #$03               ; the next note a little higher
        mov     a, $F3
        inc     a
        and     a, #$0F
        or      a, #$04
        mov     $F3, a
        bra     @note
spc_regs:
        .byte   $6C, $00                ; FLG: sound on, echo writes on
        .byte   $5D, >spc_dir           ; DIR
        .byte   $00, $50, $01, $30      ; V0VOL
        .byte   $02, $00                ; V0PITCHL
        .byte   $04, $00                ; SRCN 0
        .byte   $05, $8E, $06, $E8      ; ADSR
        .byte   $0C, $60, $1C, $60      ; MVOL
        .byte   $2C, $30, $3C, $30      ; EVOL
        .byte   $0D, $30                ; EFB
        .byte   $4D, $01                ; EON voice 0
        .byte   $6D, $80, $7D, $02      ; ESA $8000, EDL 2
        .byte   $0F, $40, $1F, $20, $2F, $10, $3F, $00, $4F, $00, $5F, $00, $6F, $00, $7F, $00
        .byte   $FF
        .res    (256 - (* & 255)) & 255
spc_dir:
        .word   spc_sample, spc_sample
spc_sample:
        .byte   $B3, $77, $77, $99, $99, $77, $77, $99, $99 ; shift 11, end + loop: a square wave
        spc700_end "65816"
        .reloc
spc_prog_end:
