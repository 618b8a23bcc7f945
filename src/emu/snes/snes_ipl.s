; snes_ipl.s: gpuvet's own SPC700 boot ROM (IPL), 64 bytes at $FFC0-$FFFF, mapped while
; CONTROL ($F1) bit 7 is set. It speaks the documented upload protocol of the S-SMP, so that
; a main-CPU program written for the console can load code into ARAM and start it; the code
; is ours (docs/SNES_SPC700.md describes the protocol and this routine).
;
; Assemble with ca65 and our macro pack (snes_spc.c holds the bytes; test_snes_spc checks
; they match):  ca65 -I src/emu/snes snes_ipl.s && ld65 -t none -S '$FFC0' snes_ipl.o
;
; Protocol, main CPU side (ports 0-3 are $2140-$2143 there, $F4-$F7 here):
;   1. wait for $AA in port 0 and $BB in port 1 (ready);
;   2. write the destination address to ports 2/3, a nonzero mode to port 1, $CC to port 0,
;      and wait for $CC to come back in port 0;
;   3. for each byte: the byte to port 1, its index (0, 1, 2 ... wrapping at 256) to port 0;
;      wait for the index to come back in port 0;
;   4. to start another block or to jump: the address to ports 2/3, the mode to port 1
;      (nonzero: another block; 0: jump to the address), and to port 0 a value 1 to 127
;      above the last index sent that is not 0 (the index + 2, or + 3 when that is 0); wait
;      for it to come back. A new block starts again at index 0.
; On entry to the uploaded code: A = X = Y = 0, PSW = $02, SP = $EF.
;
; Register use: X is 0 from the clearing loop on (the store is mov [$00+x], a and the jump
; jmp [!$0000+x]); Y is the index of the next byte; $00/$01 the destination, advanced by
; incw. A port read while the main CPU writes it may see a mixture of the two values, so a
; value that looks like a command is read a second time before it is obeyed.

.include "spc700.inc"

cpuio0  = $F4
cpuio1  = $F5
cpuio2  = $F6
dest    = $00

reset:
        mov     x, #$EF
        mov     sp, x           ; stack at $01EF down
        inc     x               ; X = $F0
        mov     a, #0
@clear: dec     x               ; clear $00EF down to $0000; X ends at 0
        mov     (x), a
        bne     @clear
        mov     a, #$AA
        mov     y, #$BB
        movw    cpuio0, ya      ; ready: $AA in port 0, $BB in port 1
        mov     a, #$CC
@kick:  cbne    cpuio0, @kick   ; wait for the main CPU's $CC

command:                        ; port 0 changed: a command (block start or jump)
        movw    ya, cpuio2
        movw    dest, ya        ; destination from ports 2/3
        movw    ya, cpuio0      ; A = port 0 (to echo), Y = port 1 (mode)
        mov     cpuio0, a       ; echo
        mov     a, y
        beq     start           ; mode 0: jump (A = X = Y = 0)
@first: mov     a, cpuio0       ; a block: wait for index 0
        bne     @first
        mov     y, a            ; Y = 0: the index of the next byte
byte:   mov     a, cpuio1       ; the data byte
        mov     cpuio0, y       ; echo its index
        mov     [dest+x], a     ; X = 0
        incw    dest
        inc     y
wait:   cmp     y, cpuio0       ; the next index, or a command?
        beq     byte
        bpl     wait            ; port 0 behind Y: not written yet
        cmp     y, cpuio0       ; ahead by 1-128: read it again
        bpl     wait
        bra     command

start:  clrc                    ; PSW = $02 (Z from mov a, y)
        jmp     [!$0000+x]

        .word   reset           ; $FFFE: the reset vector

        spc700_end "6502"
