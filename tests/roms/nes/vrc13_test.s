; vrc13_test.s: gpuvet's test of Konami's VRC1 (mapper 75, BOARD=75: 128 KiB CHR-ROM) and
; VRC3 (mapper 73, BOARD=73: 8 KiB CHR-RAM), built once per board by tests/nes/build_roms.sh.
; 128 KiB PRG (each 8 KiB bank starts with its tag; code in the last, fixed at $E000), 8 KiB
; PRG-RAM for the status. The checks:
;   1 PRG: VRC1 $8000, $A000, $C000 map 8 KiB banks; VRC3 $F000 a 16 KiB bank (tags 2k, 2k + 1),
;     $C000 the second-last 8 KiB;
;   2 VRC1: the 4 KiB CHR banks, low 4 bits from $E000 / $F000, bit 4 from $9000 bits 1 / 2
;     (banks 5 and 27 read back through $2007, then bit 4 cleared alone); VRC3: its CHR-RAM
;     keeps what is written;
;   3 VRC1: $9000 bit 0, 0 vertical, 1 horizontal;
;   4 VRC3: the IRQ, to the cycle (cyc_irq.inc): latch L ($8000-$B000, a nibble each), control
;     $C000 written with E (cycle W) reloads the counter: it overflows from $FFFF 65536 - L
;     cycles later: L = 65536 - 1000 gives 498 NOPs, 65536 - 1001 499; in 8-bit mode (M) the
;     low 8 bits overflow from $FF: latch $1238 (the high bits ignored) 98 NOPs, $1237 99; the
;     acknowledge ($D000) moves A to E: with A clear no IRQ follows in 330,000 cycles, with A
;     set the counter goes on and an IRQ comes again.
; Then the test screen: CHR banks moved by the NMI every 32 frames (VRC3: CHR-RAM filled
; with CHR_DATA's banks 0-7, the scroll moved instead); on the VRC3 its IRQ, 15000 cycles
; after the NMI, moves the scroll once more.

.include "common.inc"
.include "boards.inc"
.include "cyc_irq.inc"
.include "board_steps.inc"

VRC3 = BOARD = 73
.if VRC3
    NES2_BOARD 73, 0, 8, 0, 1, $07, $07
    PRG_TAGS 16
    .export __CHR_SIZE__: absolute = 0
    .segment "CHARS"
.else
    NES2_BOARD 75, 0, 8, 16, 0, $07, $00
    PRG_TAGS 16
    CHR_FAST 128
.endif

.segment "ZEROPAGE"
k:        .res 1
mode:     .res 1
bank:     .res 1

.segment "CODE"
    SLIDE_CODE 560

.if VRC3
; Latch := A:X (high:low), control := Y (its write: cycle W), then the slide.
start_irq:
    pha
    jsr slide_base
    pla
    jsr set_latch
    sty $C000
    jmp slide

set_latch:
    pha
    lsr a
    lsr a
    lsr a
    lsr a
    sta $B000               ; bits 12-15
    pla
    sta $A000               ; bits 8-11
    stx $8000               ; bits 0-3
    txa
    lsr a
    lsr a
    lsr a
    lsr a
    sta $9000               ; bits 4-7
    rts
.endif

reset:
    TEST_START
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
.if VRC3
    lda k
    sta $F000
    jsr prg16_expect
    inc k
    lda k
    cmp #7
.else
    lda k
    sta $8000
    sta $A000
    sta $C000
    ldx #$80
    ldy #0
    jsr tag_expect
    lda k
    ldx #$A0
    jsr tag_expect
    lda k
    ldx #$C0
    jsr tag_expect
    inc k
    lda k
    cmp #15
.endif
    bne l_prg
    FIXED_TAGS VRC3

    ; ---- 2: CHR ------------------------------------------------------------------------
.if VRC3
    lda #$3C
    ldx #$13
    ldy #$57
    jsr chr_poke
    lda #$C3
    ldx #$05
    ldy #$00
    jsr chr_poke
    ldx #$13
    ldy #$57
    jsr chr_peek
    EXPECT $3C, 2, "CHR-RAM $1357 "
.else
    lda #5
    sta $E000
    lda #11
    sta $F000
    lda #$04                ; bit 4 of the $1000 bank: 27
    sta $9000
    lda #20                 ; 4 KiB bank 5's first 1 KiB
    ldx #$00
    ldy #$00
    jsr chr_expect
    lda #111                ; 4 KiB bank 27's last
    ldx #$1C
    jsr chr_expect
    lda #$02                ; bit 4 to the $0000 bank, cleared for $1000
    sta $9000
    lda #85                 ; 4 KiB bank 21
    ldx #$04
    jsr chr_expect
    lda #44                 ; 4 KiB bank 11
    ldx #$10
    jsr chr_expect
    lda #$07
    sta $E000               ; the low bits alone: bit 4 kept
    lda #94                 ; 4 KiB bank 23
    ldx #$08
    jsr chr_expect

    ; ---- 3: mirroring --------------------------------------------------------------------
    lda #$00
    sta $9000               ; vertical
    jsr nt_seed
    NT_EXPECT $28, $22, 3, "vertical $2840 "
    lda #$01
    sta $9000               ; horizontal
    NT_EXPECT $24, $22, 3, "horizontal $2440 "
    NT_EXPECT $2C, $11, 3, "horizontal $2C40 "
.endif

    ; ---- 4: the VRC3's IRQ ------------------------------------------------------------------
.if VRC3
    lda #>(65536 - 1000)
    ldx #<(65536 - 1000)
    ldy #$02
    jsr start_irq
    EXPECT16 498, 4, "16-bit, 1000 to the overflow: NOPs $"
    lda #>(65536 - 1001)
    ldx #<(65536 - 1001)
    ldy #$02
    jsr start_irq
    EXPECT16 499, 4, "16-bit, 1001 to the overflow: NOPs $"
    lda #$12
    ldx #$38
    ldy #$06
    jsr start_irq
    EXPECT16 98, 4, "8-bit, latch $1238: NOPs $"
    lda #$12
    ldx #$37
    ldy #$06
    jsr start_irq
    EXPECT16 99, 4, "8-bit, latch $1237: NOPs $"
    jsr wait_long           ; acknowledged with A clear: E cleared
    EXPECT16 $FFFF, 4, "after an acknowledge with A clear: IRQ, NOPs $"
    lda #>(65536 - 1000)
    ldx #<(65536 - 1000)
    ldy #$03                ; A set
    jsr start_irq
    EXPECT16 498, 4, "16-bit with A: NOPs $"
    jsr wait_long           ; acknowledged with A set: it goes on
    lda cnt+1
    cmp #$FF
    bne :+
    PRINT "with A set: no second IRQ"
    lda #4
    jmp fail_done
:   lda #0
    sta $C000
.endif

    PRINT "VRC1/VRC3 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------
    SCREEN_OFF
.if VRC3
    lda #0
    sta k
:   lda k
    asl a
    asl a
    tax                     ; PPU page 4k
    lda k
    jsr chr_fill
    inc k
    lda k
    cmp #8
    bne :-
.endif
    jsr screen_setup
    SCREEN_RUN

nmi:
    NMI_EVERY_32 l_irq
    and #7
    sta bank
.if VRC3
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
.else
    asl a
    asl a
    sta $E000               ; 4 KiB banks 4j + 1 .. (bit 4 for j >= 4 from $9000)
    ora #2
    sta $F000
    lda bank
    and #4
    beq :+
    lda #$06                ; bit 4 of both
:   sta $9000
.endif
l_irq:
.if VRC3
    lda #>(65536 - 15000)   ; the split: an IRQ 15000 cycles from here
    ldx #<(65536 - 15000)
    jsr set_latch
    lda #$02
    sta $C000
.endif
    POP_AXY_RTI

.if VRC3
    IRQ_TEST_ENTRY $D000    ; acknowledge: A moves to E
.else
    IRQ_TEST_ENTRY
.endif
.if VRC3
    sta $D000
    lda bank
    asl a
    asl a
    asl a
    asl a
    sta PPUSCROLL           ; (mid-frame: fine X and the coarse X moved)
    sta PPUSCROLL
.endif
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
