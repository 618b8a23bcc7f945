; il_timing.s: gpuvet's own SNES ROM for interlace's frame length (Anomie's timing doc:
; frames are 262 scanlines in non-interlace mode, while in interlace mode frames with
; $213F bit 7 = 0 are 263 scanlines; fullsnes "SNES Timing H/V Events": V=262, the extra
; scanline, occurs only in interlace field 0). With SETINI bit 0 set the ROM latches the
; H/V counters ($2137) 10,000 times (about 10 frames) and keeps the largest V, reading
; $213F's field bit just before each latch. Check 1: V reached 262; check 2: V never above 262;
; check 3: every V of 262 was latched in field 0. Check 4: a V-IRQ at VTIME 262 (NMITIMEN
; $20) fires once every other frame: 4 IRQs from one start of vertical blank to the 8th
; after it. Check 5, the control: with interlace off again V never passes 261 and reaches
; it. Reports through the status block at $70:0000 (status $80 running, 0 passed, else the
; check); the largest V with interlace, the IRQ count and the largest V without (words)
; at $70:0100.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET INTERLACE TIME"
        snes_vectors reset, nmi, irq

        vmax  = $10             ; word: the largest V latched
        test  = $12
        nirq  = $14             ; word: IRQs counted
        vil   = $16             ; word: the largest V with interlace
        vno   = $18             ; word: the largest V without
        field = $1A             ; byte: $213F bit 7 at the latch
        vcur  = $1C             ; word: the V just latched

        snes_start
        status_running          ; the status block: running
        lda     #$01
        sta     $2133           ; SETINI: interlace
        jsr     vmax_loop
        ldx     vmax
        stx     vil
        ; ---- the V-IRQ at VTIME 262 over 8 frames ----
        ldx     #262
        stx     $4209
        ldx     #0
        stx     nirq
        jsr     vbstart
        lda     #$20
        sta     $4200           ; V-IRQ
        cli
        ldy     #8
@frames:
        jsr     vbstart
        dey
        bne     @frames
        sei
        stz     $4200
        lda     $4211
        ; ---- the control: interlace off ----
        stz     $2133
        jsr     vbstart
        jsr     vmax_loop
        ldx     vmax
        stx     vno
        rep     #$20
        lda     vil
        sta     f:SRAM_STATUS+$100
        lda     nirq
        sta     f:SRAM_STATUS+$102
        lda     vno
        sta     f:SRAM_STATUS+$104
        sep     #$20
        lda     #1
        sta     test
        ldx     vil
        cpx     #262
        jcc     fail
        lda     #4
        sta     test
        ldx     nirq
        cpx     #4
        jne     fail
        lda     #5
        sta     test
        ldx     vno
        cpx     #261
        jne     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

; vmax_loop: latches H/V 10,000 times, the largest V into vmax; fails check 2 on a V above
; 262, check 3 on a V of 262 latched in field 1 (a8, i16)
vmax_loop:
        stz     vmax
        stz     vmax+1
        ldy     #10000
@loop:  lda     $213F           ; the field bit (before the latch: a read after it could
        and     #$80            ; fall in the next frame); resets the counter byte toggles
        sta     field
        lda     $2137           ; latch H/V
        lda     $213D           ; V low
        sta     vcur
        lda     $213D           ; V high (bit 0)
        and     #$01
        sta     vcur+1
        rep     #$20
        lda     vcur
        cmp     #262
        bcc     @small
        beq     @v262
        sep     #$20
        lda     #2
        sta     test
        jmp     fail
@v262:  sep     #$20
        lda     field
        beq     @field0
        lda     #3
        sta     test
        jmp     fail
@field0:
        rep     #$20
        lda     #262
@small: cmp     vmax
        bcc     @v_ok
        sta     vmax
@v_ok:  sep     #$20
        dey
        bne     @loop
        rts

; vbstart: waits for vertical blank to begin (RDNMI's flag, set there, cleared by reading)
vbstart:
        lda     $4210
@wait:  lda     $4210
        bpl     @wait
        rts

nmi:    rti

irq:    bit     $4211           ; acknowledge (A untouched)
        rep     #$20
        inc     nirq
        rti                     ; restores P (8-bit A)

passed_txt:  .byte "All 5 interlace frame length checks passed", 0
failed_txt:  .byte "interlace frame length check failed (status = its number)", 0
