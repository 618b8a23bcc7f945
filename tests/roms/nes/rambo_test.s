; rambo_test.s: gpuvet's test of Tengen's RAMBO-1 (mapper 64, nes_board_rambo1.c): 128 KiB
; PRG (each 8 KiB bank starts with its tag; code in the last, fixed at $E000), 64 KiB CHR-ROM,
; 8 KiB PRG-RAM for the status. $8000 selects register R (and the modes K, P, C), $8001
; writes it. The checks:
;   1 PRG: R6, R7, RF at $8000, $A000, $C000; with P (bit 6) RF, R6, R7; $E000 the last;
;   2 CHR (read back through $2007): R0/R1 2 KiB banks and R2-R5 1 KiB; with K (bit 5) R0,
;     R8, R1, R9 as four 1 KiB banks; with C (bit 7) the halves swapped;
;   3 mirroring: $A000 = 0 vertical, 1 horizontal;
;   4 the CPU-cycle IRQ ($C001 = 1: a clock every 4 cycles from the write), counted with a
;     10-cycle loop: after $C001 the counter takes the latch plus one, so latch N raises it
;     4 (N + 2) + 1 cycles later: latch 100 takes 20 loops more than latch 50; acknowledged,
;     the next one comes 4 (N + 1) = 204 cycles on (15 or 16 loops between the two, the
;     handler taking 46 cycles); latch 0 raises it once
;     (the counter, reloaded with 0, stays 0); $E000 (disabled), none;
;   5 the A12 IRQ ($C001 = 0) with the background on and the sprites at $1000 (one filtered
;     rise per line, at dot 260): from VBlank plus 2000 cycles, the first rise is on the
;     pre-render line; latch N raises it at the (N + 2)-th rise: latch 5 takes five lines
;     (56 or 57 loops) more than latch 0, and latch 0 at the second rise, line 0: the write
;     lands near dot 335 of line 258, the rise at dot 260 of line 0 is 1289 dots (430
;     cycles) on, the IRQ 2 cycles later, the loops start 16 cycles after the write: 42
;     (40-44 allowed; the MMC3, reloading without the extra clock, would raise it on the
;     pre-render line, 11 loops sooner).
; Then the test screen: the NMI moves the CHR banks every 32 frames and starts the A12
; counter, whose IRQ at line 118 switches banks R2-R5 and the mirroring.

.include "common.inc"
.include "boards.inc"

    NES2_BOARD 64, 0, 8, 8, 0, $07, $00
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1            ; 0 tests, 2 the period test, 1 the screen
n0:       .res 1
bank:     .res 1

; BANK r, value: register r := value (the mode bits 0).
.macro BANK r, value
    lda #r
    sta $8000
    lda #value
    sta $8001
.endmacro

.segment "CODE"

; count_irq: loops of 10 cycles until the IRQ handler records X (A: the count, $FF: none
; in 255).
    COUNT_IRQ

; The latch := A, $C001 := Y (the clock, and the reload), IRQ enabled; then count_irq.
irq_run:
    sta $C000
    sty $C001
    sta $E001
    jmp count_irq

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #0
    sta mode
    sta $E000
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    BANK 6, 3
    BANK 7, 5
    BANK 15, 9
    lda $8000
    EXPECT 3, 1, "R6 at $8000: "
    lda $A000
    EXPECT 5, 1, "R7 at $A000: "
    lda $C000
    EXPECT 9, 1, "RF at $C000: "
    lda #$40                ; P
    sta $8000
    lda $8000
    EXPECT 9, 1, "P: RF at $8000: "
    lda $A000
    EXPECT 3, 1, "P: R6 at $A000: "
    lda $C000
    EXPECT 5, 1, "P: R7 at $C000: "
    lda $E000
    EXPECT 15, 1, "$E000: "
    lda #0
    sta $8000

    ; ---- 2: CHR ------------------------------------------------------------------------
    BANK 0, 9               ; 2 KiB: $0000 bank 8, $0400 bank 9
    BANK 1, 12
    BANK 2, 30
    BANK 5, 33
    BANK 8, 40
    BANK 9, 41
    ldx #$04
    ldy #$00
    jsr chr_peek
    EXPECT 9, 2, "2 KiB R0 at $0400: "
    ldx #$08
    ldy #$00
    jsr chr_peek
    EXPECT 12, 2, "2 KiB R1 at $0800: "
    ldx #$1C
    ldy #$00
    jsr chr_peek
    EXPECT 33, 2, "R5 at $1C00: "
    lda #$20                ; K: R0, R8, R1, R9
    sta $8000
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 9, 2, "K: R0 at $0000: "
    ldx #$04
    ldy #$00
    jsr chr_peek
    EXPECT 40, 2, "K: R8 at $0400: "
    ldx #$0C
    ldy #$00
    jsr chr_peek
    EXPECT 41, 2, "K: R9 at $0C00: "
    lda #$A0                ; K and C: the halves swapped
    sta $8000
    ldx #$14
    ldy #$00
    jsr chr_peek
    EXPECT 40, 2, "K, C: R8 at $1400: "
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 30, 2, "K, C: R2 at $0000: "
    lda #0
    sta $8000

    ; ---- 3: mirroring ------------------------------------------------------------------
    lda #0
    sta $A000               ; vertical
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    NT_PEEK $28
    EXPECT $5A, 3, "vertical $2820 "
    lda #1
    sta $A000               ; horizontal
    NT_PEEK $24
    EXPECT $5A, 3, "horizontal $2420 "
    lda #0
    sta $A000

    ; ---- 4: the cycle IRQ ----------------------------------------------------------------
    lda #50
    ldy #1
    jsr irq_run
    sta n0
    lda #100
    ldy #1
    jsr irq_run
    sec
    sbc n0
    EXPECT 20, 4, "latch 100 - latch 50: loops "
    lda #2                  ; the period: the first IRQ acknowledged, the next one recorded
    sta mode
    lda #50
    ldy #1
    jsr irq_run
    sec
    sbc k
    sta n0
    cmp #15                 ; 204 cycles less the handler's 46 (IRQ entry and RTI in)
    bcc :+
    cmp #17
    bcc :++
:   PRINT "period, latch 50: loops "
    lda n0
    jsr print_hex
    lda #4
    jmp fail_done
:   lda #2                  ; latch 0: one IRQ, then the counter stays 0
    sta mode
    lda #0
    ldy #1
    jsr irq_run
    EXPECT $FF, 4, "latch 0, a second IRQ after loops "
    lda #0
    sta mode
    lda #30
    sta $C000
    lda #1
    sta $C001
    sta $E000               ; disabled
    jsr count_irq
    EXPECT $FF, 4, "IRQ disabled: loops "

    ; ---- 5: the A12 IRQ ------------------------------------------------------------------
    lda #0
    jsr a12_run
    sta n0
    lda #5
    jsr a12_run
    sec
    sbc n0
    sta k
    cmp #56
    bcc :+
    cmp #58
    bcc :++
:   PRINT "A12 latch 5 - latch 0: loops "
    lda k
    jsr print_hex
    lda #5
    jmp fail_done
:   lda n0
    cmp #40
    bcc :+
    cmp #45
    bcc :++
:   PRINT "A12 latch 0: loops "
    lda n0
    jsr print_hex
    lda #5
    jmp fail_done
:   lda #0
    sta PPUMASK

    PRINT "RAMBO-1 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------------
    SCREEN_START
    lda #$88                ; NMI on, sprites (not shown) at $1000: an A12 rise per line
    sta PPUCTRL
:   jmp :-

; The A12 count with latch A: rendering on from VBlank, 2000 cycles on the $C001 write,
; then count_irq (A: its loops).
a12_run:
    pha
    lda #$08                ; sprites at $1000, no NMI
    sta PPUCTRL
    jsr wait_vblank
    lda #$0A                ; the background on
    sta PPUMASK
    ldy #2                  ; 2 x (200 x 5 cycles)
:   ldx #200
:   dex
    bne :-
    dey
    bne :--
    pla
    ldy #0
    jsr irq_run
    pha
    lda #0
    sta $E000
    sta PPUMASK
    pla
    rts

nmi:
    PUSH_AXY
    inc frame
    lda #0
    sta $A000               ; vertical above the split
    lda frame               ; CHR banks: R0-R5 from 8j, j = frame / 32 mod 8
    lsr a
    lsr a
    and #$38
    sta bank
    ldx #0
:   stx $8000
    txa
    asl a
    clc
    adc bank
    sta $8001
    inx
    cpx #6
    bne :-
    lda #118                ; the split: the 120th rise from here, line 118
    sta $C000
    lda #0
    sta $C001
    sta $E001
    POP_AXY_RTI

irq:
    pha
    lda mode
    bne l_other
    stx irq_x               ; a test: record the loop count, IRQ off
    sta $E000
    lda #1
    sta irq_hit
    pla
    rti
l_other:
    cmp #2
    bne l_screen
    sta $E000               ; the period test's first IRQ: acknowledged and enabled again;
    sta $E001               ; its loops into k, the next one ends the count
    stx k
    lda #0
    sta mode
    pla
    rti
l_screen:
    txa
    pha
    sta $E000               ; acknowledged, off until the next NMI
    lda frame
    and #$40                ; horizontal below the split from frame 64 on
    asl a
    rol a
    rol a
    sta $A000
    ldx #2                  ; R2-R5 move on by 32
:   stx $8000
    txa
    asl a
    clc
    adc bank
    eor #$20
    sta $8001
    inx
    cpx #6
    bne :-
    pla
    tax
    pla
    rti

.segment "VECTORS"
    .word nmi, reset, irq
