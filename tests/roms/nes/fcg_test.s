; fcg_test.s: gpuvet's test of Bandai's FCG boards (nes_board_fcg.c), built once per board
; (tests/nes/build_roms.sh passes BOARD): 164 the FCG-1/2 (16.4: registers at $6000-$7FFF, the
; counter written directly), 165 the LZ93D50 with a 24C02 EEPROM (16.5: registers at $8000,
; a latch for the counter), 159 the LZ93D50 with Xicor's X24C01, 153 the LZ93D50 with 8 KiB
; of RAM and 512 KiB PRG. PRG is in 16 KiB banks, each starting with its tag; CHR-ROM is
; 128 KiB whose 1 KiB bank b starts with the byte b (153: 8 KiB CHR-RAM). The checks:
;   1 PRG: register 8 maps bank k at $8000, $C000 holds the last (153: bit 0 of registers 0-3
;     is PRG A18: banks 16-31);
;   2 CHR: the eight 1 KiB registers read back through $2007 (153: RAM $800D bit 5 enables
;     $6000-$7FFF, open bus without);
;   3 mirroring: register 9 = 0 vertical, 1 horizontal, 2 one-screen lower, 3 upper;
;   4 the IRQ (register A bit 0 counts, B-C the counter), counted with a 10-cycle loop:
;     N = 1500 takes 100 loops more than N = 500; enabling a counter of 0 raises it at once;
;     counting off, none comes; B-C written while counting from 1500: the LZ93D50's latch
;     leaves the count alone (over 120 loops), the FCG-1/2's counter restarts from 200 (at
;     most 30); the FCG-1/2's counter goes on from $FFFF after 0: the next IRQ 65536 cycles
;     later (a 14-cycle loop: $1200-$12FF passes);
;   5 the EEPROM (165, 159) through $800D (bit 5 SCL, 6 SDA, 7 SDA released) and $6000 bit
;     4: a 4-byte page write that wraps inside its page (24C02: 8-byte pages from $0E: $0E,
;     $0F, $08, $09; X24C01, whose first byte is the 7-bit address and the read bit: 4-byte
;     pages from $12: $12, $13, $10, $11), a random read, a sequential read across the page,
;     and (24C02) no acknowledge for another device code.
; Before writing, the EEPROM's $40-$43 are read: "GV" $16 $59 there (a battery file of an
; earlier run) puts $5A in $0201 (else 0); then they are written. The result goes to $0200
; ($A5 passed, else the failed check's number); the 153 has the status block at $6000 too
; (the others have no RAM there: test_nes_carts.c reads $0200 and $0201). Then the test
; screen: the NMI moves the CHR banks every 32 frames and starts the counter, whose IRQ
; some 110 lines down switches banks 0-3 and the mirroring for the rest of the picture.

.include "common.inc"
.include "boards.inc"
.import __RAMCODE_LOAD__, __RAMCODE_RUN__, __RAMCODE_SIZE__

RESULT = $0200
RESTORED = $0201

.if BOARD = 164
    NES2_BOARD 16, 4, 16, 16, 1, $00, $00
    BASE = $6000
.elseif BOARD = 165
    NES2_BOARD 16, 5, 16, 16, 1, $20, $00
    BASE = $8000
    EEPROM = 1
.elseif BOARD = 159
    NES2_BOARD 159, 0, 16, 16, 1, $10, $00
    BASE = $8000
    EEPROM = 1
.else
    NES2_BOARD 153, 0, 32, 0, 1, $70, $07
    BASE = $8000
.endif
.ifndef EEPROM
    EEPROM = 0
.endif
LZ = BASE = $8000
STATUS_OK = BOARD = 153
EE = BASE + 13              ; the EEPROM's lines (LZ93D50)

.if BOARD = 153
    PRG_TAGS 32
.else
    PRG_TAGS 16
    CHR_FAST 128
.endif

.segment "ZEROPAGE"
k:        .res 1
irq_x:    .res 1
irq_hit:  .res 1
mode:     .res 1            ; 0 tests, 2 the wrap test, 1 the screen
n0:       .res 1
bank:     .res 1
c_lo:     .res 1
c_hi:     .res 1
ee_b:     .res 1

.segment "CODE"

; count_irq: loops of 10 cycles until the IRQ handler records X (A: the count, $FF: none
; in 255).
    COUNT_IRQ

; Counter (FCG-1/2) or latch (LZ93D50) := A:X (high:low), then counting on (the LZ93D50
; copies the latch): the IRQ comes N cycles after the control write.
start_irq:
    stx BASE + 11
    sta BASE + 12
    lda #1
    sta BASE + 10
    rts

.if EEPROM
; ---- I2C through $800D --------------------------------------------------------------------
; A start: SDA falls while SCL is high.
i2c_start:
    lda #$40
    sta EE
    lda #$60
    sta EE
    lda #$20
    sta EE
    lda #$00
    sta EE
    rts

; A stop: SDA rises while SCL is high.
i2c_stop:
    lda #$00
    sta EE
    lda #$20
    sta EE
    lda #$60
    sta EE
    lda #$40
    sta EE
    rts

; Sends A, most significant bit first; A = the acknowledge ($00 acknowledged, $10 not).
i2c_send:
    sta ee_b
    ldx #8
@bit:
    lda #$00
    asl ee_b
    bcc :+
    lda #$40
:   sta EE                  ; SCL low, SDA the bit
    ora #$20
    sta EE                  ; SCL high
    and #$40
    sta EE                  ; SCL low
    dex
    bne @bit
    lda #$C0                ; released for the EEPROM's acknowledge
    sta EE
    lda #$E0
    sta EE
    lda $6000
    and #$10
    tax
    lda #$C0
    sta EE
    txa
    rts

; Receives a byte into A; carry clear: acknowledged (more follow), set: the last.
i2c_recv:
    php
    ldx #8
@bit:
    lda #$E0                ; SCL high, SDA released
    sta EE
    lda $6000
    and #$10
    cmp #$10
    rol ee_b
    lda #$C0
    sta EE
    dex
    bne @bit
    plp
    lda #$00
    bcc :+
    lda #$40
:   sta EE                  ; the master's acknowledge (SDA low) or not
    ora #$20
    sta EE
    and #$40
    sta EE
    lda ee_b
    rts

.if BOARD = 159
; The X24C01's command: the 7-bit word address A and the read bit C.
ee_cmd:
    rol a
    pha
    jsr i2c_start
    pla
    jmp i2c_send
.else
; The 24C02's command: a start and the device code with the read bit C; a write first sends
; the word address A.
ee_cmd:
    bcs :+
    pha
    jsr i2c_start
    lda #$A0
    jsr i2c_send
    pla
    jmp i2c_send
:   pha                     ; a read from address A: the address written first
    jsr i2c_start
    lda #$A0
    jsr i2c_send
    pla
    jsr i2c_send
    jsr i2c_start
    lda #$A1
    jmp i2c_send
.endif

; Reads the byte at EEPROM address A into A.
ee_read1:
    sec
    jsr ee_cmd
    sec
    jsr i2c_recv
    pha
    jsr i2c_stop
    pla
    rts

; Writes the four bytes at (tmp) from EEPROM address A on (one page write).
ee_write4:
    clc
    jsr ee_cmd
    ldy #0
:   lda (tmp),y
    sty n0
    jsr i2c_send
    ldy n0
    iny
    cpy #4
    bne :-
    jmp i2c_stop

; Reads four bytes from EEPROM address A on into ee_got (one sequential read).
ee_read4:
    sec
    jsr ee_cmd
    ldy #0
:   sty n0
    cpy #3                  ; the last one is not acknowledged
    jsr i2c_recv
    ldy n0
    sta ee_got,y
    iny
    cpy #4
    bne :-
    jmp i2c_stop

ee_sig:  .byte "GV", $16, $59
ee_data: .byte $11, $22, $33, $44
.endif

reset:
    sei
    cld
    ldx #$FF
    txs
    ldx #0                  ; the RAM code to $0300
:   lda __RAMCODE_LOAD__,x
    sta __RAMCODE_RUN__,x
    inx
    cpx #<__RAMCODE_SIZE__
    bne :-
    lda #$40
    sta FRAMECTR
    lda #0
    sta PPUCTRL
    sta PPUMASK
    sta RESULT
    sta RESTORED
    sta mode
    sta BASE + 10           ; counting off
.if BOARD = 153
    lda #$20                ; the RAM on before the status goes there
    sta EE
.endif
    jsr wait_vblank
    jsr wait_vblank
.if STATUS_OK
    jsr report_start
.endif

    ; ---- 1: PRG ------------------------------------------------------------------------
    lda #0
    sta k
l_prg:
    lda k
    sta BASE + 8
    lda $8000
    cmp k
    beq :+
    lda #1
    jmp fail_done
:   inc k
    lda k
    cmp #15
    bne l_prg
    lda $C000
    CHECK 15, 1, "$C000 tag "
.if BOARD = 153
    jsr outer_probe         ; from RAM: the code's own bank leaves $C000 meanwhile
    lda n0
    CHECK 21, 1, "outer bank $8000 tag "
    lda k
    CHECK 31, 1, "outer bank $C000 tag "
.endif

    ; ---- 2: CHR (153: the RAM's enable) ---------------------------------------------------
.if BOARD = 153
    lda #$C3
    sta $6010
    lda #$00                ; RAM off: open bus (the address's high byte)
    sta EE
    lda $6010
    sta n0
    lda #$20
    sta EE
    lda n0
    CHECK $60, 2, "RAM off: $6010 "
    lda $6010
    CHECK $C3, 2, "RAM on: $6010 "
.else
    ldx #0
l_chr:
    txa
    asl a
    asl a
    clc
    adc #5                  ; register i := 4i + 5
    sta BASE,x
    stx k
    txa
    asl a
    asl a
    tax
    ldy #$00
    jsr chr_peek            ; PPU $0400 i
    sta n0
    lda k
    asl a
    asl a
    clc
    adc #5
    cmp n0
    beq :+
    lda #2
    jmp fail_done
:   ldx k
    inx
    cpx #8
    bne l_chr
.endif

    ; ---- 3: mirroring ------------------------------------------------------------------
    lda #0
    sta BASE + 9            ; vertical
    lda #$5A
    ldx #$20
    ldy #$20
    jsr chr_poke
    NT_PEEK $28
    CHECK $5A, 3, "vertical $2820 "
    lda #1
    sta BASE + 9            ; horizontal
    NT_PEEK $24
    CHECK $5A, 3, "horizontal $2420 "
    lda #2
    sta BASE + 9            ; one-screen lower
    NT_PEEK $2C
    CHECK $5A, 3, "one-screen lower $2C20 "
    lda #3
    sta BASE + 9            ; one-screen upper: $2000's write is on the other page
    NT_PEEK $2C
    CHECK $00, 3, "one-screen upper $2C20 "
    lda #0
    sta BASE + 9

    ; ---- 4: the IRQ ----------------------------------------------------------------------
    IRQ_100_LOOPS 4
    lda #0
    tax
    jsr start_irq           ; a counter of 0 enabled: at once
    jsr count_irq
    cmp #2
    bcc :+
    lda #4
    jmp fail_done
:   lda #>200
    ldx #<200
    jsr start_irq
    lda #0
    sta BASE + 10           ; counting off
    jsr count_irq
    CHECK $FF, 4, "IRQ with counting off: loops "
    lda #>1500
    ldx #<1500
    jsr start_irq
    lda #<200               ; while counting: the latch (LZ93D50) or the counter (FCG-1/2)
    sta BASE + 11
    lda #>200
    sta BASE + 12
    jsr count_irq
.if LZ
    cmp #120
    bcs :+
.else
    cmp #31
    bcc :+
.endif
    lda #4
    jmp fail_done
:
.if !LZ
    ; the counter goes on from $FFFF: 65536 cycles to the next IRQ
    lda #2
    sta mode
    sta irq_hit             ; the handler counts the two IRQs down
    lda #0
    sta c_lo
    sta c_hi
    sta BASE + 11
    sta BASE + 12
    lda #1
    sta BASE + 10           ; 0 enabled: an IRQ at once, acknowledged by the handler
    cli
l_wrap:
    inc c_lo
    bne :+
    inc c_hi
:   lda irq_hit
    bne l_wrap
    sei
    lda #0
    sta BASE + 10
    sta mode
    lda c_hi
    CHECK $12, 4, "IRQ wrap: loops (high byte) "
.endif

    ; ---- 5: the EEPROM -------------------------------------------------------------------
.if EEPROM
    lda #0                  ; an earlier run's signature at $40-$43? (in the same cycles
    sta n0                  ; either way, so the frames do not depend on the battery file)
    ldx #0
:   stx k
    txa
    clc
    adc #$40
    jsr ee_read1
    ldx k
    eor ee_sig,x
    ora n0
    sta n0
    inx
    cpx #4
    bne :-
    lda n0
    cmp #1                  ; carry: a difference
    lda #0
    adc #$FF                ; $FF when equal, else 0
    and #$5A
    sta RESTORED
    lda #<ee_sig
    sta tmp
    lda #>ee_sig
    sta tmp+1
    lda #$40
    jsr ee_write4
    lda #<ee_data
    sta tmp
    lda #>ee_data
    sta tmp+1
.if BOARD = 159
    lda #$12                ; 4-byte pages: $12, $13, $10, $11
    jsr ee_write4
    lda #$10
    jsr ee_read1
    CHECK $33, 5, "page wrap $10 "
    lda #$12
    jsr ee_read1
    CHECK $11, 5, "$12 "
    lda #$14
    jsr ee_read1
    sta k
    lda #$13                ; sequential: $13, $14, ... across the page
    jsr ee_read4
    lda ee_got
    CHECK $22, 5, "sequential $13 "
    lda ee_got+1
    sec
    sbc k
    CHECK 0, 5, "sequential $14 differs: "
.else
    lda #$0E                ; 8-byte pages: $0E, $0F, $08, $09
    jsr ee_write4
    lda #$08
    jsr ee_read1
    CHECK $33, 5, "page wrap $08 "
    lda #$0F
    jsr ee_read1
    CHECK $22, 5, "$0F "
    lda #$10
    jsr ee_read1
    sta k
    lda #$0F                ; sequential: $0F, $10, ... across the page
    jsr ee_read4
    lda ee_got
    CHECK $22, 5, "sequential $0F "
    lda ee_got+1
    sec
    sbc k
    CHECK 0, 5, "sequential $10 differs: "
    jsr i2c_start           ; another device code: no acknowledge
    lda #$B0
    jsr i2c_send
    pha
    jsr i2c_stop
    pla
    CHECK $10, 5, "device $B0 acknowledged "
.endif
    lda #$40
    jsr ee_read1
    CHECK 'G', 5, "signature $40 "
.endif

.if STATUS_OK
    PRINT "Bandai FCG checks passed"
.endif
    lda #0
fail_done:
.if STATUS_OK
    sta STATUS
.endif
    cmp #0
    bne :+
    lda #$A5
:   sta RESULT

    ; ---- the screen ----------------------------------------------------------------------------
    jsr wait_vblank
    lda #0
    sta PPUMASK
.if BOARD = 153
    lda #0                  ; CHR-RAM: the eight banks of CHR_DATA
    sta k
:   lda k
    asl a
    asl a
    tax
    lda k
    jsr chr_fill
    inc k
    lda k
    cmp #8
    bne :-
.endif
    jsr screen_setup
    lda #1
    sta mode
    cli
    jsr screen_on
:   jmp :-

nmi:
    PUSH_AXY
    inc frame
    lda #0
    sta BASE + 9            ; vertical above the split
.if BOARD <> 153
    lda frame               ; CHR banks 8j .. 8j + 7, j = frame / 32 mod 16
    lsr a
    lsr a
    and #$78
    sta bank
    ldx #0
:   txa
    clc
    adc bank
    sta BASE,x
    inx
    cpx #8
    bne :-
.endif
    lda #>15000             ; the split: an IRQ 15000 cycles from here
    ldx #<15000
    jsr start_irq
    POP_AXY_RTI

irq:
    pha
    lda mode
    bne l_other
    stx irq_x               ; a test: record the loop count, counting off
    lda #0
    sta BASE + 10
    lda #1
    sta irq_hit
    pla
    rti
l_other:
    cmp #2
    bne l_screen
    lda #1                  ; the wrap test: acknowledged, counting on (the FCG-1/2 keeps the count)
    sta BASE + 10
    dec irq_hit
    pla
    rti
l_screen:
    txa
    pha
    lda #0
    sta BASE + 10           ; acknowledged, counting off until the next NMI
    lda frame
    and #$40                ; one-screen lower or upper below the split
    asl a
    rol a
    rol a
    ora #2
    sta BASE + 9
.if BOARD <> 153
    ldx #0                  ; banks 0-3 move on by 64
:   txa
    clc
    adc bank
    eor #$40
    sta BASE,x
    inx
    cpx #4
    bne :-
.endif
    pla
    tax
    pla
    rti

.segment "BSS"
ee_got: .res 4

.segment "RAMCODE"
; 153: PRG A18 set (bit 0 of registers 0-3), bank 5 at $8000: the tags at $8000 and $C000
; into n0 and k; A18 clear again. Run from RAM. (disc16.cfg's boards leave it unused.)
outer_probe:
.if BOARD = 153
    lda #1
    sta BASE + 0
    sta BASE + 1
    sta BASE + 2
    sta BASE + 3
    lda #5
    sta BASE + 8
    lda $8000
    sta n0
    lda $C000
    sta k
    lda #0
    sta BASE + 0
    sta BASE + 1
    sta BASE + 2
    sta BASE + 3
.endif
    rts

.segment "VECTORS"
    .word nmi, reset, irq
