; cnrom185_test.s: gpuvet's test of mapper 185, CNROM whose latch only enables the CHR-ROM,
; built once per submapper by tests/nes/build_roms.sh (BOARD = 1850 submapper 0, 1854-1857
; submappers 4-7). 32 KiB PRG (code at $8000 and a table of the bytes 0-255, so a write of v
; to table + v latches v despite the bus conflicts), 8 KiB CHR-ROM (CHR_DATA: the byte at
; PPU $0001 is $8A), 8 KiB PRG-RAM for the status. The checks (the NESdev wiki's "INES
; Mapper 185" and "NES 2.0 submappers"; a disabled CHR-ROM reads $FF here):
;   1 submapper 4-7: the latch values 0-3: only the submapper's (0-3) enables the CHR-ROM;
;     submapper 0: the heuristic, enabled while (latch & $0F) is not 0 and the latch is not
;     $13: $0F, $21, $33, $01 enable, $00, $F0, $13, $20 do not;
;   2 bus conflicts: a value written over a ROM byte of 0 latches 0 (W, which would switch
;     the CHR-ROM the other way, written at table + 0);
; Then the test screen, the CHR-ROM enabled and disabled (all tiles $FF) every 32 frames.

.include "common.inc"
.include "boards.inc"
.include "board_steps.inc"

SUB = BOARD - 1850
    NES2_BOARD 185, SUB, 2, 1, 1, $07, $00
    CHR_DATA 8

.segment "ALIGNED"
table:
    .repeat 256, v
    .byte v
    .endrepeat

.segment "ZEROPAGE"
k:        .res 1
want:     .res 1

.segment "CODE"

; The latch := A (written where the ROM holds A).
set_latch:
    tax
    sta table,x
    rts

; Z set when the CHR-ROM reads as enabled ($8A at PPU $0001), clear when it reads $FF (else
; the test fails: check 1 with the value read).
chr_on:
    ldx #$00
    ldy #$01
    jsr chr_peek
    cmp #$FF
    beq :+
    cmp #$8A
    beq :+
    pha
    PRINT "PPU $0001 neither the CHR-ROM's $8A nor $FF: "
    pla
    jsr print_hex
    lda #1
    jmp fail_done
:   cmp #$8A
    rts

.if SUB = 0
values: .byte $0F, $21, $33, $01, $00, $F0, $13, $20
enables: .byte 1, 1, 1, 1, 0, 0, 0, 0
NVAL = 8
ON_VALUE = $0F
.else
values: .byte 0, 1, 2, 3
NVAL = 4
ON_VALUE = SUB - 4
.endif

reset:
    sei
    cld
    ldx #$FF
    txs
    RESET_START

    ; ---- 1: the latch values ------------------------------------------------------------
    lda #0
    sta k
l_val:
    ldx k
    lda values,x
    jsr set_latch
.if SUB = 0
    ldx k
    lda enables,x
.else
    ldx k
    lda #0
    cpx #ON_VALUE
    bne :+
    lda #1
:
.endif
    sta want
    jsr chr_on
    php
    pla
    and #$02                ; Z (set: enabled)
    lsr a
    cmp want
    beq :+
    PRINT "latch $"
    ldx k
    lda values,x
    jsr print_hex
    PRINT ": CHR-ROM enabled "
    lda want
    eor #1
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #NVAL
    bne l_val

    ; ---- 2: bus conflicts ----------------------------------------------------------------
.if SUB = 0
    lda #$0F                ; enabled with $0F; latched: 0, disabled
.elseif SUB = 4
    lda #$01                ; disabled with 1; latched: 0, enabled
.else
    lda #ON_VALUE           ; enabled with it; latched: 0, disabled
.endif
    sta table
    jsr chr_on
.if SUB = 4
    beq :+
.else
    bne :+
.endif
    PRINT "a write over a ROM byte of 0 did not latch 0"
    lda #2
    jmp fail_done
:
    PRINT "mapper 185 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------
    SCREEN_OFF
    jsr screen_setup
    lda #ON_VALUE
    jsr set_latch
    jsr screen_on
:   jmp :-

nmi:
    NMI_EVERY_32 l_out
    and #1
    beq :+
    lda #ON_VALUE ^ $03     ; a value that disables it (0 for submapper 0: $0C)
.if SUB = 0
    lda #$00
.endif
    jmp :++
:   lda #ON_VALUE
:   jsr set_latch
l_out:
    POP_AXY_RTI

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
