; sunsoft_test.s: gpuvet's test of Sunsoft-3 (mapper 67) and Sunsoft-4 (68, BOARD=68), built
; once per board by tests/nes/build_roms.sh. 128 KiB PRG (each 8 KiB bank starts with its
; tag; code in the last 16 KiB, fixed at $C000), 64 KiB CHR-ROM, 8 KiB PRG-RAM for the status
; (the Sunsoft-4's enabled by $F000 bit 4 first). The checks:
;   1 PRG: $F800 / $F000 map 16 KiB banks (tags 2k and 2k + 1), $C000 the second-last 8 KiB;
;   2 CHR: the four 2 KiB registers ($8800-$B800 / $8000-$B000: their value counts 2 KiB)
;     read back through $2007;
;   3 mirroring ($E800 / $E000 bits 0-1): vertical, horizontal, one-screen lower, upper;
;   4 Sunsoft-3: the IRQ, to the cycle (cyc_irq.inc): counter N written to $C800 (high, low),
;     counting on by $D800 = $10 (cycle W): the wrap to $FFFF comes N + 1 cycles later
;     (D = N + 1): N = 1000 and N = 1001 both give 499 NOPs (a cycle early: 498 and 499; a
;     cycle late: 499 and 500); a $D800 write resets the $C800 toggle (a stray first write,
;     then $D800, then high and low: N = 300, 149 NOPs); after the wrap it stops (no IRQ in
;     330,000 cycles); a $D800 write does not acknowledge a pending IRQ (taken after the
;     slide's first NOP), a write to $8000 does (none taken);
;   4 Sunsoft-4: $E000 bit 4: the nametables from CHR-ROM pages $C000 / $D000 (ORed with
;     $80), in vertical and in one-screen arrangement, writes to them going nowhere; the
;     CIRAM again with bit 4 clear; $F000 bit 4 clear: $6000-$7FFF open bus ($61 read at
;     $6100), the RAM's bytes back when set again.
; Then the test screen: CHR banks moved by the NMI every 32 frames; the Sunsoft-3's IRQ 15000
; cycles after the NMI (about line 110) moves banks 0-1 once more; the Sunsoft-4 shows
; nametables from CHR-ROM for 32 frames in every 64.

.include "common.inc"
.include "boards.inc"
.include "cyc_irq.inc"
.include "board_steps.inc"

S3 = BOARD = 67
.if S3
    NES2_BOARD 67, 0, 8, 8, 0, $07, $00
R_CHR  = $8800
R_MIR  = $E800
R_PRG  = $F800
.else
    NES2_BOARD 68, 0, 8, 8, 0, $07, $00
R_CHR  = $8000
R_MIR  = $E000
R_PRG  = $F000
RAM_ON = $10
.endif
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
mode:     .res 1
bank:     .res 1

.segment "CODE"
    SLIDE_CODE 560

; CHR register X (0-3) := A (the registers are $1000 apart).
set_chr:
    pha
    txa
    asl a
    asl a
    asl a
    asl a
    sta tmp+1
    lda #<R_CHR
    sta tmp
    lda tmp+1
    clc
    adc #>R_CHR
    sta tmp+1
    pla
    ldy #0
    sta (tmp),y
    rts

; PRG := A (the Sunsoft-4's RAM kept on).
set_prg:
.if S3
    sta R_PRG
.else
    ora #RAM_ON
    sta R_PRG
.endif
    rts

.if S3
; The counter := A:X (high:low), counting on at the $D800 write (W), then the slide.
start_irq:
    pha
    jsr slide_base
    pla
    sta $C800
    stx $C800
    lda #$10
    sta $D800
    jmp slide

; An IRQ left pending (I set): N = 20, counting, 100 cycles waited.
pend_irq:
    lda #0
    sta $C800
    lda #20
    sta $C800
    lda #$10
    sta $D800
    ldx #20
:   dex
    bne :-
    rts
.endif

reset:
    TEST_START
.if S3 = 0
    lda #RAM_ON
    sta R_PRG               ; the RAM on for the status
.endif
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    jsr set_prg
    lda k
    jsr prg16_expect
    inc k
    lda k
    cmp #7
    bne l_prg
    FIXED_TAGS 1

    ; ---- 2: CHR ------------------------------------------------------------------------
    ldx #3
:   txa
    asl a
    asl a
    asl a
    ora #1                  ; register x: 2 KiB bank 8x + 1 (1 KiB banks 16x + 2, 16x + 3)
    jsr set_chr
    dex
    bpl :-
    lda #0
    sta k
l_chr:
    lda k
    asl a
    asl a
    asl a
    ora #4
    tax                     ; PPU $0800 * k + $0400: the second 1 KiB
    asl a
    and #$F0
    ora #3                  ; bank 16k + 3
    ldy #0
    jsr chr_expect
    inc k
    lda k
    cmp #4
    bne l_chr

    ; ---- 3: mirroring --------------------------------------------------------------------
    lda #0
    sta R_MIR               ; vertical
    jsr nt_seed
    NT_EXPECT $28, $22, 3, "vertical $2840 "
    lda #1
    sta R_MIR               ; horizontal
    NT_EXPECT $24, $22, 3, "horizontal $2440 "
    NT_EXPECT $2C, $11, 3, "horizontal $2C40 "
    lda #2
    sta R_MIR               ; one-screen, lower
    NT_EXPECT $2C, $22, 3, "one-screen lower $2C40 "
    lda #3
    sta R_MIR               ; one-screen, upper
    NT_EXPECT $20, $11, 3, "one-screen upper $2040 "

    ; ---- 4 -------------------------------------------------------------------------------
.if S3
    lda #>1000
    ldx #<1000
    jsr start_irq
    EXPECT16 499, 4, "N 1000: NOPs $"
    lda #>1001
    ldx #<1001
    jsr start_irq
    EXPECT16 499, 4, "N 1001: NOPs $"
    lda #$77
    sta $C800               ; a stray first write ...
    lda #0
    sta $D800               ; ... forgotten: the next write is the high byte again
    lda #>300
    ldx #<300
    jsr start_irq
    EXPECT16 149, 4, "toggle reset, N 300: NOPs $"
    jsr wait_long           ; stopped after the wrap
    EXPECT16 $FFFF, 4, "after the wrap: IRQ, NOPs $"
    jsr pend_irq
    lda #$00
    sta $D800               ; not an acknowledge
    jsr slide_base
    jsr slide
    EXPECT16 1, 4, "pending IRQ after a $D800 write: NOPs $"
    jsr pend_irq
    sta $9000               ; acknowledge (A11 clear)
    jsr slide
    EXPECT16 $FFFF, 4, "IRQ after the $9000 acknowledge, NOPs $"
.else
    lda #5
    sta $C000               ; CHR-ROM pages $85 (5 here) and $8A (10)
    lda #10
    sta $D000
    lda #$10
    sta R_MIR               ; CHR-ROM nametables, vertical
    ldx #$20
    ldy #$00
    jsr chr_peek
    EXPECT 5, 4, "CHR-ROM nametable $2000 "
    ldx #$2C
    ldy #$00
    jsr chr_peek
    EXPECT 10, 4, "CHR-ROM nametable $2C00 "
    lda #$99
    ldx #$24
    ldy #$00
    jsr chr_poke            ; ROM: nothing changes
    ldx #$24
    ldy #$00
    jsr chr_peek
    EXPECT 10, 4, "CHR-ROM nametable $2400 after a write "
    lda #$13
    sta R_MIR               ; one-screen upper: all from $D000's page
    ldx #$20
    ldy #$00
    jsr chr_peek
    EXPECT 10, 4, "CHR-ROM one-screen upper $2000 "
    lda #$00
    sta R_MIR               ; CIRAM, vertical
    NT_EXPECT $24, $11, 4, "CIRAM again $2440 "
    lda #$5C
    sta $6100
    lda #0
    sta R_PRG               ; the RAM off
    lda $6100
    EXPECT $61, 4, "RAM off: $6100 "
    lda #RAM_ON
    sta R_PRG
    lda $6100
    EXPECT $5C, 4, "RAM on again: $6100 "
.endif

    PRINT "Sunsoft board checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------
    SCREEN_OFF
    sta R_MIR               ; vertical
    jsr screen_setup
    SCREEN_RUN

nmi:
    NMI_EVERY_32 l_irq
    and #7
    sta k
    asl a
    asl a
    sta bank                ; 2 KiB banks 4j .. 4j + 3 (1 KiB 8j ..)
    ldx #3
:   txa
    clc
    adc bank
    jsr set_chr
    dex
    bpl :-
.if S3 = 0
    lda bank
    sta $C000
    eor #$1F
    sta $D000
    lda k
    lsr a
    lda #$00
    bcc :+
    lda #$10                ; odd j: nametables from CHR-ROM
:   sta R_MIR
.endif
l_irq:
.if S3
    lda #>15000             ; the split: an IRQ 15000 cycles from here
    sta $C800
    lda #<15000
    sta $C800
    lda #$10
    sta $D800
.endif
    POP_AXY_RTI

.if S3
    IRQ_TEST_ENTRY $8000    ; acknowledge
.else
    IRQ_TEST_ENTRY
.endif
.if S3
    sta $8000
    lda bank
    eor #$10
    ldx #0
    jsr set_chr
    ora #1
    ldx #1
    jsr set_chr
.endif
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
