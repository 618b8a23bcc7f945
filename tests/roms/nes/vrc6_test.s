; vrc6_test.s: gpuvet's test of the Konami VRC6, built once per wiring (tests/nes/build_roms.sh
; passes BOARD): 24 VRC6a (A0, A1), 26 VRC6b (A1, A0). 128 KiB PRG (each 8 KiB bank starts
; with its tag; code in the last), 64 KiB CHR-ROM, 8 KiB PRG-RAM for the status (enabled by
; $B003 bit 7 before the status is written). Register n of a group sits at REG(n). The checks:
;   1 PRG: $8000-$BFFF the 16 KiB bank of $8000 (8 KiB tags 2k, 2k + 1), $C000 the 8 KiB bank
;     of $C000, $E000 the last;
;   2 CHR: the eight 1 KiB registers read back through $2007; in mode 1 with bit 5 ($B003 =
;     $A1) a 2 KiB bank's halves are the register with its low bit from PPU A10;
;   3 mirroring: $B003 bits 2-3 vertical, horizontal, one-screen upper;
;   4 the VRC IRQ ($F000 latch, $F001 control, $F002 acknowledge), counted with a 10-cycle
;     loop: scanline mode latch $FF, $FE, $FD 11 or 12 loops apart (113 or 114 cycles), cycle
;     mode latch $80 and $00 12 or 13 loops apart (128 cycles).
; Then the sound, measured by test_nes_vrc6.c in the WAV: pulse 1 (duty 8/16, volume 15,
; period 253: 440.4 Hz) until NMI frame 60, then the saw (rate 42, period 253: 503.3 Hz)
; until frame 120, then silence; and the test screen, whose CHR banks the NMI moves every
; 32 frames and a scanline IRQ 120 lines down moves again for the lower part.

.include "common.inc"
.include "boards.inc"
.include "vrc_irq.inc"

.if BOARD = 24
    NES2_BOARD 24, 0, 8, 8, 0, $07, $00
    .define REG(n) (n)
    R1 = 1
    R2 = 2
.else
    R1 = 2
    R2 = 1
    NES2_BOARD 26, 0, 8, 8, 0, $07, $00
    .define REG(n) (((n & 1) << 1) | ((n & 2) >> 1))
.endif
    PRG_TAGS 16
    CHR_DATA 64

STYLE = $B000 + REG(3)
IRQ_ACK = $F000 + REG(2)    ; the IRQ counter (vrc_irq.inc): acknowledge, control, latch
IRQ_CTRL = $F000 + REG(1)
.macro IRQ_LATCH
    sta $F000 + REG(0)
.endmacro

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1            ; 0 tests, 1 the screen
n0:       .res 1
n1:       .res 1
bank_base: .res 1

.segment "CODE"

chr_lo:
    .byte 0, R1, R2, 3, 0, R1, R2, 3
chr_hi:
    .byte $D0, $D0, $D0, $D0, $E0, $E0, $E0, $E0

; CHR register X := A.
chr_write:
    pha
    lda chr_lo,x
    sta tmp
    lda chr_hi,x
    sta tmp+1
    pla
    ldy #0
    sta (tmp),y
    rts

    VRC_COUNT_IRQ

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #$A0                ; PRG-RAM on, A10 rule, CHR mode 0, vertical
    sta STYLE
    lda #0
    sta mode
    sta $9000 + REG(3)      ; sound: no halt, no scaling
    lda #$40
    sta FRAMECTR
    lda #0
    sta PPUCTRL
    sta PPUMASK
    jsr wait_vblank
    jsr wait_vblank
    jsr report_start

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg16:
    lda k
    sta $8000
    asl a
    sta n0
    lda $8000
    cmp n0
    bne prg_bad
    inc n0
    lda $A000
    cmp n0
    bne prg_bad
    inc k
    lda k
    cmp #7
    bne l_prg16
    lda #0
    sta k
l_prg8:
    lda k
    sta $C000
    lda $C000
    cmp k
    bne prg_bad
    inc k
    lda k
    cmp #14
    bne l_prg8
    lda $E000
    EXPECT 15, 1, "$E000 tag "
    jmp chr_tests
prg_bad:
    pha
    PRINT "PRG tag "
    pla
    jsr print_hex
    lda #1
    jmp fail_done

    ; ---- 2: CHR ------------------------------------------------------------------------
chr_tests:
    ldx #0
l_chr:
    stx k
    txa
    asl a
    asl a
    clc
    adc #5                  ; register i := 4i + 5
    jsr chr_write
    lda k
    asl a
    asl a
    tax
    ldy #$00
    jsr chr_peek            ; PPU $0400 i
    sta n0
    lda k
    asl a
    asl a
    clc
    adc #5
    cmp n0
    beq :+
    PRINT "CHR register read "
    lda n0
    jsr print_hex
    lda #2
    jmp fail_done
:   ldx k
    inx
    cpx #8
    bne l_chr
    lda #$A1                ; mode 1: 2 KiB banks, low bit from A10
    sta STYLE
    ldx #0
    lda #9
    jsr chr_write           ; R0 = 9: $0000 bank 8, $0400 bank 9
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 8, 2, "2 KiB mode $0000 "
    ldx #$04
    ldy #$00
    jsr chr_peek
    EXPECT 9, 2, "2 KiB mode $0400 "
    lda #$A0
    sta STYLE

    ; ---- 3: mirroring ------------------------------------------------------------------
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    ldx #$28
    ldy #$20
    jsr chr_peek
    EXPECT $5A, 3, "vertical $2820 "
    lda #$A4
    sta STYLE               ; horizontal
    ldx #$24
    ldy #$20
    jsr chr_peek
    EXPECT $5A, 3, "horizontal $2420 "
    lda #$AC
    sta STYLE               ; one-screen upper: $2000's page 0 write is not there
    ldx #$2C
    ldy #$20
    jsr chr_peek
    EXPECT $00, 3, "one-screen upper $2C20 "
    lda #$A4
    sta STYLE

    ; ---- 4: the VRC IRQ ----------------------------------------------------------------
    VRC_IRQ_CHECKS

    PRINT "VRC6 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the sound: pulse 1 ------------------------------------------------------------
    lda #$7F                ; duty 7 (8 of 16 steps), volume 15
    sta $9000 + REG(0)
    lda #<253
    sta $9000 + REG(1)
    lda #$80 | >253
    sta $9000 + REG(2)

    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    lda #1
    sta mode
    cli
    jsr screen_on
:   jmp :-

    VRC_IRQ_ROUTINES

nmi:
    PUSH_AXY
    inc frame
    lda frame
    cmp #60                 ; pulse 1 off, the saw on
    bne :+
    lda #0
    sta $9000 + REG(2)
    lda #42
    sta $B000 + REG(0)
    lda #<253
    sta $B000 + REG(1)
    lda #$80 | >253
    sta $B000 + REG(2)
:   lda frame
    cmp #120                ; the saw off
    bne :+
    lda #0
    sta $B000 + REG(2)
:   lda frame               ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    lsr a
    lsr a
    and #$38
    sta bank_base
    ldx #0
l_banks:
    stx n1
    txa
    clc
    adc bank_base
    jsr chr_write
    ldx n1
    inx
    cpx #8
    bne l_banks
    lda #<(256 - 120)       ; 120 lines from now: the IRQ moves banks 0-3 on by 32
    sta $F000 + REG(0)
    lda #$02
    sta $F000 + REG(1)
    POP_AXY_RTI

    VRC_IRQ_HANDLER
l_screen:
    txa
    pha
    tya
    pha
    lda #0
    sta $F000 + REG(1)      ; acknowledge, counter off until the next NMI
    lda bank_base
    eor #$20
    sta bank_base
    ldx #0
l_irqb:
    stx n1
    txa
    clc
    adc bank_base
    jsr chr_write
    ldx n1
    inx
    cpx #4
    bne l_irqb
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
