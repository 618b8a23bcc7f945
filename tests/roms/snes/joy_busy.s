; joy_busy.s: gpuvet's own SNES ROM for the joypad auto-read's timing (Anomie's timing
; doc: with NMITIMEN bit 0 set the read begins between dots 32.5 and 95.5 of the first
; vertical-blank line, and HVBJOY bit 0 is set for the 4224 master clocks it takes).
; For 40 frames the ROM waits for vertical blank to begin (HVBJOY bit 7 rising), reads
; bit 0 at once (the poll sees the line's start by about dot 30), then polls bit 0 up and
; down, latching the H/V counter at each change. Check 1: bit 0 clear at vertical blank's
; start. Check 2: the latch after the read begins gives H 40-135 on line 225 (dots 32.5-
; 95.5, then up to 17 dots of polling and 18 to the latch). Check 3: the latch after it
; ends is on line 228, 14-62 dots after the first (4224 clocks = 3 lines and 33 dots; the
; polls' slack either side, and the DRAM refresh at dot 134 may fall before the latch). Reports through the status block at $70:0000 (status $80 running, 0
; passed, else the check); the last frame's figures (start H, end V, end H) at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET JOYPAD BUSY   "
        snes_vectors reset, nmi, nmi

        hs    = $10             ; word: H at the start
        he    = $12             ; word: H at the end
        ve    = $14             ; word: V at the end
        test  = $16
        count = $18             ; word

        snes_start
        status_running          ; the status block: running
        lda     #$01            ; auto-read on, no NMI
        sta     $4200
        ldx     #40
        stx     count
@frame: lda     #1
        sta     test
@in:    lda     $4212           ; vertical blank begins
        bmi     @in
@out:   lda     $4212
        bpl     @out
        lda     $4212
        lsr     a
        jcs     fail
@up:    lda     $4212           ; the read begins
        lsr     a
        bcc     @up
        jsr     latch
        stx     hs
@down:  lda     $4212           ; the read ends
        lsr     a
        bcs     @down
        jsr     latch
        stx     he
        sty     ve
        rep     #$20
        lda     hs
        sta     f:SRAM_STATUS+$100
        lda     ve
        sta     f:SRAM_STATUS+$102
        lda     he
        sta     f:SRAM_STATUS+$104
        sep     #$20
        lda     #2
        sta     test
        ldx     hs
        cpx     #40
        jcc     fail
        cpx     #136
        jcs     fail
        lda     #3
        sta     test
        ldy     ve
        cpy     #228
        jne     fail
        rep     #$20
        lda     he
        sec
        sbc     hs
        cmp     #14
        jcc     fail
        cmp     #63
        jcs     fail
        sep     #$20
        ldx     count
        dex
        stx     count
        jne     @frame
        status_end #0, passed_txt
fail:   status_end test, failed_txt

; latch: the H/V counter now: H in X, V in Y (a8, i16)
latch:  lda     $2137
        hlatch16
        rep     #$20
        tax
        sep     #$20
        lda     $213D
        xba
        lda     $213D
        and     #$01
        xba
        rep     #$20
        tay
        sep     #$20
        rts

nmi:    rti

passed_txt:  .byte "All 3 joypad auto-read timing checks passed", 0
failed_txt:  .byte "Joypad auto-read timing check failed (status = its number)", 0
