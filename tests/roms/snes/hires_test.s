; hires_test.s: gpuvet's own SNES scenes for the frame sizes (docs/SNES.md "Frame sizes"),
; each checked pixel by pixel against tests/snes/ppu_model.py and pinned in
; tests/emu/golden.txt. Assembled four ways (tests/roms/snes/build.sh):
;   hires_m5     (default)       mode 5: BG1 (4bpp, 16x8 tiles) on the main screen, BG2 (2bpp,
;                                16x16 tiles) on the sub screen: a 512x224 frame, the sub
;                                screen's pixels even, the main screen's odd;
;   hires_pseudo (-D PSEUDO)     mode 1 with pseudo-hires (SETINI bit 3): BG1 main, BG2 sub
;                                at 256 dots each, interleaved into 512; colour math (add,
;                                halved, sub screen operand) on BG1's pixels;
;   hires_il     (-D INTERLACE)  mode 5 with interlace, OBJ interlace and overscan (SETINI
;                                $07): a 512x478 frame, BG lines 2 * line + field, sprites
;                                at half height;
;   overscan     (-D OVERSCAN)   mode 1 lo-res with overscan (SETINI bit 2): a 256x239 frame,
;                                a sprite in lines 227-239;
;   hires_mosaic (-D MOSAIC)     hires_m5 with mosaic size 3 on BG1 and BG2 (MOSAIC $23):
;                                blocks of 6 half-pixels by 3 lines from line 1, each the
;                                block's leftmost (even) half-pixel of its top line;
;   hires_il_mosaic (-D INTERLACE -D MOSAIC)  hires_il with the same mosaic: blocks of 6
;                                half-pixels by 3 lines in each field, both fields showing
;                                field 0's BG line (2 * the block's top line).
; Video memory is a fixed pseudo-random pattern (as opt_test.s): VRAM word i = a ^ a >> 5,
; a = $1357 + i * $9E37; CGRAM colour j = ($0C63 + j * $2E1B) & $7FFF. BG1: map $0000,
; characters $1000, scroll (19, 5); BG2: map $0C00, characters $2000, scroll (7, 33). The
; fixed colour (the sub screen's backdrop) is red 31 + blue 10. Two sprites (OBSEL $00: 8x8
; and 16x16 at $0000): 0 small at (40, 100), tile $10, palette 0; 1 large at (100, 226),
; tile $24, palette 1; both priority 3; the others at Y = 240 (below every picture line).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

.if .defined(PSEUDO)
        snes_header "GPUVET HIRES PSEUDO"
.elseif .defined(MOSAIC) .and .defined(INTERLACE)
        snes_header "GPUVET MOSAIC M5 IL"
.elseif .defined(MOSAIC)
        snes_header "GPUVET MOSAIC M5"
.elseif .defined(INTERLACE)
        snes_header "GPUVET HIRES ILACE"
.elseif .defined(OVERSCAN)
        snes_header "GPUVET OVERSCAN"
.else
        snes_header "GPUVET HIRES MODE 5"
.endif
        snes_vectors reset, nmi, irq

        snes_start

        ; ---- VRAM: word i = a ^ a >> 5, a = $1357 + i * $9E37 (16 bits) ----
        vram_pattern

        ; ---- CGRAM: colour j = ($0C63 + j * $2E1B) & $7FFF ----
        cgram_pattern

        ; ---- OAM: every sprite at Y = 240, then sprites 0 and 1, sprite 1 large ----
        stz     $2102
        stz     $2103
        ldx     #128
@oam:   stz     $2104           ; X 0
        lda     #$F0
        sta     $2104           ; Y 240
        stz     $2104
        stz     $2104
        dex
        bne     @oam
        lda     #$08
        sta     $2104           ; high table: sprite 1 large
        ldx     #31
@oamhi: stz     $2104
        dex
        bne     @oamhi
        stz     $2102
        stz     $2103
        ldx     #0
@spr:   lda     sprites,x
        sta     $2104
        inx
        cpx     #8
        bne     @spr
        stz     $2101           ; OBSEL: 8x8 / 16x16 at $0000

        ; ---- BGs ----
.if .defined(PSEUDO) .or .defined(OVERSCAN)
        lda     #$21            ; mode 1, BG2 16x16
.else
        lda     #$25            ; mode 5, BG2 16x16 (BG1 16x8)
.endif
        sta     $2105
        stz     $2107           ; BG1 map $0000, 32x32
        lda     #$0C
        sta     $2108           ; BG2 map $0C00, 32x32
        lda     #$21
        sta     $210B           ; BG1 characters $1000, BG2 $2000
        lda     #19             ; BG1 scroll (19, 5)
        sta     $210D
        stz     $210D
        lda     #5
        sta     $210E
        stz     $210E
        lda     #7              ; BG2 scroll (7, 33)
        sta     $210F
        stz     $210F
        lda     #33
        sta     $2110
        stz     $2110
.if .defined(INTERLACE) .or .defined(OVERSCAN)
        lda     #$11            ; main screen: BG1 and the sprites
.else
        lda     #$01            ; main screen: BG1
.endif
        sta     $212C
.if .defined(OVERSCAN)
        stz     $212D
.else
        lda     #$02
        sta     $212D           ; sub screen: BG2
.endif
.if .defined(PSEUDO)
        lda     #$02
        sta     $2130           ; colour math with the sub screen
        lda     #$41
        sta     $2131           ; add, halved, on BG1's pixels
.else
        stz     $2130
        stz     $2131           ; no colour math
.endif
.if .defined(MOSAIC)
        lda     #$23
        sta     $2106           ; mosaic size 3 on BG1 and BG2
.endif
        lda     #$3F
        sta     $2132           ; fixed colour: red 31
        lda     #$8A
        sta     $2132           ; blue 10
.if .defined(PSEUDO)
        lda     #$08            ; pseudo-hires
.elseif .defined(INTERLACE)
        lda     #$07            ; interlace, OBJ interlace, overscan
.elseif .defined(OVERSCAN)
        lda     #$04            ; overscan
.else
        lda     #$00
.endif
        sta     $2133
        lda     #$0F
        sta     $2100           ; the screen on, full brightness
@idle:  bra     @idle

nmi:    rti
irq:    rti

        .segment "RODATA"
sprites:
        .byte   40, 100, $10, $30       ; sprite 0: (40, 100), tile $10, priority 3, palette 0
        .byte   100, 226, $24, $32      ; sprite 1: (100, 226), tile $24, priority 3, palette 1
