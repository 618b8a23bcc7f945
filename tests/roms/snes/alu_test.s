; alu_test.s: gpuvet's own SNES ROM for the timing of the 5A22's multiplier ($4202/$4203 ->
; $4216/$4217) and divider ($4204-$4206 -> $4214-$4217). The SNESdev wiki (Multiplication)
; documents 8 CPU cycles for a product and 16 for a quotient, counting the cycles of the
; reading instruction before its read, and an intermediate result when read earlier.
; Check 1: LDA $4216 right after the write to $4203 (3 cycles later) with $01 * $FF does
; not read the finished $FF but a partial product (2^k - 1, k 1-7: the multiplier's low
; bits taken one per cycle). Check 2: after 4 NOPs $2A * $81 reads $152A. Check 3: LDA
; $4214 right after the write to $4206 with $FFFF / 1 does not read the finished low byte
; $FF. Checks 4-5: after 8 NOPs 50000 / 7 reads quotient 7142 ($1BE6), remainder 6. Checks
; 6-7: after 8 NOPs $1234 / 0 reads quotient $FFFF and remainder $1234. Reports through
; the status block at $70:0000 (status $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET ALU TIMING"
        snes_vectors reset, nmi, irq

        test  = $14

; divide_check N, DIVIDEND, DIVISOR, QUOTIENT, REMAINDER: checks N and N+1, the
; quotient and remainder read after 8 NOPs (19 cycles from the write to $4206)
.macro divide_check n, dividend, divisor, quotient, remainder
        lda     #n
        sta     test
        ldx     #dividend
        stx     $4204
        lda     #divisor
        sta     $4206
        .repeat 8
        nop
        .endrepeat
        rep     #$20
        lda     $4214
        cmp     #quotient
        jne     fail
        sep     #$20
        lda     #n + 1
        sta     test
        rep     #$20
        lda     $4216
        cmp     #remainder
        jne     fail
        sep     #$20
.endmacro

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running          ; the status block: running

        lda     #1              ; check 1: a product read 3 cycles after it started
        sta     test
        lda     #$01
        sta     $4202
        lda     #$FF
        sta     $4203
        lda     $4216           ; 3 cycles (opcode, 2 operand bytes) before this read
        cmp     #$FF
        jeq     fail            ; the finished product: no delay
        cmp     #0
        jeq     fail
        sta     $10             ; 2^k - 1: v & (v + 1) == 0
        inc     a
        and     $10
        jne     fail

        lda     #2              ; check 2: the product after 4 NOPs (11 cycles)
        sta     test
        lda     #$2A
        sta     $4202
        lda     #$81
        sta     $4203
        nop
        nop
        nop
        nop
        rep     #$20
        lda     $4216
        cmp     #$152A
        jne     fail
        sep     #$20

        lda     #3              ; check 3: a quotient read 3 cycles after it started
        sta     test
        ldx     #$FFFF
        stx     $4204
        lda     #1
        sta     $4206
        lda     $4214
        cmp     #$FF
        jeq     fail

        divide_check 4, 50000, 7, 7142, 6          ; checks 4-5
        divide_check 6, $1234, 0, $FFFF, $1234     ; checks 6-7: division by zero

        status_end #0, passed_txt
fail:   status_end test, failed_txt

nmi:    rti
irq:    rti

passed_txt:  .byte "All 7 multiplier/divider timing checks passed", 0
failed_txt:  .byte "Multiplier/divider check failed (status = its number)", 0
