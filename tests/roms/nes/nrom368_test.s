; nrom368_test.s: gpuvet's test of NROM-368 (mapper 0 with 48 KiB PRG: the image's last
; 46 KiB at $4800-$FFFF, no PRG-RAM, so no status block: the result goes to CPU RAM $0010,
; $A5 when every check passed, else the failed check's number; tests/nes/test_nes_carts.c
; reads it). The checks: 1 the bytes at $4800 and $7FFF are the image's (data there);
; 2 code at $5000 runs (a subroutine there returns a value); 3 $4020-$47FF is open bus (a
; read of $4700 sees $47). Then the test screen, its background colour green on a pass.

.include "common.inc"
.include "boards.inc"

    NES2_BOARD 0, 0, 3, 1, 0, $00, $00
    CHR_DATA 8
RESULT = $10

.segment "LOWCODE"
low_data:
    .byte $3C
    .res $5000 - $4801, $FF
low_sub:                    ; at $5000
    lda #$C3
    rts

.segment "LOWEND"
    .res 15, $FF
    .byte $96               ; $7FFF

.segment "CODE"

reset:
    sei
    cld
    ldx #$FF
    txs
    lda #$40
    sta FRAMECTR
    lda #0
    sta PPUCTRL
    sta PPUMASK
    jsr wait_vblank
    jsr wait_vblank
    lda #1
    sta RESULT
    lda $4800
    cmp #$3C
    bne done
    lda $7FFF
    cmp #$96
    bne done
    lda #2
    sta RESULT
    jsr low_sub
    cmp #$C3
    bne done
    lda #3
    sta RESULT
    lda $4700
    cmp #$47
    bne done
    lda #$A5
    sta RESULT
done:
    jsr screen_setup
    lda #$3F                ; the backdrop: green when passed, red otherwise
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda RESULT
    cmp #$A5
    beq :+
    lda #$16
    bne :++
:   lda #$1A
:   sta PPUDATA
    jsr screen_on
:   jmp :-

nmi:
    inc frame
    rti

irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq
