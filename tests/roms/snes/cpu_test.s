; cpu_test.s: gpuvet's own self-checking SNES machine test (65816, ca65 --cpu 65816). It
; checks what the 5A22 and the bus do around the CPU core and reports through the status
; block at $70:0000 (status $80 while running, 0 passed, else the number of the first check
; that failed):
;   1 WRAM: $00:0xxx mirrors $7E:0xxx          2 the WRAM port $2180-$2183
;   3 multiply $4202/$4203 -> $4216            4 divide $4204-$4206 (and by zero)
;   5 general DMA from ROM through $2180        6 DMA to VRAM, read back ($2118/$2139)
;   7 NMI at vertical blank, RDNMI             8 V-IRQ at line 100 (latched V counter)
;   9 HDMA, repeat and plain entries (through $2180)
;  10 the sound CPU: boot handshake, an upload by the boot protocol, the program's answer
;  11 joypad auto-read ($4218 holds controller 1 after vertical blank; no input: 0)
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .include "snes.inc"

        snes_header "GPUVET CPU TEST"
        snes_vectors reset, nmi, irq

nmi_count = $0010
irq_count = $0011
irq_line  = $0012
test      = $0013

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        stz     nmi_count
        stz     irq_count
        status_running          ; the status block: running
        ldx     #0
@txt:   lda     running_txt,x
        sta     f:SRAM_STATUS+4,x
        inx
        cmp     #0
        bne     @txt

        ; ---- 1: WRAM mirror ----
        lda     #1
        sta     test
        lda     #$5A
        sta     f:$7E0100
        lda     $0100
        cmp     #$5A
        bne     fail1
        lda     #$A7
        sta     $0101
        lda     f:$7E0101
        cmp     #$A7
        bne     fail1

        ; ---- 2: WRAM port ----
        inc     test
        stz     $2181
        lda     #$20
        sta     $2182
        lda     #$01
        sta     $2183           ; $7F:2000
        lda     #$11
        sta     $2180
        lda     #$22
        sta     $2180
        lda     f:$7F2000
        cmp     #$11
        bne     fail1
        lda     f:$7F2001
        cmp     #$22
        bne     fail1
        stz     $2181           ; and read back through the port
        lda     $2180
        cmp     #$11
        bne     fail1
        bra     t3
fail1:  jmp     fail

        ; ---- 3: multiply ----
t3:     inc     test
        lda     #12
        sta     $4202
        lda     #34
        sta     $4203
        nop                     ; the product is ready 8 cycles later
        nop
        nop
        nop
        rep     #$20
        .a16
        lda     $4216
        cmp     #408
        sep     #$20
        .a8
        bne     fail1

        ; ---- 4: divide ----
        inc     test
        rep     #$20
        .a16
        lda     #1000
        sta     $4204
        sep     #$20
        .a8
        lda     #7
        sta     $4206
        jsr     wait16
        rep     #$20
        .a16
        lda     $4214
        cmp     #142
        bne     fail4
        lda     $4216
        cmp     #6
        bne     fail4
        sep     #$20
        .a8
        stz     $4206           ; by zero: quotient $FFFF, remainder the dividend
        jsr     wait16
        rep     #$20
        .a16
        lda     $4214
        cmp     #$FFFF
        bne     fail4
        lda     $4216
        cmp     #1000
        bne     fail4
        sep     #$20
        .a8
        bra     t5
fail4:  sep     #$20
        jmp     fail

        ; ---- 5: general DMA ROM -> $2180 ----
t5:     inc     test
        stz     $2181
        lda     #$30
        sta     $2182
        stz     $2183           ; $7E:3000
        stz     $4300           ; A to B, increment, one register
        lda     #$80
        sta     $4301
        ldx     #dma_src
        stx     $4302
        stz     $4304
        ldx     #8
        stx     $4305
        lda     #$01
        sta     $420B
        ldx     #0
@cmp5:  lda     f:$7E3000,x
        cmp     dma_src,x
        bne     fail5
        inx
        cpx     #8
        bne     @cmp5
        ldx     $4305           ; the count ends at 0
        bne     fail5
        bra     t6
fail5:  jmp     fail

        ; ---- 6: DMA to VRAM and back ----
t6:     inc     test
        lda     #$80
        sta     $2115           ; increment after the high byte
        ldx     #$1000
        stx     $2116
        lda     #$01            ; two registers, $2118/$2119
        sta     $4300
        lda     #$18
        sta     $4301
        ldx     #dma_src
        stx     $4302
        stz     $4304
        ldx     #8
        stx     $4305
        lda     #$01
        sta     $420B
        ldx     #0              ; read each word back: set the address, read low, high
@rd6:   rep     #$20
        .a16
        txa
        lsr     a
        clc
        adc     #$1000
        sta     $2116           ; loads the read buffer
        sep     #$20
        .a8
        lda     $2139
        cmp     dma_src,x
        bne     fail6
        lda     $213A
        cmp     dma_src+1,x
        bne     fail6
        inx
        inx
        cpx     #8
        bne     @rd6
        bra     t7
fail6:  jmp     fail

t7:
        ; ---- 7: NMI ----
        inc     test
        lda     #$81            ; NMI and joypad auto-read
        sta     $4200
        lda     nmi_count
        wai
        cmp     nmi_count
        beq     fail5
        lda     $4210           ; the handler read it: flag clear, version 2
        and     #$8F
        cmp     #$02
        bne     fail5

        ; ---- 8: V-IRQ at line 100 ----
        inc     test
        ldx     #100
        stx     $4209
        lda     #$A1            ; NMI, V-IRQ, auto-read
        sta     $4200
        cli
@w8:    lda     irq_count
        beq     @w8
        sei
        lda     #$81
        sta     $4200
        lda     irq_line
        cmp     #100
        bne     fail8
        bra     t9
fail8:  jmp     fail

        ; ---- 9: HDMA ----
t9:     inc     test
        jsr     wait_nmi
        ldx     #0
@clr9:  lda     #0
        sta     f:$7E4000,x
        inx
        cpx     #8
        bne     @clr9
        stz     $2181
        lda     #$40
        sta     $2182
        stz     $2183           ; $7E:4000
        lda     #$00
        sta     $4310           ; direct, one register
        lda     #$80
        sta     $4311
        ldx     #hdma_tab
        stx     $4312
        stz     $4314
        lda     #$02
        sta     $420C
        jsr     wait_nmi        ; a whole frame of HDMA
        stz     $420C
        ldx     #0
@cmp9:  lda     f:$7E4000,x
        cmp     hdma_want,x
        bne     fail8
        inx
        cpx     #5
        bne     @cmp9

        ; ---- 10: the sound CPU ----
        inc     test
        jsr     spc_upload
        bcs     fail10
        ldy     #0
@ans:   dey
        beq     fail10
        ldx     $2140
        cpx     #$A55A
        bne     @ans
        bra     t11
fail10: jmp     fail

        ; ---- 11: joypad auto-read ----
t11:    inc     test
        jsr     wait_nmi
@busy:  lda     $4212
        and     #$01
        bne     @busy
        ldx     $4218
        bne     fail10

        ; ---- all passed ----
        ldx     #0
@ptxt:  lda     passed_txt,x
        sta     f:SRAM_STATUS+4,x
        inx
        cmp     #0
        bne     @ptxt
        lda     #0
        sta     f:SRAM_STATUS
done:   bra     done

fail:   ldx     #0
@ftxt:  lda     failed_txt,x
        sta     f:SRAM_STATUS+4,x
        inx
        cmp     #0
        bne     @ftxt
        lda     test
        sta     f:SRAM_STATUS
@stop:  bra     @stop

; waits for the next NMI
wait_nmi:
        lda     nmi_count
@w:     cmp     nmi_count
        beq     @w
        rts

        spc_upload_code

wait16: nop
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        rts

nmi:    sep     #$20
        pha
        lda     $4210
        inc     nmi_count
        pla
        rti

irq:    sep     #$20
        pha
        lda     $4211
        lda     $213F           ; resets the counter byte toggles
        lda     $2137           ; latch H/V
        lda     $213D
        sta     irq_line
        lda     $213D
        inc     irq_count
        pla
        rti

running_txt: .byte "SNES CPU test running", 0
passed_txt:  .byte "All 11 SNES machine checks passed", 0
failed_txt:  .byte "SNES machine check failed (status = its number)", 0
dma_src:     .byte $12, $34, $56, $78, $9A, $BC, $DE, $F0
hdma_tab:    .byte $83, $11, $22, $33   ; repeat: one byte on each of 3 lines
             .byte $02, $44             ; one byte, then 2 lines
             .byte $00
hdma_want:   .byte $11, $22, $33, $44, $00
; the SPC700 program: answer $5A in port 0 and $A5 in port 1, then wait
spc_prog:    .byte $8F, $A5, $F5        ; mov $F5, #$A5
             .byte $8F, $5A, $F4        ; mov $F4, #$5A
             .byte $2F, $FE             ; bra *
spc_prog_end:
