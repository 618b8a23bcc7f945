; opt_test.s: gpuvet's own SNES scene for offset-per-tile (modes 2, 4 and 6: BG3's map as
; per-column scroll values for BG1 and BG2), checked pixel by pixel against
; tests/snes/ppu_model.py and pinned in tests/emu/golden.txt. Top to bottom (HDMA channel 1
; writes BGMODE): lines 1-111 mode 2, lines 112-167 mode 4, lines 168-224 mode 6 (drawn
; 256 wide). BG1 is shown in x 0-127 and BG2 in x 128-255 (window 1 masks each on the
; other side). All of VRAM is a pseudo-random pattern (word i = a ^ a >> 5, a = $1357 +
; i * $9E37), so a column drawn with another scroll shows other pixels; the BG maps are that
; pattern too (every tile number, flip and palette). BG3's map rows 2 and 3 hold the
; offsets (offset_rows: enable bits 13/14 and mode 4's bit 15 differ from column to column)
; and BG3's scroll ($1A, $16) points at them: the first offset entry is map column 3, the
; entries wrap at column 32, and BG3's fine scroll (2, 6) is ignored.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET PPU OPT"
        snes_vectors reset, nmi, irq

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank

        ; ---- VRAM: word i = a ^ a >> 5, a = $1357 + i * $9E37 (16 bits) ----
        vram_pattern

        ; ---- BG3's map rows 2 and 3 (words $0840-$087F): the offsets ----
        ldx     #$0840
        stx     $2116
        ldx     #0
@rows:  lda     offset_rows,x
        sta     $2118
        inx
        inx
        cpx     #128
        bne     @rows

        ; ---- CGRAM: colour j = ($0C63 + j * $2E1B) & $7FFF ----
        cgram_pattern

        ; ---- registers ----
        lda     #$02
        sta     $2105           ; mode 2 (HDMA from line 1 on)
        stz     $2107           ; BG1 map $0000, 32x32
        lda     #$04
        sta     $2108           ; BG2 map $0400, 32x32
        lda     #$08
        sta     $2109           ; BG3 map $0800, 32x32: the offsets
        lda     #$22
        sta     $210B           ; BG1 and BG2 characters at $2000
        lda     #$03            ; BG1 scroll ($103, $002): low byte, then high byte
        sta     $210D
        lda     #$01
        sta     $210D
        lda     #$02
        sta     $210E
        stz     $210E
        lda     #$10            ; BG2 scroll ($010, $3F9)
        sta     $210F
        stz     $210F
        lda     #$F9
        sta     $2110
        lda     #$03
        sta     $2110
        lda     #$1A            ; BG3 scroll ($01A, $016): offset entries from column 3, row 2
        sta     $2111
        stz     $2111
        lda     #$16
        sta     $2112
        stz     $2112
        stz     $2126           ; window 1: x 0-127
        lda     #127
        sta     $2127
        lda     #$23
        sta     $2123           ; BG1 masked outside window 1, BG2 inside
        stz     $212A
        lda     #$03
        sta     $212C           ; main screen: BG1, BG2
        sta     $212E           ; their windows on the main screen
        stz     $212D
        stz     $212F
        stz     $2130
        stz     $2131
        hdma1_show_idle $05, bgmode_tab   ; HDMA channel 1: BGMODE by lines

nmi:    rti
irq:    rti

        .segment "RODATA"
; BG3's map row 2, column t: value t * 37 (10 bits), BG1 unless t mod 3 = 0, BG2 unless
; t mod 4 = 1, bit 15 (mode 4: vertical) for odd t; row 3 (modes 2 and 6: vertical):
; value t * 11 + 5, BG1 unless t mod 5 = 2, BG2 unless t mod 3 = 1
offset_rows:
        .repeat 32, t
        .word   ((t * 37) & $3FF) | ((t .mod 3) <> 0) * $2000 | ((t .mod 4) <> 1) * $4000 | (t & 1) * $8000
        .endrepeat
        .repeat 32, t
        .word   ((t * 11 + 5) & $3FF) | ((t .mod 5) <> 2) * $2000 | ((t .mod 3) <> 1) * $4000
        .endrepeat
bgmode_tab:
        .byte   $6F, $02        ; lines 1-111: mode 2
        .byte   $38, $04        ; lines 112-167: mode 4
        .byte   $01, $06        ; then mode 6
        .byte   0
