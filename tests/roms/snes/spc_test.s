; spc_test.s: gpuvet's own SNES test ROM for the sound CPU's TEST register ($00F0).
; fullsnes ("SNES APU SPC700 I/O Ports"): TEST bits 4-5 add 0/1/4/9 wait cycles to every
; RAM access, bits 6-7 to every I/O and ROM access, and internal cycles wait as one or the
; other ("SPC700 Waitstates on Internal Cycles"); the timers keep their rate (anomie's SPC700
; document: the speed bits don't affect the timer rate). And TEST bit 0 set (or bit 3 clear)
; pauses the timers, which moves their ticks against everything else (fullsnes "Low Level
; Timings": the timers tick in step with the S-DSP "unless one pauses the SPC Timers via TEST
; register").
; The SPC700 program (our macro pack) counts the turns of a polling loop
;   @c: inc x / mov a,$FD / beq @c      6 RAM-timed cycles (5 fetches, INC's internal one)
;                                       and 3 I/O-timed (the $FD read, the two taken-branch
;                                       cycles): 9 cycles with no waits
; between two ticks of timer 0 (target 8: 1024 cycles), with TEST = $0A (9 a turn: 107-116
; turns), $1A (one RAM wait: 15 a turn, 64-70), $4A (one I/O wait: 12, 80-87) and $5A (both:
; 18, 53-58); the ranges allow for where the loop starts after a tick (the slow settings, 4
; and 9 waits, are documented as unreliable and not used). Then check 5: timer 1 at target 1
; (a tick every 128 cycles), synced to a tick, held by TEST = $0B for ~65 cycles, then the
; same loop counts the turns to the next tick: 10-16 when the pause delays the tick (about
; 120 cycles left), 4-8 (7 seen) were the timer clock not held (about 60).
; The counts reach the main CPU through port 1, the check number ($11-$15) through port 0.
; The status block at $70:0000 (`gpuvet run --test-rom`) holds 0 or the first failed check
; (1-5). Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET SPC TEST REG"
        snes_vectors reset, nmi, irq

        res   = $0400           ; 5 bytes: the counts
        test  = $0410           ; the failed check

        snes_start
        status_running
        jsr     spc_upload
        bcc     up
        lda     #$FF
        sta     test
        status_end test, failed_txt
up:    ldx     #0
round: txa
        clc
        adc     #$11
waitk:  cmp     $2140           ; the SPC700 posts check $11 + x
        bne     waitk
        lda     $2141
        sta     res,x
        inx
        cpx     #5
        bne     round
        ldx     #0
chk:   lda     res,x
        cmp     lo,x
        bcc     bad
        cmp     hi,x
        beq     chk_ok
        bcs     bad
chk_ok: inx
        cpx     #5
        bne     chk
        status_end #0, passed_txt
bad:    inx
        stx     test            ; the check's number (i16: its high byte 0 above it)
        status_end test, failed_txt

nmi:    rti
irq:    rti

        spc_upload_code

        .segment "RODATA"
lo:     .byte   107, 64, 80, 53, 10
hi:     .byte   116, 70, 87, 58, 16
passed_txt: .byte "TEST waits slow the SPC700, a TEST pause delays the timers", 0
failed_txt: .byte "a loop count between timer ticks is off (TEST waits or pause)", 0

; the SPC700 program, assembled for $0200
spc_prog:
        .include "spc700.inc"
        .org    $0200
        mov     $F4, #0
        mov     $FA, #8                 ; timer 0: 1024 cycles a tick
        mov     $F1, #$01
        mov     y, #0
@next:  mov     a, !tests+y
        mov     $F0, a                  ; TEST: this round's waits
@sync:  mov     a, $FD
        beq     @sync
        mov     x, #0
@count: inc     x
        mov     a, $FD
        beq     @count
        mov     $F0, #$0A               ; TEST back to normal
        mov     $F5, x
        mov     a, y
        clrc
        adc     a, #$11
        mov     $F4, a                  ; check $11 + y
        inc     y
        cmp     y, #4
        bne     @next
        mov     $FB, #1                 ; timer 1: 128 cycles a tick
        mov     $F1, #$03
@sync1: mov     a, $FE
        beq     @sync1
        mov     $F0, #$0B               ; TEST bit 0: the timers held
        mov     y, #10
@hold:  dbnz    y, @hold
        mov     $F0, #$0A
        mov     x, #0
@cnt1:  inc     x
        mov     a, $FE
        beq     @cnt1
        mov     $F5, x
        mov     $F4, #$15
@end:   bra     @end
tests:  .byte   $0A, $1A, $4A, $5A
        spc700_end "65816"
        .reloc
spc_prog_end:
