; sxrom_test.s: gpuvet's test of the MMC1's largest board, SXROM (mapper 1; 512 KiB PRG,
; 32 KiB PRG-RAM, 8 KiB CHR-RAM: what the board's size fields select). Each 16 KiB PRG bank
; starts with its tag. The checks (status at $6000, on PRG-RAM page 0):
;   1 the 16 KiB bank at $8000 follows the PRG register (mode 3), $C000 holds bank 15;
;   2 CHR bank 0's bit 4 drives PRG A18: the same register values then map banks 16-31 and
;     $C000 holds bank 31 (run from RAM: it moves the code's own bank);
;   3 CHR bank 0's bits 2-3 select one of the four 8 KiB PRG-RAM pages, which keep apart;
;   4 the PRG register's bit 4 disables the PRG-RAM: a read of $7000 sees open bus ($70).
; Then the test screen (4 KiB CHR mode), CHR bank 0 switching the 4 KiB halves every 32
; frames.

.include "common.inc"
.include "boards.inc"
.import __RAMCODE_LOAD__, __RAMCODE_RUN__, __RAMCODE_SIZE__

    NES2_BOARD 1, 0, 32, 0, 1, $09, $07
    PRG_TAGS 32

; MMC1 register write: the five bits of A, low first (A is lost).
.macro MMC1 addr
    sta addr
    lsr a
    sta addr
    lsr a
    sta addr
    lsr a
    sta addr
    lsr a
    sta addr
.endmacro

.segment "ZEROPAGE"
k:        .res 1
got:      .res 2

.segment "RAMCODE"
; With PRG register k: the tags at $8000 and $C000 with CHR bank 0 bit 4 set, then clear.
probe_outer:
    lda #$10
    MMC1 $A000
    lda TAG
    sta got
    lda $C000
    sta got+1
    lda #$00
    MMC1 $A000
    rts

.segment "CODE"

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #$80
    sta $8000               ; reset the serial port
    lda #$1E                ; 4 KiB CHR, PRG mode 3, vertical
    MMC1 $8000
    lda #$00
    MMC1 $A000              ; CHR bank 0: first PRG half, PRG-RAM page 0
    lda #$00
    MMC1 $E000              ; PRG bank 0, PRG-RAM on
    ldx #0
:   lda __RAMCODE_LOAD__,x
    sta __RAMCODE_RUN__,x
    inx
    cpx #<__RAMCODE_SIZE__
    bne :-
    RESET_START

    ; ---- 1 and 2: PRG banks of both halves ---------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    MMC1 $E000
    lda TAG
    cmp k
    beq :+
    PRINT "PRG tag "
    lda TAG
    jsr print_hex
    lda #1
    jmp fail_done
:   lda $C000
    EXPECT 15, 1, "fixed $C000 tag "
    jsr probe_outer
    lda k
    ora #16
    cmp got
    beq :+
    PRINT "PRG A18 tag "
    lda got
    jsr print_hex
    lda #2
    jmp fail_done
:   lda got+1
    EXPECT 31, 2, "PRG A18 $C000 tag "
    inc k
    lda k
    cmp #16
    beq :+
    jmp l_prg
:   lda #0
    MMC1 $E000

    ; ---- 3: PRG-RAM pages ----------------------------------------------------------------
    lda #3
    sta k
l_tag:
    lda k
    asl a
    asl a                   ; bits 2-3
    MMC1 $A000
    lda k
    ora #$C0
    sta $7000
    dec k
    bpl l_tag
    lda #0
    sta k
l_read:
    lda k
    asl a
    asl a
    MMC1 $A000
    lda k
    ora #$C0
    cmp $7000
    beq :+
    PRINT "PRG-RAM page tag "
    lda $7000
    jsr print_hex
    lda #3
    jmp fail_done
:   inc k
    lda k
    cmp #4
    bne l_read
    lda #0
    MMC1 $A000

    ; ---- 4: PRG-RAM disable ---------------------------------------------------------------
    lda #$10
    MMC1 $E000
    lda $7000               ; open bus: the operand's high byte
    pha
    lda #$00
    MMC1 $E000
    pla
    EXPECT $70, 4, "PRG-RAM disabled, $7000 "

    PRINT "SXROM checks passed"
    lda #0
fail_done:
    sta STATUS

    jsr wait_vblank
    lda #0
    sta PPUMASK
    sta k
l_fill:                     ; 8 KiB CHR-RAM: banks 0-7
    lda k
    asl a
    asl a
    tax
    lda k
    jsr chr_fill
    inc k
    lda k
    cmp #8
    bne l_fill
    jsr screen_setup
    jsr screen_on
:   jmp :-

nmi:
    pha
    inc frame
    lda frame
    and #$1F
    bne :+
    lda frame               ; CHR bank 0 (4 KiB at $0000): the first or second half
    lsr a
    lsr a
    lsr a
    lsr a
    lsr a
    and #1
    MMC1 $A000
    lda #1
    MMC1 $C000              ; CHR bank 1: the second half
:   pla
    rti

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
