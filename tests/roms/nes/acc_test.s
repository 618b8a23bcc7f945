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
;     decayed to 0 while its bit 7 was refreshed by the VBlank flag: $80.
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

.segment "CODE"

reset:
    sta $E000               ; MMC3 IRQ off
    lda #$80
    sta $A001               ; PRG-RAM on (the status lives there)
    RESET_START

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

    PRINT "accuracy checks passed"
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

; A few instructions for a pending IRQ to be taken.
settle:
    nop
    nop
    nop
    nop
    rts

irq:
    inc irqs
    sta $E000               ; acknowledge (and disable)
nmi:
    rti

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16
