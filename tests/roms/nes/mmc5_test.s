; mmc5_test.s: gpuvet's test of the MMC5 (ExROM, mapper 5): 128 KiB PRG (each 8 KiB bank
; starts with its tag; code in the last, at $E000 where $5117 = $FF puts it at power),
; 64 KiB CHR-ROM, 32 KiB PRG-RAM. The checks (status at $6000, PRG-RAM page 0, after
; $5102 = 2 / $5103 = 1 allow writes):
;   1 PRG modes 3, 2, 1, 0 ($5100) with $5114-$5117: the tags read at $8000-$DFFF;
;   2 PRG-RAM: $5114 bit 7 clear maps RAM page n at $8000 (pages 1 and 2 keep their own
;     bytes, $5113 = 1 shows page 1 at $6000), and with $5102 = 0 writes are ignored;
;   3 CHR: mode 3 set A ($5120, $5127), set B ($512B, both halves), mode 1 ($5123), read
;     back through $2007;
;   4 nametables ($5105 = $E4: CIRAM A, B, ExRAM, fill): ExRAM written at $5C10 in mode 2
;     reads back at $5C10, and at PPU $2810 in mode 0; in modes 2 and 3 the nametable
;     mapped to ExRAM reads 0 and ignores $2007 writes (the wiki's $5104 table), mode 3
;     ignores CPU writes, mode 0 stores 0 while not rendering; fill mode ($5106 tile,
;     $5107 attribute) at $2C00 and $2FC0;
;   5 the multiplier: $C3 x $57 = $4245 at $5205/$5206;
;   6 the scanline IRQ ($5203, $5204): counted from the VBlank, target 40 comes about
;     20 lines (206 loops of 11 cycles) after target 20; $5204 reads $C0 in the handler
;     (pending, in frame), bit 6 clear in VBlank, no IRQ with $5204 bit 7 clear.
; Then the screen (see nmi below): ExRAM's extended attributes, 8x16 sprites from CHR set
; A over a background from set B, and IRQs at lines 80 and 160 that switch the ExRAM mode
; and the nametable mapping mid-frame, so the golden pins and the renderers' agreement
; cover what the MMC5 changes in the PPU's fetches.

.include "common.inc"
.include "boards.inc"
.include "mmc5.inc"

    NES2_BOARD 5, 0, 8, 8, 0, $09, $00
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
irq_hit:  .res 1
irq_st:   .res 1
mode:     .res 1
n0:       .res 1
n1:       .res 1
bank:     .res 1
irq_n:    .res 1

.segment "CODE"

; Waits for the VBlank, then arms the IRQ at line A and counts 11-cycle loops in Y:X until
; the handler sets irq_hit (Y = $20: none came).
count_irq:
    pha
    lda $5204               ; acknowledge anything pending
    jsr wait_vblank
    pla
    sta $5203
    lda #0
    sta irq_hit
    lda #$80
    sta $5204
    ldx #0
    ldy #0
    cli
@loop:
    inx
    bne :+
    iny
    cpy #$20
    beq @done
:   lda irq_hit
    beq @loop
@done:
    sei
    rts

reset:
    lda #0
    sta mode
    MMC5_RESET

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    ora #$80
    sta $5114
    lda TAG
    cmp k
    beq :+
    PRINT "$8000 tag "
    lda TAG
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #15
    bne l_prg
    W5 $5116, $85
    lda $C000
    EXPECT 5, 1, "mode 3 $C000 tag "
    W5 $5100, 2
    W5 $5115, $85           ; 16 KiB: bit 0 ignored
    W5 $5116, $89
    lda $8000
    EXPECT 4, 1, "mode 2 $8000 tag "
    lda $A000
    EXPECT 5, 1, "mode 2 $A000 tag "
    lda $C000
    EXPECT 9, 1, "mode 2 $C000 tag "
    W5 $5100, 1
    W5 $5115, $86
    W5 $5117, $FF
    lda $8000
    EXPECT 6, 1, "mode 1 $8000 tag "
    lda $A000
    EXPECT 7, 1, "mode 1 $A000 tag "
    lda $C000
    EXPECT 14, 1, "mode 1 $C000 tag "
    W5 $5100, 0
    lda $8000
    EXPECT 12, 1, "mode 0 $8000 tag "
    lda $C000
    EXPECT 14, 1, "mode 0 $C000 tag "
    W5 $5100, 3

    ; ---- 2: PRG-RAM --------------------------------------------------------------------
    W5 $5114, $01
    W5 $8000, $A5
    W5 $5114, $02
    W5 $8000, $5A
    W5 $5114, $01
    lda $8000
    EXPECT $A5, 2, "RAM page 1 "
    W5 $5114, $02
    lda $8000
    EXPECT $5A, 2, "RAM page 2 "
    W5 $5113, 1
    lda $6000
    sta n0
    W5 $5113, 0
    lda n0
    EXPECT $A5, 2, "$6000 page 1 "
    W5 $5102, 0
    W5 $8000, $11
    W5 $5102, 2
    lda $8000
    EXPECT $5A, 2, "protected write "
    W5 $5114, $80

    ; ---- 3: CHR ------------------------------------------------------------------------
    W5 $5101, 3
    W5 $5120, 9
    W5 $5127, 50
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 9, 3, "A $0000 "
    ldx #$1C
    ldy #$00
    jsr chr_peek
    EXPECT 50, 3, "A $1C00 "
    W5 $512B, 33
    ldx #$0C
    ldy #$00
    jsr chr_peek
    EXPECT 33, 3, "B $0C00 "
    ldx #$1C
    ldy #$00
    jsr chr_peek
    EXPECT 33, 3, "B $1C00 "
    W5 $5101, 1
    W5 $5123, 5
    ldx #$04
    ldy #$00
    jsr chr_peek
    EXPECT 21, 3, "mode 1 $0400 "
    W5 $5101, 3
    ldx #0
:   txa
    sta $5120,x
    inx
    cpx #8
    bne :-

    ; ---- 4: nametables and ExRAM ---------------------------------------------------------
    W5 $5105, $E4
    W5 $5104, 2
    W5 $5C10, $77
    W5 $5C11, $99
    lda $5C10
    EXPECT $77, 4, "ExRAM $5C10 "
    ldx #$28
    ldy #$10
    jsr chr_peek
    EXPECT $00, 4, "mode 2 nametable $2810 "
    lda #$55
    ldx #$28
    ldy #$10
    jsr chr_poke
    lda $5C10
    EXPECT $77, 4, "mode 2 $2007 write "
    W5 $5104, 0
    ldx #$28
    ldy #$10
    jsr chr_peek
    EXPECT $77, 4, "mode 0 nametable $2810 "
    W5 $5104, 3
    ldx #$28
    ldy #$10
    jsr chr_peek
    EXPECT $00, 4, "mode 3 nametable $2810 "
    W5 $5C10, $11
    lda $5C10
    EXPECT $77, 4, "mode 3 write "
    W5 $5104, 0
    W5 $5C11, $44
    W5 $5104, 2
    lda $5C11
    EXPECT $00, 4, "mode 0 write outside the frame "
    W5 $5106, $3C
    W5 $5107, 2
    ldx #$2C
    ldy #$00
    jsr chr_peek
    EXPECT $3C, 4, "fill tile "
    ldx #$2F
    ldy #$C0
    jsr chr_peek
    EXPECT $AA, 4, "fill attribute "

    ; ---- 5: the multiplier ---------------------------------------------------------------
    W5 $5205, $C3
    W5 $5206, $57
    lda $5205
    EXPECT $45, 5, "product low "
    lda $5206
    EXPECT $42, 5, "product high "

    ; ---- 6: the scanline IRQ ---------------------------------------------------------------
    lda #$0A                ; background on: the MMC5 sees the fetches
    sta PPUMASK
    lda #20
    jsr count_irq
    stx n0
    sty n1
    lda irq_st
    EXPECT $C0, 6, "$5204 in the handler "
    lda #40
    jsr count_irq
    txa
    sec
    sbc n0
    sta k
    tya
    sbc n1
    EXPECT 0, 6, "IRQ 40 - IRQ 20, high "
    lda k
    cmp #200
    bcc :+
    cmp #214
    bcc :++
:   PRINT "IRQ 40 - IRQ 20 loops "
    lda k
    jsr print_hex
    lda #6
    jmp fail_done
:   jsr wait_vblank
    lda $5204
    and #$40
    EXPECT 0, 6, "in-frame in VBlank "
    lda $5204
    lda #50
    sta $5203
    lda #0
    sta $5204
    sta irq_hit
    ldx #0
    ldy #0
    cli
:   inx
    bne :-
    iny
    cpy #$60
    bne :-
    sei
    lda irq_hit
    EXPECT 0, 6, "IRQ with $5204 bit 7 clear "

    PRINT "MMC5 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen --------------------------------------------------------------------------
    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    W5 $5104, 2
    jsr exram_screen
    W5 $5104, 1             ; extended attributes
    W5 $5106, $41
    W5 $5107, 1
    ldx #0                  ; OAM page $0200: 16 sprites 8x16, the rest hidden
:   lda #$FF
    sta $0200,x
    inx
    bne :-
    ldx #0
    ldy #0
:   tya
    asl a
    asl a
    asl a
    clc
    adc save_a              ; save_a: anything; y = 12i + 16
    tya
    sta save_x
    asl a
    adc save_x
    asl a
    asl a
    adc #16
    sta $0200,x             ; Y
    tya
    asl a
    ora #1
    sta $0201,x             ; tile 2i + 1: the $1000 half
    tya
    and #3
    sta $0202,x             ; palette i & 3
    tya
    asl a
    asl a
    asl a
    asl a
    sta $0203,x             ; X = 16i
    inx
    inx
    inx
    inx
    iny
    cpy #16
    bne :-
    lda #1
    sta mode
    cli
    jsr screen_on
    lda #$A0                ; NMI on, 8x16 sprites
    sta PPUCTRL
    lda #$1E                ; background and sprites, left columns shown
    sta PPUMASK
:   jmp :-

; The frame: lines 0-79 the nametable at $2000 (CIRAM A) with ExRAM's extended attributes
; (mode 1: each tile's 4 KiB bank and palette from ExRAM), 8x16 sprites from set A while
; the background fetches set B; from line 80 (IRQ) ExRAM mode 0 and ExRAM as the nametable;
; from line 160 (IRQ) the fill page.
nmi:
    PUSH_AXY
    inc frame
    lda #$02
    sta $4014
    W5 $5104, 1
    W5 $5105, $00
    lda frame               ; set A: 8j .. 8j + 7, j = frame / 32 mod 8; set B: 40 + j
    lsr a
    lsr a
    and #$38
    sta bank
    ldx #0
:   txa
    clc
    adc bank
    sta $5120,x
    inx
    cpx #8
    bne :-
    ldx #0
:   txa
    clc
    adc bank
    eor #$28
    sta $5128,x
    inx
    cpx #4
    bne :-
    lda $5204
    W5 $5203, 80
    W5 $5204, $80
    lda #0
    sta irq_n
    POP_AXY_RTI

irq:
    pha
    lda mode
    bne l_screen
    lda $5204               ; a test: acknowledge, record the status
    sta irq_st
    lda #0
    sta $5204
    lda #1
    sta irq_hit
    pla
    rti
l_screen:
    lda $5204
    lda irq_n
    bne :+
    inc irq_n
    W5 $5104, 0             ; line 80: ExRAM mode 0, ExRAM as the nametable
    W5 $5105, $02
    W5 $5203, 160
    pla
    rti
:   W5 $5105, $03           ; line 160: the fill page
    pla
    rti

.segment "VECTORS"
    .word nmi, reset, irq
