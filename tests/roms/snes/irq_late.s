; irq_late.s: gpuvet's own SNES ROM for an H/V IRQ enabled on the line it is for, after
; the line has begun: NMITIMEN = $30 fires when V == VTIME and H == HTIME, so a target
; later on the current line must fire on this line, not a frame later. The ROM waits for
; the picture (HVBJOY bit 7 clear), then the start of a line (HVBJOY bit 6 falling), polls
; the latched H counter until H >= 140 (past the DRAM refresh at dot 134), and on that
; line (its latched V) sets VTIME = V and NMITIMEN = $30, HTIME being 270 (the writes end
; near dot 210, before it).
; Check 1: the IRQ comes within 2,000 turns of a wait loop (about 130 lines; a missed
; target waits a whole frame). Check 2: the handler's latched V is the line set. Check 3:
; the handler's latched H is 270 or more (not fired early). Reports through the status
; block at $70:0000 (status $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET LATE IRQ TEST"
        snes_vectors reset, nmi, irq

        line  = $10             ; word: the line the IRQ is set for
        got   = $12             ; byte: the IRQ came
        ih    = $14             ; word: H latched in the handler
        iv    = $16             ; word: V latched in the handler
        test  = $18

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running          ; the status block: running
        stz     got
        lda     #<270           ; HTIME and VTIME's high bit now (no IRQ while $4200 = 0)
        sta     $4207
        lda     #>270
        sta     $4208
        stz     $420A
        stz     line+1
@vb:    lda     $4212           ; wait for the picture's lines
        bmi     @vb
@hb1:   lda     $4212           ; then for horizontal blank ...
        and     #$40
        beq     @hb1
@hb0:   lda     $4212           ; ... to end: a line begins
        and     #$40
        bne     @hb0
@hpoll: lda     $213F           ; reset the counter byte toggles
        lda     $2137           ; latch H/V
        lda     $213C           ; H's low byte: the line's first 256 dots
        cmp     #140
        bcc     @hpoll
        lda     $213D           ; V of the same latch (a picture line: below 256)
        sta     $4209
        sta     line
        lda     #$30            ; IRQ at V == VTIME and H == HTIME
        sta     $4200
        cli
        lda     #1
        sta     test
        ldx     #0
@wait:  lda     got
        bne     @came
        inx
        cpx     #2000
        bne     @wait
        jmp     fail
@came:  sei
        stz     $4200
        lda     #2
        sta     test
        rep     #$20
        lda     iv
        cmp     line
        jne     fail
        lda     #3
        sta     test
        lda     ih
        cmp     #270
        jcc     fail
        sep     #$20
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

passed_txt:  .byte "All 3 late H/V IRQ checks passed", 0
failed_txt:  .byte "Late H/V IRQ check failed (status = its number)", 0
