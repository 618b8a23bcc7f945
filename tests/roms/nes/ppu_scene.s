; ppu_scene.s: the PPU scene of gpuvet (NROM, vertical mirroring). Every frame shows:
;   * two nametables filled by formula (NT0 tile (x + 3y) & $7F, attributes 27 i;
;     NT1 tile (5x + 7y + 64) & $7F, attributes 45 i + 7), with tile $7F (solid) at NT0
;     (5, 3) and (6, 3) under sprite 0;
;   * 8x16 sprites from the table below: sprite 0 at (40, 30), a row of ten sprites at
;     y = 120 (only the first eight are drawn; the overflow flag must be set), four more
;     with flips and priority at y = 180;
;   * three scroll areas: X = 3 above the sprite 0 hit (line 31), X = 67 from line 32
;     (the hit's split), and from line 161 X = 107, Y = 77 in NT1 (a split written with
;     $2006/$2005/$2005/$2006 at line 160, dot ~290, timed by a counted delay);
;   * the palette below, written to $3F00-$3F1F in order, so the backdrop is the value
;     written to $3F10 ($21): $3F10 mirrors $3F00.
; It checks $2007's read buffer, unbuffered palette reads and the overflow flag itself
; (status 1, 2, 3) and reports status 0 after 8 frames. tests/nes/test_nes_scene.c draws
; the expected picture from the same description and compares it with gpuvet's PNG.

.include "common.inc"
NES2_HEADER 0, 2, 1, 1

.segment "ZEROPAGE"
val:      .res 1
rowbase:  .res 1
frames:   .res 1
nmi_flag: .res 1
errors:   .res 1

.segment "CODE"

reset:
    RESET_START

    ; ---- nametable 0: tile (x + 3y) & $7F, attributes 27 i -------------------------
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #0
    sta rowbase
    ldy #30
@nt0_row:
    lda rowbase
    sta val
    ldx #32
@nt0_col:
    lda val
    and #$7F
    sta PPUDATA
    inc val
    dex
    bne @nt0_col
    lda rowbase
    clc
    adc #3
    sta rowbase
    dey
    bne @nt0_row
    lda #0
    ldx #64
@at0:
    sta PPUDATA
    clc
    adc #27
    dex
    bne @at0
    lda #$20                ; the solid tile under sprite 0
    sta PPUADDR
    lda #$65
    sta PPUADDR
    lda #$7F
    sta PPUDATA
    sta PPUDATA

    ; ---- nametable 1: tile (5x + 7y + 64) & $7F, attributes 45 i + 7 ---------------
    lda #$24
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #64
    sta rowbase
    ldy #30
@nt1_row:
    lda rowbase
    sta val
    ldx #32
@nt1_col:
    lda val
    and #$7F
    sta PPUDATA
    clc
    adc #5
    sta val
    dex
    bne @nt1_col
    lda rowbase
    clc
    adc #7
    sta rowbase
    dey
    bne @nt1_row
    lda #7
    ldx #64
@at1:
    sta PPUDATA
    clc
    adc #45
    dex
    bne @at1

    ; ---- $2007 reads: nametables through the buffer, the palette directly --------------
    lda #$20
    sta PPUADDR
    lda #$21                ; NT0 (1, 1): tile 4
    sta PPUADDR
    lda PPUDATA             ; the stale buffer
    lda PPUDATA
    cmp #4
    beq :+
    PRINT "$2007 read: the buffer did not hold NT0 (1,1)"
    FAIL 1
    jmp hang
:   lda PPUDATA
    cmp #5
    beq :+
    PRINT "$2007 read: NT0 (2,1) wrong"
    FAIL 1
    jmp hang
:
    ; ---- palette (the $3F10 write lands on $3F00) --------------------------------------
    WRITE_PALETTE palette
    lda #$3F
    sta PPUADDR
    lda #$01
    sta PPUADDR
    lda PPUDATA             ; palette reads are not buffered
    and #$3F
    cmp palette+1
    beq :+
    PRINT "$2007 read of $3F01 was buffered"
    FAIL 2
    jmp hang
:   lda #$3F
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda PPUDATA
    and #$3F
    cmp palette+$10
    beq :+
    PRINT "$3F10 does not mirror $3F00"
    FAIL 2
    jmp hang
:
    ; ---- OAM in RAM page 2 -------------------------------------------------------------
    ldx #0
:   lda #$FF
    sta $0200,x
    inx
    bne :-
    ldx #0
:   lda sprites,x
    sta $0200,x
    inx
    cpx #sprites_end - sprites
    bne :-

    PRINT "PPU scene: 8 frames drawn; sprite 0 hit, overflow flag, $2007 buffer and palette mirror checked"
    lda #$A0                ; NMI on, 8x16 sprites, background from $0000
    sta PPUCTRL

main:
    lda #0
    sta nmi_flag
:   lda nmi_flag
    beq :-
    lda frames
    cmp #2
    bcc main                ; the first frames after enabling rendering: no split yet
:   bit PPUSTATUS           ; wait for the pre-render line to clear the hit flag
    bvs :-
hit:
    bit PPUSTATUS           ; sprite 0 hit on line 31
    bvc hit
    lda #67                 ; split 1: X = 67 from line 32
    sta PPUSCROLL
    lda #0
    sta PPUSCROLL
    jsr delay               ; 14704 cycles
    lda #(1 << 2)           ; split 2 at line 160: NT1, Y = 77, X = 107
    sta PPUADDR
    lda #77
    sta PPUSCROLL
    lda #107
    sta PPUSCROLL
    lda #((77 & $38) << 2) | (107 >> 3)
    sta PPUADDR
    lda PPUSTATUS           ; line 160: the overflow flag (line 121's ten sprites) is up
    and #$20
    bne :+
    PRINT " / no sprite overflow"
    FAIL 3
    jmp hang
:   lda frames
    cmp #8
    bne main
    PASS
    jmp main

hang:
    jmp hang

nmi:
    pha
    lda #$02                ; OAM DMA from page 2
    sta OAMDMA
    lda PPUSTATUS           ; reset the write toggle, then X = 3, Y = 0, NT0
    lda #3
    sta PPUSCROLL
    lda #0
    sta PPUSCROLL
    lda #$A0
    sta PPUCTRL
    lda #$1E                ; background and sprites, left column too
    sta PPUMASK
    inc frames
    lda #1
    sta nmi_flag
    pla
irq:
    rti

palette:
    .byte $0F, $01, $11, $21,  $0F, $06, $16, $26,  $0F, $09, $19, $29,  $0F, $0C, $1C, $2C
    .byte $21, $14, $24, $34,  $0F, $17, $27, $37,  $0F, $1A, $2A, $3A,  $0F, $12, $22, $32

; y, tile, attribute, x
sprites:
    .byte 30, $FE, $00, 40                      ; 0: solid, its top row hits the solid tiles
    .byte 120, $81, $00, 8                      ; 1-10: one line, ten sprites
    .byte 120, $83, $01, 32
    .byte 120, $85, $02, 56
    .byte 120, $87, $23, 80                     ; behind the background
    .byte 120, $89, $40, 104                    ; flipped horizontally
    .byte 120, $8B, $81, 128                    ; flipped vertically
    .byte 120, $8D, $C2, 152
    .byte 120, $8F, $03, 176
    .byte 120, $91, $00, 200                    ; ninth and tenth: not drawn
    .byte 120, $93, $01, 224
    .byte 180, $A0, $00, 60
    .byte 180, $A2, $41, 90
    .byte 186, $A5, $A2, 95                     ; overlaps the one before it (lower index wins)
    .byte 180, $A7, $23, 250                    ; partly off the right edge
sprites_end:

; 14704 cycles with the JSR and RTS: 6 + (2 + 11 * 1281 - 1) + (2 + 5 * 119 - 1) + 4 + 6.
; The loops sit in one page, so no branch crosses a page.
.segment "ALIGNED"
delay:
    ldx #11                 ; 2
@outer:
    ldy #255                ; 2
@inner:
    dey                     ; 2
    bne @inner              ; 3 / 2
    dex                     ; 2
    bne @outer              ; 3 / 2
    ldy #119                ; 2
@tail:
    dey
    bne @tail
    nop
    nop
    rts

.segment "VECTORS"
    .word nmi, reset, irq

; Pattern table 0: tile t row r planes ((29 t + 37 r) ^ 2t, (13 t + 53 r) ^ 32 r), except
; tile $7F (solid, colour 3) and $FE (solid, colour 1). Table 1: ((11 t) ^ 69 r ^ $5A,
; (7 t + r) ^ $33). The test reads them from the ROM file.
.segment "CHARS"
.repeat 256, t
  .if t = $7F
    .res 16, $FF
  .elseif t = $FE
    .res 8, $FF
    .res 8, $00
  .else
    .repeat 8, r
      .byte <((t * 29 + r * 37) ^ (t << 1))
    .endrepeat
    .repeat 8, r
      .byte <((t * 13 + r * 53) ^ (r << 5))
    .endrepeat
  .endif
.endrepeat
.repeat 256, t
  .repeat 8, r
    .byte <((t * 11) ^ (r * $45) ^ $5A)
  .endrepeat
  .repeat 8, r
    .byte <((t * 7 + r) ^ $33)
  .endrepeat
.endrepeat
