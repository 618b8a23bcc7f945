; msu_test.s: gpuvet's own SNES ROM for the MSU-1 (docs/SNES.md, MSU-1). The test writes
; its media beside the ROM (gen_msu.py: msu_test.msu, 1024 bytes, byte i = (7i + 3) & $FF;
; msu_test-1.pcm, a looping track; msu_test-2.pcm, a short one; no track 9). Checks 1-6:
; $2002-$2007 read "S-MSU1". Check 7: the status's revision bits read 2. Checks 8-11: after
; a seek to $00000010 ($2000-$2003, the seek on the $2003 write) four $2001 reads give
; bytes 16-19 ($73 $7A $81 $88). Check 12: a seek to $00000123 reads $F8. Check 13: track 9
; (absent) sets the status's track-missing bit 3. Checks 14-15: track 2 selected clears it,
; and play ($2007 = 1) sets the playing bit 4. Check 16: after a delay longer than the track
; the playing bit is clear (the end without repeat stops). Check 17: track 1 at volume $C0
; with play and repeat ($2007 = 3) reads playing and repeating ($30); it then plays on
; while the program stops (the WAV of the test). Reports through the status block at
; $70:0000 (status $80 running, 0 passed, else the check).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"

        snes_header "GPUVET MSU-1"
        snes_vectors reset, nmi, irq

        test  = $14

; expect N, ADDR, VALUE: check N, the byte read at ADDR equals VALUE
.macro expect n, addr, value
        lda     #n
        sta     test
        lda     addr
        cmp     #value
        jne     fail
.endmacro

; seek OFFSET: the data port to a 32-bit offset
.macro seek offset
        lda     #<(offset)
        sta     $2000
        lda     #>(offset)
        sta     $2001
        lda     #^(offset)
        sta     $2002
        lda     #((offset) >> 24)
        sta     $2003
.endmacro

; status_bits N, MASK, VALUE: check N, status & MASK == VALUE
.macro status_bits n, mask, value
        lda     #n
        sta     test
        lda     $2000
        and     #mask
        cmp     #value
        jne     fail
.endmacro

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running          ; the status block: running

        expect  1, $2002, 'S'
        expect  2, $2003, '-'
        expect  3, $2004, 'M'
        expect  4, $2005, 'S'
        expect  5, $2006, 'U'
        expect  6, $2007, '1'
        status_bits 7, $07, 2

        seek    $00000010
        expect  8, $2001, $73
        expect  9, $2001, $7A
        expect  10, $2001, $81
        expect  11, $2001, $88
        seek    $00000123
        expect  12, $2001, $F8

        lda     #9              ; track 9: missing
        sta     $2004
        stz     $2005
        status_bits 13, $08, $08

        lda     #2              ; track 2, full volume, play once
        sta     $2004
        stz     $2005
        status_bits 14, $08, $00
        lda     #$FF
        sta     $2006
        lda     #1
        sta     $2007
        status_bits 15, $30, $10
        ldx     #$FFFF          ; about 0.1 s: longer than track 2
delay:  dex
        bne     delay
        status_bits 16, $30, $00

        lda     #1              ; track 1 at $C0, play and repeat
        sta     $2004
        stz     $2005
        lda     #$C0
        sta     $2006
        lda     #3
        sta     $2007
        status_bits 17, $38, $30

        status_end #0, passed_txt
fail:   status_end test, failed_txt

nmi:    rti
irq:    rti

passed_txt:  .byte "All 17 MSU-1 checks passed", 0
failed_txt:  .byte "MSU-1 check failed (status = its number)", 0
