;; crt0.s: start-up code of gpuvet's own Game Boy test ROMs (sdasgb syntax).
;; Interrupt vectors call the C function pointers hook_vblank, hook_stat, hook_timer,
;; hook_serial, hook_joypad when they are set; $0100 jumps to start, which keeps the
;; boot value of A (which model: $01 DMG, $11 CGB) in boot_a, clears WRAM, copies
;; initialised data, and calls main. The header at $0104-$014F is filled by makebin and
;; gbfix.py.

        .module crt0
        .globl  _main
        .globl  _hook_vblank, _hook_stat, _hook_timer, _hook_serial, _hook_joypad
        .globl  _boot_a

        .area   _HEADER (ABS)
        .org    0x08
        ret                             ; rst $08 (used by the timing tests)
        .org    0x38
        jp      hang                    ; rst $38: empty ROM is $FF

        .org    0x40
        push    af
        push    hl
        ld      hl, #_hook_vblank
        jp      irq_common
        .org    0x48
        push    af
        push    hl
        ld      hl, #_hook_stat
        jp      irq_common
        .org    0x50
        push    af
        push    hl
        ld      hl, #_hook_timer
        jp      irq_common
        .org    0x58
        push    af
        push    hl
        ld      hl, #_hook_serial
        jp      irq_common
        .org    0x60
        push    af
        push    hl
        ld      hl, #_hook_joypad
        jp      irq_common

        .org    0x100
        nop
        jp      start

        .org    0x150
start:
        di
        ld      sp, #0xdff0
        ld      b, a                    ; model byte from the boot ROM
        ld      hl, #0xc000             ; clear $C000-$DFEF
clear:
        xor     a
        ld      (hl+), a
        ld      a, h
        cp      a, #0xdf
        jr      nz, clear
        ld      a, l
        cp      a, #0xf0
        jr      nz, clear
        ld      a, b
        ld      (_boot_a), a
        ld      de, #s__INITIALIZED     ; initialised data
        ld      hl, #s__INITIALIZER
        ld      bc, #l__INITIALIZER
copy:
        ld      a, b
        or      a, c
        jr      z, copied
        ld      a, (hl+)
        ld      (de), a
        inc     de
        dec     bc
        jr      copy
copied:
        call    gsinit
        call    _main
hang:
        halt
        nop
        jr      hang

irq_common:                             ; hl = address of the hook pointer
        push    bc
        push    de
        ld      a, (hl+)
        ld      h, (hl)
        ld      l, a
        or      a, h
        jr      z, irq_done
        call    jphl
irq_done:
        pop     de
        pop     bc
        pop     hl
        pop     af
        reti
jphl:
        jp      (hl)

        .area   _HOME
        .area   _CODE
        .area   _INITIALIZER
        .area   _GSINIT
        .area   _GSFINAL
        .area   _DATA
        .area   _INITIALIZED
        .area   _BSEG
        .area   _BSS
        .area   _HEAP

        .area   _GSINIT
gsinit::
        .area   _GSFINAL
        ret

        .area   _DATA
_boot_a::
        .ds     1
_hook_vblank::
        .ds     2
_hook_stat::
        .ds     2
_hook_timer::
        .ds     2
_hook_serial::
        .ds     2
_hook_joypad::
        .ds     2
