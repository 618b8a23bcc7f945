; ppu_scroll.s: gpuvet's own SNES scene for the BG horizontal scroll registers' write-twice
; rule (BGnHOFS: the new value is Current << 8 | Prev & ~7 | the register's bits 8-10 >> 8,
; Prev = Current), checked pixel by pixel against tests/snes/ppu_model.py and pinned in
; tests/emu/golden.txt. Mode 0, BG1 and BG2 share one 32x32 map of tile 0, whose rows have
; only their leftmost pixel set (colour 1). BG1HOFS is written $0D then $01 (HOFS $10D: bit
; 2 of the low byte set, so the register's bits 8-10 must keep the first byte's low three
; bits), BG2HOFS $04 then $00 (HOFS 4). BG1's pixel is white where (x + $10D) mod 8 = 0,
; BG2's red where (x + 4) mod 8 = 0, the backdrop black elsewhere.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"

        snes_header "GPUVET PPU SCROLL"
        snes_vectors reset, nmi, irq

        snes_start
        lda     #$80
        sta     $2115           ; VRAM: word steps, after the high byte
        ldx     #$0000
        stx     $2116
        ldx     #1024
@map:   stz     $2118           ; the map at word $0000: tile 0 everywhere
        stz     $2119
        dex
        bne     @map
        ldx     #$1000
        stx     $2116
        ldx     #8
@tile:  lda     #$80            ; tile 0 at word $1000: plane 0 = leftmost pixel only
        sta     $2118
        stz     $2119
        dex
        bne     @tile
        stz     $2105           ; mode 0, 8x8 tiles
        stz     $2107           ; BG1 map $0000, 32x32
        stz     $2108           ; BG2 the same map
        lda     #$11
        sta     $210B           ; BG1 and BG2 tiles at word $1000
        lda     #$03
        sta     $212C           ; BG1 and BG2 on the main screen
        stz     $212D
        stz     $2130
        stz     $2131
        stz     $2121           ; CGRAM 0 black, 1 white (BG1), 33 red (BG2: palettes 32+)
        stz     $2122
        stz     $2122
        lda     #$FF
        sta     $2122
        lda     #$7F
        sta     $2122
        lda     #33
        sta     $2121
        lda     #$1F
        sta     $2122
        stz     $2122
        lda     #$0D            ; BG1HOFS = $10D
        sta     $210D
        lda     #$01
        sta     $210D
        stz     $210E           ; BG1VOFS = 0
        stz     $210E
        lda     #$04            ; BG2HOFS = 4
        sta     $210F
        stz     $210F
        stz     $2110           ; BG2VOFS = 0
        stz     $2110
        lda     #$0F
        sta     $2100           ; the screen on, full brightness
@idle:  bra     @idle

nmi:    rti
irq:    rti
