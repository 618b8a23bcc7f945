; taito_test.s: gpuvet's test of Taito's mapper chips, built once per board by
; tests/nes/build_roms.sh: 33 TC0190, 48 TC0690, 80 X1-005, 207 X1-005 with the nametables
; chosen by CHR bit 7, 82 X1-017. 128 KiB PRG (each 8 KiB bank starts with its tag; code in
; the last, fixed at $E000), 64 KiB CHR-ROM. The TC boards' headers give 8 KiB of PRG-RAM
; for the status; the X1-005's give its 128 bytes inside (nothing at $6000: its result is
; only in $0200, which test_nes_carts.c reads); the X1-017's status block lives in its own
; RAM. The checks (the result also goes to $0200: $A5 passed, else the failed check):
;   1 PRG: the switchable banks (TC: $8000, $8001; X1-005: $7EFA, $7EFC, $7EFE; X1-017:
;     $7EFA-$7EFC, bank number in bits 2-7) show their tags; TC: $C000 the second-last;
;   2 CHR: the 2 KiB registers (TC: their value counts 2 KiB; X1: bit 0 ignored; 207: bit 7
;     not CHR) and the 1 KiB ones read back through $2007; X1-017: $7EF6 bit 1 swaps the
;     halves;
;   3 mirroring: TC0190 $8000 bit 6, TC0690 $E000 bit 6 (0 vertical, 1 horizontal); X1
;     $7EF6 bit 0 (0 horizontal, 1 vertical); 207: bit 7 of $7EF0 / $7EF1 picks the CIRAM
;     page of $2000-$27FF / $2800-$2FFF;
;   4 RAM: X1-005 $7F00-$7F7F (mirrored at $7F80) enabled by $A3 in $7EF8 (or $7EF9),
;     disabled it is open bus ($7F, the address's high byte) and keeps its bytes; X1-017 its
;     three parts, each enabled by its own value ($CA, $69, $84 in $7EF7-$7EF9), reading 0
;     when disabled (the chip's pull-downs), $7400 reading 0;
;   5 TC0690: the IRQ, to the cycle, rendering off: latch $FE (the MMC3's 1: the value is
;     inverted), $C001, $C002; two A12 rises made by $2007 reads at $0FFF (v steps to $1000):
;     the first reloads 1, the second counts to 0; the MMC3 would raise the IRQ in the
;     cycle of that read (R), the TC0690 4 cycles later (D = 4). Two slides after the read
;     (cyc_irq.inc's arithmetic): CLI, LDA $2007 (R), then NOPs from R+1 (the IRQ taken after
;     NOP k when D <= 1 + 2k: count k + 1), or BIT zp first, NOPs from R+4 (count k + 1 for
;     D <= 4 + 2k): D = 4 gives 3 and 1 (D = 0, the MMC3's timing: 1 and 0; D = 3: 2 and 1;
;     D = 5: 3 and 2).
; Then the test screen: CHR banks moved by the NMI every 32 frames (207: the top
; nametables' CIRAM page too, each page with a nametable of its own; X1-017: the halves
; swapped); the TC0690's scanline IRQ moves
; banks 0-3 once more at line 100 (sprite patterns at $1000 for the A12 rises).

.include "common.inc"
.include "boards.inc"
.include "cyc_irq.inc"
.include "board_steps.inc"

RESULT = $0200
TC = BOARD = 33 .or BOARD = 48
X1005 = BOARD = 80 .or BOARD = 207

.if BOARD = 80 .or BOARD = 207
    NES2_BOARD BOARD, 0, 8, 8, 0, $01, $00
.elseif BOARD = 82
    NES2_BOARD 82, 0, 8, 8, 0, $07, $00
.else
    NES2_BOARD BOARD, 0, 8, 8, 0, $07, $00
.endif
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
mode:     .res 1
bank:     .res 1
got:      .res 1
z3:       .res 1

.segment "CODE"
    SLIDE_CODE 8

; PRG register X (0-2) := bank A.
set_prg:
.if TC
    sta $8000,x
.elseif X1005
    pha
    txa
    asl a
    tay
    pla
    sta $7EFA,y
.else
    asl a
    asl a
    sta $7EFA,x
.endif
    rts

; CHR register X (0-5) := A.
set_chr:
.if TC
    cpx #2
    bcs :+
    sta $8002,x
    rts
:   sta $9FFE,x
.else
    sta $7EF0,x
.endif
    rts

; The PRG windows' high bytes.
tag_hi: .byte >$8000, >$A000, >$C000

.if TC
; Mirroring: A = 0 vertical, $40 horizontal.
set_mirror:
.if BOARD = 33
    sta $8000               ; (PRG 0 := 0 too)
.else
    sta $E000
.endif
    rts
.endif

reset:
    TEST_START
.if BOARD = 82
    lda #$CA
    sta $7EF7               ; the RAM's first part (the status block) on
.endif
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
.if TC
NSLOT = 2
.else
NSLOT = 3
.endif
    lda #0
    sta k
l_prg:
    ldx #NSLOT - 1
:   lda k
    jsr set_prg
    dex
    bpl :-
    lda #NSLOT - 1
    sta got
l_tag:
    ldx got
    lda tag_hi,x
    tax
    ldy #0
    lda k
    jsr tag_expect
    dec got
    bpl l_tag
    inc k
    lda k
    cmp #14
    bne l_prg
    FIXED_TAGS TC

    ; ---- 2: CHR ------------------------------------------------------------------------
.if TC
    lda #5                  ; 2 KiB bank 5: 1 KiB banks 10, 11
.elseif BOARD = 207
    lda #$8A                ; bits 1-6: 10 (bit 7 the nametable page)
.else
    lda #11                 ; bit 0 ignored: 10, 11
.endif
    ldx #0
    jsr set_chr
.if TC
    lda #9
.else
    lda #18
.endif
    ldx #1
    jsr set_chr
    lda #40
    ldx #2
    jsr set_chr
    lda #41
    inx
    jsr set_chr
    lda #42
    inx
    jsr set_chr
    lda #43
    inx
    jsr set_chr
    lda #10                 ; 2 KiB register 0, first half
    ldx #$00
    ldy #$00
    jsr chr_expect
    lda #11                 ; its second half
    ldx #$04
    jsr chr_expect
    lda #19                 ; 2 KiB register 1, second half
    ldx #$0C
    jsr chr_expect
    lda #40                 ; 1 KiB register 2
    ldx #$10
    jsr chr_expect
    lda #43                 ; 1 KiB register 5
    ldx #$1C
    jsr chr_expect
.if BOARD = 82
    lda #$02
    sta $7EF6               ; the halves swapped
    lda #11
    ldx #$14
    jsr chr_expect
    lda #40
    ldx #$00
    jsr chr_expect
    lda #$00
    sta $7EF6
.endif

    ; ---- 3: mirroring ------------------------------------------------------------------------
.if BOARD = 207
    lda #$80                ; $2000-$27FF on CIRAM page 1
    ldx #0
    jsr set_chr
    lda #$00                ; $2800-$2FFF on page 0
    ldx #1
    jsr set_chr
    lda #$5A
    ldx #$20
    jsr nt_poke
    lda #$A5
    ldx #$28
    jsr nt_poke
    NT_EXPECT $24, $5A, 3, "207 $2440 "
    NT_EXPECT $2C, $A5, 3, "207 $2C40 "
    lda #$00                ; now all on page 0
    ldx #0
    jsr set_chr
    NT_EXPECT $20, $A5, 3, "207 $2040 after $7EF0 bit 7 clear "
.else
.if TC
    lda #$00
    jsr set_mirror          ; vertical
.else
    lda #$01
    sta $7EF6               ; vertical
.endif
    jsr nt_seed
    NT_EXPECT $28, $22, 3, "vertical $2840 "
.if TC
    lda #$40
    jsr set_mirror          ; horizontal
.else
    lda #$00
    sta $7EF6               ; horizontal
.endif
    NT_EXPECT $24, $22, 3, "horizontal $2440 "
    NT_EXPECT $2C, $11, 3, "horizontal $2C40 "
.endif

    ; ---- 4: RAM --------------------------------------------------------------------------
.if X1005
    lda #$A3
    sta $7EF8
    lda #$C3
    sta $7F05
    lda $7F85
    EXPECT $C3, 4, "RAM mirror $7F85 "
    lda #$00
    sta $7EF9               ; (the same register) RAM off
    lda #$99
    sta $7F05               ; ignored
    lda $7F05
    EXPECT $7F, 4, "RAM off: $7F05 "
    lda #$A3
    sta $7EF9
    lda $7F05
    EXPECT $C3, 4, "RAM on again: $7F05 "
.elseif BOARD = 82
    lda #$69
    sta $7EF8
    lda #$84
    sta $7EF9
    lda #$61
    sta $6100
    lda #$69
    sta $6900
    lda #$71
    sta $7100
    lda #$00
    sta $7EF8               ; the second part off
    lda $6900
    EXPECT 0, 4, "part 2 off: $6900 "
    lda $7400
    EXPECT 0, 4, "$7400 "
    lda #$55
    sta $6900               ; ignored
    lda $7100
    EXPECT $71, 4, "part 3: $7100 "
    lda #$68
    sta $7EF8               ; a wrong key: still off
    lda $6900
    EXPECT 0, 4, "part 2 with key $68: $6900 "
    lda #$69
    sta $7EF8
    lda $6900
    EXPECT $69, 4, "part 2 on again: $6900 "
    lda $6100
    EXPECT $61, 4, "part 1: $6100 "
.endif

    ; ---- 5: the TC0690's IRQ ----------------------------------------------------------------
.if BOARD = 48
    lda #<ta_nops
    sta base
    lda #>ta_nops
    sta base+1
    jsr arm_irq
    jsr run_a
    EXPECT16 3, 5, "slide A: NOPs $"
    lda #<tb_nops
    sta base
    lda #>tb_nops
    sta base+1
    jsr arm_irq
    jsr run_b
    EXPECT16 1, 5, "slide B: NOPs $"
.endif

.if BOARD <> 80 .and BOARD <> 207
    PRINT "Taito board checks passed"
.endif
    lda #$A5
    sta RESULT
    lda #0
    sta STATUS
    jmp screen
fail_done:
    sta RESULT
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------
screen:
    SCREEN_OFF
.if BOARD = 207
    lda #$80                ; $2800-$2FFF on page 1
    ldx #1
    jsr set_chr
.endif
    jsr screen_setup
.if BOARD = 207
    lda #$80                ; CIRAM page 1 at $2000: a nametable of its own
    ldx #0
    jsr set_chr
    lda #$20
    ldx #$40
    jsr fill_nt
    lda #$00
    ldx #0
    jsr set_chr
.endif
.if BOARD = 48
    jsr tc_irq_next
    lda #1
    sta mode
    cli
    jsr screen_on
    lda #$88                ; sprite patterns at $1000: an A12 rise every line
    sta PPUCTRL
:   jmp :-
.else
    SCREEN_RUN
.endif

.if BOARD = 48
; Rendering off: latch $FE (1), IRQ on, a reload asked, the first A12 rise made ($2007 read at
; $0FFF: the counter reloads 1) and v back at $0FFF for the timed one.
arm_irq:
    lda #$FE
    sta $C000
    sta $C001
    sta $C002
    jsr v_0fff
    lda PPUDATA
v_0fff:
    bit PPUSTATUS
    lda #$0F
    sta PPUADDR
    lda #$FF
    sta PPUADDR
    rts

run_a:
    cli
    lda PPUDATA             ; R: the A12 rise that counts to 0
ta_nops:
    .repeat 8
    nop
    .endrepeat
    jmp slide_end

run_b:
    cli
    lda PPUDATA
    bit z3
tb_nops:
    .repeat 8
    nop
    .endrepeat
    jmp slide_end

; The screen's split: the IRQ at the 100th counted line (latch 99, written inverted).
tc_irq_next:
    lda #<~99
    sta $C000
    sta $C001
    sta $C002
    rts
.endif

nmi:
    NMI_EVERY_32 l_irq
    and #7
    sta k
    asl a
    asl a
    asl a
    sta bank                ; CHR 8j .. 8j + 7, j = frame / 32 mod 8
.if TC
    lsr a                   ; the 2 KiB registers count 2 KiB
.endif
    ldx #0
    jsr set_chr
.if TC
    clc
    adc #1
.else
    clc
    adc #2
.endif
    ldx #1
.if BOARD = 207
    ora #$80                ; $2800-$2FFF stays on page 1
.endif
    jsr set_chr
    ldx #2
:   txa
    clc
    adc bank
    adc #2
    jsr set_chr
    inx
    cpx #6
    bne :-
.if BOARD = 207
    lda k
    lsr a
    bcc l_irq
    lda bank
    ora #$80                ; odd j: the top nametables from page 1
    ldx #0
    jsr set_chr
.elseif BOARD = 82
    lda k
    and #2
    sta $7EF6               ; j = 2, 3, 6, 7: the halves swapped
.endif
l_irq:
.if BOARD = 48
    jsr tc_irq_next
.endif
    POP_AXY_RTI

.if BOARD = 48
    IRQ_TEST_ENTRY $C003    ; IRQ off and acknowledged
.else
    IRQ_TEST_ENTRY
.endif
.if BOARD = 48
    sta $C003
    lda bank                ; banks 4-7 of the 2 KiB registers move on by 16
    lsr a
    eor #$10
    ldx #0
    jsr set_chr
    clc
    adc #1
    ldx #1
    jsr set_chr
.endif
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
