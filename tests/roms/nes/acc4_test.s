; acc4_test.s: gpuvet's NES PPU accuracy checks of issue 37 (NROM), expected values from the
; NESdev wiki and blargg's nmi_sync readme. Checks 1-2 report through the status block
; (`gpuvet run nes acc4_test.nes --test-rom`); check 3 is a picture, read by
; tests/nes/test_nes_acc4.c. A failing check writes its name into the message and the
; status is its number; all passed: status 0.
;   1 read-modify-write on PPUDATA: with $2100-$2104 = $10 $20 $30 $40 $50 and one read of
;     $2100 done (the read buffer $10, v = $2101), INC $2007 reads the buffer ($10; the
;     buffer refills with $20, v = $2102), writes the old value back ($10 to $2102, v =
;     $2103), then $11 ($2103, v = $2104): three increments; a following STA $2007 of $77
;     lands on $2104. Read back: $10 $20 $10 $11 $77;
;   2 sprite 0 hit at the edges (one frame each, the background opaque everywhere, the hit
;     flag read as VBlank starts): X = 255 (only pixel 255 covered) never hits; X = 0 with
;     the sprites' or the background's left column hidden does not hit, with both shown it
;     does; behind the background still hits; the last line (Y = 238: picture line 239)
;     hits, Y = 239 does not; a tile whose only opaque row is its last: Y = 231 hits (line
;     239), Y = 232 not, vertically flipped at Y = 232 it does (the row comes first); a tile
;     whose only opaque column is its first at X = 248 hits, flipped horizontally (pixel 255)
;     not; 8x16: a sprite whose top tile is transparent hits through its lower tile at Y =
;     223 (lines 232-239), not at Y = 231 (lower tile off the picture); at X = 4 with both
;     left columns hidden pixels 8-11 still hit. The results are listed as a 15-character
;     mask of H (hit) and - in the message;
;   3 greyscale timing (blargg's nmi_sync readme: a PPUMASK write at CPU cycle 2286 + N + 5
;     of a frame, the frame starting in the cycle the VBlank flag is set, turns the picture
;     grey from pixel 3N - 290, y * 341 + x): rendering off, the backdrop red ($16); the CPU
;     is synced to the VBlank flag ($2002 read once a frame, a dot later each time, until
;     it reads set: that read's cycle holds the flag's dot as its first), then every third
;     frame (3 frames are 89342 cycles exactly) writes $01 to PPUMASK 13786 cycles after
;     that read's cycle and $00 10 cycles later. The wiki's timing puts these writes at
;     dots 99 and 129 of line 100, and the greyscale acts two pixels before the write's dot
;     - 1: line 100 grey at pixels 96-125 (before gpuvet took the two-pixel output delay
;     into account: 98-127).

.include "common.inc"
NES2_HEADER 0, 2, 1, 0

.segment "ZEROPAGE"
z0:     .res 1
r1:     .res 5      ; check 1's read-back
hits:   .res 16     ; check 2: 'H' or '-' per case, then NUL
r4:     .res 1      ; check 4: the $2004 read on line 240
r5:     .res 2      ; check 5: the hit flag with evaluation from OAM byte 4, from byte 5
oam_start_at: .res 1
r6:     .res 2      ; check 6: the hit flag with the sprites shown from line 100 dot 39, hidden
mask_a: .res 1      ; check 6: PPUMASK from the frame's start, and from line 100 dot 39
mask_b: .res 1

.segment "CODE"

reset:
    RESET_START
    jsr rmw_check
    jsr hit_check
    jsr oam_checks
    jsr report
    jmp grey_timing

; ---- 1: INC $2007 ------------------------------------------------------------------------
rmw_check:
    lda #$21
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #$10
    ldx #5
:   sta PPUDATA             ; $10 $20 $30 $40 $50
    clc
    adc #$10
    dex
    bne :-
    lda #$21
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda PPUDATA             ; the buffer: $10, v = $2101
    inc PPUDATA             ; read $10 (buffer <- $20), write $10 at $2102, $11 at $2103
    lda #$77
    sta PPUDATA             ; at $2104 after three increments
    lda #$21
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda PPUDATA             ; the buffer's refill
    ldx #0
:   lda PPUDATA
    sta r1,x
    inx
    cpx #5
    bne :-
    rts

rmw_want: .byte $10, $20, $10, $11, $77

; ---- 2: sprite 0 hit at the edges ---------------------------------------------------------
; Per case: Y, tile, attribute, X, PPUMASK, PPUCTRL; the hit expected ('H') or not ('-').
hit_cases:
    .byte 100, 1, $00, 255, $1E, $00    ; X = 255
    .byte 100, 1, $00, 0,   $1A, $00    ; X = 0, sprites' left column hidden
    .byte 100, 1, $00, 0,   $1C, $00    ; X = 0, background's left column hidden
    .byte 100, 1, $00, 0,   $1E, $00    ; X = 0, both shown
    .byte 100, 1, $20, 100, $1E, $00    ; behind the background
    .byte 238, 1, $00, 100, $1E, $00    ; the last picture line
    .byte 239, 1, $00, 100, $1E, $00    ; Y = 239: below the picture
    .byte 231, 2, $00, 100, $1E, $00    ; only the last row opaque, on line 239
    .byte 232, 2, $00, 100, $1E, $00    ; ... on line 240
    .byte 232, 2, $80, 100, $1E, $00    ; ... flipped: on line 233
    .byte 100, 3, $00, 248, $1E, $00    ; only the first column opaque: pixel 248
    .byte 100, 3, $40, 248, $1E, $00    ; ... flipped: pixel 255
    .byte 223, 4, $00, 100, $1E, $20    ; 8x16, top tile 4 transparent, lower tile 5 on 232-239
    .byte 231, 4, $00, 100, $1E, $20    ; ... lower tile on 240-247
    .byte 100, 1, $00, 4,   $18, $00    ; X = 4, both left columns hidden: pixels 8-11 hit
NCASES = 15
hit_want: .byte "-", "-", "-", "H", "H", "H", "-", "H", "-", "H", "H", "-", "H", "-", "H", 0

hit_check:
    jsr wait_vblank
    lda #$20                ; nametable 0 and its attributes: tile 1 (opaque) everywhere
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldx #0
    ldy #4
    lda #1
:   sta PPUDATA
    inx
    bne :-
    dey
    bne :-
    lda #0                  ; sprites 1-63 below the picture
    sta OAMADDR
    ldx #0
    lda #$F8
:   sta OAMDATA
    inx
    bne :-
    ldx #0                  ; X: the case's offset in hit_cases
    ldy #0                  ; Y: the case number
    jsr wait_vblank
@case:                      ; in VBlank
    lda #0
    sta PPUMASK
    sta OAMADDR
    lda hit_cases,x
    sta OAMDATA
    lda hit_cases+1,x
    sta OAMDATA
    lda hit_cases+2,x
    sta OAMDATA
    lda hit_cases+3,x
    sta OAMDATA
    lda hit_cases+5,x
    sta PPUCTRL
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda hit_cases+4,x
    sta PPUMASK
    jsr wait_vblank         ; V: the hit flag of the frame just drawn
    lda #'-'
    bvc :+
    lda #'H'
:   sta hits,y
    txa
    clc
    adc #6
    tax
    iny
    cpy #NCASES
    beq :+
    jmp @case
:   lda #0
    sta hits,y
    sta PPUMASK
    sta PPUCTRL
    rts

; ---- 4, 5: OAMADDR and sprite evaluation --------------------------------------------------
; OAM all $F8 (every sprite below the picture), then the bytes of oam_set + 2X (pairs of
; address, value; $FF ends).
oam_fill:
    lda #0
    sta OAMADDR
    lda #$F8
    ldy #0
:   sta OAMDATA
    iny
    bne :-
:   lda oam_set,x
    cmp #$FF
    beq :+
    sta OAMADDR
    lda oam_set+1,x
    sta OAMDATA
    inx
    inx
    bne :-
:   rts

oam_set:
oam_set4 = * - oam_set
    .byte 5, $A5, $FF
oam_set5a = * - oam_set             ; sprite 0: line 100, only its first row opaque, X 100
    .byte 0, 99, 1, 8, 2, 0, 3, 100, $FF
oam_set5b = * - oam_set             ; the record at byte 5: Y 99, tile 1, attribute 0, X 120
    .byte 5, 99, 6, 1, 7, 0, 8, 120, 9, 0, $FF

oam_checks:                 ; rendering off from here on but for the timed frames
    jsr wait_vblank
    lda #0
    sta PPUMASK
    sta PPUCTRL
    sta PPUSCROLL
    sta PPUSCROLL
    ldx #oam_set4
    jsr oam_fill
    jsr oam_late_check
    ldx #oam_set5a
    jsr oam_fill
    lda #4
    sta oam_start_at
    jsr oam_eval_check
    sta r5
    ldx #oam_set5b
    jsr oam_fill
    lda #5
    sta oam_start_at
    jsr oam_eval_check
    sta r5+1
    ldx #oam_set5a
    jsr oam_fill
    lda #$0E                ; 6: the background on, the sprites from dot 39 of line 100
    sta mask_a
    lda #$1E
    sta mask_b
    jsr mask_check
    sta r6
    lda #$1E                ; both on, the sprites hidden from dot 39 of line 100
    sta mask_a
    lda #$0E
    sta mask_b
    jsr mask_check
    sta r6+1
    rts

; ---- the verdict --------------------------------------------------------------------------
report:
    ldx #0
@c1:
    lda r1,x
    cmp rmw_want,x
    beq :+
    jmp bad1
:   inx
    cpx #5
    bne @c1
    ldx #0
@c2:
    lda hits,x
    cmp hit_want,x
    beq :+
    jmp bad2
:   inx
    cpx #NCASES
    bne @c2
    lda r4
    cmp #$A5
    beq :+
    jmp bad4
:   lda r5
    cmp #'-'
    bne :+
    lda r5+1
    cmp #'H'
    beq :++
:   jmp bad5
:   lda r6
    cmp #'H'
    bne :+
    lda r6+1
    cmp #'-'
    beq :++
:   jmp bad6
:
    PRINT "PPU checks 1, 2, 4, 5, 6 passed; hits "
    jsr print_hits
    PASS
    rts
bad6:
    PRINT "6 sprite 0 hit with the sprites shown / hidden mid-line: hit "
    lda r6
    jsr print_char
    lda r6+1
    jsr print_char
    PRINT " want H-"
    FAIL 6
    rts
bad5:
    PRINT "5 sprite evaluation from OAMADDR 4 / 5: hit "
    lda r5
    jsr print_char
    lda r5+1
    jsr print_char
    PRINT " want -H"
    FAIL 5
    rts
bad4:
    PRINT "4 OAMADDR written at line 239 dot 331 then read on line 240: $"
    lda r4
    jsr print_hex
    PRINT " want $A5"
    FAIL 4
    rts
bad1:
    PRINT "1 INC $2007: $2100-$2104 read back"
    ldx #0
:   lda #' '
    jsr print_char
    lda r1,x
    jsr print_hex
    inx
    cpx #5
    bne :-
    FAIL 1
    rts
bad2:
    PRINT "2 sprite 0 hit edges: got "
    jsr print_hits
    PRINT " want "
    ldx #0
:   lda hit_want,x
    jsr print_char
    inx
    cpx #NCASES
    bne :-
    FAIL 2
    rts

print_hits:
    ldx #0
:   lda hits,x
    jsr print_char
    inx
    cpx #NCASES
    bne :-
    rts

; ---- 3: greyscale timing ------------------------------------------------------------------
; DELAY n: exactly n CPU cycles (n = 0 or n >= 2), X and Y clobbered; its loops must not
; cross a page (the timed code is in one page, asserted below).
.macro PADS p
    .if p = 2
    nop
    .elseif p = 3
    bit z0
    .elseif p = 4
    nop
    nop
    .elseif p = 5
    nop
    bit z0
    .elseif p = 6
    bit z0
    bit z0
    .elseif p = 7
    nop
    nop
    bit z0
    .elseif p <> 0
    .error "PADS: 0 or 2-7 cycles"
    .endif
.endmacro

.macro LOOPX k
    .local l
    ldx #k                  ; 5k + 1 cycles
l:  dex
    bne l
.endmacro

.macro DELAY n
    .local outer, inner
    .if n < 8
    PADS n
    .else
    .if n >= 1290
    ny .set (n - 9) / 1281  ; 1 + 1281 ny cycles
    ldy #ny
outer:
    ldx #255
inner:
    dex
    bne inner
    dey
    bne outer
    r .set n - 1 - 1281 * ny
    .else
    r .set n
    .endif
    .if r >= 1010
    LOOPX 200
    r .set r - 1001
    .endif
    k .set (r - 3) / 5
    LOOPX k
    PADS r - 5 * k - 1
    .endif
.endmacro

K_ON = 13786                ; cycles from the synced read to the $01 write
FRAMES3 = 89342             ; CPU cycles of three NTSC frames with rendering off

grey_timing:
    jsr wait_vblank
    lda #$3F                ; the backdrop red
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #$16
    sta PPUDATA
    lda #$20                ; v away from the palette (its entry would show instead)
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #0
    sta PPUMASK
    jmp timed

.segment "ALIGNED"
; Syncs to the VBlank flag with rendering off: returns at c + 10, where c is the cycle of the
; $2002 read that saw the flag set, the flag's dot being the last before that cycle's first.
vbl_sync:
    jsr wait_vblank         ; the flag seen at read r0; back here at r0 + 9
    DELAY 29753
vs_read:
    bit PPUSTATUS           ; the first read at r0 + 29765: 26-47 dots before the next flag
    bmi vs_done             ; taken: 3 cycles
    DELAY 29772             ; read to read 29781 cycles: a frame (29780 2/3) and a dot
    jmp vs_read
vs_done:
    rts                     ; c + 4

timed:
    jsr vbl_sync            ; c + 10
    DELAY K_ON - 15
grey3:                      ; c + 4 + 3i frames
    lda #$01
    sta PPUMASK             ; c + K_ON
    nop
    nop
    lda #$00
    sta PPUMASK             ; c + K_ON + 10
    DELAY FRAMES3 - 19 - (K_ON - 9)
    DELAY K_ON - 9
    jmp grey3
.assert * - vbl_sync < 256, error, "the timed code must fit in its page"

.align 256
; Check 4: OAMADDR written at dot 331 of line 239 (after the resets of dots 257-320), then
; read through $2004 on line 240: OAM[5] ($A5), not OAM[0] ($F8).
K_LATE = 29663              ; the line 239 dot 331 (330 after a short pre-render line)
oam_late_check:
    jsr vbl_sync            ; c + 10
    lda #$18
    sta PPUMASK             ; c + 15: rendering on
    DELAY K_LATE - 21
    lda #$05
    sta OAMADDR             ; c + K_LATE
    DELAY 40                ; line 240
    lda OAMDATA
    sta r4
    lda #0
    sta PPUMASK
    rts

.assert * - oam_late_check < 256, error, "oam_late_check must fit in its page"
.align 256
; Check 5: OAMADDR written at dot 29 of line 99 (after the resets of line 98's dots 257-320)
; is where line 99's sprite evaluation (for line 100) starts; the hit flag after the frame.
K_EVAL = 13649
oam_eval_check:
    jsr vbl_sync            ; c + 10
    lda #$1E
    sta PPUMASK             ; c + 15
    DELAY K_EVAL - 21
    lda oam_start_at
    sta OAMADDR             ; c + K_EVAL
    jsr wait_vblank         ; V: the hit flag
    lda #'-'
    bvc :+
    lda #'H'
:   ldx #0
    stx PPUMASK
    rts
.assert * - oam_eval_check < 256, error, "oam_eval_check must fit in its page"

.align 256
; Check 6: sprite 0 (line 100, X 100, only that line) over the opaque background; PPUMASK
; mask_a from the frame's start, mask_b written at dot 39 of line 100 (before the pixel at
; X 100 is drawn, dot 101); the hit flag after the frame.
K_MASK = 13766
mask_check:
    jsr vbl_sync            ; c + 10
    lda mask_a
    sta PPUMASK             ; c + 16
    DELAY K_MASK - 23
    lda mask_b
    sta PPUMASK             ; c + K_MASK
    jsr wait_vblank
    lda #'-'
    bvc :+
    lda #'H'
:   ldx #0
    stx PPUMASK
    rts
.assert * - mask_check < 256, error, "mask_check must fit in its page"

nmi:
irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16                 ; tile 0: transparent
    .res 16, $FF            ; tile 1: colour 3 everywhere
    .res 7                  ; tile 2: only the last row opaque (plane 0)
    .byte $FF
    .res 8
    .res 8, $80             ; tile 3: only the first column opaque (plane 0)
    .res 8
    .res 16                 ; tile 4: transparent (the top of an 8x16 sprite)
    .res 16, $FF            ; tile 5: opaque (its lower tile)
    .res 32                 ; tiles 6, 7: transparent
    .byte $FF               ; tile 8: only the first row opaque (plane 0)
    .res 15
