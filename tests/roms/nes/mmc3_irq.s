; mmc3_irq.s: the MMC3 scanline-IRQ split of gpuvet (mapper 4, 32 KiB PRG, 16 KiB CHR,
; horizontal mirroring set through $A000). Background tiles come from CHR bank register R0
; (a 2 KiB bank at $0000), sprites from $1000 (so A12 rises once per line, at the sprite
; fetches). Every frame the NMI selects CHR bank 0 for R0, scroll X = 0, and arms the IRQ
; with latch 120. The counter is reloaded on the pre-render line and reaches 0 on line 119;
; the IRQ handler then switches R0 to bank 8 (the second tile set: lines from 120 on) and
; writes scroll X = 16 (lines from 121 on, after the next horizontal copy). The nametable
; holds tile (7x + 3y) & $7F, except columns 0-1 which hold tile 0, identical in both sets,
; so the exact dot of the bank switch around the end of line 119 does not show. The ROM
; checks that exactly one IRQ comes per frame (status 1) and reports 0 after 8 frames;
; tests/nes/test_nes_mmc3.c draws the expected picture from this description.

.include "common.inc"
NES2_HEADER 4, 2, 2, 0

.segment "ZEROPAGE"
frames:   .res 1
irqs:     .res 1
val:      .res 1
rowbase:  .res 1

.segment "CODE"

reset:
    sta $E000               ; MMC3 IRQ off (any value)
    lda #1
    sta $A000               ; horizontal mirroring
    lda #$80
    sta $A001               ; PRG-RAM on (before the status is written there)
    ldx #5                  ; R0-R5 = 0, 2, 4, 5, 6, 7: the first 8 KiB of CHR
:   stx $8000
    lda chr_banks,x
    sta $8001
    dex
    bpl :-
    RESET_START

    ; nametable: tile (7x + 3y) & $7F, columns 0-1 tile 0; attributes 53 i + 11
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #0
    sta rowbase
    ldy #30
@row:
    lda #0
    sta PPUDATA
    sta PPUDATA
    lda rowbase
    clc
    adc #14                 ; columns 0-1 skipped: start at 7 * 2
    sta val
    ldx #30
@col:
    lda val
    and #$7F
    sta PPUDATA
    clc
    adc #7
    sta val
    dex
    bne @col
    lda rowbase
    clc
    adc #3
    sta rowbase
    dey
    bne @row
    lda #11
    ldx #64
@attr:
    sta PPUDATA
    clc
    adc #53
    dex
    bne @attr
    WRITE_PALETTE palette
    ldx #0                  ; no visible sprites (all below the screen)
    lda #$FF
:   sta $0200,x
    inx
    bne :-

    PRINT "MMC3: one scanline IRQ per frame, CHR bank and scroll split at line 120"
    lda #$88                ; NMI on, sprites from $1000, background from $0000
    sta PPUCTRL
    cli
main:
    lda frames
    cmp #10
    bcc main
    PASS
hang:
    jmp hang

nmi:
    pha
    lda #$02
    sta OAMDMA
    lda frames
    cmp #3                  ; from the third frame on: one IRQ in the frame before
    bcc :+
    lda irqs
    cmp #1
    beq :+
    PRINT " / IRQs in a frame: "
    lda irqs
    jsr print_hex
    FAIL 1
    lda #0
    sta PPUMASK
    sta PPUCTRL
    pla
    rti
:   lda #0
    sta irqs
    sta $8000               ; select R0 (mode 0), bank 0 for the top part
    sta $8001
    lda PPUSTATUS
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda #$88
    sta PPUCTRL
    lda #$1E
    sta PPUMASK
    lda #120
    sta $C000               ; latch
    sta $C001               ; reload at the next edge (the pre-render line)
    sta $E001               ; IRQ on
    inc frames
    pla
    rti

irq:
    pha
    lda #8                  ; R0 = bank 8: the second tile set
    sta $8001
    sta $E000               ; acknowledge, IRQ off until the next NMI
    lda PPUSTATUS
    lda #16
    sta PPUSCROLL
    lda #0
    sta PPUSCROLL
    inc irqs
    pla
    rti

chr_banks:
    .byte 0, 2, 4, 5, 6, 7

palette:
    .byte $0F, $00, $10, $30,  $0F, $05, $15, $25,  $0F, $0A, $1A, $2A,  $0F, $02, $12, $22
    .byte $0F, $00, $10, $30,  $0F, $05, $15, $25,  $0F, $0A, $1A, $2A,  $0F, $02, $12, $22

.segment "VECTORS"
    .word nmi, reset, irq

; Tile set A (CHR $0000-$1FFF): tile t row r planes ((17 t + 41 r) ^ t, (5 t + 19 r) ^ $A5).
; Tile set B (CHR $2000-$3FFF): ((23 t) ^ (r * 9) ^ $3C, (t + 61 r) ^ (t >> 2)).
; Tile 0 of both: rows $81, $42, $24, $18, $18, $24, $42, $81 in plane 0, 0 in plane 1.
.segment "CHARS"
.repeat 2, set
  .repeat 512, t
    .if (t & 255) = 0
      .byte $81, $42, $24, $18, $18, $24, $42, $81
      .res 8, 0
    .elseif set = 0
      .repeat 8, r
        .byte <((t * 17 + r * 41) ^ t)
      .endrepeat
      .repeat 8, r
        .byte <((t * 5 + r * 19) ^ $A5)
      .endrepeat
    .else
      .repeat 8, r
        .byte <((t * 23) ^ (r * 9) ^ $3C)
      .endrepeat
      .repeat 8, r
        .byte <((t + r * 61) ^ (t >> 2))
      .endrepeat
    .endif
  .endrepeat
.endrepeat
