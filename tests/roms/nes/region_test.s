; region_test.s: gpuvet's region test (NROM): the console's timing measured in CPU cycles and
; checked against the NESdev wiki's figures ("Cycle reference chart", "Clock rate", "APU
; Frame Counter"; blargg's pal_apu_tests readme for the frame counter's steps). Assembled
; with REGION = the NES 2.0 timing of the header (byte 12: 0 NTSC, 1 PAL, 3 Dendy), each
; build expecting its region's values:
;
;                                  NTSC (2A03/2C02)  PAL (2A07/2C07)     Dendy
;   PPU dots per CPU cycle         3                 3.2                 3
;   lines per frame                262 (one dot less 312                 312
;                                  on odd frames with rendering on)
;   VBlank (NMI to pre-render)     20 lines          70 lines            20 lines (NMI at 291)
;   1 frame, CPU cycles            29780.5           33247.5             35464
;   VBlank, CPU cycles             2273.33           7459.375            2273.33
;   frame IRQ flag read set, after 29831             33255               29831 (NTSC's APU)
;   $4017 = $00 (on a put cycle)
;   frame IRQ period (4-step)      29830             33254               29830
;
; The checks (status 0 when all pass, else the number of the first that failed; the
; message gives every measured value either way, e.g.
; "PAL: frame 33247.48 cycles, VBlank 7457, frame IRQ at 33255 every 33254"):
;   1 the frame: 256 frames with rendering on, from one NMI to the 256th after it, counted
;     in passes of a 16-cycle loop (NMI handlers and counter carries added in, count_frames):
;     within 24 cycles of 256 frames of the table (an odd-frame dot skip on PAL or Dendy
;     would take 40 off, a line more or less some 27000);
;   2 VBlank: from the NMI's first cycle to the first $2002 read that sees the sprite 0 hit
;     flag cleared (the pre-render line's dot 1, where VBlank ends), measured exactly by nine
;     frames polling every 9 cycles from a start shifted by one cycle each (vbl_measure):
;     the table's VBlank less 0 to 6 cycles (the NMI is taken at the end of the instruction
;     under way, the main loop's bit or bmi: its first cycle follows the flag's by up to 6
;     cycles, and the nine frames' average depends on the loop's phase);
;   3 the frame counter IRQ flag: the first $4015 read that sees it after $4017 = $00 was
;     written on a put cycle, exactly (nine runs polling every 9 cycles, fc_measure);
;   4 its period: the same for the flag's next rise after it was acknowledged.
; Then (frame 330 or so) PPUMASK bit 5 and the noise channel's short mode for the tests
; around it (tests/nes/test_nes_region.c): emphasis and noise period by region.

.include "common.inc"

.ifndef REGION
REGION = 0
.endif

; NES 2.0 header: NROM, 32 KiB PRG, 8 KiB CHR-ROM, horizontal mirroring, 8 KiB PRG-RAM,
; CPU/PPU timing REGION.
.segment "HEADER"
    .byte "NES", $1A, 2, 1, $00, $08, 0, 0, $07, $00, REGION, 0, 0, 0

; The expected values (the table above).
.if REGION = 1
FRAME256 = 8511360                      ; 256 x 33247.5
VBL      = 7459                         ; 70 x 341 / 3.2 = 7459.375
FC_FIRST = 33255
FC_PER   = 33254
.elseif REGION = 3
FRAME256 = 9078784                      ; 256 x 35464
VBL      = 2273                         ; 20 x 341 / 3 = 2273.33
FC_FIRST = 29831
FC_PER   = 29830
.else
FRAME256 = 7623808                      ; 256 x 29780.5
VBL      = 2273
FC_FIRST = 29831
FC_PER   = 29830
.endif

; DELAY passes: exactly 1286 passes + 1 cycles (1..255 passes of 256 inner ones, and ldy).
; The loops must not cross a page (the routines using it are in ALIGNED and assert so).
.macro DELAY passes
    .local outer, inner
    ldy #passes                 ; 2
outer:
    ldx #0                      ; 2
inner:
    dex                         ; 2
    bne inner                   ; 3, 2 at the end: 256 x 5 - 1
    dey                         ; 2
    bne outer                   ; 3, 2 at the end
    .assert >inner = >*, error, "DELAY's loops must not cross a page"
.endmacro

; CYCLES n: exactly n cycles (n >= 2): NOPs, and a jump to the next instruction (3 cycles)
; when n is odd.
.macro CYCLES n
    .repeat (n) / 2 - (n) .mod 2
    nop
    .endrepeat
    .if (n) .mod 2
    jmp *+3
    .endif
.endmacro

; FC_RUNS poll: sum = the counts of nine runs of fc_start, 2 + k cycles (k = 0..8), poll.
.macro FC_RUNS poll
    lda #0
    sta sum
    sta sum+1
    .repeat 9, I
    jsr fc_start
    CYCLES I + 2
    jsr poll
    .endrepeat
.endmacro

; SUM_PLUS c, dest: the 16-bit dest = sum + c - 9 (mod 65536): a distance measured by nine
; POLL_SUM runs whose first read comes c cycles after the start of run 0.
.macro SUM_PLUS c, dest
    clc
    lda sum
    adc #<((c) - 9)
    sta dest
    lda sum+1
    adc #>((c) - 9)
    sta dest+1
.endmacro

; Delays of the measurements, chosen so that polling starts a few hundred cycles before the
; event: the first poll read comes 22 + DELAY cycles after the $4017 write (fc_poll1), 26 +
; both DELAYs (fc_poll2), and 30 + DELAY after the NMI's first cycle (vbl_entry 0).
.if REGION = 1
FC_Y1 = 25                              ; 32151 cycles
FC_Y2A = 27                             ; past the first rise, then
FC_Y2B = 24
VBL_Y = 5
.else
FC_Y1 = 22
FC_Y2A = 24
FC_Y2B = 21
VBL_Y = 1
.endif

.segment "ZEROPAGE"
nmode:    .res 1    ; bit 7: the NMI handler measures VBlank (vbl_measure)
nfr:      .res 2    ; NMIs counted by count_frames
cnt:      .res 3    ; its loop passes
sum:      .res 2    ; nine poll counts added up
vjump:    .res 2    ; the NMI's entry for this frame's shift (vbl_entry_0 .. _8)
vfr:      .res 1    ; VBlank frames measured
tot:      .res 3    ; check 1: cycles of 256 frames
val:      .res 3    ; the number print_dec prints
digits:   .res 8
fcfirst:  .res 2
fcsecond: .res 2
vblank:   .res 2
failed:   .res 1    ; the first failed check (0: none)

.segment "CODE"

reset:
    RESET_START
    lda #0
    sta APUSTATUS               ; no DMC DMA steals cycles from the measurements
    sta nmode
    sta failed

    ; ---- checks 3 and 4: the frame counter, exactly (NMI off, rendering off) ----------
    FC_RUNS fc_poll1
    SUM_PLUS 22 + 1286 * FC_Y1 + 1, fcfirst ; the first read seeing the flag (fc_measure)
    FC_RUNS fc_poll2
    SUM_PLUS 26 + 1286 * FC_Y2A + 1 + 1286 * FC_Y2B + 1, fcsecond
    lda #$40
    sta FRAMECTR                ; frame IRQ off again
    bit APUSTATUS

    ; ---- the picture: solid background, sprite 0 on it (a hit every frame at line 101) --
    jsr wait_vblank
    WRITE_PALETTE palette
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #1                      ; tile 1 (solid) over the whole nametable and attributes
    ldx #0
    ldy #4
:   sta PPUDATA
    dex
    bne :-
    dey
    bne :-
    ldx #0
    lda #$FF                    ; sprites 1-63 below the picture
:   sta $0200,x
    inx
    bne :-
    lda #100
    sta $0200                   ; sprite 0: Y 100 (drawn from line 101), tile 1, X 100
    lda #1
    sta $0201
    lda #0
    sta $0202
    lda #100
    sta $0203
    lda #0
    sta PPUSCROLL               ; scroll (0, 0)
    sta PPUSCROLL
    sta OAMADDR
    lda #2
    sta OAMDMA
    lda #$80
    sta PPUCTRL                 ; NMI on
    jsr wait_nmi
    lda #$1E
    sta PPUMASK                 ; background and sprites, left columns too

    ; ---- check 1: the frame ---------------------------------------------------------------
    jsr count_frames
    jsr frame_cycles

    ; ---- check 2: VBlank ----------------------------------------------------------------
    jsr vbl_measure

    ; ---- the verdict ---------------------------------------------------------------------
    jsr report

    ; the same picture with PPUMASK bit 5 set: red emphasis on the NTSC PPU, green on the
    ; PAL and Dendy ones (tests/nes/test_nes_region.c checks the colour), and the noise
    ; channel in its short mode, period index 8: 202 cycles a step on the NTSC APU, 188 on
    ; the PAL one, 93 steps a period (test_nes_region.c measures it in the WAV)
    jsr wait_nmi
    lda #$3E
    sta PPUMASK
    lda #$08
    sta APUSTATUS
    lda #$3F                    ; length counter halted, constant volume 15
    sta $400C
    lda #$88                    ; short mode, period index 8
    sta $400E
    lda #$08
    sta $400F
hang:
    jmp hang

; Waits for the next NMI (counted in nfr).
wait_nmi:
    lda nfr
:   cmp nfr
    beq :-
    rts

; ---- check 1 -----------------------------------------------------------------------------

; cnt = passes of a 16-cycle loop from one NMI until the 256th NMI after it has been
; counted (nfr = 256). A pass takes 16 cycles, 7 more when cnt's low byte carries (one in
; 256) and 4 more again when its middle byte does (one in 65536); the NMI handler takes 26
; cycles of it each time (7 for the interrupt, bit/bmi, inc/bne, rti), 4 more at the 256th.
count_frames:
    lda #0
    sta cnt
    sta cnt+1
    sta cnt+2
    jsr wait_nmi
    lda #0
    sta nfr
    sta nfr+1
@loop:
    inc cnt                     ; 5
    bne @same                   ; 3 (2, then the 5 + 3 below)
    inc cnt+1
    bne @same                   ; (2, then the 5 below)
    inc cnt+2
@same:
    lda nfr+1                   ; 3
    cmp #1                      ; 2
    bne @loop                   ; 3
    .assert >@loop = >*, error, "count_frames's loop must not cross a page"
    rts

; tot = 16 cnt + 7 (cnt >> 8) + 4 (cnt >> 16) + 256 x 26 + 4: the cycles from the loop's
; start to its end less what was spent after the 256th NMI; the start lies a few cycles
; after the first NMI, the end up to a pass after the last, so tot is 256 frames within a
; few cycles (check 1's window: 24).
frame_cycles:
    lda cnt                     ; tot = cnt << 4
    sta tot
    lda cnt+1
    sta tot+1
    lda cnt+2
    sta tot+2
    ldx #4
:   asl tot
    rol tot+1
    rol tot+2
    dex
    bne :-
    ldx #7                      ; + 7 (cnt >> 8)
:   clc
    lda tot
    adc cnt+1
    sta tot
    lda tot+1
    adc cnt+2
    sta tot+1
    bcc :+
    inc tot+2
:   dex
    bne :--
    lda cnt+2                   ; + 4 (cnt >> 16)
    asl a
    asl a
    clc
    adc tot
    sta tot
    bcc :+
    inc tot+1
    bne :+
    inc tot+2
:   clc                         ; + 256 x 26 + 4 = 6660
    lda tot
    adc #<6660
    sta tot
    lda tot+1
    adc #>6660
    sta tot+1
    bcc :+
    inc tot+2
:   ; check 1: |tot - FRAME256| <= 24
    sec
    lda tot
    sbc #<(FRAME256 - 24)
    sta val
    lda tot+1
    sbc #>(FRAME256 - 24)
    sta val+1
    lda tot+2
    sbc #^(FRAME256 - 24)
    bne @bad                    ; below the window (borrow) or far above
    lda val+1
    bne @bad
    lda val
    cmp #49
    bcc @ok
@bad:
    lda #1
    jsr fail_check
@ok:
    rts

; ---- check 2 -----------------------------------------------------------------------------

; Nine frames, each NMI measuring VBlank with its start shifted by one more cycle (the NMI
; handler jumps through vjump to vbl_entry_<k>, which pads 2 + k cycles): the poll count of
; frame k is 1 + ceil((x - a - k) / 9), x the cycles from the NMI's first cycle to the
; first read seeing the hit flag clear and a = 30 + DELAY(VBL_Y) the first read's offset
; for k = 0; over k = 0..8 the counts add up to x - a + 9. The main program meanwhile
; loops on short instructions (the NMI's entry comes at most 2 cycles after the flag).
vbl_measure:
    lda #0
    sta sum
    sta sum+1
    sta vfr
    lda #<vbl_entry_0
    sta vjump
    lda #>vbl_entry_0
    sta vjump+1
    jsr wait_nmi
    lda #$80
    sta nmode
:   bit nmode                   ; the ninth measuring NMI clears it
    bmi :-
    SUM_PLUS 30 + 1286 * VBL_Y + 1, vblank
    ; check 2: VBL - 6 <= vblank <= VBL
    sec
    lda vblank
    sbc #<(VBL - 6)
    tax
    lda vblank+1
    sbc #>(VBL - 6)
    bne @bad
    cpx #7
    bcc @ok
@bad:
    lda #2
    jsr fail_check
@ok:
    rts

; ---- checks 3 and 4 ----------------------------------------------------------------------

; $4017 = $00 written on a put cycle: W, which the measures count from (the frame counter
; restarts 3 cycles later).
fc_start:
    FRAMECTR_AT_PUT
    rts                         ; W+1..W+6; then CYCLES 2 + k, jsr (6)


; fc_measure, check 3: run k (k = 0..8) reads $4015 first at W + 22 + DELAY(FC_Y1) + k (rts
; 6, CYCLES 2, jsr 6, DELAY, POLL_SUM 8) and then every 9 cycles, so its count is
; 1 + ceil((f - a - k) / 9) for the first read f that sees the flag and a = 22 + DELAY;
; over the nine runs the counts add up to f - a + 9. Check 4 (fc_poll2) waits past the
; flag's first rise, acknowledges it (bit, 4 cycles) and measures the next rise the same
; way, a = 26 + both DELAYs.
.segment "ALIGNED"

fc_poll1:
    DELAY FC_Y1
    POLL_SUM APUSTATUS, bvc     ; V = the frame IRQ flag
    rts

fc_poll2:
    DELAY FC_Y2A
    bit APUSTATUS               ; acknowledges the first rise
    DELAY FC_Y2B
    POLL_SUM APUSTATUS, bvc
    rts

; ---- the NMI -------------------------------------------------------------------------------

; Counts NMIs in nfr (26 cycles with the interrupt's 7, 30 when nfr's low byte carries), or
; with nmode bit 7 measures VBlank (vbl_measure): through vjump to this frame's entry,
; which takes 2 + k more cycles, then at the NMI's first cycle + 30 + DELAY(VBL_Y) + k the
; first read of $2002 and every 9 cycles until the sprite 0 hit flag reads clear. Touches
; no register in the counting mode; the measuring mode's loop (vbl_measure) keeps nothing
; in registers.
nmi:
    bit nmode                   ; 3
    bmi @vbl                    ; 2 (3 taken)
    inc nfr                     ; 5
    bne @done                   ; 3
    inc nfr+1
@done:
    rti                         ; 6
@vbl:
    jmp (vjump)                 ; 5
    .assert >nmi = >*, error, "the NMI's branches must not cross a page"

vbl_poll:
    DELAY VBL_Y
    POLL_SUM PPUSTATUS, bvs     ; V = the sprite 0 hit flag
    inc vfr
    ldx vfr
    lda vtab_lo,x
    sta vjump
    lda vtab_hi,x
    sta vjump+1
    cpx #9
    bne :+
    lda #0                      ; nine frames measured
    sta nmode
:   rti

; The nine entries: vbl_entry_k takes 2 + k cycles before the jump (3).
.repeat 9, K
.ident(.sprintf("vbl_entry_%d", K)):
    CYCLES K + 2
    jmp vbl_poll
.endrepeat

vtab_lo:
.repeat 9, K
    .byte <.ident(.sprintf("vbl_entry_%d", K))
.endrepeat
    .byte <vbl_entry_0
vtab_hi:
.repeat 9, K
    .byte >.ident(.sprintf("vbl_entry_%d", K))
.endrepeat
    .byte >vbl_entry_0

.segment "CODE"

; ---- the report ----------------------------------------------------------------------------

; Records check A as failed when it is the first.
fail_check:
    ldx failed
    bne :+
    sta failed
:   rts

; Appends val (24 bits) in decimal.
print_dec:
    ldy #0
@next:
    lda #0                      ; val /= 10, A = the remainder
    ldx #24
@bit:
    asl val
    rol val+1
    rol val+2
    rol a
    cmp #10
    bcc :+
    sbc #10
    inc val
:   dex
    bne @bit
    sta digits,y
    iny
    lda val
    ora val+1
    ora val+2
    bne @next
@out:
    dey
    lda digits,y
    ora #'0'
    jsr print_char
    tya
    bne @out
    rts

; val = the 16-bit number at (tmp), 0 above.
.macro VAL16 lo, hi
    lda lo
    sta val
    lda hi
    sta val+1
    lda #0
    sta val+2
.endmacro

; The message: the region, the four measures, then the verdict of checks 3 and 4 (1 and 2
; were judged where they were measured); the status.
report:
.if REGION = 1
    PRINT "PAL: frame "
.elseif REGION = 3
    PRINT "Dendy: frame "
.else
    PRINT "NTSC: frame "
.endif
    VAL16 tot+1, tot+2          ; tot / 256: the whole cycles
    jsr print_dec
    lda #'.'
    jsr print_char
    lda #0                      ; and two decimals: (tot & 255) x 100 / 256
    sta val
    sta val+1
    ldx #100
:   clc
    lda val
    adc tot
    sta val
    bcc :+
    inc val+1
:   dex
    bne :--
    lda val+1
    cmp #10
    bcs :+
    lda #'0'
    jsr print_char
:   VAL16 val+1, #0
    jsr print_dec
    PRINT " cycles, VBlank "
    VAL16 vblank, vblank+1
    jsr print_dec
    PRINT ", frame IRQ at "
    VAL16 fcfirst, fcfirst+1
    jsr print_dec
    PRINT " every "
    sec
    lda fcsecond
    sbc fcfirst
    sta val
    lda fcsecond+1
    sbc fcfirst+1
    sta val+1
    lda #0
    sta val+2
    lda val                     ; check 4: the period
    cmp #<FC_PER
    bne @bad4
    lda val+1
    cmp #>FC_PER
    beq :+
@bad4:
    lda #4
    jsr fail_check
:   jsr print_dec
    lda fcfirst                 ; check 3: the first rise
    cmp #<FC_FIRST
    bne @bad3
    lda fcfirst+1
    cmp #>FC_FIRST
    beq :+
@bad3:
    lda #3
    jsr fail_check
:   lda failed
    beq report_pass
.if REGION = 1
    PRINT "; expected frame 33247.5, VBlank 7453-7459, frame IRQ at 33255 every 33254"
.else
.if REGION = 3
    PRINT "; expected frame 35464.0"
.else
    PRINT "; expected frame 29780.5"
.endif
    PRINT ", VBlank 2267-2273, frame IRQ at 29831 every 29830"
.endif
    lda failed
    sta STATUS
    rts
report_pass:
    PASS
    rts

palette:
    .byte $0F, $21, $11, $01, $0F, $21, $11, $01, $0F, $21, $11, $01, $0F, $21, $11, $01
    .byte $0F, $16, $26, $36, $0F, $16, $26, $36, $0F, $16, $26, $36, $0F, $16, $26, $36

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16, 0                  ; tile 0: empty
    .res 8, $FF                 ; tile 1: solid, colour 1
    .res 8, 0
