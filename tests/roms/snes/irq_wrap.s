; irq_wrap.s: gpuvet's own SNES ROM for the H/V IRQ at the line's last dots. HTIME may be
; 0-339 (a line is 340 dots, dots 323 and 327 six clocks long); the IRQ comes a few clocks
; after the H counter matches, so for HTIME 339 it comes at the start of the next line.
; Check 1: H-IRQ (NMITIMEN $10) with HTIME 339 comes within 60,000 turns of a wait loop
; (some 15 frames; each wait below is bounded so).
; Check 2: the H counter latched in its handler is below 100 (early on a line). Check 3:
; HV-IRQ ($30) with VTIME 100, HTIME 339 comes. Check 4: the V latched in its handler is
; 101 (the line after the match). Reports through the status block at $70:0000 (status
; $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET IRQ WRAP TEST"
        snes_vectors reset, nmi, irq

        got   = $12             ; byte: the IRQ came
        ih    = $14             ; word: H latched in the handler
        iv    = $16             ; word: V latched in the handler
        test  = $18

; irq_wait N, MODE: enables the IRQ with NMITIMEN = MODE and waits for it (check N)
.macro irq_wait n, mode
        .local wait, came
        lda     #n
        sta     test
        stz     got
        lda     #mode
        sta     $4200
        cli
        ldx     #0
wait:   lda     got
        bne     came
        inx
        cpx     #60000
        bne     wait
        jmp     fail
came:   sei
        stz     $4200
.endmacro

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running          ; the status block: running
        lda     #<339
        sta     $4207
        lda     #>339
        sta     $4208
        lda     #100
        sta     $4209
        stz     $420A

        irq_wait 1, $10         ; H-IRQ at HTIME 339
        lda     #2
        sta     test
        rep     #$20
        lda     ih
        cmp     #100
        jcs     fail
        sep     #$20

        irq_wait 3, $30         ; HV-IRQ at VTIME 100, HTIME 339
        lda     #4
        sta     test
        rep     #$20
        lda     iv
        cmp     #101
        jne     fail

        status_end #0, passed_txt
fail:   status_end test, failed_txt

nmi:    rti

irq:    sep     #$20            ; a8 in the handler (the wait loop runs a8 too)
        lda     $4211           ; acknowledge
        lda     $213F
        lda     $2137
        lda     $213C
        sta     ih
        lda     $213C
        and     #$01
        sta     ih+1
        lda     $213D
        sta     iv
        lda     $213D
        and     #$01
        sta     iv+1
        lda     #1
        sta     got
        rti

passed_txt:  .byte "All 4 H/V IRQ wrap checks passed", 0
failed_txt:  .byte "H/V IRQ wrap check failed (status = its number)", 0
