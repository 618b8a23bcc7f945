; cpu_test.s: the self-checking CPU test of gpuvet (NROM). Three parts:
;   1. control flow and the stack by hand: JMP (ind) with its page-wrap bug, JSR/RTS return
;      addresses, BRK/RTI (B flag, I flag, return address), PHP/PLP/PLA flags, TSX/TXS,
;      every branch taken and not taken, NMI and IRQ pushes (B clear), CLI/SEI latency;
;   2. functional vectors (cpu_tests.inc): each instruction is copied into RAM at $0300 and
;      run from given A X Y P and memory operand; the results must equal the table's;
;   3. cycle counts without a timer: an unrolled loop of the instruction counts its passes
;      between two NMIs (one frame); the count must fall in the table's window.
; Result through the test-ROM protocol at $6000 (status 0 passed; 1 control, 2 functional,
; 3 timing failures, with the details in the message).

.include "common.inc"
NES2_HEADER 0, 2, 1, 0

STUB    = $0300     ; functional tests run from here
TSTUB   = $0500     ; timing loops are built here
TARGET  = $0400     ; absolute memory operand
cnt       = $F0     ; pass counter (2 bytes)
nmi_count = $F2
nmi_start = $F3

.segment "ZEROPAGE"
vp:       .res 2    ; current vector / test
vi:       .res 2    ; its index
v_a:      .res 1    ; vector fields, in table order
v_x:      .res 1
v_y:      .res 1
v_p:      .res 1
v_m:      .res 1
e_a:      .res 1
e_x:      .res 1
e_y:      .res 1
e_p:      .res 1
e_m:      .res 1
tgt:      .res 1
r_a:      .res 1
r_x:      .res 1
r_y:      .res 1
r_p:      .res 1
save_s:   .res 1
nmi_vec:  .res 2
irq_vec:  .res 2
t_entry:  .res 2
t_lo:     .res 2
t_hi:     .res 2
flag:     .res 1
seen_p:   .res 1
seen_pc:  .res 2
src:      .res 2
dst:      .res 2
tp:       .res 2    ; position in time_table

.segment "CODE"

reset:
    RESET_START
    lda #<nmi_count_only
    sta nmi_vec
    lda #>nmi_count_only
    sta nmi_vec+1
    lda #<plain_rti
    sta irq_vec
    lda #>plain_rti
    sta irq_vec+1
    jsr test_control
    jsr test_functional
    jsr test_timing
    PRINT "control flow, 1048 functional vectors and 294 cycle counts passed"
    PASS
hang:
    jmp hang

nmi:
    jmp (nmi_vec)
irq:
    jmp (irq_vec)
nmi_count_only:
    inc nmi_count
plain_rti:
    rti

; ---- 1. control flow ----------------------------------------------------------------

.macro CHECK cond, text
    .local ok
    cond ok
    PRINT text
    jmp control_fail
ok:
.endmacro

; A branch must be taken with flags p (and not taken with p2).
.macro BRANCH op, name, p, p2
    .local taken, not_taken, done
    lda #p
    pha
    plp
    op taken
    PRINT .concat(name, " not taken")
    jmp control_fail
taken:
    lda #p2
    pha
    plp
    op not_taken
    jmp done
not_taken:
    PRINT .concat(name, " taken")
    jmp control_fail
done:
.endmacro

test_control:
    ; JMP ($05FF): the high byte comes from $0500, not $0600
    lda #<jmp_ok
    sta $05FF
    lda #>jmp_ok
    sta $0500
    lda #>jmp_bad
    sta $0600
    .byte $6C, $FF, $05      ; JMP ($05FF), written as bytes: ca65 warns about the page wrap it tests
jmp_back:
    ; JSR pushes the address of its last byte
    jsr jsr_sub
jsr_ret:
    lda seen_pc
    cmp #<(jsr_ret - 1)
    CHECK beq, "JSR pushed a wrong address"
    lda seen_pc+1
    cmp #>(jsr_ret - 1)
    CHECK beq, "JSR pushed a wrong address"
    ; BRK: pushes PC+2 and P with B set, sets I, vectors through $FFFE
    lda #<brk_handler
    sta irq_vec
    lda #>brk_handler
    sta irq_vec+1
    lda #0
    sta flag
    cli
    brk
    .byte $EA
brk_ret:
    sei
    lda flag
    CHECK bne, "BRK did not reach its handler"
    lda seen_p
    and #$34
    cmp #$30
    CHECK beq, "BRK pushed P without B or with I"
    lda seen_pc
    cmp #<brk_ret
    CHECK beq, "BRK pushed a wrong return address"
    lda seen_pc+1
    cmp #>brk_ret
    CHECK beq, "BRK pushed a wrong return address"
    lda r_p
    and #$04
    CHECK bne, "I was not set in the BRK handler"
    ; PHP pushes B and bit 5 set; PLP ignores them
    lda #$00
    pha
    plp
    php
    pla
    cmp #$30
    CHECK beq, "PHP of P=0 did not push $30"
    lda #$FF
    pha
    plp
    php
    pla
    cmp #$FF
    CHECK beq, "PHP of P=$FF did not push $FF"
    ; PLA sets N and Z
    lda #$80
    pha
    lda #$00
    pla
    CHECK bmi, "PLA did not set N"
    lda #$00
    pha
    lda #$01
    pla
    CHECK beq, "PLA did not set Z"
    ; TSX sets flags, TXS does not
    tsx
    stx save_s
    ldx #$00
    txs
    CHECK beq, "TXS changed Z"
    ldx #$01
    tsx
    CHECK beq, "TSX did not set Z"
    ldx save_s
    txs
    ; every branch, taken and not taken
    BRANCH bcs, "BCS", $01, $00
    BRANCH bcc, "BCC", $00, $01
    BRANCH beq, "BEQ", $02, $00
    BRANCH bne, "BNE", $00, $02
    BRANCH bmi, "BMI", $80, $00
    BRANCH bpl, "BPL", $00, $80
    BRANCH bvs, "BVS", $40, $00
    BRANCH bvc, "BVC", $00, $40
    ; NMI pushes P with B clear
    lda #<nmi_handler
    sta nmi_vec
    lda #>nmi_handler
    sta nmi_vec+1
    lda #0
    sta flag
    lda #$80
    sta PPUCTRL
:   lda flag
    beq :-
    lda #0
    sta PPUCTRL
    lda seen_p
    and #$30
    cmp #$20
    CHECK beq, "NMI pushed P with B set"
    lda #<nmi_count_only
    sta nmi_vec
    lda #>nmi_count_only
    sta nmi_vec+1
    ; IRQ from the APU frame counter: P pushed with B clear
    lda #<irq_handler
    sta irq_vec
    lda #>irq_handler
    sta irq_vec+1
    lda #0
    sta flag
    sta FRAMECTR            ; 4-step mode, frame IRQ on
    cli
    ldx #0
    ldy #0
:   lda flag
    bne :+
    dex
    bne :-
    dey
    bne :-
:   sei
    lda flag
    CHECK bne, "no frame IRQ"
    lda seen_p
    and #$30
    cmp #$20
    CHECK beq, "IRQ pushed P with B set"
    ; CLI then SEI with an IRQ pending: the IRQ is taken after SEI, with I set in the
    ; pushed P (the poll happens before CLI and SEI change I)
    lda #0
    sta flag
    sta FRAMECTR            ; restart the sequence: its IRQ comes after 29830 cycles
    ldy #32                 ; wait 40960 cycles with I set: the IRQ pends
:   ldx #0
:   dex
    bne :-
    dey
    bne :--
    cli
    sei
cli_sei_ret:
    nop
    lda flag
    CHECK bne, "IRQ not taken after CLI, SEI"
    lda seen_pc
    cmp #<cli_sei_ret
    CHECK beq, "IRQ after CLI, SEI returned to a wrong address"
    lda seen_pc+1
    cmp #>cli_sei_ret
    CHECK beq, "IRQ after CLI, SEI returned to a wrong address"
    lda seen_p
    and #$04
    CHECK bne, "IRQ after CLI, SEI pushed I clear"
    lda #$40
    sta FRAMECTR
    lda APUSTATUS
    lda #<plain_rti
    sta irq_vec
    lda #>plain_rti
    sta irq_vec+1
    rts

control_fail:
    FAIL 1
    jmp hang

jsr_sub:
    tsx
    lda $0101,x
    sta seen_pc
    lda $0102,x
    sta seen_pc+1
    rts

; Interrupt handlers for the checks: record the pushed P and PC, and P inside.
brk_handler:
    php
    pla
    sta r_p
irq_handler:
    tsx
    lda $0101,x
    sta seen_p
    lda $0102,x
    sta seen_pc
    lda $0103,x
    sta seen_pc+1
    lda #1
    sta flag
    lda APUSTATUS           ; acknowledge a frame IRQ
    rti
nmi_handler:
    pha
    txa
    pha
    tsx
    lda $0103,x
    sta seen_p
    lda #1
    sta flag
    pla
    tax
    pla
    rti

; ---- 2. functional vectors -------------------------------------------------------------

test_functional:
    lda #<func_vectors
    sta vp
    lda #>func_vectors
    sta vp+1
    lda #0
    sta vi
    sta vi+1
    lda #$00                ; ($70,X) with X = 5 -> $0400
    sta $75
    lda #$04
    sta $76
    lda #$FD                ; ($72),Y with Y = 3 -> $0400
    sta $72
    lda #$03
    sta $73
@next:
    ldy #3
    lda (vp),y
    bne @run
    rts
@run:
    tax
    ldy #0
@copy:
    lda (vp),y
    sta STUB,y
    iny
    dex
    bne @copy
    lda #$4C                ; JMP @back after the instruction
    sta STUB,y
    lda #<@back
    sta STUB+1,y
    lda #>@back
    sta STUB+2,y
    ldy #4
@fields:
    lda (vp),y
    sta a:v_a-4,y
    iny
    cpy #15
    bne @fields
    lda v_m
    sta $80
    sta TARGET
    tsx
    stx save_s
    LOAD_REGS
    jmp STUB
@back:
    php
    sta r_a
    stx r_x
    sty r_y
    pla
    sta r_p
    ldx save_s
    txs
    cld
    lda r_a
    cmp e_a
    bne @fail
    lda r_x
    cmp e_x
    bne @fail
    lda r_y
    cmp e_y
    bne @fail
    lda r_p
    cmp e_p
    bne @fail
    jsr expected_m80
    cmp $80
    bne @fail
    jsr expected_m400
    cmp TARGET
    bne @fail
    clc
    lda vp
    adc #15
    sta vp
    bcc :+
    inc vp+1
:   inc vi
    bne :+
    inc vi+1
:   jmp @next
@fail:
    PRINT "opcode "
    ldy #0
    lda (vp),y
    jsr print_hex
    PRINT " vector "
    lda vi+1
    jsr print_hex
    lda vi
    jsr print_hex
    PRINT ": A X Y P m80 m400 "
    lda r_a
    jsr print_hex_sp
    lda r_x
    jsr print_hex_sp
    lda r_y
    jsr print_hex_sp
    lda r_p
    jsr print_hex_sp
    lda $80
    jsr print_hex_sp
    lda TARGET
    jsr print_hex_sp
    PRINT "expected "
    lda e_a
    jsr print_hex_sp
    lda e_x
    jsr print_hex_sp
    lda e_y
    jsr print_hex_sp
    lda e_p
    jsr print_hex_sp
    jsr expected_m80
    jsr print_hex_sp
    jsr expected_m400
    jsr print_hex
    FAIL 2
    jmp hang

expected_m80:
    lda tgt
    cmp #1
    bne :+
    lda e_m
    rts
:   lda v_m
    rts

expected_m400:
    lda tgt
    cmp #2
    bne :+
    lda e_m
    rts
:   lda v_m
    rts

print_hex_sp:
    jsr print_hex
    lda #' '
    jmp print_char

; ---- 3. cycle counts -------------------------------------------------------------------

; Copies the loop tail to dst and points its BEQ at t_entry; dst advances past it.
tail:
    ldy #0
:   lda tail_code,y
    sta (dst),y
    iny
    cpy #15
    bne :-
    lda t_entry             ; BEQ offset = entry - (tail + 12)
    sec
    sbc dst
    sec
    sbc #12
    ldy #11
    sta (dst),y
    rts
tail_code:
    .byte $E6, cnt, $D0, $02, $E6, cnt+1, $A5, nmi_count, $C5, nmi_start, $F0, $00
    .byte $4C, <timing_done, >timing_done

test_timing:
    lda #$00                ; ($60),Y -> $0400 + Y, ($62),Y -> $03FF + Y
    sta $60
    lda #$04
    sta $61
    lda #$FF
    sta $62
    lda #$03
    sta $63
    lda #$00
    sta $75
    lda #$04
    sta $76
    lda #<time_table
    sta tp
    lda #>time_table
    sta tp+1
    lda #$80
    sta PPUCTRL
tt_next:
    ldy #0
    lda (tp),y
    sta vp
    iny
    lda (tp),y
    sta vp+1
    ora vp
    bne tt_run
    lda #0
    sta PPUCTRL
    rts
tt_run:
    ldy #9                  ; kind, A X Y P, lo, hi -> fields
tt_fields:
    lda (vp),y
    sta a:v_a-1,y           ; v_a.. (kind skipped below)
    dey
    bne tt_fields
    ldy #5
    lda (vp),y
    sta t_lo
    iny
    lda (vp),y
    sta t_lo+1
    iny
    lda (vp),y
    sta t_hi
    iny
    lda (vp),y
    sta t_hi+1
    ldy #0
    lda (vp),y
    bne tt_image
    ; kind 0: count copies of the instruction at TSTUB, then the tail
    lda #<TSTUB
    sta dst
    sta t_entry
    lda #>TSTUB
    sta dst+1
    sta t_entry+1
    ldy #15
    lda (vp),y              ; count
    tax
tt_copy_ins:
    ldy #14
    lda (vp),y              ; length
    sta tmp
    ldy #16
    lda (vp),y
    ldy #0
    sta (dst),y
    ldy #17
    lda (vp),y
    ldy #1
    sta (dst),y
    ldy #18
    lda (vp),y
    ldy #2
    sta (dst),y
    clc
    lda dst
    adc tmp
    sta dst
    bcc :+
    inc dst+1
:   dex
    bne tt_copy_ins
    jsr tail
    jmp tt_go
tt_image:
    ldy #14
    lda (vp),y
    sta t_entry
    iny
    lda (vp),y
    sta t_entry+1
    iny
    lda (vp),y
    sta dst
    iny
    lda (vp),y
    sta dst+1
    iny
    lda (vp),y              ; length (< 256)
    tax
    clc
    lda vp
    adc #20
    sta src
    lda vp+1
    adc #0
    sta src+1
    ldy #0
:   lda (src),y
    sta (dst),y
    iny
    dex
    bne :-
tt_go:
    tsx
    stx save_s
    lda nmi_count           ; start right after an NMI
:   cmp nmi_count
    beq :-
    lda nmi_count
    sta nmi_start
    lda #0
    sta cnt
    sta cnt+1
    LOAD_REGS
    jmp (t_entry)
timing_done:
    ldx save_s
    txs
    cld
    sei
    ; t_lo <= cnt <= t_hi
    lda cnt
    cmp t_lo
    lda cnt+1
    sbc t_lo+1
    bcc tt_fail
    lda t_hi
    cmp cnt
    lda t_hi+1
    sbc cnt+1
    bcc tt_fail
    clc
    lda tp
    adc #2
    sta tp
    bcc :+
    inc tp+1
:   jmp tt_next
tt_fail:
    lda #0
    sta PPUCTRL
    PRINT "cycles of "
    ldy #9
:   lda (vp),y
    jsr print_char
    iny
    cpy #14
    bne :-
    PRINT ": "
    lda cnt+1
    jsr print_hex
    lda cnt
    jsr print_hex
    PRINT " passes per frame, expected "
    lda t_lo+1
    jsr print_hex
    lda t_lo
    jsr print_hex
    PRINT ".."
    lda t_hi+1
    jsr print_hex
    lda t_hi
    jsr print_hex
    FAIL 3
    jmp hang

.segment "RODATA"
.include "cpu_tests.inc"

.segment "ALIGNED"
    .res $10
jmp_ok:
    jmp jmp_back
    .res $100 - 3
jmp_bad:
    PRINT "JMP (ind) crossed the page"
    jmp control_fail

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CHARS"
    .res 16, 0
