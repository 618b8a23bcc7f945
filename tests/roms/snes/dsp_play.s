; dsp_play.s: an SPC700 program (our ca65 macro pack, src/emu/snes/spc700.inc) that plays one
; BRR sample on voice 0 with an ADSR envelope and echo, then keys it off. Used by
; tests/snes/test_snes_dsp.c (loaded at $0200, run with the S-DSP attached); the expected
; values are worked out by hand in that test. Written for gpuvet; anyone may use, copy and
; redistribute it (public domain / CC0).
        .include "spc700.inc"
        .org    $0200
start:  mov     x, #0
@next:  mov     a, !regs+x              ; register number, $FF ends the table
        cmp     a, #$FF
        beq     @keyon
        mov     $F2, a
        inc     x
        mov     a, !regs+x
        mov     $F3, a
        inc     x
        bra     @next
@keyon: mov     $F2, #$4C               ; KON voice 0
        mov     $F3, #$01
        mov     $FA, #0                 ; timer 0: 256 ticks of 8 kHz = 32768 cycles
        mov     $F1, #$01
@wait:  mov     a, $FD
        beq     @wait
        mov     $F2, #$5C               ; KOFF voice 0
        mov     $F3, #$01
@idle:  bra     @idle

regs:   .byte   $6C, $00                ; FLG: no reset, no mute, echo writes on, noise off
        .byte   $5D, $03                ; DIR = $0300
        .byte   $00, $40, $01, $20      ; V0VOLL $40, V0VOLR $20
        .byte   $02, $00, $03, $10      ; V0PITCH = $1000 (32 kHz)
        .byte   $04, $00                ; V0SRCN 0
        .byte   $05, $8F, $06, $E0      ; ADSR: attack 15 (+1024 a sample), sustain level 7, rate 0
        .byte   $0C, $7F, $1C, $7F      ; MVOL
        .byte   $2C, $40, $3C, $40      ; EVOL
        .byte   $0D, $40                ; EFB
        .byte   $4D, $01                ; EON voice 0
        .byte   $6D, $80, $7D, $01      ; ESA = $8000, EDL = 1 (2 KiB, 512 samples)
        .byte   $0F, $7F, $1F, $00, $2F, $00, $3F, $00, $4F, $00, $5F, $00, $6F, $00, $7F, $00
        .byte   $FF

        .res    $0300 - *
dir:    .word   sample, sample          ; start and loop address
        .res    $0400 - *
sample: .byte   $C3, $77, $77, $77, $77, $77, $77, $77, $77 ; shift 12, filter 0, end+loop
        spc700_end "6502"
