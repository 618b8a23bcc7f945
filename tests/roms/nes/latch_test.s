; latch_test.s: gpuvet's test of the discrete-logic boards, built once per board
; (tests/nes/build_roms.sh passes BOARD): 3 CNROM and 7 AxROM (submapper 2: bus
; conflicts), 11 Color Dreams, 13 CPROM, 34 BNROM (submapper 2), 134 NINA-001 (mapper 34
; submapper 1), 66 GxROM, 71 Camerica (BF909x, iNES-style submapper 0). Each PRG bank starts with its tag and a table of 0-255, so a write of v
; to table+v is safe on boards with bus conflicts. The checks (status at $6000; the
; headers give 8 KiB of PRG-RAM for it):
;   1 each PRG bank the latch reaches shows its tag (read from RAM code: the 32 KiB boards
;     switch the code's own bank), and a value past the latch's bits wraps;
;   2 CHR: each CHR-ROM bank reads back its number through $2007 (CPROM: each 4 KiB page
;     of its 16 KiB CHR-RAM at $1000 keeps what was written, $0000 is page 0);
;   3 bus conflicts (3, 7, 11, 13, 34, 66): a write where the ROM holds 0 latches 0 (CNROM:
;     seen in the CHR bank, its PRG being fixed);
;   4 Camerica: the header's vertical mirroring holds after a write to $8000; a write to
;     $9000 selects the one-screen page (bit 4). AxROM: the latch's bit 4 selects the
;     one-screen page (a byte written at $2000 with one page shows at $2C00 with the same
;     page, not with the other).
; Then the test screen, with the CHR bank (or the one-screen page) changed every 32 frames.

.include "common.inc"
.include "boards.inc"
.import __RAMCODE_LOAD__, __RAMCODE_RUN__, __RAMCODE_SIZE__

.if BOARD = 3
    NES2_BOARD 3, 2, 2, 4, 0, $07, $00
    NPRG = 1                ; 32 KiB PRG, not switched
.elseif BOARD = 7
    NES2_BOARD 7, 2, 8, 0, 0, $07, $07
    NPRG = 4                ; 32 KiB banks (bits 0-2; 4 in the image)
.elseif BOARD = 11
    NES2_BOARD 11, 0, 8, 4, 0, $07, $00
    NPRG = 4                ; 32 KiB banks the latch reaches (bits 0-1)
.elseif BOARD = 13
    NES2_BOARD 13, 0, 2, 0, 0, $07, $08
    NPRG = 1
.elseif BOARD = 34
    NES2_BOARD 34, 2, 8, 0, 0, $07, $07
    NPRG = 4
.elseif BOARD = 134
    NES2_BOARD 34, 1, 8, 4, 0, $07, $00
    NPRG = 2                ; $7FFD bit 0
.elseif BOARD = 66
    NES2_BOARD 66, 0, 8, 4, 0, $07, $00
    NPRG = 4                ; bits 4-5
.elseif BOARD = 71
    NES2_BOARD 71, 0, 8, 0, 1, $07, $07
    NPRG = 8                ; 16 KiB banks at $8000
.endif
CONFLICTS = BOARD = 3 .or BOARD = 7 .or BOARD = 11 .or BOARD = 13 .or BOARD = 34 .or BOARD = 66
CHRBANKS = BOARD = 3 .or BOARD = 11 .or BOARD = 66 ; 8 KiB CHR-ROM banks from the latch

.if BOARD = 71
    PRG_TAGS 8
.elseif BOARD = 13 .or BOARD = 3
    PRG_TAGS 1
.else
    PRG_TAGS 4
.endif
.if BOARD = 3 .or BOARD = 11 .or BOARD = 134 .or BOARD = 66
    CHR_DATA 32
.endif

; LATCH: writes A to the board's bank register (A kept).
.macro LATCH
.if BOARD = 134
    sta $7FFD
.elseif BOARD = 71
    sta $C000
.else
    tay
    sta TABLE,y
.endif
.endmacro

.segment "ZEROPAGE"
lv_k:     .res 1            ; latch value for the probed bank
lv_0:     .res 1            ; latch value back to bank 0
got:      .res 1
k:        .res 1

.segment "RAMCODE"
; The tag of the bank that latch value lv_k maps, read with the code in RAM; bank 0 back.
probe:
    lda lv_k
    LATCH
    lda TAG
    sta got
    lda lv_0
    LATCH
    lda got
    rts

; Bus conflicts: 1 written where the ROM holds 0; the tag seen, then the latch back to 0.
probe_conflict:
    lda #1
    sta TABLE
    lda TAG
    sta got
    lda #0
    sta TABLE
    lda got
    rts

.segment "CODE"

reset:
    sei
    cld
    ldx #$FF
    txs
    ldx #0                  ; the RAM code to $0300
:   lda __RAMCODE_LOAD__,x
    sta __RAMCODE_RUN__,x
    inx
    cpx #<__RAMCODE_SIZE__
    bne :-
    RESET_START

    ; ---- 1: PRG banks ----------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    jsr prg_value
    sta lv_k
    lda #0
    jsr prg_value
    sta lv_0
    jsr probe
    cmp k
    beq :+
    pha
    PRINT "PRG bank "
    lda k
    jsr print_hex
    PRINT " tag "
    pla
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #NPRG
    bne l_prg
.if BOARD <> 13 .and BOARD <> 3
    lda #NPRG               ; past the latch's bits: wraps to bank 0
    jsr prg_value
    sta lv_k
    jsr probe
    EXPECT 0, 1, "PRG wrap tag "
.endif

    ; ---- 2: CHR ------------------------------------------------------------------------
.if CHRBANKS
    lda #0
    sta k
l_chr:
    lda k
    jsr chr_value
    LATCH
    ldx #$00
    ldy #$00
    jsr chr_peek            ; 1 KiB bank 8k at $0000
    sta got
    lda k
    asl a
    asl a
    asl a
    cmp got
    beq :+
    PRINT "CHR bank "
    lda got
    jsr print_hex
    lda #2
    jmp fail_done
:   ldx #$1C
    ldy #$00
    jsr chr_peek            ; and 8k + 7 at $1C00
    sec
    sbc #7
    sec
    sbc got
    EXPECT 0, 2, "CHR bank at $1C00 off by "
    inc k
    lda k
    cmp #4
    beq :+
    jmp l_chr
:   lda #0
    LATCH
.elseif BOARD = 134
    lda #7
    sta $7FFE
    lda #3
    sta $7FFF
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 28, 2, "NINA $7FFE 7: 1 KiB bank "
    ldx #$14
    ldy #$00
    jsr chr_peek
    EXPECT 13, 2, "NINA $7FFF 3: $1400 bank "
.elseif BOARD = 13
    lda #0
    sta k
l_page:                      ; tag each page at $1000
    lda k
    LATCH
    lda k
    ora #$40
    ldx #$10
    ldy #$00
    jsr chr_poke
    inc k
    lda k
    cmp #4
    bne l_page
    lda #3
    sta k
l_check:                     ; and read them back in the other order
    lda k
    LATCH
    ldx #$10
    ldy #$00
    jsr chr_peek
    sta got
    lda k
    ora #$40
    cmp got
    beq :+
    lda got
    PRINT "CPROM page tag "
    lda got
    jsr print_hex
    lda #2
    jmp fail_done
:   dec k
    bpl l_check
    ldx #$00                ; $0000 is page 0 whatever the latch
    ldy #$00
    jsr chr_peek
    EXPECT $40, 2, "CPROM $0000 "
.endif

    ; ---- 3: bus conflicts ----------------------------------------------------------------
.if CONFLICTS
.if BOARD = 3
    lda #1
    sta TABLE               ; ROM holds 0 there: CHR bank 0, not 1
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 0, 3, "CNROM conflict: CHR 1 KiB bank "
    lda #0
    LATCH
.elseif BOARD = 13
    lda #1
    sta TABLE               ; ROM holds 0 there: the latch takes 0
    ldx #$10
    ldy #$00
    jsr chr_peek
    EXPECT $40, 3, "CPROM conflict page tag "
.else
    jsr probe_conflict
    EXPECT 0, 3, "bus conflict tag "
.endif
.endif

    ; ---- 4: Camerica mirroring -----------------------------------------------------------
.if BOARD = 71
    lda #$5A
    ldx #$20
    ldy #$00
    jsr chr_poke
    lda #$10
    sta $8000               ; not a mirroring register until $9000 is written
    ldx #$28
    ldy #$00
    jsr chr_peek
    EXPECT $5A, 4, "vertical $2800 "
    lda #$10
    sta $9000               ; one-screen, upper page
    lda #$A5
    ldx #$20
    ldy #$00
    jsr chr_poke
    ldx #$2C
    ldy #$00
    jsr chr_peek
    EXPECT $A5, 4, "one-screen $2C00 "
    lda #$00
    sta $9000               ; lower page: $2000's first write there
    ldx #$24
    ldy #$00
    jsr chr_peek
    EXPECT $5A, 4, "one-screen lower $2400 "
.elseif BOARD = 7
    lda #$00                ; the lower page
    LATCH
    lda #$5A
    ldx #$20
    ldy #$00
    jsr chr_poke
    lda #$10                ; the upper page: $2000-$2FFF all show it
    LATCH
    lda #$A5
    ldx #$24
    ldy #$00
    jsr chr_poke
    ldx #$20
    ldy #$00
    jsr chr_peek
    EXPECT $A5, 4, "one-screen upper: $2000 "
    lda #$00                ; the lower page again: the first byte
    LATCH
    ldx #$2C
    ldy #$00
    jsr chr_peek
    EXPECT $5A, 4, "one-screen lower: $2C00 "
.endif

    PRINT "discrete board checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the test screen ----------------------------------------------------------------
    jsr wait_vblank
    lda #0
    sta PPUMASK
.if BOARD = 13
    lda #0
    sta k
l_fill:                      ; 16 KiB CHR-RAM through $1000: page k gets banks 4k-4k+3
    lda k
    LATCH
    lda k
    asl a
    asl a
    ldx #$10
    jsr chr_fill
    lda k
    asl a
    asl a
    ora #1
    ldx #$14
    jsr chr_fill
    lda k
    asl a
    asl a
    ora #2
    ldx #$18
    jsr chr_fill
    lda k
    asl a
    asl a
    ora #3
    ldx #$1C
    jsr chr_fill
    inc k
    lda k
    cmp #4
    bne l_fill
.elseif BOARD = 7 .or BOARD = 34 .or BOARD = 71
    lda #0
    sta k
l_fill8:                     ; 8 KiB CHR-RAM: banks 0-7
    lda k
    asl a
    asl a
    tax
    lda k
    jsr chr_fill
    inc k
    lda k
    cmp #8
    bne l_fill8
.endif
    jsr screen_setup
    jsr screen_on
:   jmp :-

; The latch value that maps PRG bank A (CHR at its first bank).
prg_value:
.if BOARD = 66
    asl a
    asl a
    asl a
    asl a
.endif
    rts

; The latch value that maps CHR bank A (PRG bank 0).
chr_value:
.if BOARD = 11
    asl a
    asl a
    asl a
    asl a
.endif
    rts

nmi:
    NMI_EVERY_32 l_out   ; every 32 frames: the next bank (or page)
.if CHRBANKS
    and #3
    jsr chr_value
    LATCH
.elseif BOARD = 134
    and #7
    sta $7FFE
    eor #7
    sta $7FFF
.elseif BOARD = 13
    and #3
    LATCH
.elseif BOARD = 71
    and #1
    asl a
    asl a
    asl a
    asl a
    sta $9000
.elseif BOARD = 7
    and #1                  ; the one-screen page (PRG bank 0 kept)
    asl a
    asl a
    asl a
    asl a
    LATCH
.endif
l_out:
    POP_AXY_RTI

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
