; vrc_test.s: gpuvet's test of the Konami VRC2/VRC4 boards, built once per wiring
; (tests/nes/build_roms.sh passes BOARD): 211 VRC4a (mapper 21.1: A1, A2), 22 VRC2a (22:
; A1, A0, CHR banks halved), 232 VRC4e (23.2: A2, A3), 251 VRC4b (25.1: A1, A0). 128 KiB
; PRG (each 8 KiB bank starts with its tag; code in the last), 64 KiB CHR-ROM, 8 KiB
; PRG-RAM for the status. Register n of a group sits at the offset REG(n) of the wiring.
; The checks:
;   1 PRG: $8000 and $A000 take banks 0-13 from their registers, $C000 holds bank 14;
;     VRC4: with the swap bit ($9002 bit 1) $8000 holds bank 14 and $C000 the register's;
;   2 CHR: banks written a nibble at a time read back through $2007 (VRC2a: value / 2);
;   3 mirroring: 0 vertical, 1 horizontal (VRC4: 3 one-screen upper);
;   4 VRC4 IRQ: counted with a 10-cycle loop from the control write to the IRQ: in
;     scanline mode latch $FF, $FE, $FD take 114, 228 and 341 cycles (the prescaler's
;     341 - 3n), so the counts step by 11 or 12 loops; in cycle mode latch $80 and $00
;     take 128 and 256 cycles (12 or 13 loops apart); $F003 acknowledges.
; Then the test screen; VRC4 boards also switch the CHR banks by a scanline IRQ set from
; the NMI, so the picture changes partway down.

.include "common.inc"
.include "boards.inc"
.include "vrc_irq.inc"

.if BOARD = 211
    NES2_BOARD 21, 1, 8, 8, 0, $07, $00
    VRC4 = 1
    .define REG(n) ((n & 1) << 1) | ((n & 2) << 1)
.elseif BOARD = 22
    NES2_BOARD 22, 0, 8, 8, 0, $07, $00
    VRC4 = 0
    .define REG(n) ((n & 1) << 1) | ((n & 2) >> 1)
.elseif BOARD = 232
    NES2_BOARD 23, 2, 8, 8, 0, $07, $00
    VRC4 = 1
    .define REG(n) ((n & 1) << 2) | ((n & 2) << 2)
.else
    NES2_BOARD 25, 1, 8, 8, 0, $07, $00
    VRC4 = 1
    .define REG(n) ((n & 1) << 1) | ((n & 2) >> 1)
.endif
IRQ_ACK = $F000 + REG(3)    ; the VRC4's IRQ counter (vrc_irq.inc): acknowledge, control, latch
IRQ_CTRL = $F000 + REG(2)
.macro IRQ_LATCH            ; in two nibbles
    sta $F000 + REG(0)
    lsr a
    lsr a
    lsr a
    lsr a
    sta $F000 + REG(1)
.endmacro
.if BOARD = 22
    CHRMUL = 2              ; the VRC2a drops the bank value's low bit
.else
    CHRMUL = 1
.endif
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1            ; 0 tests, 1 the screen
n0:       .res 1
n1:       .res 1
cw_val:   .res 1

.segment "CODE"

groups:
    .byte $B0, $C0, $D0, $E0
reg_off:
    .byte REG(0), REG(1), REG(2), REG(3)

.macro CHR bank, value
    ldx #bank
    lda #<(value * CHRMUL)
    jsr chr_write
.endmacro

; CHR bank X := A: low nibble to register 0 or 2, high nibble to 1 or 3 of the bank's group.
chr_write:
    sta cw_val
    txa
    lsr a
    tay
    lda groups,y
    sta tmp+1
    lda #0
    sta tmp
    txa
    and #1
    asl a
    tax                     ; 0: registers 0/1, 2: registers 2/3
    ldy reg_off,x
    lda cw_val
    and #$0F
    sta (tmp),y
    ldy reg_off+1,x
    lda cw_val
    lsr a
    lsr a
    lsr a
    lsr a
    sta (tmp),y
    rts

    VRC_COUNT_IRQ

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #0
    sta mode
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    sta $8000
    sta $A000
    lda TAG
    cmp k
    beq :+
    PRINT "$8000 tag "
    lda TAG
    jsr print_hex
    lda #1
    jmp fail_done
:   lda $A000
    cmp k
    beq :+
    PRINT "$A000 tag "
    lda $A000
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #14
    bne l_prg
    lda $C000
    EXPECT 14, 1, "$C000 tag "
.if VRC4
    lda #5
    sta $8000
    lda #2
    sta $9000 + REG(2)      ; swap: $8000 the second-last bank, $C000 the register
    lda $8000
    EXPECT 14, 1, "swapped $8000 tag "
    lda $C000
    EXPECT 5, 1, "swapped $C000 tag "
    lda #0
    sta $9000 + REG(2)
.endif

    ; ---- 2: CHR ------------------------------------------------------------------------
    CHR 3, 45
    CHR 7, 63
    CHR 0, 17
    ldx #$0C
    ldy #$00
    jsr chr_peek
    EXPECT 45, 2, "CHR bank 3 "
    ldx #$1C
    ldy #$00
    jsr chr_peek
    EXPECT 63, 2, "CHR bank 7 "
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 17, 2, "CHR bank 0 "

    ; ---- 3: mirroring ------------------------------------------------------------------------
    lda #0
    sta $9000               ; vertical
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    ldx #$28
    ldy #$20
    jsr chr_peek
    EXPECT $5A, 3, "vertical $2820 "
    lda #1
    sta $9000               ; horizontal
    ldx #$24
    ldy #$20
    jsr chr_peek
    EXPECT $5A, 3, "horizontal $2420 "
.if VRC4
    lda #3
    sta $9000               ; one-screen, upper page: $2000's page 0 write is not there
    ldx #$2C
    ldy #$20
    jsr chr_peek
    EXPECT $00, 3, "one-screen upper $2C20 "
    lda #1
    sta $9000
.endif

    ; ---- 4: the VRC IRQ ----------------------------------------------------------------
.if VRC4
    VRC_IRQ_CHECKS
.endif

    PRINT "VRC checks passed"
    lda #0
fail_done:
    sta STATUS

    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    lda #1
    sta mode
.if VRC4
    cli
.endif
    jsr screen_on
:   jmp :-

.if VRC4
    VRC_IRQ_ROUTINES
.endif

nmi:
    PUSH_AXY
    inc frame
    lda frame               ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    lsr a
    lsr a
    and #$38
    sta k
    ldx #0
l_banks:
    txa
    clc
    adc k
.if CHRMUL = 2
    asl a
.endif
    stx n1
    jsr chr_write
    ldx n1
    inx
    cpx #8
    bne l_banks
.if VRC4
    lda #<(256 - 120)       ; 120 lines from now: the IRQ moves banks 0-3 on by 32
    sta $F000 + REG(0)
    lda #>((256 - 120) << 4)
    sta $F000 + REG(1)
    lda #$02
    sta $F000 + REG(2)
.endif
    POP_AXY_RTI

    VRC_IRQ_HANDLER
l_screen:
    txa
    pha
    tya
    pha
    lda #0
    sta $F000 + REG(2)      ; acknowledge, counter off until the next NMI
    lda k
    eor #$20
    sta k
    ldx #0
l_irqb:
    txa
    clc
    adc k
.if CHRMUL = 2
    asl a
.endif
    stx n1
    jsr chr_write
    ldx n1
    inx
    cpx #4
    bne l_irqb
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
