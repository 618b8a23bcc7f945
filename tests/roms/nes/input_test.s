; input_test.s: the controller test of gpuvet (NROM). Once per frame it strobes the
; controller port ($4016: write 1 then 0) and reads eight bits, A first (A, B, Select,
; Start, Up, Down, Left, Right). It expects, in this order: Start alone ($08), then A with
; Right ($81), with nothing or the same buttons held in between; then it reports status 0
; with the message "input ok". Any other combination fails with the byte it read. Without
; input it never finishes (tests/emu/input_nes.txt is the movie that passes it).

.include "common.inc"
NES2_HEADER 0, 2, 1, 0

.segment "ZEROPAGE"
buttons:  .res 1
stage:    .res 1

.segment "CODE"

reset:
    RESET_START
    lda #0
    sta stage
frame:
    jsr wait_vblank
    lda #1                  ; latch the buttons
    sta $4016
    lda #0
    sta $4016
    ldx #8
:   lda $4016
    lsr a                   ; bit 0 into carry
    ror buttons             ; the first bit read ends in bit 0
    dex
    bne :-
    lda buttons
    beq frame               ; nothing held
    ldx stage
    bne stage1
    cmp #$08                ; stage 0: Start alone
    bne wrong
    lda #1
    sta stage
    jmp frame
stage1:
    cmp #$08                ; still Start
    beq frame
    cmp #$81                ; A + Right
    bne wrong
    PRINT "input ok"
    PASS
hang:
    jmp hang
wrong:
    pha
    PRINT "unexpected buttons $"
    pla
    jsr print_hex
    FAIL 1
    jmp hang

nmi:
irq:
    rti

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16
