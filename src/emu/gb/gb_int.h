/* gb_int.h: the machine's internals, shared by the files of src/emu/gb/ only.
 *
 * Time is counted in dots of the 4194304 Hz clock (the PPU and APU rate in both CPU
 * speeds); one CPU M-cycle is 4 dots, or 2 in CGB double speed. The CPU runs instruction
 * by instruction; each memory access costs one M-cycle. The other units are event
 * driven: each keeps the dot of its next event (PPU mode change, timer overflow, APU
 * frame-sequencer step, serial transfer end, OAM DMA end, frame deadline), and the
 * machine processes due events at instruction boundaries and before any IO access, so
 * everything the CPU reads is exact at the dot of the access.
 *
 * gb_state is plain old data: everything that determines the future of the machine
 * (save states are this struct plus the cartridge RAM). struct gb adds what is derived
 * from it (memory maps, the next event) and the outputs. */
#ifndef GV_EMU_GB_GB_INT_H
#define GV_EMU_GB_GB_INT_H

#include <stdint.h>
#include <stdio.h>

#include "emu/gb/gb.h"
#include "emu/gb/gb_host.h"

#define GB_DOTS_LINE 456
#define GB_DOTS_FRAME 70224
#define GB_NEVER UINT64_MAX
#define GB_M3_WRITES 160 /* register writes one mode 3 can hold (289 dots, 2 per M-cycle) */

enum { GB_EV_PPU, GB_EV_TIMER, GB_EV_FS, GB_EV_SERIAL, GB_EV_DMA, GB_EV_FRAME, GB_EV_N };

/* PPU events, in the order they come within a visible line. What the CPU sees changes a
 * few dots before some of them: LY 4 dots before GB_PPU_LINE, STAT's mode 0 3 dots before
 * GB_PPU_MODE0 (gb_ppu.c works these out when the CPU looks). */
enum {
    GB_PPU_LINE = 0,  /* dot 4: the line's mode and LY=LYC comparison (LY changed at dot 0) */
    GB_PPU_MODE3 = 1, /* dot 84: mode 3 */
    GB_PPU_MODE0 = 2, /* mode 3's end: mode 0 */
    GB_PPU_LY0 = 3,   /* line 153, dot 8: the comparison with LY 0 */
    GB_PPU_NEV
};

typedef struct {
    uint8_t reg[0x30];   /* $FF10-$FF3F as last written (wave RAM at 0x20-0x2F) */
    uint8_t power;       /* NR52 bit 7 */
    uint8_t fs_step;     /* frame sequencer step 0-7 */
    uint8_t env_timer[4];
    uint8_t sweep_timer, sweep_en;
    uint16_t sweep_shadow;
    uint16_t len[4];     /* length counters (ticks left) */
    uint16_t freq[3];    /* 11-bit frequencies of channels 1-3 */
    uint8_t sweep_neg;   /* a sweep calculation in subtract mode was made since the trigger */
    uint8_t env_run;     /* bit ch: channel ch's envelope still updates its volume */
    uint8_t wave_fresh;  /* channel 3 was triggered and has not read a sample since */
    uint8_t phase;       /* dot of the last power-on, mod 8: the APU's 1 MHz ticks fall on it mod 4 */
    uint8_t env_kick;    /* bit ch: channel ch's envelope was enabled; it steps at the next odd sequencer step */
    uint8_t sweep_due;   /* dots from gen.t to the sweep's pending overflow check (0: none) */
    uint8_t sweep_skip;  /* a trigger came less than 3 ticks before the next sweep clock: it is not counted */
    uint8_t fs_skip;     /* powered on with DIV's sequencer bit set: its next falling edge is no step */
    gb_apu_key gen;      /* generator state as of gen.t */
} gb_apu_state;

/* What the boards added in save-state version 3 keep (gb_cart.c, gb_mbc7.c, gb_huc3.c): it
 * ends gb_state, so that a version 2 state is gb_state's first bytes. */
typedef struct {
    uint64_t unix_time;   /* MBC3, HuC3: the battery file's timestamp, kept and written back */
    int16_t tilt[2];      /* MBC7: the tilt input (gb_set_tilt), x and y */
    uint16_t accel[2];    /* MBC7: the latched accelerometer X and Y ($8000 until latched) */
    uint8_t ram_en2;      /* MBC7: $40 written to $4000-$5FFF (the second RAM enable) */
    uint8_t accel_armed;  /* MBC7: $55 erased the latch; the next $AA latches */
    uint8_t ee_pins;      /* MBC7 EEPROM: CS (bit 7), CLK (bit 6), DI (bit 1) as last written */
    uint8_t ee_do;        /* MBC7 EEPROM: the DO pin (1 when not driven low) */
    uint8_t ee_state;     /* MBC7 EEPROM: GB_EE_* (gb_mbc7.c) */
    uint8_t ee_bits;      /* MBC7 EEPROM: bits of the current field shifted so far (0-16) */
    uint8_t ee_we;        /* MBC7 EEPROM: erase/write enabled (EWEN) */
    uint8_t ee_op;        /* MBC7 EEPROM: the command's first 4 bits (opcode and 2 address bits) */
    uint16_t ee_sr;       /* MBC7 EEPROM: the shift register */
    uint16_t ee_addr;     /* MBC7 EEPROM: the word address (0-127) */
    uint8_t mode;         /* HuC1, HuC3: the $0000-$1FFF register (what $A000-$BFFF shows) */
    uint8_t huc3_cmd;     /* HuC3: the command/argument mailbox (bits 6-4 command, 3-0 argument) */
    uint8_t huc3_result;  /* HuC3: the last command's result nibble */
    uint8_t huc3_addr;    /* HuC3: the clock MCU's access address */
    uint8_t ir_led;       /* HuC1, HuC3: the infrared transmitter is on */
    uint8_t mmm01[4];     /* MMM01: the $0000, $2000, $4000 and $6000 registers (7 bits each) */
    uint8_t pad[3];
    uint8_t huc3_mem[128]; /* HuC3: the clock MCU's 256 nibbles, nibble 2i in the low half of byte i */
} gb_board;

typedef struct {
    /* CPU */
    uint8_t a, f, b, c, d, e, h, l;
    uint16_t sp, pc;
    uint8_t ime, ime_delay, halted, halt_bug, stopped, locked, double_speed, key1;
    uint8_t ie, iflag, p1, sb, sc, tima, tma, tac;
    uint8_t tima_delay; /* 1 in the M-cycle after a TIMA overflow (A), 2 in the reload's (B) */
    uint8_t cgb;        /* CGB mode: the CGB's registers, attributes, palettes, banks and speeds */
    uint8_t buttons;    /* held (input): A B Select Start Right Left Up Down; 0 in older states */
    uint8_t cgb_hw;     /* CGB hardware: 1 in CGB mode and in DMG compatibility mode (cgb 0) */
    uint8_t pad0[4];
    /* clocks */
    uint64_t clk;       /* dots since power-on */
    uint64_t div_base;  /* 64-bit system counter (DIV is bits 8-15) at dot div_clk */
    uint64_t div_clk;   /* the counter runs from this dot (STOP freezes it until then) */
    uint64_t tima_ref;  /* system counter at the last timer update */
    uint64_t wake_clk;  /* a HALT entered by a speed-switching STOP ends here at the latest (else GB_NEVER) */
    uint64_t ev[GB_EV_N];
    /* memories */
    uint8_t wram[0x8000];
    uint8_t vram[GB_VRAM_BYTES];
    uint8_t oam[0xA0];
    uint8_t hram[0x80];
    uint8_t pal[GB_PAL_BYTES]; /* CGB palette RAM: BG then OBJ */
    uint8_t bcps, ocps, vbk, svbk, opri, dma_reg, hdma_active, hdma_len;
    uint16_t hdma_src, hdma_dst;
    uint8_t io_misc[4]; /* $FF72-$FF75 */
    uint8_t gdma_pending; /* a general DMA started in mode 3 runs when mode 0 begins */
    /* OAM DMA (gb_mem.c): the transfer from page dma_reg ends at ev[GB_EV_DMA] and copies
     * byte i in the M-cycle 160 - i before it; dma_done of its bytes are in OAM. A transfer
     * that a restart interrupted reads on until the new one starts: its page and the index
     * of its byte in the restart's M-cycle, plus 1 (0: none). */
    uint8_t dma_done, dma_old_page, dma_old_idx;
    uint8_t pad_gdma[4];
    /* cartridge */
    uint16_t rom_bank;  /* MBC1: low 5 bits; MBC3: 7-8 bits; MBC5: 9 bits */
    uint8_t ram_bank, ram_en, mbc1_bank2, mbc1_mode;
    uint8_t rtc_latched_on; /* MBC3: the clock registers read the latched copy (else the running clock) */
    uint8_t pad1;
    uint8_t rtc[5], rtc_latched[5], pad2[2];
    uint32_t rtc_sub;   /* 32768 Hz crystal ticks into the current second (HuC3: minute) */
    uint64_t rtc_clk;   /* dot up to which the clock has counted its crystal's ticks */
    /* PPU */
    uint8_t lcdc, stat, scy, scx, ly, ly_reg, lyc, bgp, obp0, obp1, wy, wx;
    uint8_t mode, stat_line, wy_trig, win_counter, ppu_ev, lines_drawn, fine, nobj;
    uint8_t obj_idx[GB_LINE_OBJS]; /* OAM indices selected for this line, priority order */
    uint8_t line_win, line_win_line;
    uint16_t mode3_len;
    uint8_t lyc_eq;     /* STAT's LY=LYC flag (compared at dot 4; kept while the LCD is off) */
    uint8_t lcdon_line; /* line 0 after the LCD is switched on, until mode 3: no OAM scan */
    uint64_t line_clk;  /* dot 0 of the current line */
    /* frame periods */
    uint64_t period_start;
    uint64_t period_end;   /* set when the period has ended (GB_NEVER while running) */
    uint64_t frames;
    /* APU */
    gb_apu_state apu;
    uint64_t sample_k;     /* next output sample index */
    int32_t hpf_cap[2];
    gb_board board;        /* version 3 */
} gb_state;

typedef struct {
    uint32_t n, cap;
    void *v;
} gb_vec;

struct gb {
    gb_state s;
    const gb_cart *cart;
    const uint8_t *rom;
    uint32_t rom_mask;      /* number of 16 KiB banks - 1 */
    uint8_t *cram;
    uint32_t cram_size;
    const uint8_t *rmap[16];   /* the CPU's pages: NULL where an access needs gb_read_slow */
    uint8_t *wmap[16];
    uint32_t md;            /* dots per M-cycle */
    uint64_t next_event;    /* s.ev[next_ev], the earliest (gb_sched keeps both) */
    int next_ev;
    unsigned outputs;
    int trap_on, trap_hit;
    int cpu_brk;            /* gb_cpu_run returns after this instruction */
    int oam_idu;            /* the OAM access being made comes with a 16-bit increment (gb_oam_bug) */
    emu_line_fn trace;      /* one line per instruction, or NULL */
    void *trace_ctx;
    const gb_lfsr_jump *lfsr; /* shared, owned by the cartridge */
    /* native video: the frame being drawn and the last complete one */
    uint8_t *fb[2];
    int fb_cur;
    /* the line in mode 3: its record and its register writes so far (mode 3 runs dot by
     * dot, gb_mode3, for its length and the native picture once a write came) */
    gb_line m3_line;
    gb_regw m3_w[GB_M3_WRITES];
    int m3_nw;
    uint64_t m3_close;      /* writes until this dot (mode 0's first 3) still colour the line */
    gb_obj nat_obj[GB_LINE_OBJS];
    int nat_h;              /* object height (8/16) of the line being drawn */
    uint8_t nat_lo[GB_LINE_OBJS], nat_hi[GB_LINE_OBJS]; /* the objects' rows on this line */
    uint16_t nat_mask[GB_W]; /* per pixel: bit k set when object k covers it */
    uint64_t nat_cover[4];   /* pixels with any object, as a bitmap (word 3 stays 0) */
    /* The OAM scan's answer for every visible line: bit i set when object i's rows cover
     * the line, for objects oam_rows_h lines tall; oam_rows_h = 0 when OAM has changed
     * since (gb_oam_changed). Rebuilt at most once per change instead of testing all 40
     * objects on each of the 144 lines. */
    uint64_t oam_rows[GB_H];
    int oam_rows_h;
    uint16_t spread[2][256]; /* tile row byte -> 2-bit slots per pixel, left first / flipped */
    uint32_t pal_rgb[64];   /* CGB palette RAM as RGB888 (R in the low byte), kept current */
    /* video log: the one being filled (cur) and the last complete one */
    gb_frame_log log[2];
    gb_vec memw[2], regw[2];
    int log_cur;
    int want_snapshot;
    /* audio: keyframes of the period being run and of the last complete one */
    gb_vec keys[2];
    int keys_cur;
    gb_audio_log alog;
    int16_t *abuf;
    int an, acap;
    /* serial output */
    uint8_t *serial;
    size_t nserial, capserial;
    const uint8_t *bus_rmap[16]; /* the memory's pages, also while an OAM DMA keeps the CPU's NULL */
    uint8_t *bus_wmap[16];
};

/* The frame log's mode (gb_frame_log.cgb): GB_LOG_DMG, GB_LOG_CGB or GB_LOG_COMPAT. */
static inline uint8_t gb_log_mode(const gb_state *s)
{
    return s->cgb ? GB_LOG_CGB : s->cgb_hw ? GB_LOG_COMPAT : GB_LOG_DMG;
}

/* ---- memory (gb_mem.c) ---------------------------------------------------------------- */
uint8_t gb_read_slow(gb *g, uint16_t a);
void gb_write_slow(gb *g, uint16_t a, uint8_t v);
void gb_map_update(gb *g);      /* recompute rmap/wmap from the state */
void gb_map_vram(gb *g);        /* VRAM page pointers for the current mode and bank */
void gb_oam_dma(gb *g, uint8_t v);          /* a write to $FF46 at s.clk */
void gb_dma_event(gb *g, uint64_t t);       /* the OAM DMA ends at dot t */
void gb_dma_catchup(gb *g, uint64_t t);     /* OAM as the DMA has written it before dot t */
int gb_dma_oam_busy(const gb *g, uint64_t t); /* the DMA holds OAM's bus in the M-cycle at t */
static inline void gb_oam_changed(gb *g) { g->oam_rows_h = 0; }

static inline uint8_t gb_rd(gb *g, uint16_t a)
{
    const uint8_t *p = g->rmap[a >> 12];
    return p ? p[a & 0xFFF] : gb_read_slow(g, a);
}

static inline void gb_wr(gb *g, uint16_t a, uint8_t v)
{
    uint8_t *p = g->wmap[a >> 12];
    if (p)
        p[a & 0xFFF] = v;
    else
        gb_write_slow(g, a, v);
}

/* P1/JOYP: bits 4 and 5 select the direction keys and the action buttons (0 selects);
 * the low nibble reads 0 for a pressed button of a selected group. */
static inline uint8_t gb_joyp(const gb *g)
{
    uint8_t low = 0x0F;
    if (!(g->s.p1 & 0x10))
        low &= (uint8_t)~(g->s.buttons >> 4);
    if (!(g->s.p1 & 0x20))
        low &= (uint8_t)~g->s.buttons;
    return (uint8_t)(0xC0 | (g->s.p1 & 0x30) | (low & 0x0F));
}

/* ---- events (gb_machine.c) ------------------------------------------------------------ */
void gb_sched(gb *g, int ev, uint64_t t);
void gb_sched_all(gb *g);       /* next_event from every s.ev[] (after setting them directly) */
void gb_sync(gb *g);            /* process every event due at or before s.clk */
void gb_period_end(gb *g, uint64_t t); /* the current frame period ends at dot t */

/* ---- cartridge (gb_cart.c; the clocks in gb_mbc3.c and gb_huc3.c, the MBC7 in gb_mbc7.c) ---- */
void gb_cart_map(gb *g);
void gb_mbc_write(gb *g, uint16_t a, uint8_t v);
uint8_t gb_cram_read(gb *g, uint16_t a);
void gb_cram_write(gb *g, uint16_t a, uint8_t v);
int gb_cart_mbc(const gb_cart *c);
const uint8_t *gb_cart_rom(const gb_cart *c);
/* A power cycle: gb_cart_keep takes what the cartridge's battery keeps (the clock) before
 * the state is cleared, gb_cart_power sets the board's registers to their power-on values
 * and gives that back; RAM or EEPROM with a battery is left as it is, without one it starts
 * over (gb_cart_ram_init). */
typedef struct {
    uint8_t rtc[5], rtc_latched[5];
    uint32_t rtc_sub;
    gb_board board;
} gb_cart_kept;
void gb_cart_keep(const gb *g, gb_cart_kept *k);
void gb_cart_power(gb *g, const gb_cart_kept *k);
/* Fills new cartridge memory with what a new chip holds (RAM 0, an EEPROM erased to $FF). */
void gb_cart_ram_init(gb *g);
/* The cartridge's 32768 Hz crystal (a tick every 128 dots of emulated time): the ticks
 * since the last call, which moves rtc_clk to the current dot. */
uint64_t gb_crystal_ticks(gb *g);
/* MBC3 clock (gb_mbc3.c): brought up to the current dot; a register read ($08-$0C), a
 * register write, a write to the latch register; its 48-byte battery footer. */
#define GB_MBC3_FOOTER 48
void gb_rtc_update(gb *g);
uint8_t gb_mbc3_rtc_read(gb *g, int reg);
void gb_mbc3_rtc_write(gb *g, int reg, uint8_t v);
void gb_mbc3_latch(gb *g, uint8_t v);
void gb_mbc3_footer_get(gb *g, uint8_t *f);
void gb_mbc3_footer_set(gb *g, const uint8_t *f, size_t n);
/* MBC7 (gb_mbc7.c): its register writes at $0000-$7FFF and its $A000-$BFFF registers. */
void gb_mbc7_write(gb *g, uint16_t a, uint8_t v);
uint8_t gb_mbc7_read(gb *g, uint16_t a);
void gb_mbc7_ram_write(gb *g, uint16_t a, uint8_t v);
/* HuC3 (gb_huc3.c): the I/O registers at $A000-$BFFF (modes $B-$E), its clock MCU, and
 * the 136-byte battery footer. */
#define GB_HUC3_FOOTER 136
uint8_t gb_huc3_read(gb *g);
void gb_huc3_io_write(gb *g, uint8_t v);
void gb_huc3_footer_get(gb *g, uint8_t *f);
void gb_huc3_footer_set(gb *g, const uint8_t *f);

/* ---- CPU (gb_cpu.c) ------------------------------------------------------------------- */
void gb_cpu_run(gb *g); /* instructions and the events due between them, until g->cpu_brk */

/* ---- timer, serial, system counter (gb_timer.c) --------------------------------------- */
uint64_t gb_sysclk(const gb *g, uint64_t t);
uint64_t gb_sysclk_time(const gb *g, uint64_t target);
uint8_t gb_timer_read(gb *g, uint16_t a);
void gb_timer_write(gb *g, uint16_t a, uint8_t v);
void gb_timer_event(gb *g, uint64_t t);
void gb_timer_schedule(gb *g);
void gb_serial_write(gb *g, uint8_t v);
void gb_serial_event(gb *g, uint64_t t);
void gb_speed_switch(gb *g);

/* ---- PPU (gb_ppu.c) ------------------------------------------------------------------- */
void gb_ppu_event(gb *g, uint64_t t);
uint8_t gb_ppu_read(gb *g, uint16_t a);
/* Whether the PPU refuses the CPU's access to OAM / VRAM at dot s.clk (write: 1 for a
 * write); an OAM DMA's lock is the caller's. */
int gb_ppu_oam_locked(const gb *g, int write);
int gb_ppu_vram_locked(const gb *g, int write);
void gb_ppu_write(gb *g, uint16_t a, uint8_t v);
void gb_ppu_mem_logged(gb *g, uint16_t addr, uint8_t v); /* VRAM/palette write to the log */
void gb_ppu_period_begin(gb *g);
void gb_pal_rgb_refresh(gb *g); /* after the palette RAM changed wholesale */
void gb_native_init(gb *g);     /* the native renderer's tables */
void gb_hdma_write(gb *g, uint16_t a, uint8_t v);
/* The DMG's OAM corruption bug (Pan Docs, "OAM Corruption Bug"): an access to $FE00-$FEFF
 * at dot s.clk, or a 16-bit increment or decrement of a register holding such an address
 * (GB_OAM_WRITE), while the PPU scans OAM, corrupts the row it reads. kind: GB_OAM_READ,
 * GB_OAM_WRITE, or GB_OAM_READ_IDU (a read and an increment in the same M-cycle). Nothing
 * happens on the CGB, with the LCD off, or outside mode 2. */
enum { GB_OAM_READ, GB_OAM_WRITE, GB_OAM_READ_IDU };
void gb_oam_bug(gb *g, int kind);

/* ---- APU (gb_apu.c) ------------------------------------------------------------------- */
void gb_apu_reset(gb *g);
uint8_t gb_apu_read(gb *g, uint16_t a);
void gb_apu_write(gb *g, uint16_t a, uint8_t v);
void gb_apu_fs_event(gb *g, uint64_t t);
void gb_apu_fs_schedule(gb *g);
void gb_apu_div_reset(gb *g, uint64_t old_sysclk);
void gb_apu_period_switch(gb *g, uint64_t t);

/* ---- audio synthesis (gb_aout.c) ------------------------------------------------------ */
void gb_lfsr_jump_init(gb_lfsr_jump *J);

/* ---- save states (gb_state.c): the part of loading after the header checks ---------- */
gv_status gb_state_load_unchecked(gb *g, const uint8_t *data, size_t len, gv_err *err);

/* ---- growable arrays ------------------------------------------------------------------ */
void *gb_vec_push(gb_vec *v, size_t elem);

#endif
