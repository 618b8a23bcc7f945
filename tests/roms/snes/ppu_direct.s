; ppu_direct.s: gpuvet's own SNES scene for direct colour (CGWSEL bit 0), pinned by its video
; hash in tests/emu/golden.txt. Top to bottom:
;   lines 1-111   mode 3, BG1 (256 colours, 8x8 tiles, 32x32 map at $4000, characters at
;                 $5000) in direct colour: every map entry gives a tile 0-3, palette bits
;                 0-7 (the colour's low red/green/blue bits) and the four flips;
;   lines 112-159 mode 4 (HDMA channel 1 writes BGMODE), the same BG1;
;   lines 160-224 mode 7 in direct colour (no palette bits), scaled by 1/2 and scrolled.
; BG1 is on the main screen and the sub screen; the main screen adds the sub screen at
; half strength in the middle columns (colour window 1, x 96-159), so direct colour goes
; through colour math on both screens. CGRAM holds a plain palette, so a renderer that
; ignores direct colour draws another picture.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET PPU DIRECT"
        snes_vectors reset, nmi, irq

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank

        ; ---- CGRAM: colour i = i * 0x0421 & 0x7FFF (greys), never the direct colours ----
        stz     $2121
        rep     #$20
        ldx     #0
@pal:   txa
        asl     a
        asl     a
        asl     a
        asl     a
        asl     a
        ora     #$0003
        sep     #$20
        sta     $2122
        xba
        sta     $2122
        rep     #$20
        inx
        cpx     #256
        bne     @pal

        ; ---- VRAM words 0-$3FFF: mode 7 (map byte = w & $FF, pixel byte = w ^ w >> 6) ----
        sep     #$20
        lda     #$80
        sta     $2115
        rep     #$20
        ldx     #0
        stx     $2116
@m7:    txa
        lsr     a
        lsr     a
        lsr     a
        lsr     a
        lsr     a
        lsr     a
        sta     $00
        txa
        eor     $00
        xba
        and     #$FF00
        sta     $00
        txa
        and     #$00FF
        ora     $00
        sta     $2118
        inx
        cpx     #$4000
        bne     @m7

        ; ---- BG1 map at $4000: entry n = tile n & 3, palette n & 7, flips from n bits 4-5 ----
        ldx     #$4000
        stx     $2116
        ldx     #0
@map:   txa
        xba
        asl     a
        asl     a               ; n << 10
        sta     $00
        txa
        ora     $00
        and     #$DC03
        sta     $2118
        inx
        cpx     #$0400
        bne     @map

        ; ---- BG1 characters at $5000: 4 tiles of 32 words, word i = i * $3B1D ^ i << 5 ----
        ldx     #$5000
        stx     $2116
        ldx     #0
@chr:   stx     $02             ; i * $3B1D by adding
        lda     #0
@mul:   cpx     #0
        beq     @mdone
        clc
        adc     #$3B1D
        dex
        bra     @mul
@mdone: ldx     $02
        sta     $00
        txa
        asl     a
        asl     a
        asl     a
        asl     a
        asl     a
        eor     $00
        sta     $2118
        inx
        cpx     #128
        bne     @chr
        sep     #$20

        ; ---- registers ----
        lda     #$03
        sta     $2105           ; mode 3
        lda     #$40
        sta     $2107           ; BG1 map $4000, 32x32
        lda     #$05
        sta     $210B           ; BG1 characters at $5000
        lda     #$FC            ; scroll: BG1 (248, 3) through the two-write latch, mode 7 (252, 3)
        sta     $210D
        stz     $210D
        lda     #$03
        sta     $210E
        stz     $210E
        stz     $211A           ; mode 7: wrap, no flips
        lda     #$80            ; A = D = 0.5 (scaled by 2), B = C = 0
        sta     $211B
        stz     $211B
        stz     $211C
        stz     $211C
        stz     $211D
        stz     $211D
        lda     #$80
        sta     $211E
        stz     $211E
        stz     $211F           ; centre (0, 0)
        stz     $211F
        stz     $2120
        stz     $2120
        lda     #$01
        sta     $212C           ; main screen: BG1
        sta     $212D           ; sub screen: BG1
        lda     #96
        sta     $2126           ; window 1: x 96-159
        lda     #159
        sta     $2127
        lda     #$20
        sta     $2125           ; the colour window is window 1
        lda     #$23
        sta     $2130           ; CGWSEL: math only inside the colour window, sub screen, direct colour
        lda     #$41
        sta     $2131           ; CGADSUB: add, half, on BG1
        hdma1_show_idle $05, mode_tab   ; HDMA channel 1: BGMODE by lines

nmi:    rti
irq:    rti

        .segment "RODATA"
mode_tab:
        .byte   $6F, $03        ; lines 1-111: mode 3
        .byte   $30, $04        ; lines 112-159: mode 4
        .byte   $01, $07        ; then mode 7
        .byte   0
