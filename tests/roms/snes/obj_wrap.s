; obj_wrap.s: gpuvet's own SNES scene for sprites past Y = 255, checked pixel by pixel
; against tests/snes/ppu_model.py. A sprite's row on screen line L (1-224) is (L - 1 - Y)
; mod 256, so a sprite whose rows run past line 256 goes on at the top (fullsnes, OBSEL:
; "OBJs with 64-pixel height may wrap from lower to upper screen border", in 224-line mode;
; the sizes here are 32 and 8). OBSEL size 1 (8x8 / 32x32); sprite 0: 32x32 at Y 240, X 100
; (rows 16-31 on lines 1-16); sprite 1: 32x32 at Y 200, X 20 (rows 0-23 on lines 201-224,
; nothing at the top); sprite 2: 8x8 at Y 252, X 180 (rows 4-7 on lines 1-4); the other 125
; are 8x8 at Y 224 (on no line). The 32x32 tiles are solid colour 1-4 by tile row, the 8x8
; one colour 5 (OBJ palette 0), the backdrop black.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET OBJ WRAP"
        snes_vectors reset, nmi, irq

; tile N, COLOUR: the solid 4bpp OBJ tile N (base word $0000) of that colour (a8, i16)
.macro solid n, colour
        .local rows, rows2
        ldx     #(n) * 16
        stx     $2116
        ldy     #8
rows:   lda     #((colour) & 1) * $FF
        sta     $2118
        lda     #(((colour) >> 1) & 1) * $FF
        sta     $2119
        dey
        bne     rows
        ldy     #8
rows2:  lda     #(((colour) >> 2) & 1) * $FF
        sta     $2118
        lda     #(((colour) >> 3) & 1) * $FF
        sta     $2119
        dey
        bne     rows2
.endmacro

.macro obj px, py, tile
        lda     #px
        sta     $2104
        lda     #py
        sta     $2104
        lda     #tile
        sta     $2104
        lda     #$30            ; priority 3, palette 0, no flip
        sta     $2104
.endmacro

        snes_start
        lda     #$80
        sta     $2115
        .repeat 4, r
        .repeat 4, c
        solid   r * 16 + c, r + 1
        .endrepeat
        .endrepeat
        solid   4, 5
        lda     #$20
        sta     $2101           ; OBSEL: 8x8 / 32x32, tiles at word $0000
        stz     $2102           ; OAM address 0
        stz     $2103
        obj     100, 240, 0
        obj     20, 200, 0
        obj     180, 252, 4
        ldx     #125
@off:   obj     0, 224, 0
        dex
        bne     @off
        lda     #$0A            ; high table: sprites 0 and 1 large, X bit 8 clear
        sta     $2104
        ldx     #31
@hi:    stz     $2104
        dex
        bne     @hi
        lda     #128            ; CGRAM 128-133: black, then the five colours
        sta     $2121
        ldx     #0
@pal:   lda     colours,x
        sta     $2122
        inx
        cpx     #12
        bne     @pal
        stz     $2121           ; backdrop black
        stz     $2122
        stz     $2122
        lda     #$10
        sta     $212C           ; sprites only
        stz     $212D
        stz     $2130
        stz     $2131
        lda     #$0F
        sta     $2100
@idle:  bra     @idle

nmi:    rti
irq:    rti

        .segment "RODATA"
colours: .word  $0000, $001F, $03E0, $7C00, $7FE0, $03FF ; black, red, green, blue, cyan, yellow
