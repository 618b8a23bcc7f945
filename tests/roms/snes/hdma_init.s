; hdma_init.s: gpuvet's own SNES ROM for the cost of HDMA's set-up at the start of a frame
; (Anomie's timing doc: at V=0 the CPU pauses ~18 master clocks, plus 8 for each enabled
; direct channel and 24 for each indirect one, which also loads its indirect address).
; An HV-IRQ at V=261 H=300 wakes the CPU from WAI; the handler runs a fixed path across
; the frame's end and latches the H counter early on line 0. The smallest H of 16 frames
; (WAI begins at every phase of its idle cycle) is taken with HDMAEN = 0, with all eight
; channels direct and with all eight indirect (every table a single 0: each channel ends
; at its set-up, so no line's HDMA adds to the pause). Check 1: every latch on line 0.
; Check 2: eight direct channels latch 20 or 21 dots later (82 clocks). Check 3: eight
; indirect channels 52 or 53 dots later (210 clocks). Reports through the status block at
; $70:0000 (status $80 running, 0 passed, else the check); the three minima at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET HDMA INIT TEST"
        snes_vectors reset, nmi, irq

        cur   = $10             ; word: H latched by the last IRQ
        min   = $12             ; word: the smallest this run
        m0    = $14
        md    = $16
        mi    = $18
        test  = $1A
        count = $1C             ; word
        vbad  = $1E             ; byte: a latch not on line 0

        snes_start
        status_running          ; the status block: running
        stz     vbad
        ldx     #0              ; every channel: B bus $21FF, table `tbl` in bank 0
@ch:    lda     #$FF
        sta     $4301,x
        lda     #<tbl
        sta     $4302,x
        lda     #>tbl
        sta     $4303,x
        stz     $4304,x
        stz     $4307,x
        txa
        clc
        adc     #$10
        tax
        cpx     #$80
        bne     @ch
        lda     #<300           ; HV-IRQ at V=261, H=300
        sta     $4207
        lda     #>300
        sta     $4208
        lda     #<261
        sta     $4209
        lda     #>261
        sta     $420A
        stz     $420C           ; none
        lda     #$30            ; HV-IRQ
        ldx     #16
        jsr     wai_min
        stx     m0
        lda     #$00            ; eight direct
        jsr     setmode
        lda     #$FF
        sta     $420C
        lda     #$30            ; HV-IRQ
        ldx     #16
        jsr     wai_min
        stx     md
        lda     #$40            ; eight indirect
        jsr     setmode
        lda     #$30            ; HV-IRQ
        ldx     #16
        jsr     wai_min
        stx     mi
        stz     $420C
        rep     #$20
        lda     m0
        sta     f:SRAM_STATUS+$100
        lda     md
        sta     f:SRAM_STATUS+$102
        lda     mi
        sta     f:SRAM_STATUS+$104
        sep     #$20
        lda     #1
        sta     test
        lda     vbad
        jne     fail
        rep     #$20
        lda     #2
        sta     test
        lda     md
        sec
        sbc     m0
        cmp     #20
        jcc     fail
        cmp     #22
        jcs     fail
        lda     #3
        sta     test
        lda     mi
        sec
        sbc     m0
        cmp     #52
        jcc     fail
        cmp     #54
        jcs     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

; setmode: DMAPx = A on all eight channels (a8)
setmode:
        ldx     #0
@c:     sta     $4300,x
        pha
        txa
        clc
        adc     #$10
        tax
        pla
        cpx     #$80
        bne     @c
        rts

        wai_min_code count, cur, min

nmi:    rti

irq:    pha                     ; a8 (the main loop's)
        phx
        lda     $4211           ; acknowledge
        ldx     #6              ; a fixed path across the frame's end
@d:     dex
        bne     @d
        lda     $2137           ; latch H/V on line 0
        lda     $213F           ; reset the byte toggles
        lda     $213C
        sta     cur
        lda     $213C
        and     #$01
        sta     cur+1
        lda     $213D
        ora     $213D
        beq     @v0
        sta     vbad
@v0:    plx
        pla
        rti

tbl:         .byte 0
passed_txt:  .byte "All 3 HDMA set-up checks passed", 0
failed_txt:  .byte "HDMA set-up check failed (status = its number)", 0
