; irem_test.s: gpuvet's test of Irem's G-101 (mapper 32; BOARD=321: submapper 1, Major
; League) and H3001 (mapper 65, BOARD=65), built once per board by tests/nes/build_roms.sh.
; 128 KiB PRG (each 8 KiB bank starts with its tag; code in the last, fixed at $E000),
; 64 KiB CHR-ROM, 8 KiB PRG-RAM for the status. The checks:
;   1 PRG 0 ($8000) and PRG 1 ($A000) map their banks; in PRG mode 1 (G-101: $9000 bit 1,
;     H3001: $9000 bit 7) PRG 0 maps at $C000 and the second-last bank (14) at $8000 (Major
;     League: the mode fixed at 0, the bit does nothing);
;   2 the CHR registers $B000-$B007 map 1 KiB each, read back through $2007;
;   3 mirroring: G-101 $9000 bit 0 (0 vertical, 1 horizontal); Major League one-screen
;     whatever $9000 says; H3001 $9001 bits 7-6 (%00 vertical, %10 horizontal, %01
;     one-screen from the lower CIRAM page);
;   4 (H3001) the IRQ, timed to the cycle (cyc_irq.inc): reload N ($9005/$9006), enable
;     ($9003 = $80), copy it into the counter ($9004, cycle W): the counter reaches 0 N
;     cycles later (D = N): N = 1000 gives 498 NOPs, N = 1001 499 (a cycle early: 498 and
;     498; a cycle late: 499 and 499); a disabled counter holds its value: 300 loaded with
;     $9003 = 0, no IRQ in 330,000 cycles, then enabled by a $9003 write at W: 148 NOPs
;     (D = 300); once at 0 it stays there: enabled again, no IRQ in 330,000 cycles.
; Then the test screen: CHR banks moved by the NMI every 32 frames; on the H3001 an IRQ
; 15000 cycles after the NMI (about line 110) moves banks 0-3 once more.

.include "common.inc"
.include "boards.inc"
.include "cyc_irq.inc"
.include "board_steps.inc"

.if BOARD = 65
    NES2_BOARD 65, 0, 8, 8, 0, $07, $00
.elseif BOARD = 321
    NES2_BOARD 32, 1, 8, 8, 0, $07, $00
.else
    NES2_BOARD 32, 0, 8, 8, 0, $07, $00
.endif
H3001 = BOARD = 65
    PRG_TAGS 16
    CHR_DATA 64

.if H3001
MODE_REG = $9000
MODE_1   = $80
.else
MODE_REG = $9000
MODE_1   = $02
.endif

.segment "ZEROPAGE"
k:        .res 1
mode:     .res 1
bank:     .res 1

.segment "CODE"
    SLIDE_CODE 560

.if H3001
; The counter from reload A:X (high:low), enabled: the slide from the $9004 write (D = N).
start_irq:
    pha
    jsr slide_base
    pla
    sta $9005
    stx $9006
    lda #$80
    sta $9003
    sta $9004
    jmp slide
.endif

reset:
    TEST_START
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    sta $8000
    sta $A000
    ldx #$80
    ldy #0
    jsr tag_expect
    lda k
    ldx #$A0
    jsr tag_expect
    inc k
    lda k
    cmp #14
    bne l_prg
    lda #5
    sta $8000
    lda $C000
    EXPECT 14, 1, "mode 0 $C000 tag "
    lda #MODE_1
    sta MODE_REG
.if BOARD = 321
    lda $C000
    EXPECT 14, 1, "Major League, mode bit set: $C000 tag "
.else
    lda $C000
    EXPECT 5, 1, "mode 1 $C000 tag "
    lda $8000
    EXPECT 14, 1, "mode 1 $8000 tag "
.endif
    lda #0
    sta MODE_REG
    lda $8000
    EXPECT 5, 1, "mode 0 again $8000 tag "

    ; ---- 2: CHR ------------------------------------------------------------------------
    ldx #7
:   txa
    asl a
    asl a
    asl a
    ora #3
    sta $B000,x             ; register x: bank 8x + 3
    dex
    bpl :-
    lda #0
    sta k
l_chr:
    lda k
    asl a
    asl a
    tax                     ; PPU $0400 * k
    asl a
    ora #3                  ; bank 8k + 3
    ldy #0
    jsr chr_expect
    inc k
    lda k
    cmp #8
    bne l_chr

    ; ---- 3: mirroring --------------------------------------------------------------------
.if H3001
    lda #$00
    sta $9001               ; vertical
    jsr nt_seed
    NT_EXPECT $28, $22, 3, "vertical $2840 "
    lda #$80
    sta $9001               ; horizontal
    NT_EXPECT $24, $22, 3, "horizontal $2440 "
    NT_EXPECT $2C, $11, 3, "horizontal $2C40 "
    lda #$40
    sta $9001               ; one-screen, lower page
    NT_EXPECT $2C, $22, 3, "one-screen $2C40 "
    lda #$C0
    sta $9001
    NT_EXPECT $24, $22, 3, "%11 one-screen $2440 "
    lda #$80
    sta $9001
.elseif BOARD = 321
    lda #$00
    sta $9000
    lda #$33
    ldx #$20
    jsr nt_poke
    NT_EXPECT $2C, $33, 3, "Major League ($9000 = 0) $2C40 "
    lda #$01
    sta $9000
    lda #$44
    ldx #$28
    jsr nt_poke
    NT_EXPECT $24, $44, 3, "Major League ($9000 = 1) $2440 "
.else
    lda #$00
    sta $9000               ; vertical
    jsr nt_seed
    NT_EXPECT $28, $22, 3, "vertical $2840 "
    lda #$01
    sta $9000               ; horizontal
    NT_EXPECT $24, $22, 3, "horizontal $2440 "
    NT_EXPECT $2C, $11, 3, "horizontal $2C40 "
.endif

    ; ---- 4: the IRQ ------------------------------------------------------------------------
.if H3001
    lda #>1000
    ldx #<1000
    jsr start_irq
    EXPECT16 498, 4, "N 1000: NOPs $"
    lda #>1001
    ldx #<1001
    jsr start_irq
    EXPECT16 499, 4, "N 1001: NOPs $"
    lda #>300
    sta $9005
    lda #<300
    sta $9006
    lda #0
    sta $9003               ; disabled
    sta $9004               ; counter 300, held
    jsr wait_long
    EXPECT16 $FFFF, 4, "disabled counter: IRQ, NOPs $"
    jsr enable_irq
    EXPECT16 148, 4, "held 300, enabled: NOPs $"
    lda #$80
    sta $9003               ; at 0: enabled again
    jsr wait_long
    EXPECT16 $FFFF, 4, "counter at 0: IRQ again, NOPs $"
.endif

    PRINT "Irem board checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------
    SCREEN_OFF
    jsr screen_setup
    SCREEN_RUN

.if H3001
enable_irq:
    jsr slide_base
    lda #$80
    sta $9003
    jmp slide
.endif

nmi:
    NMI_EVERY_32 l_irq
    and #7
    asl a
    asl a
    asl a
    sta bank                ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    ldx #7
:   txa
    clc
    adc bank
    sta $B000,x
    dex
    bpl :-
l_irq:
.if H3001
    lda #>15000             ; the split: an IRQ 15000 cycles from here
    sta $9005
    lda #<15000
    sta $9006
    lda #$80
    sta $9003
    sta $9004
.endif
    POP_AXY_RTI

.if H3001
    IRQ_TEST_ENTRY $9003    ; (0 there: acknowledged and stopped)
.else
    IRQ_TEST_ENTRY
.endif
.if H3001
    lda #0
    sta $9003
.endif
    ldx #3                  ; banks 0-3 move on by 32
:   txa
    clc
    adc bank
    eor #$20
    sta $B000,x
    dex
    bpl :-
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
