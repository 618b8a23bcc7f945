; namco_test.s: gpuvet's test of Namco's 175 and 340 (mapper 210, nes_board_namco.c), built once
; per chip (tests/nes/build_roms.sh passes BOARD): 175 (210.1: hard-wired vertical mirroring,
; 2 KiB of RAM at $6000 enabled by $C000 bit 0), 340 (210.2: no RAM, mirroring from $E000
; bits 6-7). 128 KiB PRG (each 8 KiB bank starts with its tag; code in the last, fixed at
; $E000), 64 KiB CHR-ROM; every register fills $800 bytes. The checks:
;   1 PRG: $E000, $E800, $F000 map banks at $8000, $A000, $C000; $E000 the last;
;   2 CHR: $8000-$B800, the eight 1 KiB banks, read back through $2007;
;   3 mirroring: 175: vertical whatever $E000 bits 6-7 say; 340: $E000 bits 6-7 = 0
;     one-screen lower, 1 vertical, 2 one-screen upper, 3 horizontal;
;   4 175: the RAM: off ($C000 = 0) open bus, on: 2 KiB mirrored through $6000-$7FFF.
; The result goes to $0200 ($A5 passed, else the failed check's number) and, on the 175, to
; the status block at $6000 (the 340 has no RAM: test_nes_carts.c reads $0200). Then the
; test screen, its CHR banks moved by the NMI every 32 frames (the 340: its mirroring too).

.include "common.inc"
.include "boards.inc"
.include "namco.inc"

RESULT = $0200

.if BOARD = 175
    NES2_BOARD 210, 1, 8, 8, 1, $50, $00      ; PRG-NVRAM 64 << 5 = 2 KiB
    STATUS_OK = 1
.else
    NES2_BOARD 210, 2, 8, 8, 1, $00, $00
    STATUS_OK = 0
.endif
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
n0:       .res 1
bank:     .res 1

.segment "CODE"

    NAMCO_CHR_WRITE

; The byte at $2020 as seen through PPU address X:$20 (a nametable probe).
nt_probe:
    ldy #$20
    jmp chr_peek

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #0
    sta RESULT
.if BOARD = 175
    lda #1                  ; the RAM on before the status goes there
    sta $C000
.endif
    lda #$40
    sta FRAMECTR
    lda #0
    sta PPUCTRL
    sta PPUMASK
    jsr wait_vblank
    jsr wait_vblank
.if STATUS_OK
    jsr report_start
.endif

    ; ---- 1: PRG ------------------------------------------------------------------------
    NAMCO_PRG_CHECK

    ; ---- 2: CHR ------------------------------------------------------------------------
    CHR_REGS_CHECK chr_write, 0, 2

    ; ---- 3: mirroring ------------------------------------------------------------------
.if BOARD = 340
    lda #$40                ; vertical
    sta $E000
.else
    lda #$C0                ; the 175 ignores bits 6-7: vertical
    sta $E000
.endif
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    ldx #$28
    jsr nt_probe
    CHECK $5A, 3, "vertical $2820 "
    ldx #$24
    jsr nt_probe
    CHECK $00, 3, "vertical $2420 "
.if BOARD = 340
    lda #$C0                ; horizontal
    sta $E000
    ldx #$24
    jsr nt_probe
    CHECK $5A, 3, "horizontal $2420 "
    lda #$00                ; one-screen lower
    sta $E000
    ldx #$2C
    jsr nt_probe
    CHECK $5A, 3, "one-screen lower $2C20 "
    lda #$80                ; one-screen upper
    sta $E000
    ldx #$2C
    jsr nt_probe
    CHECK $00, 3, "one-screen upper $2C20 "
    lda #$40
    sta $E000
.endif

    ; ---- 4: the 175's RAM --------------------------------------------------------------
.if BOARD = 175
    lda #$C3
    sta $6710
    lda $7F10               ; 2 KiB mirrored: $6710 = $6F10 = $7710 = $7F10
    CHECK $C3, 4, "RAM mirror $7F10 "
    lda #0
    sta $C000
    lda $6710
    sta n0
    lda #1
    sta $C000
    lda n0
    CHECK $67, 4, "RAM off: $6710 "
.endif

.if STATUS_OK
    PRINT "Namco 175/340 checks passed"
.endif
    lda #0
fail_done:
.if STATUS_OK
    sta STATUS
.endif
    cmp #0
    bne :+
    lda #$A5
:   sta RESULT

    ; ---- the screen ----------------------------------------------------------------------------
    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    jsr screen_on
:   jmp :-

nmi:
    PUSH_AXY
    inc frame
    FRAME_BANK              ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    SET_CHR_BANKS chr_write, 0, 8, 0
    lda frame               ; the 340: the mirroring from bits 6-7 of frame / 16
    asl a
    asl a
    and #$C0
    ora #15
    sta $E000
    POP_AXY_RTI

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
