; ppu_bright.s: gpuvet's own SNES scene for the master brightness (INIDISP bits 0-3),
; checked pixel by pixel against tests/snes/ppu_model.py and pinned in tests/emu/golden.txt.
; The backdrop is full white (CGRAM 0 = $7FFF) and nothing else is drawn; HDMA channel 1
; writes INIDISP so that picture lines 1-14 have brightness 0, lines 15-28 brightness 1, and
; so on to brightness 15 at lines 211-224. The documented curve: brightness 0 is black,
; N = 1-15 scales the colour by (N + 1) / 16 (level 3 of full white: 63 of 255).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET PPU BRIGHT"
        snes_vectors reset, nmi, irq

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank

        stz     $2121           ; CGRAM 0: white
        lda     #$FF
        sta     $2122
        lda     #$7F
        sta     $2122
        stz     $212C           ; no layer on either screen: the backdrop only
        stz     $212D
        stz     $2130
        stz     $2131
        hdma1_show_idle $00, bright_tab ; HDMA channel 1: INIDISP by lines

nmi:    rti
irq:    rti

        .segment "RODATA"
bright_tab:
        .repeat 16, b
        .byte   14, b           ; 14 lines of brightness b
        .endrepeat
        .byte   0
