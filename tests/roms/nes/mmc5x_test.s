; mmc5x_test.s: gpuvet's second test of the MMC5 (ExROM, mapper 5): its sound, the
; vertical split and the in-frame details, from the NESdev wiki's "MMC5" and "MMC5 audio"
; pages. 128 KiB PRG (each 8 KiB bank starts with its tag, then the bytes 0-255 at +$100),
; 64 KiB CHR-ROM of sixteen 4 KiB banks (below), 32 KiB PRG-RAM. The checks (status at
; $6000):
;   1 the pulses' length counters, clocked at 240 Hz: $5015 reads which are not 0; a
;     length of 10 is still running one frame after its $5003 write and has run out four
;     frames after it (at the APU's 120 Hz it would take five); a halted one keeps its
;     length; a $5015 bit cleared clears its counter and keeps $5003 writes from loading it;
;   2 the PCM's IRQ: in write mode $5011 = 0 raises it (with $5010 bit 7 set) and $5010
;     reads $80 in the handler (the read acknowledges it), $5011 = $40 does not; with bit 7
;     clear no IRQ comes and $5010 reads bit 7 clear, and a flag raised then brings the
;     IRQ when bit 7 is set; in read mode ($5010 = $81) a 0 read from $8000-$BFFF raises
;     it ($5010 reads $81), a 5 does not, a 0 read from $C000-$FFFF does not;
;   3 the NMI vector fetch acknowledges the scanline IRQ: with $5203 = 239 and the IRQ off,
;     $5204 bit 7 is set in VBlank reached by polling $2002, but clear in the NMI handler;
;   4 a $2001 write: rendering off in the handler of the IRQ of line 100 clears $5204's
;     in-frame bit at once; switched on again, the counter starts over at the next line,
;     so $5203 = 3 brings a second IRQ in the same frame;
;   5 the vertical split, seen by sprite 0 hits over a background of transparent tiles:
;     ExRAM rows 10-12 hold opaque tiles (tile 1 in columns 0-15, tile 2 in 16-31, which is
;     opaque only in the odd 4 KiB banks), everything else tile 0; a hit or none at twelve
;     places: the left and right sides ($5200), the split's scroll ($5201: 40, wrapping at
;     240 from 200, at 256 from 248, in ExRAM mode 1 there), its CHR bank ($5202: 5 and
;     4), and ExRAM mode 2 (no split).
; Then the screen: ExRAM mode 1 with a right-side split from tile 20 whose scroll and bank
; move every frame over a background scrolled by frame & 15; from line 120 (IRQ) a
; left-side split of 6 tiles in ExRAM mode 0; from line 180 (IRQ) ExRAM mode 2 with every
; nametable in ExRAM, which then reads 0. And the sound, by NMI frame (tick), measured by
; test_nes_mmc5.c in the WAV: until 49 MMC5 pulse 1 (duty 50%, volume 15, period 253: 440.4
; Hz); 50-99 the APU's pulse 1 with the same settings (the same level); 100-149 MMC5
; pulse 2 at volume 8 (the level through the non-linear pulse table); 150-184 the main
; loop's square wave on the PCM ($01/$80), 185-219 the same on the DMC's $4011 ($00/$7F:
; the same level), 220-254 on the PCM again ($01/$FF: twice the level); then silence.

.include "common.inc"
.include "boards.inc"
.include "mmc5.inc"

    NES2_BOARD 5, 0, 8, 8, 0, $09, $00
    PRG_TAGS 16

; CHR: sixteen 4 KiB banks j: tile 0 transparent, tile 1 opaque (colour 1), tile 2 opaque
; (colour 3) in the odd banks only, tiles 3-255 a pattern of their own in each bank.
    .segment "CHARS"
    .repeat 16, j
    .repeat 256, t
    .repeat 8, r
    .if t = 0
    .byte 0
    .elseif t = 1
    .byte $FF
    .elseif t = 2
    .byte (j & 1) * $FF
    .else
    .byte (t ^ (j * 16) ^ (r * 32) ^ $AA) & $FF
    .endif
    .endrep
    .repeat 8, r
    .if t < 2
    .byte 0
    .elseif t = 2
    .byte (j & 1) * $FF
    .else
    .byte ((t + j) ^ (r * 17)) & $FF
    .endif
    .endrep
    .endrep
    .endrep

.segment "ZEROPAGE"
k:        .res 1
irq_hit:  .res 1
irq_st:   .res 1    ; $5010 in the IRQ handler
irq_sc:   .res 1    ; $5204 in the IRQ handler
irq_sc2:  .res 1    ; $5204 after rendering went off in the handler (check 4)
irq_sub:  .res 1    ; 4: the handler's $2001 test
nmi_hit:  .res 1
nmi_st:   .res 1
mode:     .res 1
irq_n:    .res 1
sc:       .res 1    ; the screen's split scroll, 0-239
tick:     .res 1    ; NMI frames of the screen, up to 255
ptr:      .res 2    ; where the main loop's square wave goes
lo_val:   .res 1
hi_val:   .res 1

; Two NOPs: time for an IRQ raised by the last write to be taken.
.macro SETTLE
    nop
    nop
.endmacro

.segment "CODE"

reset:
    lda #0
    sta mode
    sta irq_sub
    MMC5_RESET

    ; ---- 1: the pulses' length counters at 240 Hz -------------------------------------------
    W5 $5015, 0
    lda $5015
    EXPECT 0, 1, "$5015 all off "
    W5 $5015, 3
    W5 $5000, $30           ; pulse 1: halted, constant volume 0
    W5 $5004, $10           ; pulse 2: counting, constant volume 0
    jsr wait_vblank
    W5 $5003, $08           ; length 254
    W5 $5007, $00           ; length 10
    lda $5015
    EXPECT 3, 1, "$5015 loaded "
    jsr wait_vblank
    lda $5015
    EXPECT 3, 1, "$5015 a frame later "
    jsr wait_vblank
    jsr wait_vblank
    jsr wait_vblank
    lda $5015
    EXPECT 1, 1, "$5015 four frames later "
    W5 $5015, 2             ; pulse 1 off: its counter is cleared
    lda $5015
    EXPECT 0, 1, "$5015 pulse 1 disabled "
    W5 $5003, $08
    lda $5015
    EXPECT 0, 1, "$5015 loaded while disabled "
    W5 $5007, $08
    lda $5015
    EXPECT 2, 1, "$5015 pulse 2 loaded "
    W5 $5015, 0

    ; ---- 2: the PCM's IRQ ----------------------------------------------------------------------
    lda #0
    sta irq_hit
    W5 $5010, $80           ; write mode, IRQ on
    cli
    W5 $5011, $40
    SETTLE
    lda irq_hit
    EXPECT 0, 2, "IRQ from $5011 = $40 "
    W5 $5011, $00
    SETTLE
    lda irq_hit
    EXPECT 1, 2, "IRQs from $5011 = 0: "
    lda irq_st
    EXPECT $80, 2, "$5010 in the handler "
    W5 $5010, $00           ; IRQ off: the flag alone
    W5 $5011, $00
    SETTLE
    lda irq_hit
    EXPECT 1, 2, "IRQs with $5010 bit 7 clear: "
    lda $5010
    EXPECT $00, 2, "$5010 with bit 7 clear "
    W5 $5010, $80           ; the read cleared the flag: nothing comes
    SETTLE
    lda irq_hit
    EXPECT 1, 2, "IRQs after the $5010 read: "
    W5 $5010, $00
    W5 $5011, $00           ; the flag, then the IRQ on: it comes
    W5 $5010, $80
    SETTLE
    lda irq_hit
    EXPECT 2, 2, "IRQs with the flag already up: "
    W5 $5114, $80           ; bank 0 at $8000 and $C000: TABLE + v holds v
    W5 $5116, $80
    W5 $5010, $81           ; read mode
    lda TABLE+5
    SETTLE
    lda irq_hit
    EXPECT 2, 2, "IRQs after reading 5: "
    lda TABLE
    SETTLE
    lda irq_hit
    EXPECT 3, 2, "IRQs after reading 0 at $8100: "
    lda irq_st
    EXPECT $81, 2, "$5010 in read mode "
    lda $C100
    SETTLE
    lda irq_hit
    EXPECT 3, 2, "IRQs after reading 0 at $C100: "
    W5 $5010, $00
    sei

    ; ---- 3: the NMI vector fetch acknowledges the scanline IRQ -----------------------------
    lda #$0A                ; background on: the MMC5 counts the lines
    sta PPUMASK
    lda $5204
    W5 $5203, 239
    W5 $5204, $00
    jsr wait_vblank
    jsr wait_vblank
    lda $5204
    and #$80
    EXPECT $80, 3, "$5204 in VBlank "
    lda #0
    sta nmi_hit
    lda #$FF
    sta nmi_st
    lda #$80                ; NMI on (the VBlank flag was read: none at once)
    sta PPUCTRL
:   lda nmi_hit
    beq :-
    lda #0
    sta PPUCTRL
    lda nmi_st
    and #$80
    EXPECT 0, 3, "$5204 in the NMI handler "

    ; ---- 4: $2001 -------------------------------------------------------------------------------
    W5 $5203, 100
    lda #0
    sta irq_hit
    lda #$FF
    sta irq_sc2
    jsr wait_vblank
    lda $5204               ; (this frame's line 100 has set the flag)
    lda #4
    sta irq_sub
    W5 $5204, $80
    cli
    ldx #0                  ; until the VBlank: the handler's two IRQs
:   bit PPUSTATUS
    bpl :-
    sei
    lda #0
    sta irq_sub
    sta $5204
    lda irq_sc2
    and #$40
    EXPECT 0, 4, "$5204 in-frame after $2001 = 0 "
    lda irq_hit
    EXPECT 2, 4, "IRQs in the frame: "
    lda irq_sc
    EXPECT $C0, 4, "$5204 in the second IRQ "

    ; ---- 5: the split -------------------------------------------------------------------------
    jsr wait_vblank
    lda #0
    sta PPUMASK
    W5 $5105, $00           ; CIRAM A everywhere: tile 0 (transparent)
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldx #0
    ldy #4
:   sta PPUDATA
    inx
    bne :-
    dey
    bne :-
    W5 $5101, 1             ; 4 KiB pages, set A: bank 0 for both halves
    W5 $5123, 0
    W5 $5127, 0
    W5 $5104, 2             ; ExRAM: rows 10-12 opaque, the rest tile 0
    ldx #0
    lda #0
:   sta $5C00,x
    sta $5D00,x
    sta $5E00,x
    sta $5F00,x
    inx
    bne :-
    ldx #0
:   txa
    and #$10                ; columns 0-15: tile 1, 16-31: tile 2
    lsr a
    lsr a
    lsr a
    lsr a
    clc
    adc #1
    sta $5C00 + 10 * 32,x
    inx
    cpx #96
    bne :-
    ldx #0                  ; OAM: sprite 0 only
    lda #$FF
:   sta $0200,x
    inx
    bne :-
    lda #1
    sta $0201
    lda #0
    sta $0202
    lda #0
    sta k
l_split:
    ldx k
    jsr wait_vblank
    lda #0
    sta PPUMASK
    lda split_cases+0,x
    sta $5104
    lda split_cases+1,x
    sta $5200
    lda split_cases+2,x
    sta $5201
    lda split_cases+3,x
    sta $5202
    lda split_cases+4,x
    sta $0203
    lda split_cases+5,x
    sta $0200
    lda #$02
    sta OAMDMA
    bit PPUSTATUS
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda #$08                ; sprites at $1000, NMI off
    sta PPUCTRL
    lda #$1E
    sta PPUMASK
    jsr wait_vblank
    lda PPUSTATUS
    and #$40
    ldx k
    cmp split_cases+6,x
    beq :+
    PRINT "split case "
    lda k
    lsr a
    lsr a
    lsr a
    jsr print_hex
    PRINT " sprite 0 hit "
    lda PPUSTATUS
    and #$40
    jsr print_hex
    lda #5
    jmp fail_done
:   lda k
    clc
    adc #8
    sta k
    cmp #13 * 8
    beq :+
    jmp l_split
:
    lda #0
    sta PPUMASK
    sta $5200

    PRINT "MMC5 sound, split and in-frame checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ------------------------------------------------------------------------
    lda #0
    sta PPUMASK
    sta PPUCTRL
    sta $5200
    jsr wait_vblank
    W5 $5105, $44           ; vertical: $2000 CIRAM A, $2400 CIRAM B
    jsr screen_setup
    W5 $5101, 1
    W5 $5123, 3
    W5 $5127, 5
    W5 $5104, 2             ; ExRAM: tile 7i at i, attributes 37i + 5 from $3C0
    jsr exram_screen
    ; the sound: MMC5 pulse 1, duty 50%, halted, volume 15, period 253
    W5 $5015, $01
    W5 $5000, $BF
    W5 $5002, 253
    W5 $5003, $08
    lda #$00                ; the main loop's wave goes nowhere for now
    sta ptr
    lda #$03
    sta ptr+1
    lda #$01
    sta lo_val
    lda #$80
    sta hi_val
    lda #0
    sta sc
    sta tick
    lda #1
    sta mode
    cli
    jsr screen_on
; The main loop: a square wave of 2 x 400 cycles or so into (ptr).
l_main:
    ldy #0
    lda lo_val
    sta (ptr),y
    ldx #79
:   dex
    bne :-
    lda hi_val
    sta (ptr),y
    ldx #79
:   dex
    bne :-
    jmp l_main

; The split cases: $5104, $5200, $5201, $5202, sprite 0's X and Y, the hit expected ($40).
split_cases:
    .byte 0, $88, 0, 0, 20, 83, $40, 0      ; left 8 tiles: rows 10-12 at lines 80-103
    .byte 0, $88, 0, 0, 100, 83, 0, 0       ; outside the split: CIRAM's tile 0
    .byte 0, $88, 0, 0, 20, 150, 0, 0       ; row 19: tile 0
    .byte 0, $88, 40, 0, 20, 43, $40, 0     ; scroll 40: rows 10-12 at lines 40-63
    .byte 0, $88, 40, 0, 20, 83, 0, 0
    .byte 0, $C8, 0, 0, 100, 83, $40, 0     ; right side from tile 8
    .byte 0, $C8, 0, 0, 20, 83, 0, 0
    .byte 0, $C8, 0, 5, 200, 83, $40, 0     ; column 25: tile 2, opaque in bank 5
    .byte 0, $C8, 0, 4, 200, 83, 0, 0       ; transparent in bank 4
    .byte 2, $88, 0, 0, 20, 83, 0, 0        ; ExRAM mode 2: no split
    .byte 0, $88, 200, 0, 20, 123, $40, 0   ; scroll 200: y wraps at 240, rows 10-12 at lines 120-143
    .byte 1, $88, 248, 0, 20, 77, 0, 0      ; scroll 248: y wraps at 256, rows 10-12 at lines 88-111
    .byte 1, $88, 248, 0, 20, 91, $40, 0

nmi:
    PUSH_AXY
    lda mode
    bne l_screen_nmi
    lda $5204
    sta nmi_st
    inc nmi_hit
    POP_AXY_RTI
l_screen_nmi:
    inc frame
    jsr sound_step
    W5 $5104, 1             ; extended attributes left of the split
    W5 $5105, $44
    W5 $5200, $D4           ; the split: right side from tile 20
    lda sc
    sta $5201
    clc
    adc #1
    cmp #240
    bcc :+
    lda #0
:   sta sc
    lda frame
    lsr a
    lsr a
    lsr a
    lsr a
    lsr a
    sta $5202
    bit PPUSTATUS
    lda frame
    and #15
    sta PPUSCROLL
    lda #0
    sta PPUSCROLL
    lda $5204
    W5 $5203, 120
    W5 $5204, $80
    lda #0
    sta irq_n
    POP_AXY_RTI

; The sound by tick (see the top).
sound_step:
    lda tick
    cmp #255
    beq :+
    inc tick
:   lda tick
    cmp #50
    bne :+
    W5 $5015, $00           ; MMC5 pulse 1 off, the APU's pulse 1 on
    W5 APUSTATUS, $01
    W5 $4000, $BF
    W5 $4001, $00
    W5 $4002, 253
    W5 $4003, $08
    rts
:   cmp #100
    bne :+
    W5 APUSTATUS, $00       ; MMC5 pulse 2 at volume 8
    W5 $5004, $B8
    W5 $5006, 253
    W5 $5015, $02
    W5 $5007, $08
    rts
:   cmp #150
    bne :+
    W5 $5015, $00           ; the square wave on the PCM, $01/$80
    lda #$11
    ldx #$50
    ldy #$80
    jmp set_wave
:   cmp #185
    bne :+
    lda #$11                ; on the DMC's level, $00/$7F
    ldx #$40
    ldy #$7F
    jsr set_wave
    lda #$00
    sta lo_val
    rts
:   cmp #220
    bne :+
    lda #$11                ; on the PCM, $01/$FF
    ldx #$50
    ldy #$FF
    jmp set_wave
:   cmp #255
    bne :+
    lda #$00                ; silence: the wave into RAM
    ldx #$03
    jmp set_wave
:   rts

; The main loop's wave to $xx11 (A: low byte, X: high byte), from $01 to Y.
set_wave:
    sta ptr
    stx ptr+1
    lda #$01
    sta lo_val
    sty hi_val
    rts

irq:
    pha
    lda mode
    bne l_screen_irq
    lda $5010
    sta irq_st
    lda $5204
    sta irq_sc
    lda irq_sub
    cmp #4
    bne l_irq_done
    lda irq_hit
    bne l_irq_done
    lda #0                  ; check 4: rendering off, in-frame ends at once
    sta PPUMASK
    lda $5204
    sta irq_sc2
    lda #$0A                ; on again: the counter starts over
    sta PPUMASK
    W5 $5203, 3
l_irq_done:
    inc irq_hit
    pla
    rti
l_screen_irq:
    lda $5204
    lda irq_n
    bne :+
    inc irq_n
    W5 $5104, 0             ; line 120: a left split of 6 tiles, ExRAM mode 0
    W5 $5200, $86
    W5 $5203, 180
    pla
    rti
:   W5 $5104, 2             ; line 180: ExRAM mode 2, every nametable in ExRAM (reads 0)
    W5 $5105, $AA
    pla
    rti

.segment "VECTORS"
    .word nmi, reset, irq
