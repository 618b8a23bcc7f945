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
        gotis   word
.endmacro

; gotis WORD: the word last read must be WORD, else the check fails (a8)
.macro gotis word
        rep     #$20
        lda     got
        cmp     #word
        sep     #$20
        beq     :+
        jmp     fail
:
.endmacro

; steps N, VMAIN, FIRST, SECOND: check N: the words N * $0101 and (N + 1) * $0101, written
; from FIRST with that VMAIN, must land at FIRST and SECOND
.macro steps n, vmain, first, second
        check   n
        lda     #vmain
        sta     $2115
        ldx     #first
        stx     $2116
        lda     #n
        sta     $2118
        sta     $2119
        lda     #n + 1
        sta     $2118
        sta     $2119
        expect  first, n * $0101
        expect  second, (n + 1) * $0101
.endmacro

; translated N, VMAIN, ADDR, WORDADDR, VALUE: check N: both words cleared, VALUE written at
; ADDR with that VMAIN's translation lands at WORDADDR and leaves ADDR alone
.macro translated n, vmain, addr, wordaddr, value
        check   n
        lda     #$80
        sta     $2115
        put     wordaddr, $00, $00
        put     addr, $00, $00
        lda     #vmain
        sta     $2115
        put     addr, <(value), >(value)
        expect  wordaddr, value
        expect  addr, $0000
.endmacro

.macro check n
        lda     #n
        sta     test
.endmacro

        snes_start
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

        steps   3, $81, $1200, $1220 ; step 32
        steps   4, $82, $1300, $1380 ; step 128 (VMAIN bits 1-0 = 2)
        steps   5, $83, $1400, $1480 ; step 128 (VMAIN bits 1-0 = 3)

        translated 6, $84, $3022, $3011, $6AA6 ; 8-bit: $3022 (Y 1, x 2) is word $3011
        translated 7, $88, $30CB, $305B, $7AA7 ; 9-bit: $30CB (Y 3, x 5, P 1) is word $305B
        translated 8, $8C, $3726, $3536, $8AA8 ; 10-bit: $3726 (Y 6, x 9, PP 2) is $3536

        check   9               ; the prefetch before the increment: $1000 twice, then $1001
        lda     #$80
        sta     $2115
        ldx     #$1000
        stx     $2116
        jsr     readnext
        gotis   $2211
        jsr     readnext
        gotis   $2211           ; the same word again
        jsr     readnext
        gotis   $4433

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
