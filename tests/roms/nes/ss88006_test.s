; ss88006_test.s: gpuvet's test of Jaleco's SS 88006 (mapper 18, nes_board_ss88006.c): 128
; KiB PRG (each 8 KiB bank starts with its tag; code in the last, fixed at $E000), 64 KiB
; CHR-ROM, 8 KiB PRG-RAM for the status ($9002 = 3 first). Every register is a pair of nibble
; registers (low nibble at the even address). The checks:
;   1 PRG: $8000/$8001, $8002/$8003, $9000/$9001 map banks at $8000, $A000, $C000; $E000 the
;     last;
;   2 CHR: $A000-$D003, the eight 1 KiB banks (values above 15), read back through $2007;
;   3 mirroring: $F002 = 0 horizontal, 1 vertical, 2 one-screen lower, 3 upper;
;   4 PRG-RAM: $9002 bit 1 clear ignores writes, bit 0 clear reads open bus;
;   5 the IRQ, counted with a 10-cycle loop: reload N ($E000-$E003), $F000 (reload), $F001
;     = 1 (16 bits, counting): N = 1500 takes 100 loops more than N = 500; in 12-bit mode
;     $A1F4 (its low 12 bits 500) takes as long as 500 in 16-bit mode, in 8-bit mode $1264
;     as long as 100 (the bits above hold), in 4-bit mode $FFF9 comes at once; acknowledged
;     without a reload, the 8-bit counter comes again 256 cycles later (the loops between
;     the two: 21 or 22, the handler taking 44 cycles);
;     counting off ($F001 = 0), none comes.
; Then the test screen: the NMI moves the CHR banks every 32 frames and starts the counter,
; whose IRQ some 110 lines down switches banks 0-3 and the mirroring.

.include "common.inc"
.include "boards.inc"

    NES2_BOARD 18, 0, 8, 8, 0, $07, $00
STATUS_OK = 1
    PRG_TAGS 16
    CHR_DATA 64

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1            ; 0 tests, 2 the period test, 1 the screen
n0:       .res 1
bank:     .res 1
val:      .res 1

.segment "CODE"

; Low and high nibble addresses of the PRG (0-2) and CHR (3-10) registers.
reg_lo:
    .byte $00, $02, $00, $00, $02, $00, $02, $00, $02, $00, $02
reg_hi:
    .byte $80, $80, $90, $A0, $A0, $B0, $B0, $C0, $C0, $D0, $D0

; Register X (0-2 PRG, 3-10 CHR) := A, a nibble at a time.
reg_write:
    sta val
    lda reg_lo,x
    sta tmp
    lda reg_hi,x
    sta tmp+1
    ldy #0
    lda val
    sta (tmp),y
    iny
    lsr a
    lsr a
    lsr a
    lsr a
    sta (tmp),y
    rts

; count_irq: loops of 10 cycles until the IRQ handler records X (A: the count, $FF: none
; in 255).
    COUNT_IRQ

; The reload value := A:X (high:low), the counter reloaded, control Y (bit 0 counting).
start_irq:
    pha
    txa
    sta $E000
    lsr a
    lsr a
    lsr a
    lsr a
    sta $E001
    pla
    sta $E002
    lsr a
    lsr a
    lsr a
    lsr a
    sta $E003
    sta $F000
    sty $F001
    rts

; IRQ_N hi, lo, ctrl: start the counter and count the loops to its IRQ (into A).
.macro IRQ_N hi, lo, ctrl
    lda #hi
    ldx #lo
    ldy #ctrl
    jsr start_irq
    jsr count_irq
.endmacro

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #3                  ; PRG-RAM on, writable, before the status goes there
    sta $9002
    lda #0
    sta mode
    sta $F001
    RESET_START

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    ldx #0
    lda k
    jsr reg_write
    ldx #1
    lda k
    eor #1
    jsr reg_write
    ldx #2
    lda k
    eor #2
    jsr reg_write
    lda $8000
    cmp k
    bne prg_bad
    lda k
    eor #1
    cmp $A000
    bne prg_bad
    lda k
    eor #2
    cmp $C000
    bne prg_bad
    inc k
    lda k
    cmp #13
    bne l_prg
    lda $E000
    EXPECT 15, 1, "$E000 tag "
    jmp chr_tests
prg_bad:
    PRINT "PRG bank "
    lda k
    jsr print_hex
    lda #1
    jmp fail_done

    ; ---- 2: CHR ------------------------------------------------------------------------
chr_tests:
    CHR_REGS_CHECK reg_write, 3, 2

    ; ---- 3: mirroring ------------------------------------------------------------------
    lda #1
    sta $F002               ; vertical
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    NT_PEEK $28
    EXPECT $5A, 3, "vertical $2820 "
    lda #0
    sta $F002               ; horizontal
    NT_PEEK $24
    EXPECT $5A, 3, "horizontal $2420 "
    lda #2
    sta $F002               ; one-screen lower
    NT_PEEK $2C
    EXPECT $5A, 3, "one-screen lower $2C20 "
    lda #3
    sta $F002               ; one-screen upper
    NT_PEEK $2C
    EXPECT $00, 3, "one-screen upper $2C20 "
    lda #1
    sta $F002

    ; ---- 4: PRG-RAM --------------------------------------------------------------------
    lda #$C3
    sta $7F00
    lda #1                  ; read-only
    sta $9002
    lda #$3C
    sta $7F00
    lda $7F00
    sta n0
    lda #0                  ; off: open bus (the address's high byte)
    sta $9002
    lda $7F00
    sta k
    lda #3
    sta $9002
    lda n0
    EXPECT $C3, 4, "RAM write-protected: $7F00 "
    lda k
    EXPECT $7F, 4, "RAM off: $7F00 "

    ; ---- 5: the IRQ ----------------------------------------------------------------------
    IRQ_N >500, <500, 1
    sta n0
    IRQ_N >1500, <1500, 1
    sec
    sbc n0
    EXPECT 100, 5, "IRQ loops, N 1500 - N 500: "
    IRQ_N $A1, $F4, 3       ; 12 bits: $1F4 = 500
    sec
    sbc n0
    EXPECT 0, 5, "12-bit $A1F4 - 16-bit 500: "
    IRQ_N >100, <100, 1
    sta n0
    IRQ_N $12, $64, 5       ; 8 bits: $64 = 100
    sec
    sbc n0
    EXPECT 0, 5, "8-bit $1264 - 16-bit 100: "
    IRQ_N $FF, $F9, 9       ; 4 bits: 9 + 1 cycles
    cmp #2
    bcc :+
    sta n0
    PRINT "4-bit $FFF9: loops "
    lda n0
    jsr print_hex
    lda #5
    jmp fail_done
:   lda #2                  ; the 8-bit counter goes on: the next IRQ 256 cycles on
    sta mode
    IRQ_N $12, $64, 5       ; A: the loops to the second IRQ, k: to the first
    sec
    sbc k
    sta n0
    cmp #21                 ; 256 cycles less the handler's 44 (IRQ entry and RTI in)
    bcc :+
    cmp #23
    bcc :++
:   PRINT "8-bit period: loops "
    lda n0
    jsr print_hex
    lda #5
    jmp fail_done
:   IRQ_N >200, <200, 0
    EXPECT $FF, 5, "IRQ with counting off: loops "

    PRINT "SS 88006 checks passed"
    lda #0
fail_done:
    sta STATUS

    ; ---- the screen ----------------------------------------------------------------------------
    SCREEN_START
:   jmp :-

nmi:
    PUSH_AXY
    inc frame
    lda #1
    sta $F002               ; vertical above the split
    FRAME_BANK              ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 8
    SET_CHR_BANKS reg_write, 3, 8, 0
    lda #>15000             ; the split: an IRQ 15000 cycles from here
    ldx #<15000
    ldy #1
    jsr start_irq
    POP_AXY_RTI

irq:
    pha
    lda mode
    bne l_other
    stx irq_x               ; a test: record the loop count, counting off
    lda #0
    sta $F001
    lda #1
    sta irq_hit
    pla
    rti
l_other:
    cmp #2
    bne l_screen
    lda #5                  ; the period test's first IRQ: acknowledged, counting on
    sta $F001               ; (no reload); its loops into k, the next one ends the count
    stx k
    lda #0
    sta mode
    pla
    rti
l_screen:
    txa
    pha
    tya
    pha
    lda #0
    sta $F001               ; acknowledged, counting off until the next NMI
    lda frame
    and #$40                ; one-screen lower or upper below the split
    asl a
    rol a
    rol a
    ora #2
    sta $F002
    SET_CHR_BANKS reg_write, 3, 4, $20 ; banks 0-3 move on by 32
    POP_AXY_RTI

.segment "VECTORS"
    .word nmi, reset, irq
