; dma_wram.s: gpuvet's own SNES ROM for DMA through the WRAM port and from open bus
; (Anomie's register doc: $2180 cannot reach WRAM by DMA: from WRAM to $2180 nothing is
; written and WMADD does not move; from $2180 to WRAM the WRAM gets the open bus and WMADD
; does not move; the A bus does not reach the B-bus registers, so an A address of
; $00:2100 reads open bus. Anomie's timing doc: after the $420B write the CPU fetches the
; next opcode before the DMA begins, so the open bus a DMA starts with is that opcode:
; here NOP, $EA).
; Check 1: 4 bytes from $7E:2000 ($11) to $2180 with WMADD = $7E:3000 ($22 $33 ...):
; $7E:3000-3003 keep $22 $33 $44 $55. Check 2: WMADD did not move ($2180 reads $22, then
; $33). Check 3: 4 bytes from $2180 to $7E:4000 (WMADD $7E:3000): $7E:4000-4003 hold $EA,
; not $22 $33 $44 $55. Check 4: WMADD did not move. Check 5: 4 bytes from $00:2100 (A bus)
; to $2180 (WMADD $7E:5000): $7E:5000-5003 hold $EA. Reports through the status block at
; $70:0000 (status $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET DMA WRAM TEST "
        snes_vectors reset, nmi, nmi

        test  = $10

        snes_start
        status_running          ; the status block: running
        ldx     #0
@fill:  lda     #$11
        sta     f:$7E2000,x
        lda     pat,x
        sta     f:$7E3000,x
        lda     #$99
        sta     f:$7E4000,x
        sta     f:$7E5000,x
        inx
        cpx     #4
        bne     @fill
        ; 1: WRAM -> $2180
        jsr     wm3000
        stz     $4300           ; A -> B, increment, one register
        lda     #$80
        sta     $4301
        ldx     #$2000
        stx     $4302
        lda     #$7E
        sta     $4304
        ldx     #4
        stx     $4305
        lda     #1
        sta     $420B
        nop
        lda     #1
        sta     test
        ldx     #0
@c1:    lda     f:$7E3000,x
        cmp     pat,x
        jne     fail
        inx
        cpx     #4
        bne     @c1
        lda     #2
        sta     test
        lda     $2180
        cmp     #$22
        jne     fail
        lda     $2180
        cmp     #$33
        jne     fail
        ; 3: $2180 -> WRAM
        jsr     wm3000
        lda     #$80            ; B -> A
        sta     $4300
        ldx     #$4000
        stx     $4302
        ldx     #4
        stx     $4305
        lda     #1
        sta     $420B
        nop
        lda     #3
        sta     test
        ldx     #0
@c3:    lda     f:$7E4000,x
        cmp     #$EA
        jne     fail
        inx
        cpx     #4
        bne     @c3
        lda     #4
        sta     test
        lda     $2180
        cmp     #$22
        jne     fail
        ; 5: A bus $00:2100 -> $2180
        ldx     #$5000
        stx     $2181
        stz     $2183
        stz     $4300           ; A -> B
        ldx     #$2100
        stx     $4302
        stz     $4304
        ldx     #4
        stx     $4305
        lda     #1
        sta     $420B
        nop
        lda     #5
        sta     test
        ldx     #0
@c5:    lda     f:$7E5000,x
        cmp     #$EA
        jne     fail
        inx
        cpx     #4
        bne     @c5
        status_end #0, passed_txt
fail:   status_end test, failed_txt

wm3000: ldx     #$3000          ; WMADD = $7E:3000
        stx     $2181
        stz     $2183
        rts

nmi:    rti

pat:         .byte $22, $33, $44, $55
passed_txt:  .byte "All 5 DMA WRAM port checks passed", 0
failed_txt:  .byte "DMA WRAM port check failed (status = its number)", 0
