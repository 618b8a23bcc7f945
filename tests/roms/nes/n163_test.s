; n163_test.s: gpuvet's test of the Namco 163 (mapper 19, submapper 3: its sound 11-13 dB
; over the APU; nes_board_namco.c, nes_n163.h): 128 KiB PRG (each 8 KiB bank starts with its
; tag; code in the last, fixed at $E000), 64 KiB CHR-ROM, 8 KiB of battery PRG-RAM (the
; status; the battery keeps the chip's 128 bytes of RAM too). $F800 is both the chip RAM's
; address and the PRG-RAM's protection ($40: writable), so every chip RAM access ends with
; $F800 = $40 again. The checks:
;   1 PRG: $E000, $E800, $F000 map banks at $8000, $A000, $C000; $E000 the last;
;   2 CHR: $8000-$B800, the eight 1 KiB banks (values below $E0), read back through $2007;
;   3 nametables: $C000-$D800 = $E0, $E1, $E0, $E1 vertical, $E0, $E0, $E1, $E1 horizontal,
;     a value below $E0 a CHR-ROM page ($C000 = 9: $2000 reads CHR bank 9);
;   4 the chip RAM: written and read back through $4800 with the address auto-incremented
;     from $7F to $00; channel 7's phase as it runs: frequency $10000 (one sample per
;     update), the phase set to 0 and read back 1525 cycles later (the wait loops and the
;     accesses): the phase's high byte 100-104 (102: an update every 15 cycles with one
;     channel; every 16 would give 95);
;   5 the IRQ, counted with a 10-cycle loop: counter $7FFF - N (low $5000, high and enable
;     $5800): N = 1500 takes 100 loops more than N = 500; it stops at $7FFF ($5000 reads
;     $FF after the handler turned counting off, not a count past it); counting off, none
;     comes;
;   6 the PRG-RAM protection: $F800 = $41 write-protects $6000-$67FF, not $6800-$6FFF;
;     $F800 = $00 all of it.
; Before writing, the chip RAM's $3C-$3F are read: "GV" $19 $63 there (a battery file of an
; earlier run) puts $5A in $0201 (else 0); then they are written. The result goes to $0200
; ($A5 passed, else the failed check's number) and to the status block.
; Then the sound, measured by tests/nes/test_nes_n163.c in the WAV: the 163's channel 7 alone
; until NMI frame 60: a 16-sample square (8 of 15, 8 of 0) at volume 15, frequency 3868:
; 1789773 x 3868 / (15 x 65536 x 16) = 440.1 Hz; then the APU's pulse 1 (volume 15, duty
; 50%, period 253: 440.4 Hz); from frame 120 four channels enabled, channel 7 at frequency 15472
; (the others at volume 0): the same pitch, heard a quarter of the time; from frame 180 a
; constant wave (length 4 at address 0, all 15): only the turns at the DAC are heard, a
; whine at the update rate (channels summed or averaged would be silent); from frame 240
; the wave of samples 8 ($88 at $08-$09), still at volume 15: silence, the DAC taking
; (sample - 8) x volume in every turn. And the test screen: the NMI moves the CHR banks every 32 frames, the IRQ some
; 110 lines down switches banks 0-3 and takes nametable $2000 from CHR-ROM page 3.

.include "common.inc"
.include "boards.inc"
.include "namco.inc"

    NES2_BOARD 19, 3, 8, 8, 2, $70, $00        ; battery; PRG-NVRAM 8 KiB
STATUS_OK = 1
    PRG_TAGS 16
    CHR_DATA 64

RESULT = $0200
RESTORED = $0201

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1            ; 0 tests, 1 the screen
n0:       .res 1
bank:     .res 1

.segment "CODE"

    NAMCO_CHR_WRITE

; The chip RAM byte at X := A; $F800 back to $40.
chip_poke:
    stx $F800
    sta $4800
    ldx #$40
    stx $F800
    rts

; A := the chip RAM byte at X; $F800 back to $40.
chip_peek:
    stx $F800
    lda $4800
    ldx #$40
    stx $F800
    rts

; count_irq: loops of 10 cycles until the IRQ handler records X (A: the count, $FF: none
; in 255).
    COUNT_IRQ

; The IRQ counter := $7FFF - A:X (high:low), counting: the IRQ A:X cycles on.
start_irq:
    pha
    txa
    eor #$FF
    sta $5000
    pla
    eor #$7F
    ora #$80
    sta $5800
    rts

sig:     .byte "GV", $19, $63
wave:    .byte $FF, $FF, $FF, $FF, $00, $00, $00, $00, $88, $88

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #$40                ; PRG-RAM writable before the status goes there
    sta $F800
    lda #0
    sta mode
    sta RESULT
    sta RESTORED
    sta $5800               ; counting off
    ldx #$FF                ; the channel registers $7F down to $40 cleared first ($7F: one
:   stx $F800               ; channel at volume 0, silent at once), whatever a battery file
    sta $4800               ; brought: the sound then never depends on it
    dex
    cpx #$BF
    bne :-
    ldx #$40
    stx $F800
    RESET_START

    ; ---- the battery: the chip RAM's signature -------------------------------------------
    lda #0
    sta n0
    ldx #0
:   stx k
    txa
    ora #$3C
    tax
    jsr chip_peek
    ldx k
    eor sig,x
    ora n0
    sta n0
    inx
    cpx #4
    bne :-
    lda n0
    cmp #1                  ; carry: a difference
    lda #0
    adc #$FF
    and #$5A
    sta RESTORED
    ldx #0
:   stx k
    lda sig,x
    pha
    txa
    ora #$3C
    tax
    pla
    jsr chip_poke
    ldx k
    inx
    cpx #4
    bne :-

    ; ---- 1: PRG ------------------------------------------------------------------------
    NAMCO_PRG_CHECK
    lda #$C0                ; $E800 bits 6-7: CHR-ROM at $E0-$FF in both halves
    sta $E800

    ; ---- 2: CHR ------------------------------------------------------------------------
    CHR_REGS_CHECK chr_write, 0, 2

    ; ---- 3: nametables -----------------------------------------------------------------
    lda #$E0                ; vertical
    sta $C000
    sta $D000
    lda #$E1
    sta $C800
    sta $D800
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    NT_PEEK $28
    EXPECT $5A, 3, "vertical $2820 "
    NT_PEEK $24
    EXPECT $00, 3, "vertical $2420 "
    lda #$E0                ; horizontal
    sta $C800
    lda #$E1
    sta $D000
    NT_PEEK $24
    EXPECT $5A, 3, "horizontal $2420 "
    lda #9                  ; CHR-ROM page 9 as nametable $2000
    sta $C000
    ldx #$20
    ldy #$00
    jsr chr_peek
    EXPECT 9, 3, "CHR page 9 at $2000 "
    lda #$E0
    sta $C000
    lda #$E1
    sta $C800
    sta $D800
    lda #$E0
    sta $D000

    ; ---- 4: the chip RAM ---------------------------------------------------------------
    lda #$FF                ; from $7F on, auto-increment: $7F, then $00
    sta $F800
    lda #$00
    sta $4800
    lda #$5A
    sta $4800
    lda #$FF
    sta $F800
    lda $4800
    sta n0
    lda $4800
    ldx #$40
    stx $F800
    EXPECT $5A, 4, "auto-increment past $7F: $00 "
    lda n0
    EXPECT $00, 4, "auto-increment: $7F "
    lda #$01                ; channel 7: frequency $10000, length 256, volume 0
    ldx #$7C
    jsr chip_poke
    lda #0
    ldx #$7D
    jsr chip_poke           ; the phase from 0
    ldy #2                  ; 1500 cycles: 2 x (150 x 5), and the accesses around
:   ldx #150
:   dex
    bne :-
    dey
    bne :--
    ldx #$7D
    jsr chip_peek
    sta n0
    lda #0
    ldx #$7C
    jsr chip_poke           ; frequency 0 again
    lda n0
    cmp #100
    bcc :+
    cmp #105
    bcc :++
:   PRINT "phase after 1500 cycles: "
    lda n0
    jsr print_hex
    lda #4
    jmp fail_done
:

    ; ---- 5: the IRQ ----------------------------------------------------------------------
    IRQ_100_LOOPS 5
    lda #>100
    ldx #<100
    jsr start_irq           ; the counter stops at $7FFF
    jsr count_irq
    lda $5000               ; (the handler turned counting off, the high bits kept)
    EXPECT $FF, 5, "counter low after the IRQ "
    lda $5800
    EXPECT $7F, 5, "counter high after the IRQ "
    lda #0
    sta $5800
    lda #>200
    ldx #<200
    jsr start_irq
    lda #0                  ; off
    sta $5800
    jsr count_irq
    EXPECT $FF, 5, "IRQ with counting off: loops "

    ; ---- 6: the PRG-RAM protection ---------------------------------------------------------
    lda #$11
    sta $6710
    sta $6F10
    sta $6F20
    lda #$41                ; $6000-$67FF protected
    sta $F800
    lda #$22
    sta $6710
    sta $6F10
    lda #$00                ; all protected
    sta $F800
    lda #$33
    sta $6F20
    lda #$40
    sta $F800
    lda $6710
    EXPECT $11, 6, "$F800 = $41: $6710 "
    lda $6F10
    EXPECT $22, 6, "$F800 = $41: $6F10 "
    lda $6F20
    cmp #$33
    bne :+
    PRINT "$F800 = 0: $6F20 written"
    lda #6
    jmp fail_done
:

    PRINT "Namco 163 checks passed"
    lda #0
fail_done:
    sta STATUS
    cmp #0
    bne :+
    lda #$A5
:   sta RESULT

    ; ---- the sound and the screen ---------------------------------------------------------------
    lda #$80                ; the wave at $00-$09, auto-increment
    sta $F800
    ldx #0
:   lda wave,x
    sta $4800
    inx
    cpx #10
    bne :-
    lda #>3868              ; the 163's channel 7 alone
    ldx #<3868
    ldy #$0F
    jsr chan7
    lda #$40
    sta $F800
    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup
    lda #1
    sta mode
    cli
    jsr screen_on
:   jmp :-

; Channel 7: frequency A:X (mid:low), length 16, address 0; then $7F := Y.
chan7:
    pha
    lda #$F8                ; $78, auto-increment
    sta $F800
    stx $4800               ; $78 frequency low
    lda #0
    sta $4800               ; $79 phase
    pla
    sta $4800               ; $7A frequency mid
    lda #0
    sta $4800               ; $7B
    lda #$F0
    sta $4800               ; $7C length 16 (256 - $F0), frequency bits 16-17 0
    lda #0
    sta $4800               ; $7D
    sta $4800               ; $7E address 0
    sty $4800               ; $7F channels, volume
    rts

nmi:
    PUSH_AXY
    inc frame
    lda frame
    cmp #60                 ; the 163 at volume 0, the APU's pulse 1
    bne :+
    lda #>3868
    ldx #<3868
    ldy #$00
    jsr chan7
    lda #$01                ; pulse 1 on (before $4003 loads its length counter)
    sta $4015
    lda #$BF                ; duty 50%, length halted, constant volume 15, period 253
    sta $4000
    lda #$00                ; no sweep (its target stays below $800)
    sta $4001
    lda #<253
    sta $4002
    lda #>253
    sta $4003
:   lda frame
    cmp #120                ; the APU off; four channels, frequency x 4
    bne :+
    lda #0
    sta $4015
    lda #>15472
    ldx #<15472
    ldy #$3F
    jsr chan7
:   lda frame
    cmp #180                ; a constant wave: length 4 at address 0 ($FF $FF: 15)
    bne :+
    lda #$FC
    sta $F800
    lda #$FC
    sta $4800
:   lda frame
    cmp #240                ; a wave of samples 8 ($88 at $08-$09: address 16)
    bne :+
    lda #$FE
    sta $F800
    lda #16
    sta $4800
:   FRAME_BANK              ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8; vertical
    SET_CHR_BANKS chr_write, 0, 8, 0
    lda #$E0
    sta $C000
    lda #>15000             ; the split: an IRQ 15000 cycles from here
    ldx #<15000
    jsr start_irq
    POP_AXY_RTI

irq:
    pha
    lda mode
    bne l_screen
    stx irq_x               ; a test: record the loop count, counting off (the count kept)
    lda #1
    sta irq_hit
    lda #$7F
    sta $5800
    pla
    rti
l_screen:
    txa
    pha
    tya
    pha
    lda #0
    sta $5800               ; acknowledged, off until the next NMI
    lda #3                  ; nametable $2000 from CHR-ROM page 3
    sta $C000
    SET_CHR_BANKS chr_write, 0, 4, $20 ; banks 0-3 move on by 32
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
