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
        .macpack longbranch
        .include "snes.inc"
        .include "sa1_cases.inc"

STATUS   = $400000              ; BW-RAM's first bytes, as the SNES sees them
SA1_RES  = $3200                ; I-RAM: the SA-1's results in order
SA1_FIX  = $3380                ; I-RAM: the SA-1's fixed bytes
SNES_FIX = $3400                ; I-RAM: the SNES's fixed bytes
SA1_NEW  = $3480                ; I-RAM: the SA-1's new checks (new_expect)
CC2_BUF  = $0500                ; I-RAM offset: conversion type 2's two characters
CC1_BUF  = $0540                ; I-RAM offset: conversion type 1's buffer
SNES_NEW = $3580                ; I-RAM: the SNES's new checks (snes2_expect)
PHASE    = $3000                ; I-RAM: 2 when the SA-1 is done
GOT_IRQ  = $3001                ; I-RAM: the SA-1's IRQ handler ran
GOT_NMI  = $3002                ; I-RAM: the SA-1's NMI handler ran
GOT_IRQ2 = $3003                ; I-RAM: the SNES's IRQ through SIV ran
cnt1     = $10                  ; SNES direct page: IRQs taken through $FFEE
cnt2     = $11                  ; ... and through SIV
code     = $12
cnt3     = $13                  ; NMIs taken through SNV
runs     = $00                  ; SA-1 direct page ($0100 in I-RAM)
th       = $02                  ; the timer's H and V as the SA-1's IRQ handler latched them
tv       = $04
tcount   = $06                  ; timer IRQs taken
tmp      = $07

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
snes_expect: .byte $83, $C9, $01, $01, $5A, $A5, $A0
passed:      .byte "SA-1 passed", 0
failed:      .byte "SA-1 results differ (index at $40:0040)", 0

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        lda     #$FF
        sta     $2229           ; SIWP: the SNES may write all of I-RAM
        lda     #$80
        sta     $2226           ; SBWE: the SNES may write BW-RAM
        lda     #$01
        sta     $2228           ; BWPA: 512 bytes protected from a side whose enable is clear
        lda     #$80
        sta     f:STATUS
        lda     #$DE
        sta     f:STATUS+1
        lda     #$B0
        sta     f:STATUS+2
        lda     #$61
        sta     f:STATUS+3
        stz     $2224           ; BMAPS: block 0
        stz     cnt1
        stz     cnt2
        stz     cnt3
        stz     PHASE
        stz     GOT_IRQ
        stz     GOT_NMI
        stz     GOT_IRQ2
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
        ldx     #0
w4:     lda     cnt2            ; the IRQ through SIV (a while at most)
        bne     w5
        dex
        bne     w4
w5:     lda     cnt1
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
        jne     bad
        inx
        cpx     #EXP_N
        bne     c1
        inc     code
        ldx     #0
c2:     lda     SA1_FIX,x
        cmp     fix_expect,x
        jne     bad
        inx
        cpx     #8
        bne     c2
        inc     code
        ldx     #0
c3:     lda     SNES_FIX,x
        cmp     snes_expect,x
        jne     bad
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
        jne     bad
        inx
        cpx     #16
        bne     c4
        jsr     snes_new
        inc     code            ; 5: the SA-1's new checks
        ldx     #0
c5:     lda     SA1_NEW,x
        cmp     new_expect,x
        jne     bad
        inx
        cpx     #NEW_EXPECT_N
        bne     c5
        inc     code            ; 6: the SNES's
        ldx     #0
c6:     lda     SNES_NEW,x
        cmp     snes2_expect,x
        jne     bad
        inx
        cpx     #SNES2_EXPECT_N
        bne     c6
        inc     code            ; 7: conversion type 2's characters
        ldx     #0
c7:     lda     CC2_BUF+$3000,x
        cmp     cc2_expect,x
        jne     bad
        inx
        cpx     #CC2_EXPECT_N
        bne     c7
        inc     code            ; 8: type 1's through the DMA
        ldx     #0
c8:     lda     f:$7E2100,x
        cmp     cc1_expect,x
        jne     bad
        inx
        cpx     #CC1_EXPECT_N
        bne     c8
        inc     code            ; 9: type 1's I-RAM buffer (the last two characters)
        ldx     #0
c9:     lda     CC1_BUF+$3000,x
        cmp     cc1_iram_expect,x
        jne     bad
        inx
        cpx     #CC1_IRAM_EXPECT_N
        bne     c9
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
        lda     #1
        sta     GOT_IRQ2
        pla
        plp
        rti
nmi:    rti
nmi2:   php                     ; the SNES's NMI through SNV
        sep     #$20
        pha
        lda     $4210
        inc     cnt3
        pla
        plp
        rti

; the SNES's new checks into SNES_NEW (snes2_expect), then conversion type 1
snes_new:
        lda     f:$00230E       ; open bus: the operand's bank byte
        sta     SNES_NEW+0
        lda     $2300           ; SFR: SCNT $1A (NMI through SNV, message $A), no IRQ
        sta     SNES_NEW+1
        lda     #$80
        sta     $4200           ; NMI on: the next one through SNV
        ldx     #0
n1:     lda     cnt3
        bne     n2
        dex
        bne     n1
n2:     stz     $4200
        sta     SNES_NEW+2
        ; BW-RAM write protection: 512 bytes (BWPA 1) while SBWE is clear
        stz     $2224           ; BMAPS: block 0 at $6000
        lda     #$11
        sta     f:$400180
        sta     f:$400300
        sta     $6140
        stz     $2226           ; SBWE clear
        lda     #$22
        sta     f:$400180       ; protected
        lda     #$33
        sta     f:$400300       ; not
        lda     #$44
        sta     $6140           ; protected (BW-RAM $0140)
        lda     #$80
        sta     $2226
        lda     f:$400180
        sta     SNES_NEW+3
        lda     f:$400300
        sta     SNES_NEW+4
        lda     f:$400140
        sta     SNES_NEW+5
        ; I-RAM write protection: SIWP $FE (the first 256 bytes)
        lda     #$11
        sta     $30F0
        sta     $35F0
        lda     #$FE
        sta     $2229
        lda     #$22
        sta     $30F0
        lda     #$33
        sta     $35F0
        lda     #$FF
        sta     $2229
        lda     $30F0
        sta     SNES_NEW+6
        lda     $35F0
        sta     SNES_NEW+7
        ; conversion type 1 (the SA-1 left DCNT at $B0): 4 bits, two characters a line
        lda     #$80
        sta     $2201           ; SIE: no IRQ for the CC-DMA flag
        ldx     #$3000
        stx     $2232           ; SDA: BW-RAM $003000
        stz     $2234
        lda     #$05
        sta     $2231           ; CDMA: 4 bits, 2 characters
        ldx     #CC1_BUF
        stx     $2235           ; DDA: $2236 written: go
        lda     $2300
        and     #$20            ; the CC-DMA flag
        sta     SNES_NEW+8
        lda     #$20
        sta     $2202           ; SIC
        lda     $2300
        and     #$20
        sta     SNES_NEW+9
        ldx     #$2100          ; DMA: BW-RAM $40:3000 (as characters) to WRAM $7E:2100
        stx     $2181
        stz     $2183
        stz     $4300
        lda     #$80
        sta     $4301
        ldx     #$3000
        stx     $4302
        lda     #$40
        sta     $4304
        ldx     #CC1_EXPECT_N
        stx     $4305
        lda     #$01
        sta     $420B
        lda     #$85
        sta     $2231           ; CDMA bit 7: type 1 ends
        lda     f:$403000       ; BW-RAM itself again
        sta     SNES_NEW+10
        rts

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
        lda     #$FF
        sta     $222A           ; CIWP: the SA-1 may write all of I-RAM
        lda     #$80
        sta     $2227           ; CBWE: and BW-RAM
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
        jsr     sa1_new
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
        lda     #nmi2
        sta     $220C           ; SNV
        sep     #$20
        lda     #$C9
        sta     $2209           ; IRQ to the SNES through SIV (bit 6), message 9
        ldx     #0
g1:     lda     GOT_IRQ2        ; taken (a while at most)
        bne     g2
        dex
        bne     g1
g2:     sta     SA1_NEW+21
        lda     #$1A
        sta     $2209           ; the SNES's NMI through SNV (bit 4), message $A
        ; conversion type 1's bitmap: ROM to BW-RAM $3000 by the normal DMA, then DCNT for
        ; type 1 (the SNES starts it)
        lda     #$84
        sta     $2230           ; DCNT: ROM to BW-RAM
        rep     #$20
        lda     #cc1_bitmap
        sta     $2232
        lda     #CC1_BITMAP_N
        sta     $2238
        lda     #$3000
        sta     $2235
        sep     #$20
        lda     #^cc1_bitmap
        sta     $2234
        stz     $2237           ; go
        lda     #$B0
        sta     $2230           ; DCNT: character conversion type 1
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
        lda     $2301
        bit     #$40            ; the timer's?
        beq     sirq
        lda     $2302           ; latch H and V
        sta     th
        lda     $2303
        sta     th+1
        lda     $2304
        sta     tv
        lda     $2305
        sta     tv+1
        lda     #$40
        sta     $220B           ; CIC: the timer
        inc     tcount
        pla
        plp
        rti
sirq:   lda     $2301           ; CFR: IRQ from the SNES, message 6
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

; the SA-1's new checks into SA1_NEW (new_expect): the timer, $230E, the bitmap view, write
; protection; then conversion type 2 into CC2_BUF
        .a8
        .i16
sa1_new:
        lda     #$80
        sta     $2210           ; TMC: linear, no IRQ
        sta     $2211           ; CTR: from 0
        lda     $2302           ; latch
        sta     tmp
        lda     $2303
        ora     $2304
        ora     $2305
        sta     SA1_NEW+0       ; V 0, H < 256
        lda     tmp
        and     #$E0
        sta     SA1_NEW+1       ; H < 32
        lda     #$40
        sta     $220A           ; CIE: the timer's IRQ
        cli
        rep     #$20
        lda     #300
        sta     $2212           ; HCNT
        lda     #2
        sta     $2214           ; VCNT
        sep     #$20
        stz     tcount
        lda     #$81
        sta     $2210           ; linear, HEN: H = 300
        sta     $2211
        jsr     twait
        sta     SA1_NEW+2
        rep     #$20
        lda     th
        sec
        sbc     #300
        cmp     #48
        sep     #$20
        lda     #1
        bcc     t1
        lda     #0
t1:     sta     SA1_NEW+3       ; latched within 48 dots of 300
        lda     tv
        ora     tv+1
        sta     SA1_NEW+4
        stz     tcount
        lda     #$02
        sta     $2210           ; HV, VEN: line 2
        sta     $2211
        jsr     twait
        sta     SA1_NEW+5
        lda     tv
        sta     SA1_NEW+6
        rep     #$20
        lda     th
        cmp     #48
        sep     #$20
        lda     #1
        bcc     t2
        lda     #0
t2:     sta     SA1_NEW+7       ; early in the line
        rep     #$20
        lda     #341
        sta     $2212           ; HV, HEN: H 341 never comes
        sep     #$20
        stz     tcount
        lda     #$01
        sta     $2210
        sta     $2211
        jsr     twait
        sta     SA1_NEW+8
        sei
        stz     $220A
        lda     f:$00230E       ; open bus: the operand's bank byte
        sta     SA1_NEW+9
        ; the bitmap view: 4 bits a pixel, then 2
        stz     $223F           ; BBF: 4 bits
        lda     #$1A
        sta     f:$602000
        lda     #$0B
        sta     f:$602001
        lda     f:$401000
        sta     SA1_NEW+10
        lda     f:$602001
        sta     SA1_NEW+11
        lda     #$80
        sta     $223F           ; 2 bits
        lda     #1
        sta     f:$604004
        lda     #2
        sta     f:$604005
        lda     #3
        sta     f:$604006
        lda     #$FC
        sta     f:$604007
        lda     f:$401001
        sta     SA1_NEW+12
        lda     f:$604006
        sta     SA1_NEW+13
        lda     #$FF
        sta     f:$401002
        lda     #$82
        sta     $2225           ; BMAP: the bitmap's block 2 at $6000
        lda     $6006
        sta     SA1_NEW+14
        lda     #2
        sta     $6008
        lda     #$01
        sta     $2225           ; BMAP: BW-RAM block 1 again
        lda     f:$401002
        sta     SA1_NEW+15
        ; BW-RAM write protection (BWPA: 512 bytes) while CBWE is clear
        lda     #$11
        sta     f:$4001F0
        sta     f:$400200
        stz     $2227
        lda     #$77
        sta     f:$4001F0       ; protected
        lda     #$88
        sta     f:$400200       ; not
        lda     #$80
        sta     $2227
        lda     f:$4001F0
        sta     SA1_NEW+16
        lda     f:$400200
        sta     SA1_NEW+17
        ; I-RAM write protection: CIWP $BF (I-RAM $600-$6FF)
        lda     #$11
        sta     $0680
        sta     $0690
        lda     #$BF
        sta     $222A
        lda     #$22
        sta     $0680
        lda     #$33
        sta     $3690
        lda     #$44
        sta     $05E8
        lda     #$FF
        sta     $222A
        lda     $0680
        sta     SA1_NEW+18
        lda     $0690
        sta     SA1_NEW+19
        lda     $05E8
        sta     SA1_NEW+20
        ; conversion type 2: 4 bits, 16 rows of pixels into CC2_BUF
        lda     #$A0
        sta     $2230           ; DCNT: enable, character conversion type 2
        lda     #$01
        sta     $2231           ; CDMA: 4 bits
        ldx     #CC2_BUF
        stx     $2235           ; DDA ($2236: go)
        ldx     #0
v1:     rep     #$20
        txa
        and     #$000F          ; the BRF byte: row parity and pixel
        tay
        sep     #$20
        lda     cc2_px,x
        sta     $2240,y
        inx
        cpx     #CC2_PX_N
        bne     v1
        stz     $2230
        rts

; waits for a timer IRQ (a while at most), then stops the timer; A: the IRQs taken
twait:  ldx     #$2000
tw1:    lda     tcount
        bne     tw2
        dex
        bne     tw1
tw2:    stz     $2210
        lda     tcount
        rts
