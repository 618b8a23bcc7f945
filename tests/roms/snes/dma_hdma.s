; dma_hdma.s: gpuvet's own SNES ROM for a general DMA on a channel that HDMA is using
; (superfamicom.org wiki, DMA & HDMA: HDMA takes priority over DMA, pausing all DMA and
; terminating a conflicting DMA immediately). Channel 1 runs an HDMA table that stays
; active all frame (three entries of 127 lines, one byte each to $2180); in the picture
; (line 20) the ROM starts a 4000-byte DMA on channel 1 ($00:8000 -> $2180: 32,000
; clocks, about 23 lines), so HDMA needs the channel at dot 276 of the DMA's line and the
; DMA ends there. Check 1: $4315/$4316 (bytes left) not 0 after it. Check 2: the same DMA
; with HDMAEN = 0 moves all 4000 bytes ($4315/$4316 = 0). Reports through the status block
; at $70:0000 (status $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET DMA VS HDMA   "
        snes_vectors reset, nmi, nmi

        test  = $10

        snes_start
        status_running          ; the status block: running
        ldx     #$2000          ; WMADD = $7E:2000
        stx     $2181
        stz     $2183
        stz     $4310           ; channel 1: A -> B, one register, $2180
        lda     #$80
        sta     $4311
        ldx     #tbl
        stx     $4312
        stz     $4314
        lda     #$02            ; HDMA on channel 1 from the next frame
        sta     $420C
        jsr     dma4000         ; now a DMA on the same channel
        lda     #1
        sta     test
        ldx     $4315
        jeq     fail
        stz     $420C           ; 2: no HDMA
        jsr     dma4000
        lda     #2
        sta     test
        ldx     $4315
        jne     fail
        status_end #0, passed_txt
fail:   status_end test, failed_txt

; dma4000: on line 20 of the next picture, 4000 bytes from $00:8000 on channel 1 (a8)
dma4000:
        jsr     line20
        ldx     #$8000
        stx     $4312
        ldx     #4000
        stx     $4315
        lda     #$02
        sta     $420B
        nop
        rts

; line20: waits for vertical blank, then for line 20 of the next picture (a8)
line20:
@vb:    lda     $4212
        bpl     @vb
@pic:   lda     $4212
        bmi     @pic
@l:     lda     $2137
        lda     $213F
        lda     $213D
        cmp     #20
        bcc     @l
        lda     $213D
        rts

nmi:    rti

tbl:         .byte $7F, $AB, $7F, $AB, $7F, $AB, 0
passed_txt:  .byte "Both DMA vs HDMA checks passed", 0
failed_txt:  .byte "DMA vs HDMA check failed (status = its number)", 0
