; fme7_test.s: gpuvet's test of the Sunsoft FME-7 / 5B (mapper 69): 128 KiB PRG (each 8 KiB
; bank starts with its tag; code in the last, fixed at $E000), 64 KiB CHR-ROM, 8 KiB
; PRG-RAM. Command n goes to $8000, its value to $A000. The checks (status at $6000, with
; the RAM mapped there by command 8 = $C0 first: at power $6000 shows ROM bank 0):
;   1 commands 9-B map 8 KiB banks at $8000, $A000, $C000; command 8 maps a ROM bank at
;     $6000 (bit 6 clear), RAM selected but disabled reads open bus ($60);
;   2 commands 0-7: the 1 KiB CHR banks, read back through $2007;
;   3 command C: 0 vertical, 1 horizontal, 3 one-screen upper;
;   4 the IRQ: counter N (commands E, F), command D = $81 (count, IRQ on): the IRQ comes
;     N + 1 cycles later: counted with a 10-cycle loop, N = 1500 takes 100 loops more than
;     N = 500; with command D = $80 no IRQ comes.
; Then the 5B sound (registers through $C000/$E000): channel A alone for 60 frames, a tone
; of period 254 (1789773 / (32 * 254) = 220.2 Hz, tests/nes/test_nes_5b.c measures it),
; then channel B with the envelope (shape $0E, period 300) and channel C's noise (period 16)
; join; and the test screen, with CHR banks moved by the NMI and, from an IRQ 15000 cycles
; after the NMI (about line 110), once more.

.include "common.inc"
.include "boards.inc"

    NES2_BOARD 69, 0, 8, 8, 0, $07, $00
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1
n0:       .res 1
bank:     .res 1

; FME7 command, value
.macro FME7 cmd, value
    lda #cmd
    sta $8000
    lda #value
    sta $A000
.endmacro

; SND register, value: a 5B sound register.
.macro SND reg, value
    lda #reg
    sta $C000
    lda #value
    sta $E000
.endmacro

.segment "CODE"

; count_irq: loops of 10 cycles until the IRQ handler records X (A: the count, $FF: none
; in 255).
    COUNT_IRQ

; Counter := A:X (high:low), counting and IRQ on: the IRQ N + 1 cycles from the write.
start_irq:
    ldy #$0F
    sty $8000
    sta $A000
    ldy #$0E
    sty $8000
    stx $A000
    ldy #$0D
    sty $8000
    lda #$81
    sta $A000
    rts

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #0
    sta mode
    FME7 8, $C0             ; RAM at $6000 before the status goes there
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda #9
    sta $8000
    lda k
    sta $A000
    lda TAG
    cmp k
    beq :+
    PRINT "$8000 tag "
    lda TAG
    jsr print_hex
    lda #1
    jmp fail_done
:   lda #11
    sta $8000
    lda k
    sta $A000
    lda $C000
    cmp k
    beq :+
    PRINT "$C000 tag "
    lda $C000
    jsr print_hex
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #15
    bne l_prg
    FME7 10, 7
    lda $A000
    EXPECT 7, 1, "$A000 tag "
    FME7 8, $03             ; ROM bank 3 at $6000
    lda $6000
    sta n0
    FME7 8, $40             ; RAM, disabled: open bus
    lda $6000
    sta k
    FME7 8, $C0
    lda n0
    EXPECT 3, 1, "$6000 ROM tag "
    lda k
    EXPECT $60, 1, "$6000 RAM disabled "

    ; ---- 2: CHR ------------------------------------------------------------------------
    FME7 0, 9
    FME7 5, 50
    FME7 7, 63
    ldx #$00
    ldy #$00
    jsr chr_peek
    EXPECT 9, 2, "CHR bank 0 "
    ldx #$14
    ldy #$00
    jsr chr_peek
    EXPECT 50, 2, "CHR bank 5 "
    ldx #$1C
    ldy #$00
    jsr chr_peek
    EXPECT 63, 2, "CHR bank 7 "

    ; ---- 3: mirroring ------------------------------------------------------------------------
    FME7 12, 0
    lda #$5A
    ldx #$20
    ldy #$30
    jsr chr_poke
    ldx #$28
    ldy #$30
    jsr chr_peek
    EXPECT $5A, 3, "vertical $2830 "
    FME7 12, 1
    ldx #$24
    ldy #$30
    jsr chr_peek
    EXPECT $5A, 3, "horizontal $2430 "
    FME7 12, 3
    ldx #$2C
    ldy #$30
    jsr chr_peek
    EXPECT $00, 3, "one-screen upper $2C30 "
    FME7 12, 1

    ; ---- 4: the IRQ ------------------------------------------------------------------------
    lda #>500
    ldx #<500
    jsr start_irq
    jsr count_irq
    sta n0
    lda #>1500
    ldx #<1500
    jsr start_irq
    jsr count_irq
    sec
    sbc n0
    EXPECT 100, 4, "IRQ loops, N 1500 - N 500: "
    lda #>200
    ldx #<200
    jsr start_irq
    FME7 13, $80            ; counting, IRQ off
    jsr count_irq
    EXPECT $FF, 4, "IRQ with D = $80: loops "
    FME7 13, $00

    PRINT "FME-7 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the sound and the screen ----------------------------------------------------------------
    SND 0, 254              ; A: period 254, volume 12
    SND 1, 0
    SND 8, 12
    SND 7, $3E              ; only tone A
    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    lda #1
    sta mode
    cli
    jsr screen_on
:   jmp :-

nmi:
    PUSH_AXY
    inc frame
    lda frame
    cmp #60                 ; after 60 frames: channel B with the envelope, C's noise
    bne :+
    SND 2, 190
    SND 3, 0
    SND 9, $10
    SND 11, <300
    SND 12, >300
    SND 13, $0E
    SND 6, 16
    SND 10, 6
    SND 7, $1C              ; tone A, tone B, noise C
:   lda frame               ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    lsr a
    lsr a
    and #$38
    sta bank
    ldx #0
:   stx $8000
    txa
    clc
    adc bank
    sta $A000
    inx
    cpx #8
    bne :-
    lda #>15000             ; the split: an IRQ 15000 cycles from here
    ldx #<15000
    jsr start_irq
    POP_AXY_RTI

irq:
    pha
    lda mode
    bne l_screen
    stx irq_x               ; a test: record the loop count
    lda #$0D
    sta $8000
    lda #$00
    sta $A000               ; acknowledge, counter and IRQ off
    lda #1
    sta irq_hit
    pla
    rti
l_screen:
    txa
    pha
    lda #$0D
    sta $8000
    lda #$00
    sta $A000
    ldx #0                  ; banks 0-3 move on by 32
:   stx $8000
    txa
    clc
    adc bank
    eor #$20
    sta $A000
    inx
    cpx #4
    bne :-
    pla
    tax
    pla
    rti

.segment "VECTORS"
    .word nmi, reset, irq
