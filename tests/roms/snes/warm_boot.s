; warm_boot.s: gpuvet's own SNES ROM for the reset button: it loads its colours only on a
; cold boot. A signature in WRAM ($7E:1000 = $A5 $5A) says the console has run it before;
; the reset button clears no memory (WRAM, VRAM, CGRAM and OAM keep their contents), so
; after a reset it finds the signature, skips loading and only turns the screen on: the
; backdrop must be red (CGRAM 0 = $001F) before and after a reset. The picture is checked
; against tests/snes/ppu_model.py (`gpuvet run --reset-at` in tests/snes/test_snes_roms.sh).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET WARM BOOT"
        snes_vectors reset, nmi, irq

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        lda     $1000
        cmp     #$A5
        bne     @cold
        lda     $1001
        cmp     #$5A
        beq     @show           ; a warm boot: the colours are still there
@cold:  stz     $2121           ; CGRAM 0: red
        lda     #$1F
        sta     $2122
        stz     $2122
        lda     #$A5
        sta     $1000
        lda     #$5A
        sta     $1001
@show:  stz     $212C           ; the backdrop only
        stz     $212D
        stz     $2130
        stz     $2131
        lda     #$0F
        sta     $2100
@idle:  bra     @idle

nmi:    rti
irq:    rti
