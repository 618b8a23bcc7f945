; cpu_dpwrap.s: gpuvet's own SNES test ROM for the 65816's direct-page pointer reads in
; emulation mode. The old (6502) direct-page modes wrap within the page when E = 1 and
; DL = 0, whatever DH (the SFC development wiki's "Instruction Wrapping": a direct-page
; word read in emulation mode wraps within the page when DL = 0 and carries when DL != 0;
; (d), (d),Y and (d,X) load their pointer that way). So with D = $0200 the pointer of
; LDA ($FF,X) (X = 0), LDA ($FF) and LDA ($FF),Y (Y = 0) is read from $02FF and $0200
; (pointer $1000: $A1), not $02FF and $0300 (pointer $1800: $B2). Checks 1-3: those three
; with D = $0200; 4: ($FE,X) with D = $0201 (DL != 0: carries to $0300, $B2); 5: ($FF,X)
; with D = $0000 (wraps to $0000, $A1); 6: ($FE) with D = $0201 ($B2). The status block at
; $70:0000 (`gpuvet run --test-rom`) holds 0 or the first failed check.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET CPU DP WRAP"
        snes_vectors reset, nmi, irq

        res   = $0400           ; 6 bytes: what each case loaded
        test  = $0410           ; the failed check (absolute: D moves)

.macro case n, dp, insn
        pea     dp
        pld
        insn
        sta     res + n - 1
.endmacro

        snes_start
        status_running
        lda     #$00
        sta     $02FF           ; pointer low bytes
        sta     $00FF
        lda     #$10            ; wrapped high bytes: pointer $1000
        sta     $0200
        sta     $0000
        lda     #$18            ; carried high bytes: pointer $1800
        sta     $0300
        sta     $0100
        lda     #$A1
        sta     $1000
        lda     #$B2
        sta     $1800
        ldx     #$0180          ; a stack away from the pointers (page 1 in emulation mode)
        txs
        ldx     #0
        ldy     #0
        sec
        xce                     ; emulation mode: a8, i8, X = Y = 0
        .a8
        .i8
        case    1, $0200, {lda ($FF,x)}
        case    2, $0200, {lda ($FF)}
        case    3, $0200, {lda ($FF),y}
        case    4, $0201, {lda ($FE,x)}
        case    5, $0000, {lda ($FF,x)}
        case    6, $0201, {lda ($FE)}
        clc
        xce                     ; native again
        rep     #$10
        .i16
        pea     $0000
        pld
        ldx     #0
chk:   lda     res,x
        cmp     want,x
        bne     bad
        inx
        cpx     #6
        bne     chk
        status_end #0, passed_txt
bad:   inx
        txa
        sta     test
        status_end test, failed_txt

nmi:    rti
irq:    rti

        .segment "RODATA"
want:   .byte   $A1, $A1, $A1, $B2, $A1, $B2
passed_txt: .byte "dp pointers wrap in emulation mode when DL = 0", 0
failed_txt: .byte "a dp pointer read wrapped or carried wrongly", 0
