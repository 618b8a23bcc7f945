; warm_boot.s: gpuvet's own SNES ROM for the reset button: it sets up its colours and the
; PPU only on a cold boot. A signature in WRAM ($7E:1000 = $A5 $5A) says the console has
; run it before; the reset button clears no memory (WRAM, VRAM, CGRAM and OAM keep their
; contents) and leaves the PPU's registers but for forced blank, so after a reset it finds
; the signature, skips the set-up and only turns the screen on: the backdrop (CGRAM 0 =
; red $001F) plus the fixed colour (blue 31) by colour math must be magenta before and
; after a reset. The picture is checked
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
        stz     $212C           ; the backdrop only
        stz     $212D
        stz     $2130           ; colour math everywhere, with the fixed colour
        lda     #$20
        sta     $2131           ; add, on the backdrop
        lda     #$9F
        sta     $2132           ; fixed colour: blue 31
        lda     #$A5
        sta     $1000
        lda     #$5A
        sta     $1001
@show:  lda     #$0F            ; both boots: only the screen on
        sta     $2100
@idle:  bra     @idle

nmi:    rti
irq:    rti
