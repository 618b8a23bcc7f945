; sa1_test.s: gpuvet's own SA-1 test ROM (2 MiB, laid out by sa1.cfg). The SNES starts the
; SA-1 (CRV, message 5 in CCNT); the SA-1 (its 65C816 code below, assembled with the rest)
; runs the multiply, divide and cumulative-sum cases and steps the variable-length bit
; reader in fixed and auto-increment mode over the tables of sa1_cases.inc (gen_sa1.py),
; storing each result in I-RAM ($3200 on), copies 16 bytes by the normal DMA from ROM to
; I-RAM, I-RAM to BW-RAM and back (CFR's DMA flag set, then cleared by CIC), reads and writes BW-RAM through bank $40 and
; through BMAP's block at $6000, reads ROM through the Super MMC (block 1 at $20:8000 and
; $D0:0000, then block 0 once the SNES has set DXB to $80), and interrupts both ways: an
; IRQ to the SNES (SCNT $83: SFR reads $83), an IRQ and an NMI from the SNES (CCNT $86 and
; $17: CFR reads $86 and $17 in the SA-1's handlers at CIV and CNV), and an IRQ to the SNES
; through the vector SIV (SCNT $99: the SNES's IRQ goes to irq2). The SNES then reads BW-RAM
; ($40:0010, and $00:6000 with BMAPS = 1) and ROM at $20:8000, copies the SA-1's DMA copy
; from I-RAM to WRAM by its own DMA (status 4 when it differs), and compares everything with
; the values tests/snes/sa1_model.py computed (sa1_expect) and the protocol's own
; (fix_expect, snes_expect). Reports through the status block at the start of BW-RAM
; ($40:0000): status $80 running, 0 passed, 1/2/3/4 a mismatch in the SA-1's results, its
; fixed bytes, the SNES's or its DMA's (the index at $40:0040).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"
        .include "sa1_cases.inc"

STATUS   = $400000              ; BW-RAM's first bytes, as the SNES sees them
SA1_RES  = $3200                ; I-RAM: the SA-1's results in order
SA1_FIX  = $3380                ; I-RAM: the SA-1's fixed bytes
SNES_FIX = $3400                ; I-RAM: the SNES's fixed bytes
PHASE    = $3000                ; I-RAM: 2 when the SA-1 is done
GOT_IRQ  = $3001                ; I-RAM: the SA-1's IRQ handler ran
GOT_NMI  = $3002                ; I-RAM: the SA-1's NMI handler ran
cnt1     = $10                  ; SNES direct page: IRQs taken through $FFEE
cnt2     = $11                  ; ... and through SIV
code     = $12
runs     = $00                  ; SA-1 direct page ($0100 in I-RAM)

        .segment "MARK0"
        .byte   $A0             ; ROM offset 0: block 0's marker
        .segment "BLOCK1"
        .byte   $B1, $B2        ; ROM offset $100000: block 1's markers
        .segment "HEADER"
        .byte   "GPUVET SA-1 TEST     "
        .byte   $23             ; map mode: SA-1
        .byte   $34             ; ROM + SA-1 + RAM
        .byte   $0B             ; ROM 2 MiB
        .byte   $05             ; BW-RAM 32 KiB
        .byte   $01, $00, $00
        .word   $FFFF, $0000
        snes_vectors reset, nmi, irq

        .segment "RODATA"
fix_expect:  .byte $05, $86, $17, $B1, $B2, $A0, $A0, $A5
snes_expect: .byte $83, $99, $01, $01, $5A, $A5, $A0
passed:      .byte "SA-1 passed", 0
failed:      .byte "SA-1 results differ (index at $40:0040)", 0

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        lda     #$80
        sta     f:STATUS
        lda     #$DE
        sta     f:STATUS+1
        lda     #$B0
        sta     f:STATUS+2
        lda     #$61
        sta     f:STATUS+3
        lda     #$80
        sta     $2226           ; SBWE: the SNES may write BW-RAM
        stz     $2224           ; BMAPS: block 0
        stz     cnt1
        stz     cnt2
        stz     PHASE
        stz     GOT_IRQ
        stz     GOT_NMI
        ldx     #sa1_reset
        stx     $2203           ; CRV
        ldx     #sa1_nmi
        stx     $2205           ; CNV
        ldx     #sa1_irq
        stx     $2207           ; CIV
        lda     #$A0
        sta     $2201           ; SIE: IRQs from the SA-1
        cli
        lda     #$05
        sta     $2200           ; the SA-1 out of reset, message 5
w1:     lda     cnt1            ; its first IRQ
        beq     w1
        lda     #$80
        sta     $2221           ; DXB: bit 7, block 0
        lda     #$86
        sta     $2200           ; IRQ to the SA-1, message 6
w2:     lda     GOT_IRQ
        beq     w2
        lda     #$17
        sta     $2200           ; NMI to the SA-1, message 7
w3:     lda     PHASE
        cmp     #2
        bne     w3
w4:     lda     cnt2
        beq     w4
        lda     cnt1
        sta     SNES_FIX+2
        lda     cnt2
        sta     SNES_FIX+3
        lda     f:$400010
        sta     SNES_FIX+4
        lda     #$01
        sta     $2224           ; BMAPS: block 1 at $6000
        lda     $6000
        sta     SNES_FIX+5
        lda     f:$208000
        sta     SNES_FIX+6
        lda     #1
        sta     code
        ldx     #0
c1:     lda     SA1_RES,x
        cmp     sa1_expect,x
        bne     bad
        inx
        cpx     #EXP_N
        bne     c1
        inc     code
        ldx     #0
c2:     lda     SA1_FIX,x
        cmp     fix_expect,x
        bne     bad
        inx
        cpx     #8
        bne     c2
        inc     code
        ldx     #0
c3:     lda     SNES_FIX,x
        cmp     snes_expect,x
        bne     bad
        inx
        cpx     #7
        bne     c3
        inc     code            ; the SNES's DMA from I-RAM ($3600: the SA-1's DMA copy of
        ldx     #$2000          ; the bit stream) to WRAM $7E:2000 through $2180
        stx     $2181
        stz     $2183
        stz     $4300
        lda     #$80
        sta     $4301
        ldx     #$3600
        stx     $4302
        stz     $4304
        ldx     #16
        stx     $4305
        lda     #$01
        sta     $420B
        ldx     #0
c4:     lda     f:$7E2000,x
        cmp     bitdata,x
        bne     bad
        inx
        cpx     #16
        bne     c4
        ldx     #0
ok:     lda     passed,x
        sta     f:STATUS+4,x
        inx
        cmp     #0
        bne     ok
        lda     #0
        sta     f:STATUS
stop:   bra     stop
bad:    rep     #$20
        txa
        sta     f:STATUS+$40
        sep     #$20
        ldx     #0
bad1:   lda     failed,x
        sta     f:STATUS+4,x
        inx
        cmp     #0
        bne     bad1
        lda     code
        sta     f:STATUS
        bra     stop

irq:    php                     ; the SA-1's IRQ through $FFEE
        sep     #$20
        pha
        lda     $2300
        sta     SNES_FIX+0
        lda     #$80
        sta     $2202           ; SIC
        inc     cnt1
        pla
        plp
        rti
irq2:   php                     ; the SA-1's IRQ through SIV
        sep     #$20
        pha
        lda     $2300
        sta     SNES_FIX+1
        lda     #$80
        sta     $2202
        inc     cnt2
        pla
        plp
        rti
nmi:    rti

; ---- the SA-1's program ----------------------------------------------------------------
        .a8
        .i8
sa1_reset:
        sei
        clc
        xce
        rep     #$30
        .a16
        .i16
        ldx     #$07FF
        txs
        lda     #$0100
        tcd
        sep     #$20
        .a8
        lda     $2301           ; CFR: message 5
        sta     SA1_FIX+0
        ldy     #0
        stz     $2250           ; multiply (div_in follows mul_in: one loop)
        ldx     #0
m1:     cpx     #MUL_N*4
        bne     m2
        lda     #$01
        sta     $2250           ; divide from here on
m2:     rep     #$20
        lda     mul_in,x
        sta     $2251
        lda     mul_in+2,x
        sta     $2253           ; $2254 written: go
        lda     $2306
        sta     SA1_RES,y
        lda     $2308
        sta     SA1_RES+2,y
        sep     #$20
        iny
        iny
        iny
        iny
        inx
        inx
        inx
        inx
        cpx     #(MUL_N+DIV_N)*4
        bne     m1
        lda     #$02
        sta     $2250           ; cumulative sum (MR cleared)
        ldx     #0
s1:     rep     #$20
        lda     cum_in,x
        sta     $2251
        lda     cum_in+2,x
        sta     $2253
        sep     #$20
        inx
        inx
        inx
        inx
        cpx     #CUM_N*4
        bne     s1
        ldx     #0
s2:     lda     $2306,x         ; MR, 5 bytes, and OF
        sta     SA1_RES,y
        iny
        inx
        cpx     #6
        bne     s2
        ; the bit reader, fixed mode: read, then write the length (shift)
        lda     #$01
        sta     $2258
        rep     #$20
        lda     #bitdata
        sta     $2259
        sep     #$20
        lda     #^bitdata
        sta     $225B           ; start
        ldx     #0
f1:     rep     #$20
        lda     $230C
        sta     SA1_RES,y
        sep     #$20
        iny
        iny
        lda     fix_len,x
        sta     $2258
        inx
        cpx     #FIX_N
        bne     f1
        ; auto-increment mode: reading $230D shifts
        rep     #$20
        lda     #bitdata
        sta     $2259
        sep     #$20
        lda     #^bitdata
        sta     $225B
        ldx     #0
a1:     lda     auto_run,x
        beq     a3
        sta     $2258
        lda     auto_run+1,x
        sta     runs
a2:     lda     $230C
        sta     SA1_RES,y
        iny
        lda     $230D
        sta     SA1_RES,y
        iny
        dec     runs
        bne     a2
        inx
        inx
        bra     a1
a3:     ; DMA: 16 bytes ROM -> I-RAM $0600, I-RAM $0600 -> BW-RAM $0100, BW-RAM $0100 ->
        ; I-RAM $0610; both copies read back, then CFR (its DMA flag) and CIC
        lda     #$80
        sta     $2230           ; DCNT: ROM to I-RAM
        rep     #$20
        lda     #bitdata
        sta     $2232
        lda     #16
        sta     $2238           ; DTC
        sep     #$20
        lda     #^bitdata
        sta     $2234
        rep     #$20
        lda     #$0600
        sta     $2235           ; DDA: $2236 written: go
        sep     #$20
        lda     #$86
        sta     $2230           ; I-RAM to BW-RAM
        rep     #$20
        lda     #$0600
        sta     $2232
        sep     #$20
        stz     $2234
        rep     #$20
        lda     #$0100
        sta     $2235
        sep     #$20
        stz     $2237           ; go
        lda     #$81
        sta     $2230           ; BW-RAM to I-RAM
        rep     #$20
        lda     #$0100
        sta     $2232
        sep     #$20
        stz     $2234
        rep     #$20
        lda     #$0610
        sta     $2235           ; go
        sep     #$20
        ldx     #0
dm1:    lda     $0600,x
        sta     SA1_RES,y
        iny
        inx
        cpx     #32
        bne     dm1
        lda     $2301           ; CFR: the DMA flag, message 5
        sta     SA1_RES,y
        iny
        lda     #$20
        sta     $220B           ; CIC: DMA flag cleared
        lda     $2301
        sta     SA1_RES,y
        iny
        ; BW-RAM and the Super MMC
        lda     #$5A
        sta     f:$400010
        lda     #$01
        sta     $2225           ; BMAP: block 1 at $6000
        lda     #$A5
        sta     $6000
        lda     f:$402000
        sta     SA1_FIX+7
        lda     f:$208000       ; DXB = 1 (bit 7 clear: block 1)
        sta     SA1_FIX+3
        lda     f:$D00001       ; DXB's block
        sta     SA1_FIX+4
        ; interrupts both ways
        lda     #$90
        sta     $220A           ; CIE: IRQ and NMI from the SNES
        cli
        lda     #$83
        sta     $2209           ; SCNT: IRQ to the SNES, message 3
i1:     lda     GOT_NMI
        beq     i1
        lda     f:$208000       ; DXB = $80 now: block 0
        sta     SA1_FIX+5
        lda     f:$D00000
        sta     SA1_FIX+6
        rep     #$20
        lda     #irq2
        sta     $220E           ; SIV
        sep     #$20
        lda     #$99
        sta     $2209           ; IRQ to the SNES through SIV, message 9
        lda     #2
        sta     PHASE
        ; then keep busy for good (the save-state test catches the SA-1 mid-work): a counter
        ; at I-RAM $0700, its square at $0702
        rep     #$20
idle:   inc     $0700
        lda     $0700
        sta     $2251
        sta     $2253
        lda     $2306
        sta     $0702
        bra     idle

sa1_irq:
        php
        sep     #$20
        pha
        lda     $2301           ; CFR: IRQ from the SNES, message 6
        sta     SA1_FIX+1
        lda     #$80
        sta     $220B           ; CIC
        lda     #1
        sta     GOT_IRQ
        pla
        plp
        rti
sa1_nmi:
        php
        sep     #$20
        pha
        lda     $2301           ; CFR: NMI from the SNES, message 7
        sta     SA1_FIX+2
        lda     #$10
        sta     $220B
        lda     #1
        sta     GOT_NMI
        pla
        plp
        rti
