; mmc2_test.s: gpuvet's test of the latch boards, built once per chip (tests/nes/build_roms.sh
; passes BOARD): 9 MMC2 (128 KiB PRG in 8 KiB banks), 10 MMC4 (128 KiB in 16 KiB banks);
; 64 KiB CHR-ROM (CHR_DATA: each 1 KiB names itself), 8 KiB PRG-RAM for the status. The
; CHR registers: $B000 $FD/0000 = 4 KiB bank 1, $C000 $FE/0000 = 2, $D000 $FD/1000 = 3,
; $E000 $FE/1000 = 4. The checks:
;   1 PRG: the switchable bank at $8000 (MMC2: 8 KiB, last three fixed; MMC4: 16 KiB);
;   2 the latches, set by pattern reads through $2007: after $0FD8 the $0000 half shows
;     the $FD bank (1 KiB bank 4), after $0FE8 the $FE bank (8); $0FD9 moves latch 0 on the
;     MMC4 only (the MMC2 reacts to $0FD8 exactly); after $1FDA the $1000 half shows bank
;     12, after $1FEF bank 16;
;   3 mirroring: $F000 bit 0 (0 vertical, 1 horizontal).
; Then the picture that needs the latches mid-line: every row holds tile $FD at column 3r
; and $FE at column 7r + 9 (mod 32), so the background changes banks inside lines at
; different dots on each; every 32 frames the NMI moves all four banks on.

.include "common.inc"
.include "boards.inc"

.if BOARD = 9
    NES2_BOARD 9, 0, 8, 8, 0, $07, $00
    PRG_TAGS 16
    NPRG = 13               ; 8 KiB banks at $8000 (13-15 are the fixed ones)
.else
    NES2_BOARD 10, 0, 8, 8, 0, $07, $00
    PRG_TAGS 8
    NPRG = 7
.endif
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
row:      .res 1
c1:       .res 1
c2:       .res 1

.segment "CODE"

; One PPU read at X:Y (the latch sees the address; the buffer's value is not used).
ppu_touch:
    bit PPUSTATUS
    stx PPUADDR
    sty PPUADDR
    lda PPUDATA
    rts

reset:
    sei
    cld
    ldx #$FF
    txs
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    sta $A000
    lda TAG
    cmp k
    beq :+
    PRINT "PRG tag "
    lda TAG
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #NPRG
    bne l_prg

    ; ---- 2: latches ------------------------------------------------------------------------
    lda #1
    sta $B000
    lda #2
    sta $C000
    lda #3
    sta $D000
    lda #4
    sta $E000
    ldx #$0F
    ldy #$D8
    jsr ppu_touch
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 4, 2, "after $0FD8: $0000 bank "
    ldx #$0F
    ldy #$E8
    jsr ppu_touch
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 8, 2, "after $0FE8: $0000 bank "
    ldx #$0F
    ldy #$D9
    jsr ppu_touch
    ldx #$00
    ldy #$00
    jsr chr_peek
.if BOARD = 9
    EXPECT 8, 2, "MMC2 after $0FD9: $0000 bank "
.else
    EXPECT 4, 2, "MMC4 after $0FD9: $0000 bank "
.endif
    ldx #$1F
    ldy #$DA
    jsr ppu_touch
    ldx #$10
    ldy #$00
    jsr chr_peek
    EXPECT 12, 2, "after $1FDA: $1000 bank "
    ldx #$1F
    ldy #$EF
    jsr ppu_touch
    ldx #$10
    ldy #$00
    jsr chr_peek
    EXPECT 16, 2, "after $1FEF: $1000 bank "

    ; ---- 3: mirroring ------------------------------------------------------------------------
    lda #0
    sta $F000               ; vertical
    lda #$5A
    ldx #$20
    ldy #$10
    jsr chr_poke
    ldx #$28
    ldy #$10
    jsr chr_peek
    EXPECT $5A, 3, "vertical $2810 "
    lda #1
    sta $F000               ; horizontal
    ldx #$24
    ldy #$10
    jsr chr_peek
    EXPECT $5A, 3, "horizontal $2410 "

    PRINT "latch board checks passed"
    lda #0
fail_done:
    sta STATUS

    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup        ; palette (and nametables, rewritten below)
    lda #$20                ; nametable 0: tile (32r + c) & $FF ($FD/$FE as 0), then the latch tiles
    sta PPUADDR
    lda #$00
    sta PPUADDR
    sta row
l_row:
    lda row                 ; c1 = 3r mod 32, c2 = (7r + 9) mod 32
    asl a
    adc row
    and #31
    sta c1
    lda row
    asl a
    asl a
    asl a
    sec
    sbc row
    clc
    adc #9
    and #31
    sta c2
    ldx #0
l_col:
    cpx c1
    bne :+
    lda #$FD
    jmp l_put
:   cpx c2
    bne :+
    lda #$FE
    jmp l_put
:   lda row
    asl a
    asl a
    asl a
    asl a
    asl a
    stx k
    clc
    adc k
    cmp #$FD
    bcc l_put
    lda #0
l_put:
    sta PPUDATA
    inx
    cpx #32
    bne l_col
    inc row
    lda row
    cmp #30
    bne l_row
    jsr screen_on
:   jmp :-

nmi:
    pha
    inc frame
    lda frame
    and #$1F
    bne :+
    lda frame               ; every 32 frames: banks 4j+1 .. 4j+4 for j = frame / 32 mod 4
    lsr a
    lsr a
    lsr a
    and #$0C
    clc
    adc #1
    sta $B000
    adc #1
    sta $C000
    adc #1
    sta $D000
    adc #1
    sta $E000
:   pla
    rti

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
