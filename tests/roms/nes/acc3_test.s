; acc3_test.s: gpuvet's NES accuracy checks of issue 37, the CPU/APU part (NROM), expected
; values from the NESdev wiki ("CPU interrupts", "APU Frame Counter", "DMA"). A failing check
; writes its name and values into the message and the status is its number; all passed:
; status 0, and the message lists what was measured. The checks:
;   1 NMI during BRK (interrupt hijacking): synced to the PPU (sync_vbl: the $2002 read that
;     sees VBlank's first dot), 14 runs place BRK one cycle later each relative to the
;     VBlank NMI; each run's NMI handler records where the NMI came. Classes, with BRK's
;     ticks 1-7 and tick 0 the last cycle of the NOP before it:
;       A  the NMI before BRK (pushed PC = BRK's address): NMI asserted at ticks -2 or -1,
;          seen at the NOP's poll (the state of its first cycle);
;       H  hijacked (pushed PC = BRK + 2, B set in the pushed P, the NMI vector): asserted
;          at ticks 0-4, since the vector is chosen after tick 4 and the NOP's poll missed it;
;       L  too late to hijack: BRK's handler runs its first instruction (a NOP), the NMI
;          follows it (pushed PC = the handler + 1): asserted at ticks 5-8 (tick 8: that
;          NOP's first cycle, the one its poll sees);
;       O  elsewhere (earlier or later), N no NMI, h/a/l the wrong B flag.
;     Passed when the runs show "LLLLHHHHHA" (read in order of BRK later and later: the
;     NMI earlier and earlier within it): hijacking for exactly 5 cycles, the 4 after it
;     delayed past the handler's first instruction, not lost.
;   2 frame counter, 4-step mode: pulse 1's length counter read through $4015 at exact
;     cycles after the $4017 write (the CPU's get/put parity known from an OAM DMA): the
;     sequencer restarts 3 cycles after a write on a put cycle, 4 after one on a get cycle
;     (it restarts on a get cycle), its half-frame clocks come 14913 and 29829 cycles after
;     (APU cycles 7456.5 and 14914.5). Length 1 (2, then $C0 written: 5-step's immediate
;     clock) reaches 0 at the first, length 2 at the second: a read in the clock's cycle
;     sees 0, one a cycle before 1. Eight reads, (before, at) x (step 2, step 4) x (put,
;     get): 1 0 1 0 1 0 1 0;
;   3 DMC DMA conflicts with the APU registers: while the 6502 is halted on a read of
;     $4000-$401F, the registers decode the low 5 bits of the DMA's address. A looped
;     33-byte sample at $C000 (rate $F: a DMA every 432 cycles) plays while the CPU reads
;     $4017 in 16 of every 72 cycles, all on put cycles, where the DMC's reload DMAs halt
;     (the loop keeps its parity: an OAM DMA starts it on a get cycle, and each DMA takes 4
;     cycles): a fetch from $C015 that lands there reads $4015 (the frame IRQ flag, set and
;     frozen by $4017 = $00 then $80, is cleared), one from $C016 clocks pad 1 (fewer than
;     8 of the 0s of the unpressed buttons are left to read). A second run reads $4016
;     instead (the flag cleared the same way; its own reads clock the pad), the control run
;     $8000: the flag stays ($40), 8 zeros. The wiki's "DMA", register conflicts: "APU
;     registers can only be read when bits [15:5] of the 6502 address bus match $4000-$401F
;     ... bits [4:0] of the internal CPU address bus will be checked" (the load DMA after a
;     $4015 write always fetches the sample's first byte, address low bits 0, so only a
;     reload DMA can reach $xx15-$xx17).

.include "common.inc"
NES2_HEADER 0, 2, 1, 0

JOY1 = $4016
NRUNS = 14
; check 1: the delay from the syncing $2002 read that places run 0's BRK (see brk_run)
HIJACK_BASE = 29746

; DELAY_SMALL n: exactly n cycles (n = 0 or n >= 2; X changed when n >= 8): LDX #k and a
; DEX/BNE loop (5k + 1 cycles), then PAD the rest (2-6).
.macro DELAY_SMALL n
    .local loop
    .if (n) >= 8
    ldx #((n) - 3) / 5
loop:
    dex
    bne loop
    .assert >loop = >*, error, "DELAY loop crosses a page"
    PAD (n) - 5 * (((n) - 3) / 5) - 1
    .elseif (n) >= 2
    PAD n
    .elseif (n) = 1
    .error "DELAY of 1 cycle"
    .endif
.endmacro

; DELAY n: exactly n cycles (n = 0 or n >= 2; X and Y changed): j passes of 1006 cycles
; (LDX #200 and its loop, DEY/BNE), 2 + j * 1006 - 1 in all, then DELAY_SMALL the rest.
.macro DELAY n
    .local outer, inner
    .if (n) >= 1200
    ldy #((n) - 3) / 1006
outer:
    ldx #200
inner:
    dex
    bne inner
    dey
    bne outer
    .assert >outer = >*, error, "DELAY loop crosses a page"
    DELAY_SMALL (n) - 1006 * (((n) - 3) / 1006) - 1
    .else
    DELAY_SMALL n
    .endif
.endmacro

; FC_PROBE getw, pre, lenv, dist, dest: check 2's read. $4017 = $00 written on a put cycle
; (getw 0) or a get cycle (1), pulse 1's length loaded with lenv ($18: 2) just before, and
; with pre = 1 clocked once by a $C0 write; dest = bit 0 of $4015 read dist cycles after.
.macro FC_PROBE getw, pre, lenv, dist, dest
    lda #$10
    sta $4000               ; halt off, constant volume
    lda #$01
    sta APUSTATUS
    lda #$40
    sta FRAMECTR
    lda #lenv
    sta $4003
    .if pre
    lda #$C0
    sta FRAMECTR            ; 5-step: clocks the length at once (length 1)
    jsr wait_short
    .endif
    lda #2
    sta OAMDMA              ; the CPU resumes on a get cycle (its cycle 0)
    .if getw
    bit z10                 ; 3 cycles: the write below on cycle 7, a get cycle
    .endif
    lda #$00
    sta FRAMECTR            ; written on cycle 5 (put) or 8 (get): w
    DELAY (dist) - 4
    lda APUSTATUS           ; read on cycle w + dist
    and #1
    sta dest
.endmacro

; DMC_RUN rdaddr, dflag, dzeros: check 3's run (reads of rdaddr, the loop at the header).
.macro DMC_RUN rdaddr, dflag, dzeros
    .local outer, inner, count, done
    lda #$00
    sta FRAMECTR            ; 4-step, frame IRQ on (I is set: no interrupt)
    DELAY 30000             ; the flag is set 29831 or 29832 cycles after the write
    lda #$80
    sta FRAMECTR            ; 5-step: the flag stays as it is
    lda #1
    sta JOY1
    lda #0
    sta JOY1                ; the pad reloaded: 8 zeros (no button), then 1s
    lda #$4F
    sta $4010               ; loop, rate $F (54 cycles a bit)
    lda #0
    sta $4012               ; $C000
    lda #2
    sta $4013               ; 33 bytes
    lda #$10
    sta APUSTATUS           ; start: the load DMA, then a reload DMA every 432 cycles
    lda #2
    sta OAMDMA              ; the CPU resumes on a get cycle
    ldy #12
outer:
    ldx #0
inner:
    .repeat 16
    lda rdaddr              ; the read on the instruction's 4th cycle, a put cycle
    .endrepeat
    bit z10
    dex
    bne inner               ; 72 cycles a pass
    dey
    bne outer               ; 18438 a pass of the outer loop: the parity stays
    .assert >outer = >*, error, "DMC_RUN loop crosses a page"
    lda #0
    sta APUSTATUS           ; the DMC stopped
    lda APUSTATUS
    and #$40
    sta dflag
    ldx #0
count:
    lda JOY1
    and #1
    bne done
    inx
    cpx #9
    bne count
done:
    stx dzeros
.endmacro

.segment "ZEROPAGE"
z10:     .res 1
ptr:     .res 2
run_i:   .res 1
saved_s: .res 1
t_p:     .res 1             ; check 1: what the NMI found on the stack
t_pcl:   .res 1
t_pch:   .res 1
r1:      .res NRUNS         ; check 1: the class of each run (a character)
r2:      .res 8             ; check 2: the eight length-status reads
r3:      .res 6             ; check 3: flag and zeros of the $4017 run, the $4016 run, the control

.segment "CODE"

reset:
    RESET_START
    lda #$10
    sta z10

    ; ---- 1: NMI during BRK ----
    lda #0
    sta run_i
run1:
    lda run_i
    asl a
    tax
    lda brk_runs,x
    sta ptr
    lda brk_runs+1,x
    sta ptr+1
    tsx
    stx saved_s
    jsr sync_vbl            ; returns 8 cycles after the syncing read (BPL, RTS)
    lda #$80
    sta PPUCTRL             ; NMIs on (the flag was just read: no NMI at once)
    jmp (ptr)               ; 5
run1_done:
    jsr classify
    ldx run_i
    sta r1,x
    inc run_i
    lda run_i
    cmp #NRUNS
    bne run1

    ; ---- 2: frame counter step times ----
    FC_PROBE 0, 1, $18, 14915, r2
    FC_PROBE 0, 1, $18, 14916, r2+1
    FC_PROBE 0, 0, $18, 29831, r2+2
    FC_PROBE 0, 0, $18, 29832, r2+3
    FC_PROBE 1, 1, $18, 14916, r2+4
    FC_PROBE 1, 1, $18, 14917, r2+5
    FC_PROBE 1, 0, $18, 29832, r2+6
    FC_PROBE 1, 0, $18, 29833, r2+7
    lda #0
    sta APUSTATUS

    ; ---- 3: DMC DMA conflicts with the APU registers ----
    jsr dmc_run_conflict
    jsr dmc_run_joy1
    jsr dmc_run_control
    lda #$40
    sta FRAMECTR
    lda APUSTATUS

    jmp report

; Check 1's runs: run I waits HIJACK_BASE + I cycles more, then its BRK. From the syncing
; read: 8 (sync_vbl's end), LDA #$80 + STA 6, JMP (ptr) 5, the delay, JMP 3, NOP 2: BRK's
; opcode fetch is cycle 24 + delay + 1 after the read.
.macro BRK_RUN n
    DELAY HIJACK_BASE + n
    jmp brk_run
.endmacro
.segment "ALIGNED"
.repeat NRUNS, I
.align 32                   ; each in a 32-byte slot: its loops stay in one page
.ident(.sprintf("brk_run%d", I)):
    BRK_RUN I
.endrepeat
.segment "CODE"

brk_runs:
.repeat NRUNS, I
    .word .ident(.sprintf("brk_run%d", I))
.endrepeat

brk_run:
    nop
brk_at:
    brk
    .byte 0
    jmp brk_at              ; not reached

; BRK's handler (the IRQ vector): one NOP, then waits for the NMI (about 1,300 cycles).
irq:
    nop
brk_after:
    ldx #0
:   dex
    bne :-
    lda #$FF                ; no NMI: N
    sta t_pch
    jmp run_end

; Check 1's NMI handler: keeps what is on the stack (P, PCL, PCH), NMIs off, back to the run.
nmi:
    pla
    sta t_p
    pla
    sta t_pcl
    pla
    sta t_pch
run_end:
    lda #0
    sta PPUCTRL
    ldx saved_s
    txs
    jmp run1_done

; A = the class of the run (the header) from t_p, t_pcl, t_pch.
classify:
    lda t_pch
    cmp #$FF
    bne :+
    lda #'N'
    rts
:   lda t_pcl
    ldx t_pch
    cpx #>(brk_at + 2)
    bne :+
    cmp #<(brk_at + 2)
    bne :+
    lda #'H'
    ldx #'h'
    bne flags_b
:   cpx #>brk_at
    bne :+
    cmp #<brk_at
    bne :+
    lda #'A'
    ldx #'a'
    bne flags_nb
:   cpx #>brk_after
    bne :+
    cmp #<brk_after
    bne :+
    lda #'L'
    ldx #'l'
    bne flags_nb
:   lda #'O'
    rts
flags_b:                    ; B must be set
    pha
    lda t_p
    and #$10
    bne ok_flags
    pla
    txa
    rts
flags_nb:                   ; B must be clear
    pha
    lda t_p
    and #$10
    beq ok_flags
    pla
    txa
    rts
ok_flags:
    pla
    rts

; Waits a little more than 8 cycles: the $4017 write before has taken effect.
wait_short:
    nop
    nop
    rts

; Syncs to the PPU, rendering off: a $2002 read at the first dot at which it sees VBlank.
; Coarse: a 7-cycle poll. Then one read a frame: 29779 cycles (5 dots less than a frame of
; 89342 dots) after the coarse read, then every 29780 (2 dots less) until the read comes
; before the flag; then every 29781 cycles (a dot more) until it sees the flag: that read
; is the one at the flag's first dot. Returns 8 cycles after it.
.segment "ALIGNED"
.align 256
dmc_run_conflict:           ; check 3, each run in its own page (the loop's branches)
    DMC_RUN $4017, r3, r3+1
    rts
.align 256
dmc_run_joy1:
    DMC_RUN JOY1, r3+2, r3+3
    rts
.align 256
dmc_run_control:
    DMC_RUN $8000, r3+4, r3+5
    rts
.align 256
sync_vbl:
    lda #0
    sta PPUCTRL
    bit PPUSTATUS
sync_coarse:
    bit PPUSTATUS
    bpl sync_coarse
sync_s1:                        ; 2 or 3 cycles of the branch before
    DELAY 29773
    bit PPUSTATUS           ; read on its 4th cycle
    bmi sync_s1                 ; 29780 from read to read
sync_s2:
    DELAY 29774
    bit PPUSTATUS
    bpl sync_s2                 ; 29781 from read to read
    rts
.assert >sync_vbl = >*, error, "sync_vbl must fit in its page"

.segment "CODE"

; Prints the values of check 1 (the classes), 2 and 3.
print_r1:
    ldx #0
:   lda r1,x
    jsr print_char
    inx
    cpx #NRUNS
    bne :-
    rts

print_r2:
    ldx #0
:   lda r2,x
    ora #'0'
    jsr print_char
    inx
    cpx #8
    bne :-
    rts

print_r3:
    ldx #0
:   lda r3,x
    jsr print_hex
    lda #' '
    jsr print_char
    inx
    cpx #6
    bne :-
    rts

; Z set when r1 holds "LLLLHHHHHA" somewhere.
find_pattern:
    ldx #0
@start:
    stx tmp                 ; where the match starts
    ldy #0
@cmp:
    sty tmp+1
    lda tmp
    clc
    adc tmp+1
    tax
    lda r1,x
    cmp want1,y
    bne @next
    iny
    cpy #10
    bne @cmp
    lda #0                  ; found: Z set
    rts
@next:
    ldx tmp
    inx
    cpx #NRUNS - 9
    bne @start
    lda #1                  ; Z clear
    rts
want1: .byte "LLLLHHHHHA"

report:
    jsr report_start
    jsr find_pattern
    beq :+
    PRINT "1 NMI during BRK: "
    jsr print_r1
    FAIL 1
    jmp done
:   ldx #7
:   txa
    and #1
    eor #1                  ; expected: 1 at even positions, 0 at odd
    cmp r2,x
    bne bad2
    dex
    bpl :-
    jmp ok2
bad2:
    PRINT "2 frame counter length clocks: "
    jsr print_r2
    FAIL 2
    jmp done
ok2:
    lda r3                  ; $4017 run: flag cleared, fewer than 8 zeros
    bne bad3
    lda r3+1
    cmp #8
    bcs bad3
    lda r3+2                ; $4016 run: flag cleared (its reads clock the pad anyway)
    bne bad3
    lda r3+4                ; control: flag set, 8 zeros
    cmp #$40
    bne bad3
    lda r3+5
    cmp #8
    beq ok3
bad3:
    PRINT "3 DMC DMA conflicts (flag zeros: $4017, $4016, control): "
    jsr print_r3
    FAIL 3
    jmp done
ok3:
    PRINT "accuracy checks 3 passed: "
    jsr print_r1
    PRINT " "
    jsr print_r2
    PRINT " "
    jsr print_r3
    PASS
done:
    jmp done

.segment "DMCDATA"
    .res 64, $AA            ; check 3's sample (33 bytes played)

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16
