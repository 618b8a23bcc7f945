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
;     counts (5 to 11 accepted: the start and end of each run are a loop pass apart).
; The PPU stays off throughout (no rendering: A12 moves only with v).

.include "common.inc"
NES2_HEADER 4, 2, 2, 0

; JNE label: a branch on not-equal that reaches anywhere.
.macro JNE target
    .local skip
    beq skip
    jmp target
skip:
.endmacro

.segment "ZEROPAGE"
irqs:     .res 1
z10:      .res 1    ; $10, loaded with a 3-cycle LDA where LDA # takes 2
irq_ret:  .res 2    ; the return address of the last IRQ
nmis:     .res 1
nfr:      .res 2    ; NMIs counted by check 11
cnt:      .res 2
res:      .res 2

.segment "CODE"

reset:
    sta $E000               ; MMC3 IRQ off
    lda #$80
    sta $A001               ; PRG-RAM on (the status lives there)
    RESET_START
    lda #$10
    sta z10

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

; Check 10. First NMI: bit 7 off and on with the VBlank flag still up (nested NMI). Second:
; the same after reading $2002 (no NMI), then NMIs off.
nmi:
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
