; acc_test.s: gpuvet's NES accuracy checks (mapper 4, MMC3), one small check per behaviour
; fixed for issue 14, expected values from the NESdev wiki. Each check that fails writes
; its name into the message and the status is its number; all passed: status 0 and
; "accuracy checks passed". The checks:
;   1 LXA ($AB) #imm: A = X = imm (the magic constant $FF: (A | $FF) & imm);
;   2 MMC3 counter clocked when a $2007 read moves v from $0FFF to $1000 (the PPU drives
;     the new v onto its bus: A12 rises), and not when it moves v within $0xxx;
;   3 the same for a $2007 write;
;   4 PPU open bus: a write-only register reads back the last value written ($9F), and a
;     second later, with only $2002 read meanwhile, the bits $2002 does not drive have
;     decayed to 0 while its bit 7 was refreshed by the VBlank flag: $80;
;   5 DMC DMA (the wiki's "DMA"): after an OAM DMA the CPU resumes on a get cycle, so the
;     "load" DMA of a $4015 write made on a put cycle halts the next LDA $2007 on its operand
;     fetch ($2007 read once: $11, then $22), and one made a cycle later (a get cycle) halts
;     the $2007 read itself, whose halt and dummy cycles read $2007 twice more ($33, $44);
;   6 the same with $4016: reads in consecutive cycles clock the pad once, so the halted read
;     loses one bit (the 1 that follows the 8 buttons comes after 8 reads, then after 7);
;   7 an IRQ (the frame counter's) that arrives during an OAM DMA is taken after the
;     instruction that follows the DMA, not before it;
;   8 $2007 read in two consecutive cycles (LDA $20F7,X crossing into $2107): the address
;     moves twice (next read $33) and the second read gets what the first did (low digit 1);
;   9 the MMC3 revision, reported, not judged: with a latch of 0 revision B raises the IRQ at
;     every counted rise, revision A only at the one after a $C001 reload (the message ends
;     "MMC3 rev B" or "MMC3 rev A"; gpuvet's --mmc3-rev picks it);
;  10 NMI: setting $2000 bit 7 while the VBlank flag is up raises an NMI at once (the first
;     NMI's handler turns bit 7 off and on: a second NMI), and not once $2002 was read (the
;     second handler does the same after reading $2002: no third). Runs before check 9;
;  11 odd frames with rendering on are one dot shorter: a 16-cycle counting loop runs for
;     768 NMIs with the background off, then on; 384 dots = 128 cycles fewer: 8 fewer
;     counts (5 to 11 accepted: the start and end of each run are a loop pass apart);
;  12 the MMC3 IRQ of scanline 0 with rendering on, timed in NOPs run from the NMI: with
;     $2000 = $08 (sprites at $1000) A12 rises at dot 260 of each line, with $10 (background
;     at $1000) at dot 4 of the pre-render line and at dot 324 of each line (the next line's
;     first tiles): latch 1 gives the IRQ at line 0 dot 260 ($08) or 277 dots sooner, at line
;     261 dot 324 ($10); the windows and their arithmetic are at the NMI handler;
;  13 OAM DMA length, exactly, with the frame counter as the clock (dma_start): 514 cycles
;     when $4014 is written on a put cycle, 513 on a get cycle;
;  14 a DMC DMA in the middle of an OAM DMA makes it 2 cycles longer (dmc_start).
; Checks 12-14 run after 11 and before 9. The PPU renders only in check 12 (elsewhere A12
; moves only with v).

.include "common.inc"
NES2_HEADER 4, 2, 2, 0

; JNE label: a branch on not-equal that reaches anywhere.
.macro JNE target
    .local skip
    beq skip
    jmp target
skip:
.endmacro

; WINDOW var, lo, width: Z set when lo <= the 16-bit var < lo + width.
.macro WINDOW var, lo, width
    .local out, done
    sec
    lda var
    sbc #<(lo)
    tax
    lda var+1
    sbc #>(lo)
    bne out                 ; below lo (borrow) or 256 and more above
    cpx #width
    bcs out
    lda #0                  ; Z set: inside
    beq done
out:
    lda #1                  ; Z clear
done:
.endmacro

; DIFF va, vb, want: Z set when the 16-bit va - vb equals want.
.macro DIFF va, vb, want
    .local done
    sec
    lda va
    sbc vb
    tax
    lda va+1
    sbc vb+1
    cmp #>(want)
    bne done
    cpx #<(want)
done:
.endmacro

; DMA_SUM start, pad, target, dest: checks 13 and 14's measure of one variant: nine runs of
; start (dma_start or dmc_start), PAD pad, LDA #2, STA target, PAD s (s = 2..10),
; dma_finish; dest = the sum of their poll counts.
.macro DMA_SUM start, pad, target, dest
    lda #0
    sta sum
    sta sum+1
    .repeat 9, I
    jsr start
    PAD pad
    lda #2
    sta target
    PAD I + 2
    jsr dma_finish
    .endrepeat
    lda sum
    sta dest
    lda sum+1
    sta dest+1
.endmacro

.segment "ZEROPAGE"
irqs:     .res 1
z10:      .res 1    ; $10, loaded with a 3-cycle LDA where LDA # takes 2
irq_ret:  .res 2    ; the return address of the last IRQ
nmis:     .res 1
nfr:      .res 2    ; NMIs counted by check 11
cnt:      .res 2
res:      .res 2
nmode:    .res 1    ; bit 7: the NMI handler runs check 12's timing instead
pctl:     .res 1    ; check 12: the PPUCTRL pattern-table bits under test
sum:      .res 2    ; check 13: the sum of nine poll counts
n08:      .res 2    ; check 12: NOPs run before the IRQ, $2000 = $08 and $10
n10:      .res 2
r_n2:     .res 2    ; check 13: the sums of the four variants
r_d2:     .res 2
r_n3:     .res 2
r_d3:     .res 2
r_m2:     .res 2    ; check 14: OAM DMA with a DMC DMA inside, put and get cycle
r_m3:     .res 2

.segment "CODE"

reset:
    sta $E000               ; MMC3 IRQ off
    lda #$80
    sta $A001               ; PRG-RAM on (the status lives there)
    RESET_START
    lda #$10
    sta z10
    lda #0
    sta nmode

    ; 1: LXA #imm with A = 0 and with A = $F0: both give imm
    lda #$00
    .byte $AB, $5A          ; LXA #$5A
    cmp #$5A
    JNE fail1
    cpx #$5A
    JNE fail1
    lda #$F0
    .byte $AB, $0F          ; LXA #$0F
    cmp #$0F
    JNE fail1
    cpx #$0F
    JNE fail1

    ; 2: $2007 read from $0FFF clocks the counter (latch 1: reload to 1, then 1 -> 0: IRQ)
    jsr arm_counter
    lda #$0F                ; v = $0FFE: a read moves it to $0FFF, A12 stays low
    sta PPUADDR
    lda #$FE
    sta PPUADDR
    jsr wait_low
    bit PPUDATA
    jsr settle
    lda irqs
    JNE fail2               ; no A12 rise: no IRQ yet
    bit PPUDATA             ; v $0FFF -> $1000: A12 rises
    jsr settle
    lda irqs
    cmp #1
    JNE fail2

    ; 3: the same rise through a $2007 write (CHR-ROM: the write itself is ignored)
    jsr arm_counter
    lda #$0F
    sta PPUADDR
    lda #$FF
    sta PPUADDR
    jsr wait_low
    jsr settle
    lda irqs
    JNE fail3
    sta PPUDATA
    jsr settle
    lda irqs
    cmp #1
    JNE fail3

    ; 4: open bus and its decay
    lda #$9F
    sta OAMADDR
    lda PPUCTRL             ; write-only: the decay register
    cmp #$9F
    JNE fail4
    ldx #70                 ; 70 VBlanks (more than a second); only $2002 is read
:   jsr wait_vblank
    dex
    bne :-
    lda PPUCTRL
    cmp #$80
    JNE fail4

    ; 5: DMC DMA during a $2007 read
    jsr dmc_idle
    jsr vram_fill
    lda #2
    sta OAMDMA              ; the CPU resumes on a get cycle
    lda #$10                ; 2 cycles
    sta APUSTATUS           ; written on a put cycle: the DMA halts the operand fetch below
    lda PPUDATA
    cmp #$11
    JNE fail5
    lda PPUDATA
    cmp #$22
    JNE fail5
    jsr dmc_idle
    jsr vram_fill
    lda #2
    sta OAMDMA
    lda z10                 ; 3 cycles
    sta APUSTATUS           ; written on a get cycle: the DMA halts the $2007 read
    lda PPUDATA
    cmp #$33
    JNE fail5
    lda PPUDATA
    cmp #$44
    JNE fail5

    ; 6: DMC DMA during a $4016 read
    jsr dmc_idle
    jsr pad_strobe
    lda #2
    sta OAMDMA
    lda #$10
    sta APUSTATUS
    lda $4016
    jsr pad_count
    cpx #8
    JNE fail6
    jsr dmc_idle
    jsr pad_strobe
    lda #2
    sta OAMDMA
    lda z10
    sta APUSTATUS
    lda $4016
    jsr pad_count
    cpx #7
    JNE fail6

    ; 7: the frame IRQ (about 29830 cycles after the $4017 write) lands about 240 cycles
    ; into an OAM DMA started about 29590 cycles after it
    jsr dmc_idle
    bit APUSTATUS           ; no frame IRQ pending
    lda #0
    sta irq_ret
    sta irq_ret+1
    sta FRAMECTR            ; 4-step sequence, frame IRQ on
    cli
    ldy #23                 ; 23 x 1286 cycles
:   ldx #0
:   dex
    bne :-
    dey
    bne :--
    lda #2
    sta OAMDMA
dma_next:
    nop                     ; runs before the IRQ is taken
dma_after:
    nop
    sei
    lda #$40
    sta FRAMECTR
    bit APUSTATUS
    lda irq_ret
    cmp #<dma_after
    JNE fail7
    lda irq_ret+1
    cmp #>dma_after
    JNE fail7

    ; 8: $2007 read in two consecutive cycles
    jsr vram_fill           ; buffer $11, v = $2401
    ldx #$10
    lda $20F7,x             ; reads $2007 (dummy, page not yet carried), then $2107
    and #$0F
    cmp #$01
    JNE fail8
    lda PPUDATA
    cmp #$33
    JNE fail8

    ; 10: NMI raised by setting $2000 bit 7 while the VBlank flag is up
    lda #0
    sta nmis
    bit PPUSTATUS
    lda #$80
    sta PPUCTRL             ; NMI on, flag down: the next VBlank's NMI
:   lda nmis
    beq :-
    jsr wait_low
    lda #0
    sta PPUCTRL
    lda nmis
    cmp #2
    JNE fail10

    ; 11: odd frames one dot shorter with rendering on
    lda #3
    sta nmis                ; the NMI handler now only counts
    jsr count_frames
    lda cnt
    sta res
    lda cnt+1
    sta res+1
    lda #$08
    sta PPUMASK             ; background on
    jsr count_frames
    lda #0
    sta PPUMASK
    sec
    lda res
    sbc cnt
    tax                     ; counts with rendering off minus on (mod 65536)
    lda res+1
    sbc cnt+1
    JNE fail11
    cpx #5
    bcs :+
    jmp fail11
:   cpx #12
    bcc :+
    jmp fail11
:

    ; 12: the MMC3 IRQ of scanline 0 with rendering on, timed from the NMI (see mmc3_time)
    lda #$08                ; background $0000, sprites $1000
    jsr mmc3_time
    stx n08
    sty n08+1
    lda #$10                ; background $1000, sprites $0000
    jsr mmc3_time
    stx n10
    sty n10+1
    WINDOW n08, 1219, 3     ; 1219 to 1221 (the arithmetic at nmi)
    JNE fail12
    WINDOW n10, 1173, 3     ; 1173 to 1175
    JNE fail12

    ; 13: OAM DMA cycles (see dma_start): 514 when $4014 is written on a put cycle, 513 on
    ; a get cycle; the no-DMA sums one cycle apart check the measure itself
    jsr dmc_idle
    sei
    DMA_SUM dma_start, 2, $0600, r_n2  ; no DMA (a store to RAM), written on a put cycle
    DMA_SUM dma_start, 2, OAMDMA, r_d2 ; OAM DMA written on a put cycle
    DMA_SUM dma_start, 3, $0600, r_n3  ; no DMA, one cycle later: a get cycle
    DMA_SUM dma_start, 3, OAMDMA, r_d3 ; OAM DMA written on a get cycle
    DIFF r_n2, r_n3, 1
    JNE fail13
    DIFF r_n2, r_d2, 514
    JNE fail13
    DIFF r_n3, r_d3, 513
    JNE fail13

    ; 14: a DMC DMA in the middle of an OAM DMA makes it 2 cycles longer (see dmc_start)
    DMA_SUM dmc_start, 2, OAMDMA, r_m2
    DMA_SUM dmc_start, 3, OAMDMA, r_m3
    jsr dmc_idle
    DIFF r_d2, r_m2, 2
    JNE fail14
    DIFF r_d3, r_m3, 2
    JNE fail14

    ; 9: which MMC3 revision: a latch of 0, two counted rises
    sei
    sta $E000
    lda #0
    sta $C000               ; latch 0
    sta $C001               ; reload at the next rise
    sta PPUADDR
    sta PPUADDR             ; v = $0000: A12 low
    sta irqs
    sta $E001
    cli
    jsr wait_low
    jsr a12_rise            ; reload after $C001: counter 0, IRQ on both revisions
    sta $E001               ; the handler disabled it
    lda #0
    sta PPUADDR
    sta PPUADDR
    jsr wait_low
    jsr a12_rise            ; 0 reloaded from the latch 0: IRQ on revision B only
    sei
    lda irqs
    cmp #2
    beq rev_b
    cmp #1
    JNE fail9
    PRINT "accuracy checks passed, MMC3 rev A"
    PASS
    jmp hang
rev_b:
    PRINT "accuracy checks passed, MMC3 rev B"
    PASS
hang:
    jmp hang

fail1:
    PRINT "LXA #imm is not A = X = imm (magic $FF)"
    FAIL 1
    jmp hang
fail2:
    PRINT "MMC3 not clocked by a $2007 read moving v from $0FFF to $1000"
    FAIL 2
    jmp hang
fail3:
    PRINT "MMC3 not clocked by a $2007 write moving v from $0FFF to $1000"
    FAIL 3
    jmp hang

fail5:
    pha
    PRINT "DMC DMA during a $2007 read: got $"
    pla
    jsr print_hex
    FAIL 5
    jmp hang
fail6:
    txa
    pha
    PRINT "DMC DMA during a $4016 read: pad bits until the 1: $"
    pla
    jsr print_hex
    FAIL 6
    jmp hang
fail7:
    PRINT "IRQ during OAM DMA not taken after the next instruction: returned to $"
    lda irq_ret+1
    jsr print_hex
    lda irq_ret
    jsr print_hex
    FAIL 7
    jmp hang
fail8:
    PRINT "$2007 read in consecutive cycles"
    FAIL 8
    jmp hang
fail11:
    txa
    pha
    PRINT "odd frames with rendering on: counts fewer $"
    pla
    jsr print_hex
    FAIL 11
    jmp hang
fail10:
    PRINT "NMI when $2000 bit 7 is set in VBlank: count $"
    lda nmis
    jsr print_hex
    FAIL 10
    jmp hang
fail12:
    PRINT "MMC3 IRQ of scanline 0: NOPs before it $"
    lda n08+1
    jsr print_hex
    lda n08
    jsr print_hex
    PRINT " ($2000=$08, want 1219-1221), $"
    lda n10+1
    jsr print_hex
    lda n10
    jsr print_hex
    PRINT " ($10, want 1173-1175)"
    FAIL 12
    jmp hang
fail13:
    PRINT "OAM DMA cycles: sums $"
    lda r_n2+1
    jsr print_hex
    lda r_n2
    jsr print_hex
    PRINT " $"
    lda r_d2+1
    jsr print_hex
    lda r_d2
    jsr print_hex
    PRINT " $"
    lda r_n3+1
    jsr print_hex
    lda r_n3
    jsr print_hex
    PRINT " $"
    lda r_d3+1
    jsr print_hex
    lda r_d3
    jsr print_hex
    PRINT " (differences want 1, 514, 513)"
    FAIL 13
    jmp hang
fail14:
    PRINT "DMC DMA during OAM DMA: sums $"
    lda r_m2+1
    jsr print_hex
    lda r_m2
    jsr print_hex
    PRINT " $"
    lda r_m3+1
    jsr print_hex
    lda r_m3
    jsr print_hex
    PRINT " (want 2 less than check 13's OAM DMA sums)"
    FAIL 14
    jmp hang
fail9:
    PRINT "MMC3 with latch 0: IRQs not 1 (rev A) or 2 (rev B)"
    FAIL 9
    jmp hang

fail4:
    pha
    PRINT "PPU open bus: write-only register read $"
    pla
    jsr print_hex
    FAIL 4
    jmp hang

; Latch 1, counter reloaded by one A12 rise through $2006 ($0000 -> $1000); IRQs on and
; counted. Leaves v = $1000 (A12 high) and irqs = 0.
arm_counter:
    sei
    sta $E000               ; IRQ off and acknowledged
    lda #1
    sta $C000               ; latch 1
    sta $C001               ; reload at the next rise
    lda #0
    sta PPUADDR
    sta PPUADDR             ; v = $0000: A12 low
    jsr wait_low
    lda #$10
    sta PPUADDR
    lda #0
    sta PPUADDR             ; v = $1000: A12 rises, counter = 1 (no IRQ: not 0)
    sta irqs
    sta $E001               ; IRQ on
    cli
    rts

; A12 must stay low for a while before a rise counts (the MMC3's filter): wait ~40 cycles.
wait_low:
    ldx #8
:   dex
    bne :-
    rts

; v = $1000 after $0000: A12 rises (then a few instructions for the IRQ).
a12_rise:
    lda #$10
    sta PPUADDR
    lda #0
    sta PPUADDR
    jmp settle

; DMC: rate 54 cycles, no IRQ, no loop, a 1-byte sample at $C000, stopped; then ~3800
; cycles, in which the output unit takes any byte left in the sample buffer: empty, idle.
dmc_idle:
    lda #$0F
    sta $4010
    lda #0
    sta $4012
    sta $4013
    sta APUSTATUS
    ldy #3
:   ldx #0
:   dex
    bne :-
    dey
    bne :--
    rts

; $2400-$2406 = $11 $22 ... $77, then v = $2400 and one read: buffer $11, v = $2401.
vram_fill:
    lda #$24
    sta PPUADDR
    lda #0
    sta PPUADDR
    lda #$11
    ldx #7
:   sta PPUDATA
    clc
    adc #$11
    dex
    bne :-
    lda #$24
    sta PPUADDR
    lda #0
    sta PPUADDR
    lda PPUDATA
    rts

; Controller 1 strobed: the next read gives button A.
pad_strobe:
    lda #1
    sta $4016
    lda #0
    sta $4016
    rts

; X = the number of reads of $4016 until one returns 1 (no button is held: 8 after the
; first read, the 1s after the 8 buttons).
pad_count:
    ldx #0
:   inx
    lda $4016
    lsr a
    bcc :-
    rts

; Check 11: cnt = passes of a 16-cycle loop (mod 65536) from one NMI to 768 NMIs later.
count_frames:
    lda #0
    sta cnt
    sta cnt+1
    bit PPUSTATUS
    lda #$80
    sta PPUCTRL
    lda nfr
:   cmp nfr
    beq :-                  ; start at an NMI
    lda #0
    sta nfr
    sta nfr+1
@loop:
    inc cnt                 ; 5
    bne @same               ; 3 (2 + the 5 below once in 256)
    inc cnt+1
@same:
    lda nfr+1               ; 3
    cmp #3                  ; 2
    bne @loop               ; 3
    lda #0
    sta PPUCTRL
    rts

; Check 12: rendering on (background only) with $2000 = A (the pattern tables), IRQ off, a
; frame rendered; then the NMI (nmode bit 7: the start of nmi) arms the counter with latch 1 and a
; reload, enables the IRQ and runs the NOP slide with CLI. Returns X/Y = the NOPs of that
; slide run before the IRQ (irq_ret - slide), irqs = the IRQs taken (1).
mmc3_time:
    sta pctl
    sei
    sta $E000               ; IRQ off
    lda #0
    sta PPUMASK
    sta PPUCTRL
    sta irqs
    jsr wait_vblank
    lda #$20
    sta PPUADDR
    lda #0
    sta PPUADDR             ; t = v = $2000: scroll 0, fine Y 0 (A12 low in VBlank)
    lda #$08
    sta PPUMASK             ; background on: every line fetches sprites too
    lda #$80
    sta nmode
    ora pctl
    sta PPUCTRL             ; NMI at the next VBlank, after one whole rendered frame
@wait:
    jsr slide               ; wait in NOPs: the NMI comes 2 or 3 cycles after it is raised
    bit nmode
    bmi @wait
    sec
    lda irq_ret
    sbc #<slide
    tax
    lda irq_ret+1
    sbc #>slide
    tay
    lda irqs
    cmp #1
    beq :+
    ldx #$FF                ; no IRQ or more than one: out of every window
    ldy #$FF
:   rts

; 1280 NOPs (2560 cycles, more than the 2473 to line 0's IRQ).
slide:
    .repeat 1280
    nop
    .endrepeat
    rts

; Check 13: the frame counter as a clock. dma_start syncs to the DMA's get/put cycles (after
; an OAM DMA the CPU resumes on a get cycle: the DMA's last cycle is a put) and resets the
; frame counter at a fixed cycle W. The variant then runs (the store written at W + 14 for
; PAD 2: a put cycle, the DMA halts on the get cycle after it and needs an alignment cycle:
; 1 + 1 + 256 x 2 = 514 cycles; W + 15 for PAD 3: a get cycle, no alignment: 513), then PAD
; s, then dma_finish waits a fixed time and polls $4015 bit 6 (the frame IRQ flag, set a
; fixed time E after W) every 9 cycles, counting the polls. A run's count is
; 1 + ceil((E' - v - s) / 9) where v is the variant's length in cycles and E' a constant;
; summed over s = 2..10 (nine consecutive values: sum ceil((x - j) / 9), j = 0..8, is x)
; it is a constant minus v, exactly: each variant's sum minus another's is the difference
; of their lengths in cycles. No DMC DMA runs (dmc_idle), IRQs are masked.
dma_start:
    FRAMECTR_AT_PUT         ; W: 4-step, frame IRQ on
    rts                     ; 6-11; then PAD 2 (12-13), LDA #2 (14-15), STA (16-19)

; Check 14: like dma_start, with one DMC DMA due about 290 cycles into the measured OAM DMA.
; The DMC (rate $F: 54 cycles a bit, 432 a byte) plays 17 bytes: its reader fetches a byte
; when the output unit empties the sample buffer, every 432 cycles; $4015 bit 4 clears at
; the 17th fetch (grid time G), seen by a 9-cycle poll at G + 5..15 (e). A 1-byte restart
; there (the buffer holds byte 17: no fetch at once) fetches at G + 432, inside the syncing
; OAM DMA (before W, so it does not count); a second restart after it fetches at G + 864.
; W comes at G + e + 546 (the OAM DMA of 513 + 2 or 514 + 2 cycles starts at G + e + 18)
; and the measured OAM DMA halts at W + 15 (PAD 2) or W + 16, so the DMC fetch falls
; 864 - e - 561 = about 290 cycles into it, far from either end. W is on the put cycle of
; dma_start's W, so the sums compare with check 13's OAM DMA sums.
dmc_start:
    lda #$40
    sta FRAMECTR
    bit APUSTATUS
    lda #$0F
    sta $4010               ; rate 54, no IRQ, no loop
    lda #0
    sta $4012               ; the sample at $C000
    lda #1
    sta $4013               ; 17 bytes
    lda #$10
    sta APUSTATUS           ; start: the buffer is empty, the first byte comes at once
:   lda APUSTATUS
    and #$10
    bne :-                  ; the 17th fetch: G
    lda #0
    sta $4013               ; 1 byte
    lda #$10
    sta APUSTATUS           ; restart: fetched when the output unit takes byte 17 (G + 432)
    lda #2
    sta OAMDMA              ; G + 432 falls in it; the CPU resumes on a get cycle (cycle 0)
    lda #$10                ; 0-1
    sta APUSTATUS           ; 2-5: restart: fetched at G + 864
    lda #0                  ; 6-7
    sta FRAMECTR            ; 8-11, written on cycle 11 (put): W
    rts

dma_finish:
    ldy #22                 ; about 28300 cycles: polling starts before E
:   ldx #0
:   dex
    bne :-
    dey
    bne :--
    POLL_SUM APUSTATUS, bvc     ; V = the frame IRQ flag
    rts

; A few instructions for a pending IRQ to be taken.
settle:
    nop
    nop
    nop
    nop
    rts

irq:
    pha
    txa
    pha
    tsx
    lda $0104,x             ; the return address pushed by the interrupt
    sta irq_ret
    lda $0105,x
    sta irq_ret+1
    inc irqs
    sta $E000               ; MMC3: acknowledge (and disable)
    bit APUSTATUS           ; frame counter: acknowledge
    pla
    tax
    pla
    rti

; The NMI of check 12 (nmode bit 7 set; BIT nmode, BPL not taken: 5 cycles). The expected NOP
; counts, from the NESdev wiki ("MMC3", "PPU rendering", "CPU interrupts"):
; the NMI is raised at line 241 dot 1; the NMI sequence starts after the NOP whose first
; cycle sees it: 2 or 3 cycles later (B = 2.5 +- 0.5); the first NOP of the slide runs
; B + 7 (NMI) + 5 (BIT, BPL) + 16 (LDA, STA x3, CLI) + 6 (JSR) = B + 34 = 36.5 cycles
; after the NMI. With sprites at $1000 ($2000 = $08) A12 rises at dot 260 of every line
; (the sprite pattern fetches), the first after the NMI at line 261 (pre-render): reload
; to 1; line 0 dot 260: 0, IRQ. From 241:1 that is (20 x 341 + 341 + 259) dots = 7420 dots
; = 2473.3 cycles. With the background at $1000 ($2000 = $10) A12 rises at dot 4 of line
; 261 (its first background pattern fetch; A12 was low through VBlank, v = $2000 with fine
; Y 0): reload to 1; then at dot 324 (the next line's first tile, after the sprite fetches
; at $0000 held it low): 0, IRQ: (20 x 341 + 323) dots = 7143 dots = 2381 cycles, 277 dots
; (92.3 cycles) sooner. The IRQ is taken after the NOP whose first cycle sees it; the
; return address is the NOP after it, so NOPs run = ceil((IRQ - S) / 2) + 1 with the slide's
; start S = 36 to 37 and the IRQ within a cycle of the rise (the CPU cycle holding the dot):
; $08: IRQ 2472.3 to 2474.3: ceil(1217.7 .. 1219.2) + 1 = 1219 to 1221 accepted;
; $10: IRQ 2380 to 2382: ceil(1171.5 .. 1173) + 1 = 1173 to 1174, 1173 to 1175 accepted
; (with sprites at $1000, a rise at dot 324, 64 dots later, would give 1230 or 1231, one
; line later 1276 or 1277; with the background at $1000, not counting the pre-render line's
; rise at dot 4 would give the IRQ at line 0 dot 324: 1230 or 1231).
nmi:
    bit nmode               ; 3
    bpl nmi_other           ; 2 (not taken): check 12
    lda #1
    sta $C000               ; latch 1
    sta $C001               ; reload at the next counted rise
    sta $E001               ; IRQ on
    cli
    jsr slide
    sei
    lda #0
    sta PPUMASK
    sta PPUCTRL
    sta nmode
    sta $E000
    rti

; Check 10. First NMI: bit 7 off and on with the VBlank flag still up (nested NMI). Second:
; the same after reading $2002 (no NMI), then NMIs off.
nmi_other:
    pha
    lda nmis
    cmp #3
    bcs @count
    inc nmis
    lda nmis
    cmp #2
    beq @second
    bcs @out
    lda #0
    sta PPUCTRL
    lda #$80
    sta PPUCTRL
    jmp @out
@second:
    bit PPUSTATUS
    lda #0
    sta PPUCTRL
    lda #$80
    sta PPUCTRL
    lda #0
    sta PPUCTRL
    jmp @out
@count:
    inc nfr
    bne @out
    inc nfr+1
@out:
    pla
    rti

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16
