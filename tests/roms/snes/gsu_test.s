; gsu_test.s: gpuvet's own Super FX (GSU) test ROM. gen_gsu.py writes gsu_cases.inc: GSU
; programs (assembled by gsu_asm.py) for ROM bank 1 and a table of cases with the results
; tests/snes/gsu_model.py computed for them. For each case this ROM sets SCMR (with RON and
; RAN), SCBR, CFGR and CLSR, for an injection case clears GO (emptying the code cache) and
; writes the code to $3100, then starts the GSU by writing R15 from a routine in WRAM (the
; GSU owns ROM while it runs) that polls SFR until GO clears; then it compares R0-R15 and
; SFR (its IRQ bit read out at $3031) with the table and the two Fletcher sums of the case's
; RAM window in bank $70. The "busy" case also reads $00:FFEA and $00:FFEF while the GSU
; runs: the fixed vector bytes $08 and $01 (fullsnes, GSU interrupt vectors). Registers and
; RAM carry from case to case, as in the model. The "irq" case (CFGR bit 7 clear) runs with
; the 65816's interrupts enabled: STOP's IRQ must reach it once (its handler reads $3031,
; clearing SFR's IRQ bit); the "irqmask" case (bit 7 set) likewise must see none. Reports through the status block at
; $70:0000 (status $80 running, 0 passed, else 1 + the failed case number mod 127; the
; case's number, the field and the name at $70:0040: field 0-15 R0-R15, 16 SFR, 17 the
; RAM sums, 18 the ROM vector bytes, 19 the IRQ count).
; Written for gpuvet; anyone may use, copy and redistribute it (public domain / CC0).
        .p816
        .smart  +
        .macpack longbranch
        .include "snes.inc"
        .include "gsu_cases.inc"

        .segment "EXTHDR"
        .byte   "00", "GVFX", 0, 0, 0, 0, 0, 0, 0
        .byte   $07             ; expansion RAM: 128 KiB (banks $70 and $71)
        .byte   0, 0
        .segment "HEADER"
        .byte   "GPUVET SUPER FX TEST "
        .byte   $20             ; LoROM, SlowROM
        .byte   $15             ; ROM + Super FX + RAM + battery
        .byte   $06             ; ROM 64 KiB
        .byte   $00             ; SRAM: none (the expansion RAM byte counts)
        .byte   $01, $33, $00   ; region, extended header, version
        .word   $FFFF, $0000
        snes_vectors reset, nmi, irq

        ptr   = $20             ; the case's offset in gsu_cases
        casen = $22             ; the case number (0-based)
        field = $24
        s1    = $26
        s2    = $28
        cnt   = $2A
        vec0  = $2C             ; $00:FFEA and $00:FFEF read while the GSU ran
        vec1  = $2D
        irqs  = $2E             ; IRQs taken in this case
        WRUN  = $0200           ; the WRAM routine

        .segment "CODE"
        .a8
        .i16
reset:  snes_reset
        snes_blank
        status_running
        ldx     #0
copy:   lda     wram_run,x      ; the start-and-wait routine into WRAM
        sta     WRUN,x
        inx
        cpx     #wram_end - wram_run
        bne     copy
        lda     #$01
        sta     $3034           ; PBR: the GSU's code in bank 1
        ldy     #0
        sty     ptr
        sty     casen

next:   ldy     ptr
        lda     gsu_cases+2,y
        ora     #$18            ; RON, RAN
        sta     $303A
        lda     gsu_cases+3,y
        sta     $3038
        lda     gsu_cases+4,y
        sta     $3037
        lda     gsu_cases+5,y
        sta     $3039
        lda     gsu_cases+6,y
        cmp     #1
        bne     start
        stz     $3030           ; GO = 0: CBR = 0, the cache emptied
        stz     $3031
        lda     gsu_cases+9,y   ; its length (1-255 bytes)
        sta     cnt
        ldx     gsu_cases+7,y   ; the code to inject
        ldy     #0
inj:    lda     a:0,x
        sta     $3100,y
        inx
        iny
        dec     cnt
        bne     inj
        ldy     ptr
start:  stz     vec0
        stz     vec1
        stz     irqs
        lda     gsu_cases+6,y
        cmp     #3
        bcc     :+
        cli                     ; kinds 3 and 4: interrupts on
:       ldx     gsu_cases,y
        jsl     $7E0000 + WRUN
        sei
        ldy     ptr
        lda     #19
        sta     field
        lda     gsu_cases+6,y
        cmp     #3
        bne     :+
        lda     irqs
        cmp     #1
        jne     fail
        bra     regs
:       cmp     #4
        bne     :+
        lda     irqs
        jne     fail
        bra     regs
:       cmp     #2
        bne     regs
        lda     #18
        sta     field
        lda     vec0
        cmp     #$08
        jne     fail
        lda     vec1
        cmp     #$01
        jne     fail
regs:   rep     #$20
        ldx     #0
rloop:  txa
        lsr     a
        sta     field
        lda     $3000,x
        cmp     gsu_cases+11,y
        jne     fail
        inx
        inx
        iny
        iny
        cpx     #32
        bne     rloop
        lda     #16
        sta     field
        lda     $3030           ; SFR as a word: $3031 (its IRQ bit read out) second
        cmp     gsu_cases+11,y
        jne     fail
        lda     #17
        sta     field
        ldy     ptr
        stz     s1
        stz     s2
        lda     gsu_cases+47,y
        sta     cnt
        ldx     gsu_cases+45,y
        lda     cnt
        beq     sums
fl:     lda     f:$700000,x
        and     #$00FF
        clc
        adc     s1
        sta     s1
        clc
        adc     s2
        sta     s2
        inx
        dec     cnt
        bne     fl
sums:   lda     s1
        cmp     gsu_cases+49,y
        jne     fail
        lda     s2
        cmp     gsu_cases+51,y
        jne     fail
        tya
        clc
        adc     #53
        sta     ptr
        inc     casen
        lda     casen
        cmp     #GSU_CASES
        sep     #$20
        jne     next
        status_end #0, passed_txt

fail:   rep     #$20
        lda     casen
        sta     f:SRAM_STATUS + $40
        lda     field
        sta     f:SRAM_STATUS + $42
        lda     casen
        asl     a
        asl     a
        asl     a
        tay
        sep     #$20
        ldx     #0
fname:  lda     gsu_names,y
        sta     f:SRAM_STATUS + $44,x
        inx
        iny
        cpx     #8
        bne     fname
        rep     #$20
        lda     casen
:       cmp     #127
        bcc     :+
        sbc     #127
        bra     :-
:       inc     a
        sta     field
        status_end field, failed_txt

; the WRAM routine (position-independent): X = the GSU's start address; writes R15 (the
; GSU starts), reads the ROM's NMI vector low byte and IRQ vector high byte, waits for GO to
; clear; a8, i16, DB = 0
wram_run:
        stx     $301E
        lda     $FFEA
        sta     vec0
        lda     $FFEF
        sta     vec1
:       lda     $3030
        and     #$20
        bne     :-
        rtl
wram_end:

nmi:    rti
; the GSU's IRQ (STOP with CFGR bit 7 clear): counted, acknowledged by reading $3031
irq:    rep     #$20
        pha
        sep     #$20
        lda     $3031
        inc     irqs
        rep     #$20
        pla
        rti

passed_txt:  .byte "All Super FX cases match the model", 0
failed_txt:  .byte "Super FX case failed: number, field, name at $70:0040", 0
