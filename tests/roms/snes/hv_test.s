; hv_test.s: gpuvet's own SNES ROM for the H/V counter latch ($2137, $213C/$213D). A line
; is 340 dots of 1364 master clocks, dots 323 and 327 being 6 clocks long instead of 4, so
; the latched H counter is 0-339 and V 0-261. The ROM latches the counters 20,000 times
; from a loop whose length is not a multiple of 4 clocks (so the latch falls on every
; phase of the line) and keeps the largest H and V; check 1: H never above 339 (a counter
; that ignores the long dots reads 340 in the line's last 4 clocks), check 2: H reached
; 330 or more (the samples cover the line's end), check 3: V never above 261. Reports
; through the status block at $70:0000 (status $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET HV LATCH TEST"
        snes_vectors reset, nmi, irq

        hmax  = $10             ; word: the largest H latched
        vmax  = $12             ; word: the largest V latched
        test  = $14

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running          ; the status block: running
        stz     hmax
        stz     hmax+1
        stz     vmax
        stz     vmax+1
        ldy     #20000
@loop:  lda     $213F           ; resets the counter byte toggles
        lda     $2137           ; latch H/V
        lda     $213C           ; H low, then high (bit 0)
        xba
        lda     $213C
        and     #$01
        xba
        rep     #$20
        cmp     hmax
        bcc     @h_ok
        sta     hmax
@h_ok:  sep     #$20
        lda     $213D           ; V low, then high (bit 0)
        xba
        lda     $213D
        and     #$01
        xba
        rep     #$20
        cmp     vmax
        bcc     @v_ok
        sta     vmax
@v_ok:  sep     #$20
        nop                     ; 2 CPU cycles: the loop is not a multiple of 4 clocks
        dey
        bne     @loop

        rep     #$20
        lda     #1
        sta     test
        lda     hmax
        cmp     #340
        bcs     fail
        lda     #2
        sta     test
        lda     hmax
        cmp     #330
        bcc     fail
        lda     #3
        sta     test
        lda     vmax
        cmp     #262
        bcs     fail
        sep     #$20
        lda     #0
        sta     f:SRAM_STATUS
        ldx     #0
@ptxt:  lda     passed_txt,x
        sta     f:SRAM_STATUS+4,x
        inx
        cmp     #0
        bne     @ptxt
done:   bra     done

fail:   sep     #$20
        lda     test
        sta     f:SRAM_STATUS
        ldx     #0
@ftxt:  lda     failed_txt,x
        sta     f:SRAM_STATUS+4,x
        inx
        cmp     #0
        bne     @ftxt
@stop:  bra     @stop

nmi:    rti
irq:    rti

passed_txt:  .byte "All 3 H/V latch checks passed", 0
failed_txt:  .byte "H/V latch check failed (status = its number)", 0
