; gsu_scene.s: gpuvet's own Super FX picture ROM: the GSU (its program from gen_gsu.py
; scene, assembled by gsu_asm.py) plots a 256x128 16-colour bitmap into Game Pak RAM (PLOT
; row by row, a dithered band, RPIX to flush the pixel cache); the SNES waits for it from
; WRAM, copies the bitmap to VRAM by DMA ($70:0000, 16 KiB), lays the GSU's column-ordered
; tile map (tile = X/8 * 16 + Y/8) for BG1 in mode 1 and shows it under a 16-colour ramp;
; the CPU then idles in WAI. The golden pin of the renderers (native, host and device draw
; what the DMA carried).
; Built with -D GSU_BENCH it is gsu_bench.sfc, the Super FX speed benchmark
; (bench/libretro_peers.sh): after the first picture the SNES loops, at each vertical blank
; copying the bitmap to VRAM (forced blank during the DMA) and starting the GSU again, so
; the GSU plots the picture afresh (about one frame of GSU time) every other frame.
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .include "snes.inc"
        .include "gsu_scene.inc"

        .segment "EXTHDR"
        .byte   "00", "GVFS", 0, 0, 0, 0, 0, 0, 0
        .byte   $05             ; expansion RAM: 32 KiB
        .byte   0, 0
        .segment "HEADER"
.ifdef GSU_BENCH
        .byte   "GPUVET SUPER FX BENCH"
.else
        .byte   "GPUVET SUPER FX SCENE"
.endif
        .byte   $20, $14, $06, $00, $01, $33, $00   ; LoROM; ROM + Super FX + RAM; 64 KiB
        .word   $FFFF, $0000
        snes_vectors reset, nmi, irq

        WRUN = $0200

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        ldx     #0
copy:   lda     wram_run,x
        sta     WRUN,x
        inx
        cpx     #wram_end - wram_run
        bne     copy
        lda     #$01
        sta     $3034           ; PBR
        sta     $3039           ; CLSR: 21 MHz
        lda     #$80
        sta     $3037           ; CFGR: no IRQ
        stz     $3038           ; SCBR: $70:0000
        lda     #$19            ; SCMR: RON, RAN, 16 colours, 128 lines
        sta     $303A
        ldx     #.loword(gsu_scene)
        jsl     $7E0000 + WRUN
        ; the palette: colour n = a ramp through blue, green and red
        stz     $2121
        ldx     #0
pal:    lda     ramp,x
        sta     $2122
        inx
        cpx     #32
        bne     pal
        ; the tile map at VRAM word $7C00: 32x28 entries, X/8 * 16 + (Y/8 mod 16)
        lda     #$80
        sta     $2115
        ldx     #$7C00
        stx     $2116
        ldy     #0              ; the row (0-27)
mrow:   ldx     #0              ; the column
mcol:   rep     #$20
        txa
        asl     a
        asl     a
        asl     a
        asl     a
        sta     $10
        tya
        and     #$000F
        ora     $10
        sta     $2118
        sep     #$20
        inx
        cpx     #32
        bne     mcol
        iny
        cpy     #28
        bne     mrow
        jsr     bitmap
        lda     #$01            ; mode 1, BG1: map $7C00 (words), tiles at 0
        sta     $2105
        lda     #$7C
        sta     $2107
        stz     $210B
        lda     #$01
        sta     $212C
        lda     #$0F
        sta     $2100
.ifdef GSU_BENCH
; NMI only while waiting for it: while the GSU owns the ROM the vectors read its fixed bytes
loop:   lda     #$80
        sta     $4200
        wai
        stz     $4200
        lda     #$80
        sta     $2100
        jsr     bitmap
        lda     #$0F
        sta     $2100
        ldx     #.loword(gsu_scene)
        jsl     $7E0000 + WRUN
        bra     loop
.else
forever:
        wai
        bra     forever
.endif

; the bitmap ($70:0000, 16 KiB) to VRAM $0000 by DMA channel 0
bitmap: stz     $2116
        stz     $2117
        lda     #$01
        sta     $4300
        lda     #$18
        sta     $4301
        ldx     #0
        stx     $4302
        lda     #$70
        sta     $4304
        ldx     #$4000
        stx     $4305
        lda     #$01
        sta     $420B
        rts

nmi:    rti
irq:    rti

; X = the GSU's start: writes R15 and waits for GO to clear (runs from WRAM; a8 i16)
        .a8
        .i16
wram_run:
        stx     $301E
:       lda     $3030
        and     #$20
        bne     :-
        rtl
wram_end:

ramp:   .word   $0000, $2800, $5000, $7C00, $7C40, $7D00, $7E00, $03E0
        .word   $03FF, $001F, $011F, $021F, $03FF, $4210, $6318, $7FFF
