; acc2_test.s: gpuvet's NES accuracy checks of issue 37 (NROM), one small check per
; behaviour, expected values from the NESdev wiki. Run with a reset pressed after the first
; part (`gpuvet run nes acc2_test.nes --test-rom --reset-at 20`): the first boot runs checks
; 1-3 and waits for the reset; the boot after it runs check 4 and reports. A failing check
; writes its name into the message and the status is its number; all passed: status 0.
;   1 reading $4015 drives only the CPU's internal bus: a page-crossing LDA $40FF,X (X = $16)
;     whose dummy read hits $4015 leaves open bus as it was, so its real read of $4115
;     (nothing there on NROM) gets $40, the operand's high byte, not $4015's value ($01:
;     pulse 1's length counter running);
;   2 the APU registers answer only while the 6502's own address is in $4000-$401F: an OAM
;     DMA from page $40 reads open bus there (the opcode after STA $4014, $EA), not $4015's
;     status ($01 | bit 5 of open bus) nor the pads ($E0 | the bit);
;   3 the pad sees $4016's bit 0 (OUT0) only at the get-to-put transition: a DEC $4016
;     whose dummy write ($41) is on a get cycle pulses the strobe for one cycle (the pad
;     reloads: the next read is A, 0), one whose dummy write is on a put cycle is
;     overwritten before the pad sees it (the next read still past the 8 buttons, 1);
;   5 SHY abs,X stores Y & (high byte + 1), except when a DMA halts its read cycle before
;     the write: then Y itself. The DMC's load DMA after a $4015 write made on a get cycle
;     halts the 4th read cycle after the write (the NESdev wiki's "DMA"), SHY's dummy read
;     when SHY follows at once; one made on a put cycle halts the 3rd (SHY's high operand
;     byte). Four runs, 0, 2, 3 and 5 cycles after an OAM DMA (which leaves the CPU on a get
;     cycle): Y = $FF, base $0200, X = $10: at least one must store $FF and one $03;
;   6 $2004 reads during rendering return the OAM bus of sprite evaluation: synced to a
;     sprite 0 hit at line $21 (sprite 0 at Y $20, X $80, the background opaque), a read at
;     about dot 30 of line $22 gets $FF (secondary OAM being cleared), one at about dot 288
;     of line $43 the secondary OAM byte being fetched ($43: sprites 1-8 have every byte $43,
;     so all 8 slots are theirs), one at about dot 330 of that line secondary OAM's first
;     byte ($43); OAM[0] ($20) is what OAMADDR points at. The reads' cycle distances from the
;     detecting $2002 read (on average 10 dots after the hit) are in the code below;
;   4 after a reset the PPU ignores PPUCTRL writes until the end of its first VBlank (its
;     internal reset signal): $80 written at once raises no NMI in the next 2 frames; the
;     same write after two VBlanks does (the check's control).

.include "common.inc"
NES2_HEADER 0, 2, 1, 0

JOY1 = $4016
MAGIC = $A5

; SH_RUN pre, dest: check 5's run: the DMC idle, an OAM DMA (the CPU then on a get cycle), pre
; cycles, the DMC started ($4015 = $10: a load DMA), SHY $0200,X at once; dest = what it stored.
.macro SH_RUN pre, dest
    jsr dmc_idle
    lda #0
    sta $0210
    ldy #$FF
    ldx #$10
    lda #2
    sta OAMDMA
    .if pre = 2
    nop
    .elseif pre = 3
    bit z10
    .elseif pre = 5
    bit z10
    nop
    .endif
    lda #$10                ; 2 cycles, then the write on the 4th of STA
    sta APUSTATUS
    .byte $9C, $00, $02     ; SHY $0200,X
    lda $0210
    sta dest
.endmacro

.segment "ZEROPAGE"
z10:    .res 1
nmis:   .res 1
r1:     .res 1      ; check 1's value read
r2a:    .res 1      ; check 2: OAM[$15], OAM[$17]
r2b:    .res 1
r3a:    .res 1      ; check 3: the pad bit after the get-cycle pulse, after the put-cycle one
r3b:    .res 1
r5:     .res 4      ; check 5: what each run's SHY stored
r6:     .res 3      ; check 6: the three $2004 reads

.segment "BSS"
marker: .res 1      ; MAGIC: the first part ran (CPU RAM survives the reset)

.segment "CODE"

reset:
    sei
    cld
    ldx #$FF
    txs
    lda marker
    cmp #MAGIC
    bne first_boot
    jmp after_reset

first_boot:
    RESET_START
    lda #$10
    sta z10
    lda #0
    sta nmis

    ; 1: pulse 1's length counter running ($4015 = $01), frame IRQ off and clear
    lda #$01
    sta APUSTATUS
    lda #$08
    sta $4003
    ldx #$16
    lda $40FF,x             ; dummy read $4015, then $4115: open bus
    sta r1

    ; 2: OAM DMA from page $40 with the status still $01
    lda #$40
    sta OAMDMA
    nop                     ; $EA: the opcode the halted CPU keeps reading
    lda #$15
    sta OAMADDR
    lda OAMDATA
    sta r2a
    lda #$17
    sta OAMADDR
    lda OAMDATA
    sta r2b

    ; 3: the pad shifted past its 8 buttons (reads give 1), then DEC $4016 with its dummy
    ; write on a get cycle: after OAM DMA the CPU resumes on a get cycle (cycle 0), so DEC's
    ; cycles are 0-5 and its dummy write (cycle 4) is on a get cycle
    jsr pad_out
    lda #2
    sta OAMDMA
    dec JOY1                ; reads $41, writes $41 (cycle 4), then $40 (cycle 5)
    lda JOY1
    and #1
    sta r3a
    ; and with 3 cycles before it: the dummy write on cycle 7, a put cycle
    jsr pad_out
    lda #2
    sta OAMDMA
    bit z10
    dec JOY1
    lda JOY1
    and #1
    sta r3b

    ; 5: the DMC set for one byte at $C000, rate $F
    lda #$0F
    sta $4010
    lda #0
    sta $4012
    sta $4013
    SH_RUN 0, r5
    SH_RUN 2, r5+1
    SH_RUN 3, r5+2
    SH_RUN 5, r5+3

    jsr oam_bus_check

    lda #MAGIC
    sta marker
wait_reset:
    jmp wait_reset          ; the reset comes from outside (--reset-at)

; Waits about 2,000 cycles: a 1-byte DMC sample started before has been fetched and played.
dmc_idle:
    ldx #0
:   nop
    dex
    bne :-
    rts

; Check 6 (the header): OAM from $0200 by DMA, the background all tile 1, rendering on, then
; three $2004 reads timed from the sprite 0 hit; rendering off again at the next VBlank.
; In its own page, so that no branch of the timed loops crosses a page (a cycle more).
.segment "ALIGNED"
oam_bus_check:
    ldx #0
:   lda #$F0                ; sprites 9-63 off the screen
    sta $0200,x
    inx
    bne :-
    lda #$20                ; sprite 0: Y $20, tile 1, X $80
    sta $0200
    lda #1
    sta $0201
    lda #0
    sta $0202
    lda #$80
    sta $0203
    ldx #4
    lda #$43                ; sprites 1-8: every byte $43
:   sta $0200,x
    inx
    cpx #36
    bne :-
    jsr wait_vblank
    lda #$20
    sta PPUADDR
    lda #0
    sta PPUADDR
    ldx #0                  ; nametable 0: 1024 bytes of tile 1 (attributes too)
    ldy #4
    lda #1
:   sta PPUDATA
    inx
    bne :-
    dey
    bne :-
    lda #0
    sta OAMADDR
    lda #2
    sta OAMDMA
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    sta PPUCTRL             ; 8x8 sprites, no NMI
    lda #$1E
    sta PPUMASK
:   bit PPUSTATUS           ; the last frame's hit flag clears at the pre-render line
    bvs :-
:   bit PPUSTATUS           ; T: the read that sees the hit (line $21, about dot 139)
    bvc :-                  ; T+1, T+2
    ldx #14                 ; 71 cycles: T+3 .. T+73
:   dex
    bne :-
    lda OAMDATA             ; read at T+77: line $22, about dot 30
    sta r6                  ; T+78 .. T+80
    ldy #10                 ; 3811 cycles
@outer:
    ldx #75
:   dex
    bne :-
    dey
    bne @outer
    bit z10                 ; 19 cycles
    .repeat 8
    nop
    .endrepeat
    lda OAMDATA             ; read at T+3914: line $43, about dot 288
    sta r6+1
    bit z10                 ; 7 cycles
    nop
    nop
    lda OAMDATA             ; read at T+3921+7: line $43, about dot 330
    sta r6+2
    jsr wait_vblank
    lda #0
    sta PPUMASK
    rts
.assert * - oam_bus_check < 256, error, "oam_bus_check must fit in its page"

.segment "CODE"

; Appends check 5's four stored values to the message.
print_r5:
    ldx #0
:   lda r5,x
    jsr print_hex
    lda #' '
    jsr print_char
    inx
    cpx #4
    bne :-
    rts

; Strobes the pad and reads it 9 times: the next reads give 1.
pad_out:
    lda #1
    sta JOY1
    lda #0
    sta JOY1
    ldx #9
:   lda JOY1
    dex
    bne :-
    rts

after_reset:
    lda #$80
    sta PPUCTRL             ; lost: the PPU's reset signal is still on
    lda #0
    sta nmis
    jsr wait_vblank
    jsr wait_vblank
    lda nmis
    pha                     ; NMIs with the write lost (0)
    lda #$80
    sta PPUCTRL             ; after the first VBlank's end: NMIs on
    jsr wait_vblank
    jsr wait_vblank
    lda #0
    sta PPUCTRL
    jsr report_start

    lda r1
    cmp #$40
    beq :+
    PRINT "1 $4015 drove open bus: $"
    lda r1
    jsr print_hex
    FAIL 1
    jmp done
:   lda r2a
    cmp #$EA
    bne bad2
    lda r2b
    cmp #$EA
    beq :+
bad2:
    PRINT "2 OAM DMA of $4015/$4017 from page $40: $"
    lda r2a
    jsr print_hex
    PRINT " $"
    lda r2b
    jsr print_hex
    FAIL 2
    jmp done
:   lda r3a
    bne bad3
    lda r3b
    cmp #1
    beq :+
bad3:
    PRINT "3 one-cycle strobe: pad bit after get/put pulse $"
    lda r3a
    jsr print_hex
    PRINT " $"
    lda r3b
    jsr print_hex
    FAIL 3
    jmp done
:   lda r6                  ; 6
    cmp #$FF
    bne bad6
    lda r6+1
    cmp #$43
    bne bad6
    lda r6+2
    cmp #$43
    beq :+
bad6:
    PRINT "6 $2004 during rendering: $"
    lda r6
    jsr print_hex
    PRINT " $"
    lda r6+1
    jsr print_hex
    PRINT " $"
    lda r6+2
    jsr print_hex
    FAIL 6
    jmp done
:   ldx #0                  ; 5: the runs that stored $FF, and $03
    ldy #0
    lda #3
:   pha
    tax
    lda r5,x
    cmp #$FF
    bne :+
    iny
:   pla
    sec
    sbc #1
    bpl :--
    cpy #0
    beq bad5
    cpy #4
    beq bad5
    ldx #3
:   lda r5,x
    cmp #$FF
    beq :+
    cmp #$03
    bne bad5
:   dex
    bpl :--
    jmp ok5
bad5:
    PRINT "5 SHY with a DMA before its write: stored $"
    jsr print_r5
    FAIL 5
    jmp done
ok5:
    pla
    beq :+
    pha
    PRINT "4 PPUCTRL write during the PPU reset kept: NMIs $"
    pla
    jsr print_hex
    FAIL 4
    jmp done
:   lda nmis
    bne :+
    PRINT "4 PPUCTRL write after the reset lost: no NMI"
    FAIL 4
    jmp done
:   PRINT "accuracy checks 2 passed; SHY runs $"
    jsr print_r5
    PASS
done:
    jmp done

nmi:
    inc nmis
    rti
irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16                 ; tile 0: transparent
    .res 16, $FF            ; tile 1: colour 3 everywhere
