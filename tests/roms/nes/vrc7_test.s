; vrc7_test.s: gpuvet's test of the Konami VRC7 (mapper 85), built once per wiring
; (tests/nes/build_roms.sh passes BOARD): 852 the VRC7a (NES 2.0 submapper 2: a group's
; second register at $x010), 851 the VRC7b (submapper 1: at $x008). 128 KiB PRG (each
; 8 KiB bank starts with its tag; code in the last), 64 KiB CHR-ROM, 8 KiB PRG-RAM for the
; status ($E000 bit 7 enables it first). The checks:
;   1 PRG: $8000, $8000 + R2 and $9000 select the 8 KiB banks at $8000, $A000, $C000;
;     $E000 holds the last;
;   2 CHR: the eight 1 KiB registers ($A000, $A000 + R2 ... $D000 + R2) read back through
;     $2007;
;   3 mirroring: $E000 bits 0-1 vertical, horizontal, one-screen lower, upper;
;   4, 5 the VRC IRQ ($E000 + R2 latch, $F000 control, $F000 + R2 acknowledge; vrc_irq.inc);
;   6 $E000 bit 7: with it clear $6000-$7FFF is open bus and ignores writes.
; Then the sound ($9000 + R2 selects a register, $9020 + R2 writes it; the waits the wiki
; asks for kept), measured by test_nes_vrc7.c in the WAV: channel 0 plays the custom
; instrument as a plain sine (the modulator silent), F-number 290, octave 4: 49716 x 290 /
; 2^15 = 440.0 Hz, until NMI frame 60; at frame 61 the same note with decay rate 4 to
; sustain level 8 (24 dB); at frame 130 the sound's reset bit ($E000 bit 6) silences and
; clears the chip (a note written meanwhile is ignored) until frame 150; from frame 160
; five channels play fixed instruments (vibrato, tremolo, feedback) and the custom one with
; feedback 7 and half-wave rectified waves, released at frame 230. The test screen's CHR
; banks move every 32 frames, and a scanline IRQ 120 lines down switches the nametables to
; one-screen upper for the lower part.

.include "common.inc"
.include "boards.inc"
.include "vrc_irq.inc"

.if BOARD = 852
    NES2_BOARD 85, 2, 8, 8, 0, $07, $00
    R2 = $10
.else
    NES2_BOARD 85, 1, 8, 8, 0, $07, $00
    R2 = $08
.endif
    PRG_TAGS 16
    CHR_DATA 64

CTRL = $E000                ; mirroring, sound reset (bit 6), PRG-RAM enable (bit 7)
SND_SEL = $9000 + R2
SND_DATA = $9020 + R2
IRQ_ACK = $F000 + R2        ; the IRQ counter (vrc_irq.inc): acknowledge, control, latch
IRQ_CTRL = $F000
.macro IRQ_LATCH
    sta $E000 + R2
.endmacro

.segment "ZEROPAGE"
mode:      .res 1           ; 0 tests, 1 the screen
ev_next:   .res 1           ; the next entry of `events`
ctrl_snd:  .res 1           ; $E000's sound bit (bit 6) as the events set it
bank_base: .res 1
k:         .res 1
n0:        .res 2           ; n0, n1 (vrc_irq.inc)
n1 = n0 + 1
irq_x:     .res 1
irq_hit:   .res 1

.segment "CODE"

; CHR register X (0-7) := A: $A000 + $1000 (X / 2), + R2 for odd X. Keeps X.
chr_write:
    pha
    txa
    and #1
    beq :+
    lda #R2
:   sta tmp
    txa
    and #6
    asl a
    asl a
    asl a
    adc #$A0                ; (carry clear: X / 2 * 16 < $80)
    sta tmp+1
    pla
    ldy #0
    sta (tmp),y
    rts

; Writes the (register, value) pairs at (tmp) to the sound chip, with the waits the wiki
; asks for (6 cycles after a select, 42 after a data write), up to $FF; a register $FE
; sets $E000's sound bits (ctrl_snd) to the value instead.
snd_list:
    ldy #0
@next:
    lda (tmp),y
    cmp #$FE
    bcs @ctrl
    sta SND_SEL
    iny
    lda (tmp),y             ; 7 cycles after the select
    sta SND_DATA
    iny
    ldx #9
:   dex
    bne :-
    beq @next
@ctrl:
    bne @done               ; $FF
    iny
    lda (tmp),y
    sta ctrl_snd
    ora #$80                ; PRG-RAM on, vertical
    sta CTRL
    iny
    bne @next
@done:
    rts

.macro SND_LIST list
    lda #<list
    sta tmp
    lda #>list
    sta tmp+1
    jsr snd_list
.endmacro

    VRC_COUNT_IRQ
    VRC_IRQ_ROUTINES

nmi:
    PUSH_AXY
    inc frame
    lda ctrl_snd            ; vertical for the upper part
    ora #$80
    sta CTRL
    ldx ev_next             ; this frame's sound event
    lda events,x
    beq :+
    cmp frame
    bne :+
    lda events+1,x
    sta tmp
    lda events+2,x
    sta tmp+1
    inx
    inx
    inx
    stx ev_next
    jsr snd_list
:   lda frame               ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    and #$E0
    lsr a
    lsr a
    sta bank_base
    ldx #0
l_banks:
    txa
    clc
    adc bank_base
    jsr chr_write
    inx
    cpx #8
    bne l_banks
    lda #<(256 - 120)       ; 120 lines from now: the IRQ (l_screen)
    IRQ_LATCH
    lda #$02
    sta IRQ_CTRL
    POP_AXY_RTI

reset:
    lda #$80                ; PRG-RAM on (the status lives there), vertical
    sta CTRL
    RESET_START
    lda #0
    sta mode
    sta ev_next
    sta ctrl_snd
    sta k

    ; ---- 1: PRG ------------------------------------------------------------------------
l_prg:
    lda k
    sta $8000
    clc
    adc #1
    sta $8000 + R2
    adc #1
    sta $9000
    lda $8000               ; the tags minus k + 0, 1, 2, ORed: 0 when all are right
    eor k
    sta n0
    lda $A000
    sec
    sbc k
    eor #1
    ora n0
    sta n0
    lda $C000
    sec
    sbc k
    eor #2
    ora n0
    beq :+
    jmp prg_bad
:   inc k
    lda k
    cmp #14
    bne l_prg
    lda $E000
    EXPECT 15, 1, "$E000 tag "

    ; ---- 2: CHR ------------------------------------------------------------------------
    ldx #0
l_chr:
    txa
    asl a
    asl a
    clc
    adc #5                  ; register i := 4i + 5
    sta n0
    jsr chr_write
    stx k
    txa
    asl a
    asl a
    tax
    ldy #$00
    jsr chr_peek            ; PPU $0400 i
    cmp n0
    beq :+
    PRINT "CHR register "
    lda #2
    jmp fail_at_k
:   ldx k
    inx
    cpx #8
    bne l_chr

    ; ---- 3: mirroring: $5A written at $2020 (vertical: page 0), read back in each mode --
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    ldx #0
l_mir:
    stx k
    lda mir_ctrl,x
    sta CTRL
    lda mir_at,x
    tax
    ldy #$20
    jsr chr_peek            ; $xx20
    ldx k
    cmp mir_want,x
    beq :+
    PRINT "mirroring mode "
    lda #3
    jmp fail_at_k
:   inx
    cpx #4
    bne l_mir
    lda #$80
    sta CTRL

    ; ---- 4, 5: the VRC IRQ -------------------------------------------------------------
    VRC_IRQ_CHECKS

    ; ---- 6: PRG-RAM enable -------------------------------------------------------------
    lda #$5A
    sta $6100
    lda #$00                ; disabled: reads are open bus (the address's high byte,
    sta CTRL                ; the last byte the CPU read), writes are lost
    lda #$A5
    sta $6100
    lda $6100
    ldx #$80
    stx CTRL
    EXPECT $61, 6, "disabled PRG-RAM read "
    lda $6100
    EXPECT $5A, 6, "PRG-RAM after a disabled write "

    PRINT "VRC7 checks passed"
    lda #0
    beq fail_done
prg_bad:
    PRINT "PRG banks from "
    lda #1
fail_at_k:                  ; fails with code A, k in hex after the message
    pha
    lda k
    jsr print_hex
    pla
fail_done:
    sta STATUS

    SND_LIST note_sine      ; the sound: 440 Hz until frame 60

    lda #1                  ; the IRQ is the screen's from now on
    sta mode
    jsr wait_vblank
    lda #0
    sta PPUMASK
    jsr screen_setup        ; (vertical: $2000 and $2400 both filled)
    cli
    jsr screen_on
:   jmp :-

    VRC_IRQ_HANDLER
l_screen:                   ; 120 lines down: one-screen upper for the rest of the picture
    lda #0
    sta IRQ_CTRL            ; acknowledge, counter off until the next NMI
    lda ctrl_snd
    ora #$83
    sta CTRL
    pla
    rti

; Mirroring modes ($E000, PRG-RAM on), the page each reads at $xx20, and what it holds there:
; vertical $2820, horizontal $2420, one-screen lower $2C20 (page 0); one-screen upper $2020
; (page 1, never written).
mir_ctrl: .byte $80, $81, $82, $83
mir_at:   .byte $28, $24, $2C, $20
mir_want: .byte $5A, $5A, $5A, $00

; The sound events: NMI frame, list (frame 0 ends).
events:
    .byte 60
    .word note_off
    .byte 61
    .word note_decay
    .byte 130
    .word reset_on
    .byte 150
    .word reset_off
    .byte 160
    .word chord
    .byte 230
    .word chord_off
    .byte 0

; The custom instrument as a plain sine: the carrier at once to full level and held there
; (attack 15, decay 0), the modulator silent (attack 0 keeps its envelope at 127, level 63);
; channel 0: F-number 290 ($122), octave 4, key on, instrument 0, volume 0 (the loudest).
note_sine:
    .byte $00, $01, $01, $21, $02, $3F, $03, $00
    .byte $04, $00, $05, $F0, $06, $0F, $07, $0F
    .byte $10, $22, $30, $00, $20, $19, $FF
note_off:                   ; key off (release 15)
    .byte $20, $09, $FF
note_decay:                 ; decay 4 down to sustain level 8 (24 dB), then hold; key on
    .byte $05, $F4, $07, $8F, $20, $19, $FF
reset_on:                   ; the reset bit on; a note written now is ignored
    .byte $FE, $40, $20, $09, $10, $80, $30, $00, $20, $19, $FF
reset_off:
    .byte $FE, $00, $FF
; Channels 1-4: buzzy bell, wurly, flute (vibrato), vibes (tremolo); channel 5: the custom
; instrument with feedback 7 and both waves half-wave rectified.
chord:
    .byte $11, $C0, $31, $10, $21, $17
    .byte $12, $50, $32, $32, $22, $19
    .byte $13, $20, $33, $40, $23, $1B
    .byte $14, $80, $34, $A0, $24, $19
    .byte $00, $02, $01, $21, $02, $10, $03, $1F
    .byte $04, $F4, $05, $F4, $06, $22, $07, $33
    .byte $15, $00, $35, $04, $25, $17, $FF
chord_off:
    .byte $21, $07, $22, $09, $23, $0B, $24, $09, $25, $07, $FF

.segment "VECTORS"
    .word nmi, reset, irq
