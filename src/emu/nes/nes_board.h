/* nes_board.h: the cartridge board interface. A board (an iNES mapper: a mapper chip, or
 * discrete logic, and how the cartridge wires it) is one nes_board table in its own unit
 * (nes_board_<family>.c) and one line in the list of nes_board.c. The table names the
 * board, sizes its register state (the machine allocates it: m->bs), and gives its
 * operations: power, CPU writes (and reads where the board answers below $8000), the
 * windows its registers map (nes_maps), and only the hooks the board needs: filtered rising
 * edges of PPU A12 (MMC3 family), pattern fetches the board watches (MMC2/MMC4 latches), a
 * CPU-cycle event (VRC and FME-7 counters), $2001 writes and the NMI vector fetch (the
 * MMC5's in-frame state), an expansion sound chip (nes_xaudio.h), its
 * registers in save states, old state formats. Everything a board changes that the PPU
 * can see goes through nes_board_update, which logs the changed windows in the frame log at
 * the PPU's current dot, so every renderer draws mid-frame bank changes alike. */
#ifndef GV_EMU_NES_NES_BOARD_H
#define GV_EMU_NES_NES_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "emu/nes/nes.h"

typedef struct nes_st nes_st; /* the save-state visitor (nes_state.c) */

/* ---- windows ------------------------------------------------------------------------ */

/* Flags in the entries of nes_maps. */
#define NES_MAP_RAM 0x40000000 /* chr, nt: the board's CHR-RAM (else CHR-ROM when the cart has it);
                                * prg: an 8 KiB PRG-RAM page read there (the board takes the writes) */
#define NES_MAP_CHR 0x20000000 /* nt: a 1 KiB CHR page as a nametable (bank | NES_MAP_RAM for RAM) */
#define NES_MAP_ROM 0x20000000 /* wram: an 8 KiB PRG-ROM bank at $6000 */
#define NES_MAP_RO 0x10000000  /* wram: the PRG-RAM page reads but ignores writes */
#define NES_MAP_OPEN 0x08000000 /* chr: the window reads open bus ($FF: the page after the CHR-ROM
                                 * that boards with chr_off have, nes_cart.chr_pad) */
#define NES_MAP_OFF (-1)       /* wram: nothing answers at $6000-$7FFF (open bus) */

/* What the board's registers map, filled by its maps operation over these defaults: PRG
 * banks 0-3, CHR banks 0-7 (spr the same, ex 0), the header's mirroring, PRG-RAM page 0 (NES_MAP_OFF without
 * PRG-RAM). Bank numbers are taken modulo the memory's size, as the address lines a board
 * drives past the chip's size are not connected. */
typedef struct {
    int prg[4]; /* 8 KiB PRG-ROM banks at CPU $8000, $A000, $C000, $E000 */
    int chr[8]; /* 1 KiB CHR banks at PPU $0000-$1FFF (| NES_MAP_RAM) */
    int nt[4];  /* PPU $2000, $2400, $2800, $2C00: nametable RAM page 0-3 (0-1 the console's
                 * CIRAM, 2-3 the board's own RAM: four-screen VRAM, ExRAM), or NES_MAP_CHR */
    int spr[8]; /* 1 KiB CHR banks of the sprites' windows (used where ex has NES_EX_SETS) */
    uint32_t ex; /* NES_EX_* (nes_video.h): the MMC5's fetch rules; 0 for the others */
    uint32_t split; /* NES_SPLIT_* (nes_video.h): the MMC5's vertical split; 0 for the others */
    int wram;   /* CPU $6000-$7FFF: 8 KiB PRG-RAM page (| NES_MAP_RO), NES_MAP_ROM | bank, NES_MAP_OFF */
} nes_maps;

/* Nametable pages for a mirroring (NES_MIRROR_H, _V, _4, _1A, _1B): o->nt. */
void nes_maps_mirror(nes_maps *o, int mirror);

/* ---- the interface -------------------------------------------------------------------- */

/* The mapper fields of an old save state (versions 1-4), for the boards that existed then. */
typedef struct {
    uint8_t bank;
    uint8_t m1_shift, m1_count, m1_ctrl, m1_chr0, m1_chr1, m1_prg;
    uint64_t m1_last;
    uint8_t m3_sel, m3_bank[8], m3_mirror, m3_ram, m3_latch, m3_counter, m3_reload, m3_irq_on;
} nes_legacy_map;

/* Bus conflicts: the board's register latch sees the CPU's value ANDed with the ROM byte. */
enum { NES_CONFLICT_NEVER = 0, NES_CONFLICT_ALWAYS = 1, NES_CONFLICT_SUB2 = 2 /* NES 2.0 submapper 2 */ };

typedef struct nes_board nes_board;
struct nes_board {
    int mapper;       /* iNES mapper number */
    const char *name; /* the board or chip, as messages and docs name it */
    int variant;      /* for the unit's own use (a family's member) */
    size_t size;      /* bytes of register state at m->bs (zeroed at power) */
    /* Does the board take this cartridge (submapper, sizes)? NULL: every cartridge of its
     * mapper number. The first board of the list that takes it runs it. */
    int (*match)(const nes_cart *c);
    /* The header's sizes against the board's limits: NULL, or a reason (one line). */
    const char *(*check)(const nes_cart *c);
    /* iNES 1.0 headers: fills in what the board implies (CHR-RAM beside CHR-ROM, ...). */
    void (*ines)(nes_cart *c);
    void (*power)(nes *m);                        /* registers from power-on; may be NULL */
    void (*maps)(nes *m, nes_maps *o);            /* the windows of the registers; NULL: fixed */
    void (*write)(nes *m, uint16_t a, uint8_t v); /* CPU write at $8000-$FFFF; NULL: none */
    /* ---- optional hooks ---- */
    /* CPU write / read at $4020-$7FFF: replace the PRG-RAM window (nes_wram_write and
     * nes_wram_read are the default, for the board to call). read with peek set must not
     * change anything (trace, test status). read_low also gets the CPU's reads of
     * $8000-(m->prg_direct - 1) where the board raised m->prg_direct (the MMC5's PCM read
     * mode watches $8000-$BFFF). */
    void (*write_low)(nes *m, uint16_t a, uint8_t v);
    uint8_t (*read_low)(nes *m, uint16_t a, int peek);
    /* A filtered rising edge of PPU A12 at dot time t (the MMC3's counter clock). */
    void (*a12)(nes *m, uint64_t t);
    /* A pattern fetch at PPU address a whose (a & watch_mask) == watch_val, called after
     * the fetch, at the dot after it (background and sprite fetches while rendering, $2007
     * reads): the MMC2/MMC4 latches. */
    void (*ppu_read)(nes *m, uint16_t a);
    uint16_t watch_mask, watch_val;
    /* Called when the CPU cycle reaches m->board_ev (nes_board_schedule): cycle counters. */
    void (*cpu_event)(nes *m);
    /* A CPU write to $2001 (fully decoded; the PPU has taken it), and the CPU's read of the
     * NMI vector at $FFFA (the MMC5 watches both for its in-frame state). */
    void (*ppu_mask)(nes *m, uint8_t v);
    void (*nmi_vector)(nes *m);
    /* Console reset: what the board's chip does on the reset line (most do nothing). */
    void (*reset)(nes *m);
    /* Save states: visits every register field (NES_ST); after a load, state_check says
     * what is out of range (NULL: fine); legacy takes an old state's mapper fields. */
    void (*state)(nes_st *s, nes *m);
    const char *(*state_check)(const nes *m);
    void (*legacy)(nes *m, const nes_legacy_map *old);
    uint8_t xaudio;          /* expansion sound chip: NES_XA_NONE or a chip of nes_xaudio.h */
    uint8_t conflicts;       /* NES_CONFLICT_* */
    uint8_t chr_both;        /* CHR-ROM and CHR-RAM side by side (TQROM) */
    uint8_t chr_off;         /* the board can disable its CHR-ROM (NES_MAP_OPEN windows) */
};

/* The registered boards (nes_board.c), in match order; NULL-terminated. */
extern const nes_board *const nes_boards[];

#endif
