; apu_test.s: the APU test of gpuvet (NROM). First it checks what the CPU can read back:
; a length counter running out ($4015 bit 0), the frame interrupt flag of the 4-step
; sequence (bit 6, cleared by the read), and a one-byte DMC sample that ends with its
; interrupt (bits 4 and 7). Then it plays each channel alone, 30 frames on and 10 off,
; starting at NMI 30 (frame counts from the first NMI):
;   NMI  30: pulse 1, 50% duty, volume 15, period 253  -> 1789773 / (16 * 254) = 440.4 Hz
;   NMI  70: pulse 2, 25% duty, volume 15, period 126  -> 1789773 / (16 * 127) = 880.8 Hz
;   NMI 110: triangle, period 200                      -> 1789773 / (32 * 201) = 278.3 Hz
;   NMI 150: noise, period index 5, volume 15          -> no pitch, broadband
;   NMI 190: DMC, rate 0 (428 cycles), the looped byte $0F from $C000 (4 bits up, 4 down)
;                                                      -> 1789773 / (428 * 8) = 522.7 Hz
; and reports status 0 at NMI 240. tests/nes/test_nes_apu.c measures those frequencies in
; gpuvet's WAV by counting zero crossings.

.include "common.inc"
NES2_HEADER 0, 2, 1, 0

.segment "ZEROPAGE"
nmis:     .res 2

.segment "CODE"

reset:
    RESET_START
    lda #0
    sta APUSTATUS
    lda #$80
    sta PPUCTRL             ; NMI counts frames from here

    ; ---- length counter: pulse 1 loaded with 10 half-frames runs out in 5 frames -------
    lda #$01
    sta APUSTATUS
    lda #$10                ; constant volume 0 (silent), length counter running
    sta $4000
    lda #$00                ; length index 0 = 10
    sta $4003
    lda APUSTATUS
    and #$01
    bne :+
    PRINT "length counter not loaded"
    FAIL 1
    jmp hang
:   ldx #8
    jsr wait_nmis
    lda APUSTATUS
    and #$01
    beq :+
    PRINT "length counter did not run out"
    FAIL 1
    jmp hang
:
    ; ---- frame interrupt flag (4-step sequence, interrupts masked by I) -------------------
    lda #$00
    sta FRAMECTR
    ldx #2
    jsr wait_nmis
    lda APUSTATUS
    and #$40
    bne :+
    PRINT "no frame interrupt flag"
    FAIL 2
    jmp hang
:   lda APUSTATUS
    and #$40
    beq :+
    PRINT "reading $4015 did not clear the frame interrupt flag"
    FAIL 2
    jmp hang
:   lda #$40
    sta FRAMECTR
    lda APUSTATUS
    ; ---- DMC: a one-byte sample is read at once and ends with its interrupt flag ----------
    lda #$80                ; interrupt on, no loop, rate 0
    sta $4010
    lda #0
    sta $4012               ; $C000
    sta $4013               ; 1 byte
    lda #$10
    sta APUSTATUS
    ldx #1
    jsr wait_nmis
    lda APUSTATUS
    and #$90
    cmp #$80
    beq :+
    PRINT "DMC: no interrupt flag at the end of the sample"
    FAIL 3
    jmp hang
:   lda #0
    sta APUSTATUS           ; clears the DMC interrupt flag
    sta $4010
    lda APUSTATUS
    and #$80
    beq :+
    PRINT "DMC: writing $4015 did not clear the interrupt flag"
    FAIL 3
    jmp hang
:
    PRINT "APU: length counter, frame IRQ flag, DMC IRQ checked; channels played"

    ; ---- the channels, one at a time ---------------------------------------------------
    ldx #30
    jsr wait_until
    lda #$01
    sta APUSTATUS
    lda #$BF                ; 50% duty, halt, constant volume 15
    sta $4000
    lda #$00                ; sweep off
    sta $4001
    lda #253
    sta $4002
    lda #$08
    sta $4003
    ldx #60
    jsr wait_until
    lda #0
    sta APUSTATUS

    ldx #70
    jsr wait_until
    lda #$02
    sta APUSTATUS
    lda #$7F                ; 25% duty, halt, constant volume 15
    sta $4004
    lda #$00
    sta $4005
    lda #126
    sta $4006
    lda #$08
    sta $4007
    ldx #100
    jsr wait_until
    lda #0
    sta APUSTATUS

    ldx #110
    jsr wait_until
    lda #$04
    sta APUSTATUS
    lda #$FF                ; linear counter halted at 127
    sta $4008
    lda #200
    sta $400A
    lda #$08
    sta $400B
    ldx #140
    jsr wait_until
    lda #0
    sta APUSTATUS

    ldx #150
    jsr wait_until
    lda #$08
    sta APUSTATUS
    lda #$3F                ; halt, constant volume 15
    sta $400C
    lda #$05
    sta $400E
    lda #$08
    sta $400F
    ldx #180
    jsr wait_until
    lda #0
    sta APUSTATUS

    ldx #190
    jsr wait_until
    lda #64
    sta $4011
    lda #$40                ; loop, rate 0
    sta $4010
    lda #0
    sta $4012
    sta $4013
    lda #$10
    sta APUSTATUS
    ldx #220
    jsr wait_until
    lda #0
    sta APUSTATUS

    ldx #240
    jsr wait_until
    PASS
hang:
    jmp hang

; Waits for X more NMIs.
wait_nmis:
    txa
    clc
    adc nmis
    tax
; Waits until the NMI count reaches X.
wait_until:
:   cpx nmis
    bne :-
    rts

nmi:
    inc nmis
irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq

; The DMC sample at $C000 must be the first byte of that page: the linker puts PRG's
; last 16 KiB at $C000 after the first 16 KiB fill with code and data.
.segment "DMCDATA"
    .byte $0F

.segment "CHARS"
    .res 16, 0
