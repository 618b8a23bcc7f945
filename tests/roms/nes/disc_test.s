; disc_test.s: gpuvet's test of the latch boards of nes_board_latch.c, built once per board
; (tests/nes/build_roms.sh passes BOARD): 2 UxROM (UOROM's 16 banks, submapper 2: bus
; conflicts), 70 Bandai 74161, 152 its one-screen twin, 781 Irem
; 74HC161/32 (78.1, one-screen), 783 (78.3, Holy Diver: H/V), 89 Sunsoft-2 on the Sunsoft-3
; board, 93 Sunsoft-2 on the 3R board, 94 UN1ROM, 180 UNROM with the first bank fixed, 97 Irem
; TAM-S1, 232 Camerica Quattro, 72 Jaleco JF-17, 92 JF-19, 87 Jaleco J87, 140 JF-11/14, 86
; JF-13, 184 Sunsoft-1, 79 NINA-03/06. PRG banks start with their tag and a table of 0-255
; (a write of v to table+v is safe with bus conflicts); CHR-ROM is 128 KiB whose 1 KiB bank
; b starts with the byte b (boards.inc's CHR_FAST). The checks:
;   1 PRG: each bank the register reaches shows its tag in the switched window (read by
;     code in RAM), the fixed window its bank (the Quattro: the block's last page);
;   2 CHR: each 8 KiB bank (Sunsoft-1: each 4 KiB pair) reads back its number via $2007;
;   3 mirroring (152, 78, 89, 97): one-screen pages, horizontal and vertical by the
;     nametable bytes seen through the other windows;
;   4 bus conflicts (the 74161 boards): a write where the ROM holds 0 latches 0 (the JF-17 and
;     JF-19 see no 0-to-1 edge, so nothing loads).
; The result goes to $0200 ($A5 passed, else the failed check's number) and, on the boards
; with PRG-RAM, to the status block at $6000 too; the boards whose register fills $6000-$7FFF
; (87, 140, 86, 184) have none, and test_nes_carts.c reads $0200 for them. Then the test
; screen, its CHR bank (or one-screen page) changed every 32 frames by the NMI.

.include "common.inc"
.include "boards.inc"
.import __RAMCODE_LOAD__, __RAMCODE_RUN__, __RAMCODE_SIZE__

RESULT = $0200

; Per board: the header; NPRG banks to probe in window PRGWIN; FIXWIN the fixed window
; (0: none) holding FIXTAG; NCHR 8 KiB CHR banks to probe; HI: the register is at $8000+ (and
; the board has PRG-RAM for the status); CONF: bus conflicts; MIR: 0 none, 1 one-screen
; (latch values MA lower, MB upper), 2 horizontal/vertical (MA, MB), 3 both (97).
.if BOARD = 2
    NES2_BOARD 2, 2, 16, 16, 0, $07, $00
    NPRG = 16
    NCHR = 0
    FIXWIN = $C000
    FIXTAG = 15
.elseif BOARD = 70
    NES2_BOARD 70, 0, 16, 16, 0, $07, $00
    NPRG = 16
    NCHR = 16
.elseif BOARD = 152
    NES2_BOARD 152, 0, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 16
    MIR = 1
    MA = $00
    MB = $80
.elseif BOARD = 781
    NES2_BOARD 78, 1, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 16
    MIR = 1
    MA = $00
    MB = $08
.elseif BOARD = 783
    NES2_BOARD 78, 3, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 16
    MIR = 2
    MA = $00                ; horizontal
    MB = $08                ; vertical
.elseif BOARD = 89
    NES2_BOARD 89, 0, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 16
    MIR = 1
    MA = $00
    MB = $08
.elseif BOARD = 93
    NES2_BOARD 93, 0, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 0
.elseif BOARD = 94
    NES2_BOARD 94, 0, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 0
.elseif BOARD = 180
    NES2_BOARD 180, 0, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 0
    PRGWIN = $C000
    FIXWIN = $8000
    FIXTAG = 0
.elseif BOARD = 97
    NES2_BOARD 97, 0, 16, 16, 0, $07, $00
    NPRG = 16
    NCHR = 0
    PRGWIN = $C000
    FIXWIN = $8000
    FIXTAG = 15
    MIR = 3
    MA = $00                ; one-screen lower
    MB = $C0                ; one-screen upper
    MH = $40
    MV = $80
.elseif BOARD = 232
    NES2_BOARD 232, 0, 16, 16, 0, $07, $00
    NPRG = 16
    NCHR = 0
    FIXWIN = $C000
.elseif BOARD = 72
    NES2_BOARD 72, 0, 16, 16, 0, $07, $00
    NPRG = 8
    NCHR = 16
.elseif BOARD = 92
    NES2_BOARD 92, 0, 16, 16, 0, $07, $00
    NPRG = 16
    NCHR = 16
    PRGWIN = $C000
    FIXWIN = $8000
    FIXTAG = 0
.elseif BOARD = 87
    NES2_BOARD 87, 0, 8, 16, 0, $00, $00
    NPRG = 0
    NCHR = 4
    HI = 0
.elseif BOARD = 140
    NES2_BOARD 140, 0, 8, 16, 0, $00, $00
    NPRG = 4
    NCHR = 16
    HI = 0
.elseif BOARD = 86
    NES2_BOARD 86, 0, 8, 16, 0, $00, $00
    NPRG = 4
    NCHR = 8
    HI = 0
.elseif BOARD = 184
    NES2_BOARD 184, 0, 8, 16, 0, $00, $00
    NPRG = 0
    NCHR = 0
    HI = 0
.elseif BOARD = 79
    NES2_BOARD 79, 0, 8, 16, 0, $07, $00
    NPRG = 2
    NCHR = 8
    HI = 0                  ; its register is at $4100; it keeps PRG-RAM for the status
    STATUS_OK = 1
.endif
.ifndef PRGWIN
    PRGWIN = $8000
.endif
.ifndef FIXWIN
    FIXWIN = 0
.endif
.ifndef FIXTAG
    FIXTAG = 0
.endif
.ifndef MIR
    MIR = 0
.endif
.ifndef HI
    HI = 1
.endif
.ifndef STATUS_OK
    STATUS_OK = HI
.endif
CONF = BOARD = 2 .or BOARD = 70 .or BOARD = 152 .or BOARD = 781 .or BOARD = 783 .or BOARD = 89 .or BOARD = 93 .or BOARD = 94 .or BOARD = 180 .or BOARD = 72 .or BOARD = 92
BIG = BOARD = 140 .or BOARD = 86 .or BOARD = 79 .or BOARD = 87 .or BOARD = 184

.if BIG
    PRG_TAGS 4
.else
    PRG_TAGS 16
.endif
    CHR_FAST 128

.segment "ZEROPAGE"
lv_k:     .res 1            ; latch value for the probed bank
lv_0:     .res 1            ; latch value back to bank 0
got:      .res 1
got_fix:  .res 1
k:        .res 1

; LATCH: writes A to the board's register (A kept).
.macro LATCH
.if BOARD = 72 .or BOARD = 92
    pha                     ; the JF-17/JF-19 load on a 0-to-1 edge: bits 6-7 clear first
    and #$0F
    tay
    sta TABLE,y
    pla
    tay
    sta TABLE,y
    tya
.elseif BOARD = 232
    sta $8000               ; the block from bits 3-4, the page from bits 0-1
    sta $C000
.elseif BOARD = 87 .or BOARD = 140 .or BOARD = 86 .or BOARD = 184
    sta $6000
.elseif BOARD = 79
    sta $4100
.else
    tay
    sta TABLE,y
.endif
.endmacro

.segment "RAMCODE"
; The register := A, from RAM (the 32 KiB boards switch the code's own bank).
set_latch:
    LATCH
    rts

; The tags in the switched and the fixed window with latch value lv_k; then lv_0.
probe:
    lda lv_k
    LATCH
    lda PRGWIN
    sta got
.if FIXWIN
    lda FIXWIN
    sta got_fix
.endif
    lda lv_0
    LATCH
    lda got
    rts

; Bus conflicts: bank 1's value written where the ROM holds 0; the tag seen; bank 0 back.
probe_conflict:
.if BOARD = 72 .or BOARD = 92
    lda #$01                ; bit 7 clear, then set: the edge that would load bank 1
    sta TABLE
    lda #$81
    sta TABLE
.else
    lda #1
    jsr prg_value
    sta TABLE
.endif
    lda PRGWIN
    sta got
    lda lv_0
    LATCH
    lda got
    rts

.segment "CODE"

; The latch value that maps PRG bank A in the switched window (CHR bank 0, other bits 0).
prg_value:
.if BOARD = 70 .or BOARD = 152 .or BOARD = 89 .or BOARD = 93 .or BOARD = 140 .or BOARD = 86
    asl a
    asl a
    asl a
    asl a
.elseif BOARD = 94
    asl a
    asl a
.elseif BOARD = 79
    asl a
    asl a
    asl a
.elseif BOARD = 232
    sta tmp                 ; bank 4b + p: block b to bits 3-4, page p to bits 0-1
    and #$0C
    asl a
    sta tmp+1
    lda tmp
    and #3
    ora tmp+1
.elseif BOARD = 72 .or BOARD = 92
    ora #$80
.endif
    rts

; The latch value that maps 8 KiB CHR bank A.
chr_value:
.if BOARD = 781 .or BOARD = 783
    asl a
    asl a
    asl a
    asl a
.elseif BOARD = 89
    sta tmp                 ; bit 3 of the bank to bit 7
    and #7
    sta tmp+1
    lda tmp
    and #8
    asl a
    asl a
    asl a
    asl a
    ora tmp+1
.elseif BOARD = 87
    sta tmp                 ; bank H + 2L from bits 0 (H) and 1 (L)
    lsr a
    and #1
    sta tmp+1
    lda tmp
    and #1
    asl a
    ora tmp+1
.elseif BOARD = 86
    sta tmp                 ; bit 2 of the bank to bit 6
    and #3
    sta tmp+1
    lda tmp
    and #4
    asl a
    asl a
    asl a
    asl a
    ora tmp+1
.elseif BOARD = 72 .or BOARD = 92
    ora #$40
.endif
    rts

; The tag expected in the fixed window while PRG bank A is probed.
fix_value:
.if BOARD = 232
    ora #3
.else
    lda #FIXTAG
.endif
    rts

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
    lda #$40
    sta FRAMECTR
    lda #0
    sta PPUCTRL
    sta PPUMASK
    sta RESULT
    jsr wait_vblank
    jsr wait_vblank
.if STATUS_OK
    jsr report_start
.endif

    ; ---- 1: PRG ------------------------------------------------------------------------
.if NPRG
    lda #0
    jsr prg_value
    sta lv_0
    lda #0
    sta k
l_prg:
    lda k
    jsr prg_value
    sta lv_k
    jsr probe
    cmp k
    beq :+
.if STATUS_OK
    pha
    PRINT "PRG bank "
    lda k
    jsr print_hex
    PRINT " tag "
    pla
    jsr print_hex
.endif
    lda #1
    jmp fail_done
:
.if FIXWIN
    lda k
    jsr fix_value
    cmp got_fix
    beq :+
.if STATUS_OK
    PRINT "fixed window tag "
    lda got_fix
    jsr print_hex
.endif
    lda #1
    jmp fail_done
:
.endif
    inc k
    lda k
    cmp #NPRG
    beq :+
    jmp l_prg
:
.endif

    ; ---- 2: CHR ------------------------------------------------------------------------
.if NCHR
    lda #0
    sta k
l_chr:
    lda k
    jsr chr_value
    jsr set_latch
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
.if STATUS_OK
    PRINT "CHR bank "
    lda k
    jsr print_hex
    PRINT " reads "
    lda got
    jsr print_hex
.endif
    lda #2
    jmp fail_done
:   ldx #$1C
    ldy #$00
    jsr chr_peek            ; and 8k + 7 at $1C00
    sec
    sbc #7
    sec
    sbc got
    CHECK 0, 2, "CHR bank at $1C00 off by "
    inc k
    lda k
    cmp #NCHR
    beq :+
    jmp l_chr
:
    lda #0
    jsr chr_value
    jsr set_latch
.endif
.if BOARD = 184
    lda #0                  ; Sunsoft-1: $0000 the 4 KiB bank L, $1000 the bank H | 4
    sta k
l_chr4:
    lda k
    asl a
    asl a
    asl a
    asl a
    ora k
    jsr set_latch
    ldx #$00
    ldy #$00
    jsr chr_peek
    sta got
    lda k
    asl a
    asl a
    cmp got
    beq :+
    lda #2
    jmp fail_done
:   ldx #$10
    ldy #$00
    jsr chr_peek
    sta got
    lda k
    ora #4
    asl a
    asl a
    cmp got
    beq :+
    lda #2
    jmp fail_done
:   inc k
    lda k
    cmp #8
    bne l_chr4
    lda #0
    jsr set_latch
.endif

    ; ---- 3: mirroring ------------------------------------------------------------------
.if MIR = 1 .or MIR = 3
    lda #MA
    jsr set_latch
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    ldx #$2C
    ldy #$20
    jsr chr_peek
    CHECK $5A, 3, "one-screen lower: $2C20 "
    lda #MB
    jsr set_latch
    lda #$A5
    ldx #$20
    ldy #$20
    jsr chr_poke
    ldx #$24
    ldy #$20
    jsr chr_peek
    CHECK $A5, 3, "one-screen upper: $2420 "
    lda #MA
    jsr set_latch
    ldx #$28
    ldy #$20
    jsr chr_peek
    CHECK $5A, 3, "one-screen lower again: $2820 "
.endif
.if MIR = 2 .or MIR = 3
.if MIR = 3
    HMODE = MH
    VMODE = MV
.else
    HMODE = MA
    VMODE = MB
.endif
    lda #HMODE
    jsr set_latch
    lda #$3C
    ldx #$20
    ldy #$40
    jsr chr_poke
    ldx #$24
    ldy #$40
    jsr chr_peek
    CHECK $3C, 3, "horizontal: $2440 "
    lda #VMODE
    jsr set_latch
    ldx #$28
    ldy #$40
    jsr chr_peek
    CHECK $3C, 3, "vertical: $2840 "
    lda #$C3
    ldx #$24
    ldy #$40
    jsr chr_poke
    ldx #$20
    ldy #$40
    jsr chr_peek
    CHECK $3C, 3, "vertical: $2040 after $2440 "
    lda #0
    jsr set_latch
.endif

    ; ---- 4: bus conflicts --------------------------------------------------------------
.if CONF
    jsr probe_conflict
    CHECK 0, 4, "bus conflict: tag "
.endif

.if STATUS_OK
    PRINT "latch board checks passed"
.endif
    lda #$A5
    sta RESULT
    lda #0
.if STATUS_OK
    sta STATUS
.endif
    jmp screen
fail_done:
    sta RESULT
.if STATUS_OK
    sta STATUS
.endif

    ; ---- the test screen ----------------------------------------------------------------
screen:
    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    jsr screen_on
:   jmp :-

nmi:
    NMI_EVERY_32 l_out   ; every 32 frames: the next bank (or page)
.if NCHR
    and #3
    jsr chr_value
    jsr set_latch
.elseif BOARD = 184
    and #7
    sta k
    asl a
    asl a
    asl a
    asl a
    ora k
    jsr set_latch
.elseif MIR
    and #1
    beq :+
    lda #MB
    jmp :++
:   lda #MA
:   jsr set_latch
.endif
l_out:
    POP_AXY_RTI

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
