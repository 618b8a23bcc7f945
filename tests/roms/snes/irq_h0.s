; irq_h0.s: gpuvet's own SNES ROM for the H/V IRQ at HTIME = 0 (Anomie's timing doc: the
; IRQ flag is set 14 + 4 * HTIME master clocks after dot 0 of the line, except HTIME = 0:
; 1374 clocks after dot 0 of the line before, i.e. 10 clocks into the line; a V-IRQ is an
; HV-IRQ at H = 0). So HTIME 0 and 1 are 8 clocks (2 dots) apart, not 4, and a V-IRQ comes
; at the same point of its line as an H-IRQ at HTIME 0.
; The CPU waits in WAI; the handler latches the H counter first thing. The main loop varies
; its length (0-3 NOPs) so that WAI starts at every phase of the 6-clock idle cycle; the
; smallest latched H of many IRQs is then the one whose wake-up met the IRQ exactly.
; A: H-IRQ (NMITIMEN $10) at HTIME 0, 400 lines; B: the same at HTIME 1; C: V-IRQ
; (NMITIMEN $20) at VTIME 50, 40 frames. Check 1: min B - min A = 2 dots. Check 2:
; min C = min A. Reports through the status block at $70:0000 (status $80 running, 0
; passed, else the check); the three minima (words) at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET IRQ AT H=0    "
        snes_vectors reset, nmi, irq

        cur   = $10             ; word: H latched by the last IRQ
        min   = $12             ; word: the smallest this run
        mina  = $14
        minb  = $16
        minc  = $18
        test  = $1A
        count = $1C             ; word

        snes_start
        status_running          ; the status block: running
        stz     $420A           ; VTIME = 50 (high bit 0)
        lda     #50
        sta     $4209
        stz     $4208           ; HTIME high bit 0
        stz     $4207           ; A: HTIME 0, H-IRQ
        lda     #$10
        ldx     #400
        jsr     wai_min
        stx     mina
        lda     #1
        sta     $4207           ; B: HTIME 1
        lda     #$10
        ldx     #400
        jsr     wai_min
        stx     minb
        stz     $4207
        lda     #$20            ; C: V-IRQ at VTIME 50
        ldx     #40
        jsr     wai_min
        stx     minc
        rep     #$20
        lda     mina
        sta     f:SRAM_STATUS+$100
        lda     minb
        sta     f:SRAM_STATUS+$102
        lda     minc
        sta     f:SRAM_STATUS+$104
        lda     #1
        sta     test
        lda     minb
        sec
        sbc     mina
        cmp     #2
        jne     fail
        lda     #2
        sta     test
        lda     minc
        cmp     mina
        jne     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

        wai_min_code count, cur, min

nmi:    rti

irq:    pha                     ; a8 (the main loop's)
        lda     $2137           ; latch H/V first
        lda     $4211           ; acknowledge
        lda     $213F           ; reset the byte toggles
        lda     $213C
        sta     cur
        lda     $213C
        and     #$01
        sta     cur+1
        pla
        rti

passed_txt:  .byte "Both IRQ at H=0 checks passed", 0
failed_txt:  .byte "IRQ at H=0 check failed (status = its number)", 0
