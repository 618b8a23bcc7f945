; mdr_test.s: gpuvet's own SNES ROM for open bus on the B bus (Anomie's register doc):
; reading a write-only PPU register whose address matches $21x4-$21x6 or $21x8-$21xA
; (x = 0-2) gives PPU1 open bus, the last byte read from $2134-$2136, $2138-$213A or
; $213E; the other write-only ones ($2100-$2103, $2107, $210B-$2113, ...) give the CPU's
; open bus, the last byte on the data bus (the operand's high byte $21 for LDA $21xx).
; The ROM puts $5A in PPU1's latch by reading $2134 (M7A = $005A, M7B = $01: the product's
; low byte), then reads the twelve PPU1 open-bus addresses ($2104 ... $212A), each right
; after a new $2134 read. Check 1: $2105 gives $5A. Check 2: all twelve give $5A.
; Check 3: $2100, $2107 and $2133 give $21 (CPU open bus). Check 4: $4016 bits 7-2 and
; $4000 are CPU open bus ($40). Reports through the status block at $70:0000 (status $80
; running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET OPEN BUS TEST "
        snes_vectors reset, nmi, nmi

        test  = $10

        snes_start
        status_running          ; the status block: running
        lda     #$5A            ; M7A = $005A (low byte, then high byte)
        sta     $211B
        stz     $211B
        lda     #$01            ; M7B = $01: M7A * M7B = $00005A
        sta     $211C
        lda     #1
        sta     test
        lda     $2134           ; PPU1's latch: $5A
        lda     $2105
        cmp     #$5A
        jne     fail
        lda     #2
        sta     test
        ldx     #0
@ppu1:  lda     $2134           ; reload the latch, then the address from the list
        lda     ppu1_list,x
        sta     $20
        lda     #$21
        sta     $21
        stz     $22
        lda     $2134
        lda     [$20]           ; the last byte on the bus before the read: $00 (bank)
        cmp     #$5A
        jne     fail
        inx
        cpx     #12
        bne     @ppu1
        lda     #3
        sta     test
        lda     $2134
        lda     $2100
        cmp     #$21
        jne     fail
        lda     $2134
        lda     $2107
        cmp     #$21
        jne     fail
        lda     $2134
        lda     $2133
        cmp     #$21
        jne     fail
        lda     #4
        sta     test
        lda     $4016
        and     #$FC
        cmp     #$40
        jne     fail
        lda     $4000
        cmp     #$40
        jne     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

nmi:    rti

ppu1_list:   .byte $04, $05, $06, $08, $09, $0A, $14, $15, $16, $18, $19, $1A
passed_txt:  .byte "All 4 open bus checks passed", 0
failed_txt:  .byte "Open bus check failed (status = its number)", 0
