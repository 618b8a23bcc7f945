; mmc3x_test.s: gpuvet's test of the MMC3's relatives, built once per board
; (tests/nes/build_roms.sh passes BOARD): 118 TxSROM, 119 TQROM, 206 Namco 108, and the
; Namco 108's other boards 76 NAMCOT-3446, 88 NAMCOT-3443, 154 NAMCOT-3453 (these three with
; 128 KiB of CHR-ROM, CHR_FAST, and prg128.cfg), 95 NAMCOT-3425. 128 KiB PRG (each 8 KiB bank
; starts with its tag), 64 KiB CHR-ROM (CHR_DATA: each 1 KiB names itself), 8 KiB PRG-RAM
; for the status. The checks:
;   1 R6 and R7 map their 8 KiB banks at $8000 and $A000; with bank-select bit 6 the
;     MMC3 boards move R6 to $C000 (and the second-last bank to $8000), the Namco 108 has
;     no such mode;
;   2 R0-R1 (2 KiB) and R2-R5 (1 KiB) read back their CHR banks through $2007; TQROM: a
;     bank value with bit 6 maps its 8 KiB of CHR-RAM, which keeps what is written;
;     NAMCOT-3446: R2-R5 map 2 KiB each at $0000-$1800; NAMCOT-3443/3453: R2-R5 from the
;     second 64 KiB (PPU A12 is CHR A16);
;   3 TxSROM: bit 7 of R0 picks the CIRAM page of nametables $2000-$27FF, R1's of
;     $2800-$2FFF (CHR mode 0); NAMCOT-3425 the same with bit 5; the Namco 108, 3446, 3443:
;     the header's vertical mirroring, $A000 nothing; NAMCOT-3453: bit 6 of any write to
;     $8000-$FFFF picks the one-screen page.
; Then the test screen, with R0-R5 moved on every 32 frames (TQROM: R2 between ROM and
; RAM; TxSROM: R0's bit 7 too, so the screen swaps nametables).

.include "common.inc"
.include "boards.inc"

.if BOARD = 118
    NES2_BOARD 118, 0, 8, 8, 0, $07, $00
.elseif BOARD = 119
    NES2_BOARD 119, 0, 8, 8, 0, $07, $07
.elseif BOARD = 76 .or BOARD = 88 .or BOARD = 154
    NES2_BOARD BOARD, 0, 8, 16, 1, $07, $00
.else
    NES2_BOARD BOARD, 0, 8, 8, 1, $07, $00
.endif
MMC3_MODES = BOARD = 118 .or BOARD = 119
CHR128 = BOARD = 76 .or BOARD = 88 .or BOARD = 154
    PRG_TAGS 16
.if CHR128
    CHR_FAST 128
.else
    CHR_DATA 64
.endif

.segment "ZEROPAGE"
k:        .res 1
got:      .res 1

.segment "CODE"

; Bank register X := A.
set_bank:
    stx $8000
    sta $8001
    rts

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #$80
    sta $A001               ; (MMC3) PRG-RAM on for the status
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    ldx #6
    lda k
    jsr set_bank
    lda $8000
    cmp k
    beq :+
    PRINT "R6 tag "
    lda $8000
    jsr print_hex
    lda #1
    jmp fail_done
:   ldx #7
    lda k
    jsr set_bank
    lda $A000
    cmp k
    beq :+
    PRINT "R7 tag "
    lda $A000
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #14
    bne l_prg
    lda #$46                ; mode 1 (bit 6), R6 = 5
    sta $8000
    lda #5
    sta $8001
.if MMC3_MODES
    lda $C000
    EXPECT 5, 1, "mode 1 $C000 tag "
    lda $8000
    EXPECT 14, 1, "mode 1 $8000 tag "
.else
    lda $8000
    EXPECT 5, 1, "Namco 108 $8000 tag "
.endif
    lda #$00
    sta $8000               ; mode 0 again

    ; ---- 2: CHR ------------------------------------------------------------------------
    ldx #0
    lda #10
    jsr set_bank            ; R0 = 10: 1 KiB banks 10, 11 at $0000
    ldx #1
    lda #20
    jsr set_bank            ; R1 = 20
    ldx #2
    lda #33
    jsr set_bank
    ldx #5
    lda #62
    jsr set_bank
.if BOARD = 76
    ldx #3
    lda #9
    jsr set_bank            ; 2 KiB banks: R2 33 at $0000, R3 9 at $0800, R5 62 at $1800
    ldx #$04
    ldy #$00
    jsr chr_peek
    EXPECT 67, 2, "NAMCOT-3446 R2 second half "
    ldx #$08
    ldy #$00
    jsr chr_peek
    EXPECT 18, 2, "NAMCOT-3446 R3 "
    ldx #$1C
    ldy #$00
    jsr chr_peek
    EXPECT 125, 2, "NAMCOT-3446 R5 second half "
.else
    ldx #$04
    ldy #$00
    jsr chr_peek
    EXPECT 11, 2, "R0 second half "
    ldx #$08
    ldy #$00
    jsr chr_peek
    EXPECT 20, 2, "R1 "
    ldx #$10
    ldy #$00
    jsr chr_peek
.if CHR128
    EXPECT 97, 2, "R2 (PPU A12: the second 64 KiB) "
.else
    EXPECT 33, 2, "R2 "
.endif
    ldx #$1C
    ldy #$00
    jsr chr_peek
.if CHR128
    EXPECT 126, 2, "R5 (the second 64 KiB) "
.else
    EXPECT 62, 2, "R5 "
.endif
.endif
.if BOARD = 119
    ldx #2
    lda #$43                ; CHR-RAM page 3 at $1000
    jsr set_bank
    lda #$77
    ldx #$10
    ldy #$05
    jsr chr_poke
    ldx #2
    lda #3                  ; CHR-ROM bank 3 there: ROM, not the write
    jsr set_bank
    ldx #$10
    ldy #$05
    jsr chr_peek
    sta got
    ldx #3
    lda #$43                ; the same RAM page at $1400
    jsr set_bank
    ldx #$14
    ldy #$05
    jsr chr_peek
    EXPECT $77, 2, "TQROM CHR-RAM "
    lda got
    cmp #$77
    bne :+
    PRINT "TQROM ROM bank shows the RAM write"
    lda #2
    jmp fail_done
:
.endif

    ; ---- 3: nametables ------------------------------------------------------------------
.if BOARD = 118 .or BOARD = 95
.if BOARD = 118
NT_BIT = $80
.else
NT_BIT = $20
.endif
    ldx #0
    lda #NT_BIT             ; R0 bit 7 (95: bit 5): $2000-$27FF on CIRAM page 1
    jsr set_bank
    ldx #1
    lda #$00                ; R1: $2800-$2FFF on page 0
    jsr set_bank
    lda #$5A
    ldx #$20
    ldy #$00
    jsr chr_poke            ; page 1
    lda #$A5
    ldx #$28
    ldy #$00
    jsr chr_poke            ; page 0
    ldx #$24
    ldy #$00
    jsr chr_peek
.if BOARD = 118
    EXPECT $5A, 3, "TxSROM $2400 "
.else
    EXPECT $5A, 3, "NAMCOT-3425 $2400 "
.endif
    ldx #0
    lda #$00                ; now everything on page 0
    jsr set_bank
    ldx #$20
    ldy #$00
    jsr chr_peek
.if BOARD = 118
    EXPECT $A5, 3, "TxSROM $2000 after R0 bit 7 clear "
.else
    EXPECT $A5, 3, "NAMCOT-3425 $2000 after R0 bit 5 clear "
.endif
.elseif BOARD = 154
    lda #$40
    sta $C000               ; bit 6 of a write anywhere: one-screen upper
    lda #$5A
    ldx #$20
    ldy #$00
    jsr chr_poke
    ldx #$2C
    ldy #$00
    jsr chr_peek
    EXPECT $5A, 3, "NAMCOT-3453 one-screen upper $2C00 "
    lda #$00
    sta $8001               ; (R0 := 0) bit 6 clear: the lower page
    lda #$A5
    ldx #$24
    ldy #$00
    jsr chr_poke
    lda #$40
    sta $E001
    ldx #$28
    ldy #$00
    jsr chr_peek
    EXPECT $5A, 3, "NAMCOT-3453 upper page again $2800 "
    lda #$00
    sta $8000
    ldx #$20
    ldy #$00
    jsr chr_peek
    EXPECT $A5, 3, "NAMCOT-3453 lower page $2000 "
.elseif BOARD <> 119
    lda #1
    sta $A000               ; no mirroring register: stays vertical
    lda #$3C
    ldx #$20
    ldy #$00
    jsr chr_poke
    ldx #$28
    ldy #$00
    jsr chr_peek
    EXPECT $3C, 3, "Namco 108 vertical $2800 "
.endif

    PRINT "MMC3-relative board checks passed"
    lda #0
fail_done:
    sta STATUS

    jsr wait_vblank
    lda #0
    sta PPUMASK
.if BOARD = 119
    ldx #2
    lda #$40
    jsr set_bank            ; fill the 8 KiB of CHR-RAM (through $1000) with banks 0-7
    lda #0
    sta k
l_fill:
    lda k
    ora #$40
    ldx #2
    jsr set_bank
    lda k
    ldx #$10
    jsr chr_fill
    inc k
    lda k
    cmp #8
    bne l_fill
.endif
    jsr screen_setup
.if BOARD = 118 .or BOARD = 95
    ldx #0
    lda #NT_BIT             ; CIRAM page 1 gets the second nametable's tiles too
    jsr set_bank
    lda #$20
    ldx #$80
    jsr fill_nt
    ldx #0
    lda #$00
    jsr set_bank
.endif
    jsr screen_on
:   jmp :-

nmi:
    NMI_EVERY_32 l_out
    and #7
    sta k
    asl a
    asl a
    asl a                   ; 8k: R0 = 8k, R1 = 8k + 2, R2-R5 = 8k + 4 .. 8k + 7
.if BOARD = 118
    ldx k
    cpx #4
    bcc :+
    ora #$80                ; second half of the cycle: nametables from CIRAM page 1
:
.endif
    ldx #0
    jsr set_bank
    and #$7F
    clc
    adc #2
    ldx #1
    jsr set_bank
.if BOARD = 119
    lda k
    ora #$40                ; R2 from CHR-RAM
.else
    lda k
    asl a
    asl a
    asl a
    adc #4
.endif
    ldx #2
    jsr set_bank
    lda k
    asl a
    asl a
    asl a
    adc #5
    ldx #3
    jsr set_bank
    adc #1
    ldx #4
    jsr set_bank
    adc #1
    ldx #5
    jsr set_bank
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
l_out:
    POP_AXY_RTI

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
