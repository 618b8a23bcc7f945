; midline_test.s: gpuvet's own SNES scene for PPU register writes inside a line (docs/SNES.md,
; "Mid-line writes"): the picture changes at the pixel the write reaches (pixel x at dot
; x + 22, fullsnes "SNES Timing"), not from the next line. Checked pixel by pixel against
; tests/snes/ppu_model.py (midline) and pinned in tests/emu/golden.txt.
; Mode 1; the backdrop grey (CGRAM 0 = $2108), colour math adds the fixed colour (0) to it
; (CGADSUB $20); BG1's tile 1 has only its leftmost pixel set (CGRAM 1, white), in the map
; rows 22-28 (picture lines 175-223). An H-IRQ every line at HTIME 60: the handler first
; writes its band's register twice (a byte that changes nothing visible, then the timed
; one: a fixed delay after the IRQ, so at about the same dot every line), reads V for the
; next line's band (16 lines each, table `bands`), waits for H-blank and there puts the
; register back. Bands with a write (picture lines): 16-31 INIDISP brightness 15 -> 7;
; 48-63 INIDISP forced blank; 80-95 CGRAM 0 -> red (the low byte latched, then the high
; byte's write); 112-127 COLDATA red 31 (added to the grey); 144-159 CGADSUB half; 176-191
; BG1HOFS 0 -> 4 (the low byte 4, then the high byte 0); 192-207 TM BG1 off; 208-223 BGMODE
; 1 -> 0 (BG1 2bpp: tile 1 blank). The model wants each band line as before up to one
; pixel in a window after HTIME - 22, as after from there on, and every other line as
; before.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET MID-LINE"
        snes_vectors reset, nmi, irq

        cur  = $10              ; word: this line's entry in `bands`
        nxt  = $12              ; word: the next line's

        snes_start
        lda     #$80
        sta     $2115           ; VRAM: word steps, after the high byte
        ldx     #$0000
        stx     $2116
        ldx     #$2000
@clr:   stz     $2118           ; VRAM words $0000-$1FFF cleared
        stz     $2119
        dex
        bne     @clr
        ldx     #22 * 32        ; BG1 map (word $0000): rows 22-28 tile 1
        stx     $2116
        ldx     #7 * 32
@map:   lda     #$01
        sta     $2118
        stz     $2119
        dex
        bne     @map
        ldx     #$1010          ; tile 1 at word $1010 (4bpp): plane 0 = leftmost pixel
        stx     $2116
        ldx     #8
@tile:  lda     #$80
        sta     $2118
        stz     $2119
        dex
        bne     @tile
        stz     $2121           ; CGRAM 0 grey $2108, 1 white
        lda     #$08
        sta     $2122
        lda     #$21
        sta     $2122
        lda     #$FF
        sta     $2122
        lda     #$7F
        sta     $2122
        lda     #$01
        sta     $2105           ; mode 1
        stz     $2107           ; BG1 map $0000, 32x32
        sta     $210B           ; BG1 tiles at word $1000
        stz     $210D           ; BG1 scroll 0
        stz     $210D
        stz     $210E
        stz     $210E
        sta     $212C           ; TM: BG1
        stz     $212D
        stz     $2130           ; colour math: the fixed colour ...
        lda     #$20
        sta     $2131           ; ... added to the backdrop
        lda     #$E0
        sta     $2132           ; the fixed colour 0
        ldx     #0              ; band 0 (no write) until the first IRQ looks
        stx     cur
        stx     nxt
        lda     #60
        sta     $4207           ; HTIME 60
        stz     $4208
        lda     #$0F
        sta     $2100           ; the screen on, full brightness
        lda     #$10
        sta     $4200           ; H-IRQ every line
        cli
@idle:  wai
        bra     @idle

nmi:    rti

irq:    ldx     z:cur           ; a8, i16 (the idle loop's): this line's band
        ldy     bands,x         ; its register
        stz     $2121           ; (CGRAM's band: address 0)
        lda     bands+5,x       ; the byte before (CGRAM's low byte, HOFS's first; else
        sta     a:$0000,y       ; the value the register has)
        lda     bands+2,x       ; the timed write
        sta     a:$0000,y
        lda     $4211           ; acknowledge
        lda     $213F           ; the counter read flip-flops reset
        lda     $2137           ; latch H/V
        lda     $213D           ; V, low byte: the next line is picture line V
        and     #$F0
        lsr                     ; (V >> 4) * 8: its band's entry
        sta     z:nxt
@hb:    bit     $4212           ; wait for H-blank
        bvc     @hb
        stz     $2121           ; (CGRAM's band: address 0 again)
        lda     bands+3,x       ; put the register back
        sta     a:$0000,y
        lda     bands+4,x
        sta     a:$0000,y
        lda     z:nxt           ; the next line's band
        sta     z:cur
        rti

        .segment "RODATA"
        ; 16 bands of 16 lines: register, the timed value, the two that put it back, the
        ; byte written just before the timed one, padding
none    = $2134
bands:  .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   $2100           ; 16-31: brightness 7
        .byte   $07, $0F, $0F, $0F, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   $2100           ; 48-63: forced blank
        .byte   $8F, $0F, $0F, $0F, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   $2122           ; 80-95: CGRAM 0 red ($001F: the low byte latched first)
        .byte   $00, $08, $21, $1F, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   $2132           ; 112-127: the fixed colour's red 31
        .byte   $3F, $20, $20, $20, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   $2131           ; 144-159: colour math halved
        .byte   $60, $20, $20, $20, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   $210D           ; 176-191: BG1HOFS 4 (the low byte 4 first)
        .byte   $00, $00, $00, $04, 0, 0
        .word   $212C           ; 192-207: TM without BG1
        .byte   $00, $01, $01, $01, 0, 0
        .word   $2105           ; 208-223: mode 0
        .byte   $00, $01, $01, $01, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
        .word   none
        .byte   0, 0, 0, 0, 0, 0
