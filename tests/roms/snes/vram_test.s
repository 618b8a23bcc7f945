; vram_test.s: gpuvet's own SNES test ROM for the VRAM port (fullsnes, "SNES Memory VRAM
; Access"): VMAIN ($2115) bit 7 (increment after $2118/$2139 or after $2119/$213A), the
; steps 1, 32, 128, 128, the three address translations (the low 8, 9 or 10 bits of the
; word address rotated left three times: aaaaaaaaYYYxxxxx -> aaaaaaaaxxxxxYYY and so on),
; and the read prefetch (filled after $2116/$2117 are written and BEFORE a read increments
; the address, so the first word after setting the address comes twice). Written in
; forced blank; the status block at $70:0000 (`gpuvet run --test-rom`) holds 0 or the
; number of the first failed check:
;   1 step 1 after the high byte   2 step 1 after the low byte ($2119 does not step)
;   3 step 32   4 step 128 (1 0)   5 step 128 (1 1)   6 8-bit translation
;   7 9-bit translation   8 10-bit translation   9 the prefetch before the increment
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET VRAM TEST"
        snes_vectors reset, nmi, irq

        test = $0010
        got  = $0012            ; word: the last word read back

; put ADDR, LO, HI: write one word at ADDR with the current VMAIN (a8, i16)
.macro put addr, lo, hi
        ldx     #addr
        stx     $2116
        lda     #lo
        sta     $2118
        lda     #hi
        sta     $2119
.endmacro

; expect ADDR, WORD: the word at ADDR (read through the port, step 1 after the high byte)
; must be WORD, else the check in `test` fails (a8, i16)
.macro expect addr, word
        ldx     #addr
        jsr     readw
        rep     #$20
        lda     got
        cmp     #word
        sep     #$20
        beq     :+
        jmp     fail
:
.endmacro

.macro check n
        lda     #n
        sta     test
.endmacro

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running

        check   1               ; step 1, after the high byte: two words at $1000
        lda     #$80
        sta     $2115
        ldx     #$1000
        stx     $2116
        lda     #$11
        sta     $2118
        lda     #$22
        sta     $2119
        lda     #$33
        sta     $2118
        lda     #$44
        sta     $2119
        expect  $1000, $2211
        expect  $1001, $4433

        check   2               ; step 1 after the low byte: $2118 steps, $2119 does not
        put     $1100, $00, $00
        put     $1101, $00, $00
        stz     $2115
        ldx     #$1100
        stx     $2116
        lda     #$55
        sta     $2118           ; $1100 low, then $1101
        lda     #$66
        sta     $2119           ; $1101 high, no step
        lda     #$77
        sta     $2119           ; $1101 high again
        lda     #$88
        sta     $2118           ; $1101 low, then $1102
        expect  $1100, $0055
        expect  $1101, $7788

        check   3               ; step 32
        lda     #$81
        sta     $2115
        ldx     #$1200
        stx     $2116
        lda     #$01
        sta     $2118
        sta     $2119
        lda     #$02
        sta     $2118
        sta     $2119
        expect  $1200, $0101
        expect  $1220, $0202

        check   4               ; step 128 (VMAIN bits 1-0 = 2)
        lda     #$82
        sta     $2115
        ldx     #$1300
        stx     $2116
        lda     #$03
        sta     $2118
        sta     $2119
        lda     #$04
        sta     $2118
        sta     $2119
        expect  $1300, $0303
        expect  $1380, $0404

        check   5               ; step 128 (VMAIN bits 1-0 = 3)
        lda     #$83
        sta     $2115
        ldx     #$1400
        stx     $2116
        lda     #$05
        sta     $2118
        sta     $2119
        lda     #$06
        sta     $2118
        sta     $2119
        expect  $1400, $0505
        expect  $1480, $0606

        check   6               ; 8-bit: $3022 (Y 1, x 2) is word $3011
        lda     #$80
        sta     $2115
        put     $3011, $00, $00
        put     $3022, $00, $00
        lda     #$84
        sta     $2115
        put     $3022, $A6, $6A
        expect  $3011, $6AA6
        expect  $3022, $0000

        check   7               ; 9-bit: $30CB (Y 3, x 5, P 1) is word $305B
        lda     #$80
        sta     $2115
        put     $305B, $00, $00
        put     $30CB, $00, $00
        lda     #$88
        sta     $2115
        put     $30CB, $A7, $7A
        expect  $305B, $7AA7
        expect  $30CB, $0000

        check   8               ; 10-bit: $3726 (Y 6, x 9, PP 2) is word $3536
        lda     #$80
        sta     $2115
        put     $3536, $00, $00
        put     $3726, $00, $00
        lda     #$8C
        sta     $2115
        put     $3726, $A8, $8A
        expect  $3536, $8AA8
        expect  $3726, $0000

        check   9               ; the prefetch before the increment: $1000 twice, then $1001
        lda     #$80
        sta     $2115
        ldx     #$1000
        stx     $2116
        jsr     readnext
        rep     #$20
        lda     got
        cmp     #$2211
        sep     #$20
        bne     fail
        jsr     readnext
        rep     #$20
        lda     got
        cmp     #$2211
        sep     #$20
        bne     fail
        jsr     readnext
        rep     #$20
        lda     got
        cmp     #$4433
        sep     #$20
        bne     fail

        status_end #0, passed_txt
fail:   status_end test, failed_txt

; readw: the word at X into got (VMAIN step 1 after the high byte; a8, i16)
readw:  lda     #$80
        sta     $2115
        stx     $2116
readnext:
        lda     $2139
        sta     got
        lda     $213A
        sta     got+1
        rts

nmi:    rti
irq:    rti

        .segment "RODATA"
passed_txt: .byte "All 9 VRAM port checks passed", 0
failed_txt: .byte "a VRAM port check failed", 0
