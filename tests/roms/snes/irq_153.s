; irq_153.s: gpuvet's own SNES ROM for an edge of the H/V IRQ (Anomie's timing doc: no IRQ
; triggers for dot 153 on the last scanline of any frame). An H-IRQ (NMITIMEN $10) at
; HTIME 153 is counted over one whole frame, from the start of one vertical blank to the
; start of the next: 261 IRQs, not 262. Check 2, the control: HTIME 152 gives 262.
; Reports through the status block at $70:0000 (status $80 running, 0 passed, else the
; check); the two counts (words) at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET IRQ DOT 153   "
        snes_vectors reset, nmi, irq

        n     = $10             ; word: IRQs counted
        test  = $12
        n153  = $14
        n152  = $16

        snes_start
        status_running          ; the status block: running
        ldx     #153
        jsr     count
        stx     n153
        ldx     #152
        jsr     count
        stx     n152
        rep     #$20
        lda     n153
        sta     f:SRAM_STATUS+$100
        lda     n152
        sta     f:SRAM_STATUS+$102
        sep     #$20
        lda     #1
        sta     test
        ldx     n153
        cpx     #261
        jne     fail
        lda     #2
        sta     test
        ldx     n152
        cpx     #262
        jne     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

; count: H-IRQs at HTIME X over one frame (vertical blank to vertical blank) into X (a8)
count:
        stx     $4207
        jsr     vbstart
        ldx     #0
        stx     n
        lda     #$10
        sta     $4200
        cli
        jsr     vbstart
        sei
        stz     $4200
        lda     $4211
        ldx     n
        rts

; vbstart: waits for vertical blank to begin (HVBJOY bit 7 rising)
vbstart:
@in:    lda     $4212
        bmi     @in
@out:   lda     $4212
        bpl     @out
        rts

nmi:    rti

irq:    pha
        lda     $4211
        rep     #$20
        inc     n
        sep     #$20
        pla
        rti

passed_txt:  .byte "Both IRQ dot 153 checks passed", 0
failed_txt:  .byte "IRQ dot 153 check failed (status = its number)", 0
