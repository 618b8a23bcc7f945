; dma_time.s: gpuvet's own SNES ROM for the length of a general DMA (Anomie's timing doc):
; after the $420B write the CPU gets one more cycle (the next opcode fetch), then pauses;
; the DMA waits 2-8 master clocks to a multiple of 8 since reset, takes 8 for itself, 8 a
; channel and 8 a byte, then waits 2-8 (never 0) to a whole number of CPU cycles (the
; length of the CPU cycle that follows) since the pause. `STY $4305 : STA $420B : NOP`
; with a one-byte, one-channel DMA from SlowROM code (the NOP's IO cycle: 6 clocks) thus
; costs 30 or 36 clocks by the phase, never the 40 of a fixed 12 + 12 overhead.
; After an HV-IRQ at V=100 H=30 taken in WAI, the CPU runs the sequence five times between
; two latches of the H counter (the DRAM refresh between them every time), in 8 frames with
; channel 0 armed (A = 1) and in 8 with A = 0 (the same path, no DMA). Check 1: every pair of latches on one line. Check 2: the
; largest DMA measurement exceeds the smallest plain one by at most 47 dots (5 x 36
; clocks = 45 dots, +2 for the latches' rounding); check 3: the smallest exceeds the
; largest plain one by at least 35 (5 x 30 clocks = 37.5 dots, -2). Reports through the
; status block at $70:0000 (status $80 running, 0 passed, else the check); the four
; figures (DMA max, DMA min, plain max, plain min) at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET DMA TIME TEST "
        snes_vectors reset, nmi, irq

        h1    = $10             ; word: first latch
        dif   = $12             ; word: second latch - first
        vbad  = $14             ; byte: the two latches on two lines
        val   = $15             ; byte: the value for $420B
        count = $16             ; word
        mx    = $18             ; word
        mn    = $1A             ; word
        dmax  = $1C
        dmin  = $1E
        pmax  = $20
        pmin  = $22
        test  = $24
        v1    = $26             ; byte

        snes_start
        status_running          ; the status block: running
        stz     vbad
        stz     $4300           ; channel 0: A bus -> $2180 (WRAM port), one byte
        lda     #$80
        sta     $4301
        ldx     #src
        stx     $4302
        stz     $4304
        ldx     #$1000          ; the bytes land in WRAM at $7E:1000 on
        stx     $2181
        stz     $2183
        ldx     #30             ; HV-IRQ at V=100, H=30
        stx     $4207
        ldx     #100
        stx     $4209
        lda     #1
        jsr     measure
        ldx     mx
        stx     dmax
        ldx     mn
        stx     dmin
        lda     #0
        jsr     measure
        ldx     mx
        stx     pmax
        ldx     mn
        stx     pmin
        rep     #$20
        lda     dmax
        sta     f:SRAM_STATUS+$100
        lda     dmin
        sta     f:SRAM_STATUS+$102
        lda     pmax
        sta     f:SRAM_STATUS+$104
        lda     pmin
        sta     f:SRAM_STATUS+$106
        sep     #$20
        lda     #1
        sta     test
        lda     vbad
        jne     fail
        rep     #$20
        lda     #2
        sta     test
        lda     dmax
        sec
        sbc     pmin
        cmp     #48
        jcs     fail
        lda     #3
        sta     test
        lda     dmin
        sec
        sbc     pmax
        cmp     #35
        jcc     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

; measure: $420B value A after each of 8 HV-IRQs taken in WAI (0-3 NOPs before each);
; the largest and smallest latch difference in mx, mn (a8)
measure:
        sei
        sta     val
        ldx     #8
        stx     count
        ldx     #0
        stx     mx
        dex
        stx     mn
        lda     #$30
        sta     $4200
        wai                     ; the first IRQ wakes WAI without being taken (I set)
        lda     $4211
        cli
mloop:  wai_phases count         ; the IRQ: the handler acknowledges it
        ldy     #1
        lda     $2137           ; latch 1
        lda     $213F
        lda     $213C
        sta     h1
        lda     $213C
        and     #$01
        sta     h1+1
        lda     $213D
        sta     v1
        lda     $213D
        lda     val
        .repeat 5
        sty     $4305           ; one byte
        sta     $420B
        nop
        .endrepeat
        lda     $2137           ; latch 2
        hlatch16
        rep     #$20
        sec
        sbc     h1
        sta     dif
        sep     #$20
        lda     $213D
        cmp     v1
        beq     @same
        sta     vbad
@same:  lda     $213D
        rep     #$20
        lda     dif
        cmp     mx
        bcc     @lo
        sta     mx
@lo:    cmp     mn
        bcs     @keep
        sta     mn
@keep:  sep     #$20
        ldx     count
        dex
        stx     count
        jne     mloop
        sei
        stz     $4200
        lda     $4211
        rts

nmi:    rti

irq:    pha                     ; a8 (the main loop's)
        lda     $4211           ; acknowledge
        pla
        rti

src:         .byte $5A
passed_txt:  .byte "All 3 DMA time checks passed", 0
failed_txt:  .byte "DMA time check failed (status = its number)", 0
