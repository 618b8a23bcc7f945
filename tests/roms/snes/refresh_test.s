; refresh_test.s: gpuvet's own SNES ROM for the DRAM refresh pause (Anomie's timing doc:
; the CPU is paused 40 master clocks from about 536 clocks into each line (538 on the
; first line, then a multiple of 8 clocks after the last pause, nearest 536: 538 and 534
; by turns), in the middle of whatever instruction runs then). So the H counter latched
; by a read of $2137 is never 135-142: a read due in the pause waits for its end (dot 143
; or 144). The ROM latches 20,000 times from a loop whose length is not a multiple of 4
; clocks (every phase of the line) and marks the H values 128-159 it saw. Check 1: none
; of 135-142. Check 2: some H in 128-134 and some in 143-150 (the sweep reached both
; sides of the pause). Reports through the status block at $70:0000 (status $80 running, 0 passed,
; else the check); the marks for H 128-159 at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET DRAM REFRESH  "
        snes_vectors reset, nmi, nmi

        test  = $10
        seen  = $0200           ; 32 bytes: H 128-159 latched

        snes_start
        status_running          ; the status block: running
        ldx     #31
@clr:   stz     seen,x
        dex
        bpl     @clr
        ldy     #20000
@loop:  lda     $2137           ; latch H/V
        hlatch16
        rep     #$20
        sec
        sbc     #128
        cmp     #32
        bcs     @skip
        tax
        sep     #$20
        lda     #1
        sta     seen,x
@skip:  sep     #$20
        nop                     ; 2 CPU cycles: the loop is not a multiple of 4 clocks
        dey
        bne     @loop
        ldx     #31             ; the marks at $70:0100 too
@cp:    lda     seen,x
        sta     f:SRAM_STATUS+$100,x
        dex
        bpl     @cp
        lda     #1
        sta     test
        ldx     #135 - 128
@c1:    lda     seen,x
        jne     fail
        inx
        cpx     #143 - 128
        bne     @c1
        lda     #2
        sta     test
        ldx     #128 - 128      ; some H in 128-134 ...
@c2:    lda     seen,x
        bne     @c2ok
        inx
        cpx     #135 - 128
        bne     @c2
        jmp     fail
@c2ok:  ldx     #143 - 128      ; ... and some in 143-150
@c3:    lda     seen,x
        bne     @c3ok
        inx
        cpx     #151 - 128
        bne     @c3
        jmp     fail
@c3ok:
        status_end #0, passed_txt
fail:   status_end test, failed_txt

nmi:    rti

passed_txt:  .byte "Both DRAM refresh checks passed", 0
failed_txt:  .byte "DRAM refresh check failed (status = its number)", 0
