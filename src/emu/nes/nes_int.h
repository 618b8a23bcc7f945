/* nes_int.h: the NES machine's internals, shared by the files of src/emu/nes/ only: the
 * machine struct (CPU, PPU, APU, mapper and output state), the bus every CPU cycle goes
 * through, and each unit's functions. */
#ifndef GV_EMU_NES_NES_INT_H
#define GV_EMU_NES_NES_INT_H

#include "core/hd.h"
#include "emu/nes/nes.h"
#include "emu/nes/nes_board.h"
#include "emu/nes/nes_framelog.h"
#include "emu/nes/nes_video.h"

/* ---- machine ------------------------------------------------------------------------ */

typedef struct {
    uint16_t pc;
    uint8_t a, x, y, s;
    uint8_t fn, fv, fd, fi, fz, fc; /* flags, each 0 or 1 */
    uint8_t jammed;                 /* a KIL opcode stopped the CPU */
    uint8_t int_next;               /* interrupt sequence to run before the next opcode */
} nes_cpu;

enum { NES_INT_NMI = 1, NES_INT_IRQ = 2 };
enum { NES_IRQ_FRAME = 1, NES_IRQ_DMC = 2, NES_IRQ_MAPPER = 4 };

typedef struct {
    nes_pline pl;        /* registers, palette, fetch slots, sprite line (nes_video.h) */
    uint8_t oam[256];
    uint8_t nt[4096];
    uint16_t line, dot;  /* the next dot to process */
    uint64_t clk;        /* dots processed since power-on */
    uint8_t status;      /* $2002 bits 7 (VBlank), 6 (sprite 0 hit), 5 (overflow) */
    uint8_t w, oamaddr, rbuf, io; /* io: the open-bus "decay register" */
    uint64_t rd7_at;     /* CPU cycle of the last $2007 read */
    uint8_t rd7_v;       /* and the value it returned */
    uint64_t io_at[3];   /* dot time bits 7-6, 5, 4-0 of io were last refreshed (they decay to 0) */
    uint8_t odd;         /* this frame is odd (its pre-render line may be one dot short) */
    uint8_t vbl_suppress;
    uint8_t short_line;  /* the current pre-render line skips its last dot */
    uint64_t hit_clk, ovf_clk; /* when the hit / overflow flags get set (NES_NEVER: not pending) */
    uint8_t hit_cand;    /* the sprite 0 pixels that may hit, bit k = k pixels after the one at hit_clk
                          * (bit 0); PPUMASK is checked as each is drawn (not in the save state:
                          * after a load only the pending pixel is checked) */
    uint8_t a12;         /* PPU address line 12 as the mapper last saw it */
    uint64_t a12_low;    /* dot time it last went low */
    uint8_t spr_a12[8];  /* A12 of each sprite fetch slot on the current line (8x16) */
    uint16_t spr_addr[8]; /* pattern address (low plane) each sprite slot fetches on this line (watching boards) */
    uint16_t watch_addr; /* the watched pattern fetch a span stopped after (NES_NO_WATCH: none) */
    uint8_t log_on;      /* between the snapshot at (261, 0) and the frame end */
    uint8_t here_done;   /* the events of position (line, dot) have been processed */
    uint8_t rst;         /* the internal reset signal: set at power and reset, cleared with the
                          * VBlank flag at the pre-render line's dot 1; meanwhile $2000/$2001/$2005/$2006 writes are lost */
    nes_pmem mem;        /* live memories for the drawing rules (no overlay) */
} nes_ppu;

typedef struct {
    /* control side: what the CPU can observe and what decides the sound */
    uint8_t len[4];           /* length counters: pulse 1, pulse 2, triangle, noise */
    uint8_t halt[4];          /* length counter halt (envelope loop / linear control) */
    uint8_t halt_old[4];      /* halt before a write made in the cycle before a length clock */
    uint64_t halt_old_at;     /* the cycle of that length clock, which still uses halt_old */
    uint8_t enabled;          /* $4015 bits 0-3 */
    uint8_t env_start[3], env_div[3], env_decay[3], env_reg[3]; /* pulse 1, 2, noise */
    uint8_t sw_reg[2], sw_div[2], sw_reload[2];
    uint16_t period[2];       /* pulse timer periods */
    uint16_t tri_period;
    uint8_t lin_ctr, lin_reg, lin_reload;
    uint8_t noise_reg;        /* $400E */
    uint8_t duty_reg[2];
    /* DMC */
    uint8_t dmc_ctrl;         /* $4010 */
    uint8_t dmc_addr_reg, dmc_len_reg;
    uint16_t dmc_addr, dmc_remain;
    uint8_t dmc_buf, dmc_buf_full, dmc_irq;
    uint64_t dmc_reload;      /* cycle of the next output-unit reload (eighth bit clock) */
    /* frame counter */
    uint8_t fc_mode, fc_inhibit, fc_irq, fc_step;
    uint64_t fc_start;        /* cycle the 4/5-step sequence started */
    uint64_t fc_reset;        /* pending $4017 reset at this cycle (NES_NEVER: none) */
    uint8_t fc_pending;       /* the value written to $4017 */
    /* audible state, in cycles relative to frame_c0 */
    nes_osc osc;
    nes_xosc xosc;            /* the cartridge's sound chip (kind NES_XA_NONE: none) */
    uint64_t frame_c0;        /* absolute cycle where this frame's audio starts */
    uint64_t audio_t;         /* absolute cycle the audio has been produced (or advanced) to */
} nes_apu;

/* Sample output: the clock of the 48 kHz stream, the partial sum of the sample in progress
 * and the recurrent filters (90 Hz and 440 Hz high-pass, 14 kHz low-pass). */
typedef struct {
    int region;       /* NES_REGION_*: whose CPU clock the sample clock counts (the machine's, not state) */
    uint64_t n;       /* index of the next sample to complete */
    uint64_t carry;   /* sum of the mixer output over the part of sample n already seen */
    int64_t hp1_x, hp1_y, hp2_x, hp2_y, lp_y;
} nes_aout;

typedef struct {
    int video_native; /* draw pixels inside the core, per dot */
    int log_video;    /* emit the video part of the frame log */
    int audio_native; /* produce samples inside the core, per sample */
    int log_audio;    /* emit the audio spans of the frame log */
    int mmc3_rev_a;   /* the MMC3's revision A IRQ (else B, the common one) */
    int region;       /* NES_REGION_*: the console's timing (nes_timing) */
} nes_opts;

/* What the region changes in the timing side (docs/NES.md "Regions"; the NESdev wiki's
 * "Cycle reference chart"), set from nes_opts.region at nes_new. */
typedef struct {
    uint8_t dots16;     /* PAL: 3.2 PPU dots per CPU cycle (master clock / 5 and / 16); else 3 */
    uint8_t pal_apu;    /* PAL: the 2A07's noise and DMC periods and frame-counter steps */
    uint8_t odd_skip;   /* NTSC: odd frames with rendering on skip the pre-render line's last dot */
    uint8_t emph_swap;  /* PAL, Dendy: PPUMASK bits 5 and 6 emphasize green and red */
    uint16_t pre;       /* the pre-render line: 261 of 262 lines (NTSC), 311 of 312 */
    uint16_t vbl;       /* the line whose dot 1 starts VBlank and the NMI: 241, Dendy 291 */
    uint64_t io_decay;  /* the PPU open bus's decay time, 600 ms, in dots */
} nes_timing;


struct nes {
    nes_cpu cpu;
    uint64_t cyc;          /* CPU cycles since power-on */
    uint64_t next_ev;      /* cycle at which nes_events must run */
    uint8_t ram[2048];
    uint8_t bus;           /* CPU data bus (open bus) */
    const uint8_t *prg_rd[4]; /* $8000-$FFFF in 8 KiB windows */
    uint16_t prg_direct;      /* reads from here up use prg_rd directly; below, from $8000, the
                               * board's read_low sees them ($8000 unless a board raises it) */
    const uint8_t *wram_rd;   /* $6000-$7FFF: what reads see (NULL: open bus) */
    uint8_t *wram_wr;         /* where writes go (NULL: ignored) */
    uint16_t wram_mask;       /* address bits inside the window (smaller RAMs mirror) */
    uint8_t nmi_pending, irq_src;
    uint64_t nmi_at, irq_at; /* first cycle at which the CPU can see the NMI edge / IRQ line */
    uint8_t frame_done;
    uint8_t pad_strobe, pad_shift; /* controller port 1: strobe (OUT0 as the pad sees it), bits read since it fell */
    uint8_t pad_out;       /* the value last written to $4016 bit 0 (the CPU's OUT0 latch) */
    uint64_t pad_out_at;   /* cycle from which the pad sees pad_out (NES_NEVER: it already does) */
    uint8_t pad_buttons;   /* buttons held this frame (input, not state): bit 0 A ... bit 7 Right */
    uint64_t pad_rd_at;    /* cycle of the last $4016 read: reads in consecutive cycles clock the pad once */
    uint8_t dma;           /* DMA requests: NES_DMA_OAM (the next read cycle halts), NES_DMA_DMC */
    uint8_t oam_page;      /* source page of the requested OAM DMA */
    uint64_t dmc_dma_at;   /* first cycle at which the DMC DMA tries to halt the CPU */
    uint64_t frame;        /* frames completed */

    const nes_cart *cart;
    uint8_t *prg_ram;
    uint8_t *chr_ram;
    const nes_board *bd;   /* the cartridge's board (nes_board.h) */
    void *bs;              /* its register state (bd->size bytes) */
    uint64_t board_ev;     /* cycle at which the board's cpu_event runs (NES_NEVER: none) */
    uint8_t hooks;         /* NES_HOOK_*: the board's PPU hooks, for the PPU's quick tests */
    uint8_t a12_irq;       /* the board's A12 counter may raise an IRQ: schedule its edges */
    uint8_t conflicts;     /* writes to $8000-$FFFF are ANDed with the ROM byte */
    nes_ppu ppu;
    nes_apu apu;
    nes_aout aout;
    nes_opts opt;
    nes_timing tm;
    nes_atab *tab;

    /* outputs of the frame just run */
    uint8_t *fb;           /* native video: 256 x 240 RGB */
    uint32_t rgb32[512];   /* colour table for the native renderer */
    int16_t *abuf;         /* native audio: the frame's samples */
    uint32_t abuf_n, abuf_cap;
    nes_loghead *lh;       /* frame log (log_video / log_audio) */
    uint8_t *lchr;
    nes_vev *lev;
    uint32_t lev_cap;
    nes_osc *lspan;
    uint32_t lspan_cap;
    nes_xosc *lxspan;
    uint32_t lxspan_cap;
    uint8_t *lxmem;        /* the sound chip's memory images of the frame (lh->nxmem bytes) */
    uint32_t lxmem_cap;
    const uint8_t *xmem;   /* the memory the sound chip reads (Namco 163: its RAM), NULL: none;
                            * xmem_len bytes, set by the board at power */
    uint32_t xmem_len;
    nes_vrc7 *fm;          /* the board's FM synthesiser (the VRC7's, in its registers), or NULL */
    int16_t *lfm;          /* its levels of the frame, one a tick from tick frame_c0 / 36 (nes_vrc7.h) */
    uint32_t lfm_n, lfm_cap;

    emu_line_fn trace;     /* one line per instruction (nes_trace.c), or NULL */
    void *trace_ctx;
};

#define NES_NEVER UINT64_MAX
enum { NES_DMA_OAM = 1, NES_DMA_DMC = 2 };

/* The PPU dots done by the start of CPU cycle c: 3c, or on PAL floor(16c / 5) (a CPU
 * access at cycle c sees the dots below it done; a write applies before it). Cycle c
 * holds dots nes_dots_at(c) to nes_dots_at(c + 1) - 1. */
static inline uint64_t nes_dots_at(const nes *m, uint64_t c)
{
    return m->tm.dots16 ? c * 16 / 5 : 3 * c;
}

/* The first CPU cycle c with nes_dots_at(c) >= t: the one by whose start dot t - 1 is done. */
static inline uint64_t nes_cycle_at(const nes *m, uint64_t t)
{
    return m->tm.dots16 ? (5 * t + 15) / 16 : (t + 2) / 3;
}

/* Creates a machine for cart (which must outlive it) and powers it on. The options say
 * which outputs the core produces. GV_ERR_ENV on allocation failure. */
gv_status nes_new(const nes_cart *cart, const nes_opts *o, nes **out, gv_err *err);
void nes_free(nes *m);
/* Power cycle (RAM cleared, cycle counters to 0) and soft reset (the console's button). */
void nes_power(nes *m);
void nes_reset(nes *m);
/* Runs until the PPU reaches the post-render line (240, 0): one frame. Afterwards fb, abuf
 * and the frame log hold that frame's outputs. */
void nes_run_frame(nes *m);
/* The frame log of the frame just run. */
nes_logview nes_log_view(const nes *m);

/* ---- bus, events (nes_machine.c) ------------------------------------------------------ */

void nes_events(nes *m);
uint8_t nes_io_read(nes *m, uint16_t a);
void nes_io_write(nes *m, uint16_t a, uint8_t v);
/* Reads CPU memory without side effects (trace, tests, test-ROM status). */
uint8_t nes_peek(const nes *m, uint16_t a);
/* Makes nes_events run at the next cycle (after a change that moves the next event). */
void nes_resched(nes *m);
void nes_irq_set(nes *m, int src, uint64_t at);
void nes_irq_clear(nes *m, int src);
/* Runs the DMA cycles that halt the CPU's read of address a (nes_machine.c): OAM DMA after a
 * $4014 write, the DMC's sample fetch once due. The halted cycles repeat the CPU's read
 * (side effects included); on return the CPU's read proceeds in the current cycle. */
void nes_dma(nes *m, uint16_t a);
/* The byte a DMA's read of da gives while the 6502 is halted on a read of a (v: what the
 * external bus carries): the APU registers' answer when a is in $4000-$401F, else v. */
uint8_t nes_dma_read_at(nes *m, uint16_t a, uint16_t da, uint8_t v);

/* The bus: every CPU cycle is one of these (always inlined into the CPU, except in
 * sanitizer builds, where forcing it multiplies the compile time many times over:
 * GV_HOT_INLINE). */

GV_HOT_INLINE void nes_tick(nes *m)
{
    if (__builtin_expect(++m->cyc >= m->next_ev, 0))
        nes_events(m);
}

/* One read access in the current cycle (no tick): the CPU's, or a halted cycle's repeat. */
GV_HOT_INLINE uint8_t nes_access(nes *m, uint16_t a)
{
    uint8_t v;
    if (a < 0x2000)
        v = m->ram[a & 0x7FF];
    else if (a >= m->prg_direct)
        v = m->prg_rd[(a >> 13) & 3][a & 0x1FFF];
    else if (__builtin_expect(a == 0x4015, 0))
        return nes_io_read(m, a); /* $4015 drives the CPU's internal bus only: open bus keeps its value */
    else
        v = nes_io_read(m, a);
    m->bus = v;
    return v;
}

/* A read cycle. A pending DMA keeps next_ev at or before the cycle it may halt (see
 * nes_events), so the common path stays one compare. */
GV_HOT_INLINE uint8_t nes_read(nes *m, uint16_t a)
{
    if (__builtin_expect(++m->cyc >= m->next_ev, 0)) {
        nes_events(m);
        if (m->dma)
            nes_dma(m, a);
    }
    return nes_access(m, a);
}

GV_HOT_INLINE void nes_write(nes *m, uint16_t a, uint8_t v)
{
    nes_tick(m);
    m->bus = v;
    if (a < 0x2000)
        m->ram[a & 0x7FF] = v;
    else
        nes_io_write(m, a, v);
}

/* ---- CPU (nes_cpu.c) ---------------------------------------------------------------- */

void nes_cpu_power(nes *m);
void nes_cpu_reset(nes *m);
/* Executes instructions (and interrupt sequences) until the frame is done (m->frame_done). */
void nes_cpu_run_frame(nes *m);

/* ---- PPU (nes_ppu.c) ---------------------------------------------------------------- */

void nes_ppu_power(nes *m);
void nes_ppu_reset(nes *m);
/* Brings the PPU up to the current CPU cycle (nes_dots_at). */
void nes_ppu_sync(nes *m);
uint8_t nes_ppu_read(nes *m, int reg);
void nes_ppu_write(nes *m, int reg, uint8_t v);
uint8_t nes_ppu_peek(const nes *m, int reg);
void nes_ppu_oam_write(nes *m, uint8_t v);
/* The CPU cycle at which the PPU next needs attention (VBlank/NMI, frame end, mapper IRQ). */
uint64_t nes_ppu_next_event(nes *m);
/* Starts the frame log at the current position (power-on). */
void nes_ppu_begin_log(nes *m);
/* Called by the mapper after a bank change: logs the changed pattern/nametable windows. */
void nes_ppu_maps_changed(nes *m, const nes_pregs *old);
/* The CPU cycle by which the PPU next reaches (line, dot) (a board's scanline event). */
uint64_t nes_ppu_cycle_of(nes *m, int line, int dot);
/* Writes byte off (0-4095) of the nametable RAM (pages 2-3: the board's own, e.g. MMC5
 * ExRAM and fill page) and logs it at the PPU's current dot (call nes_ppu_sync first). */
void nes_ppu_nt_poke(nes *m, uint32_t off, uint8_t v);
/* Address line 12 seen by the mapper at dot time t (MMC3 counts its filtered rising edges). */
void nes_ppu_a12(nes *m, int level, uint64_t t);

/* ---- APU (nes_apu.c) ---------------------------------------------------------------- */

void nes_apu_power(nes *m);
void nes_apu_reset(nes *m);
void nes_apu_sync(nes *m);
uint8_t nes_apu_read_status(nes *m);
void nes_apu_write(nes *m, uint16_t a, uint8_t v);
/* The DMC DMA's get cycle: the sample byte read into the buffer (in the current cycle);
 * a: the address of the 6502's halted read (nes_dma_read_at). */
void nes_apu_dmc_get(nes *m, uint16_t a);
uint64_t nes_apu_next_event(nes *m);
/* Frame boundary: produce/advance audio to the current cycle, close the frame's spans and
 * rebase the audible state on the next frame. */
void nes_apu_frame_end(nes *m);
void nes_apu_frame_begin(nes *m);
/* Recomputes derived audible state after a state load. */
void nes_apu_refresh(nes *m);
/* The board's sound chip (m->apu.xosc, rules in nes_xaudio.h): a register write is
 * bracketed by nes_xaudio_begin (the sound brought up to now) and nes_xaudio_end (the new
 * state logged as a span). nes_xaudio_now: the frame-relative cycle of the write. */
void nes_xaudio_begin(nes *m);
void nes_xaudio_end(nes *m);
static inline uint32_t nes_xaudio_now(const nes *m)
{
    return (uint32_t)(m->cyc - m->apu.frame_c0);
}

/* ---- the VRC7's FM synthesiser (nes_vrc7.c, nes_vrc7.h) ------------------------------ */

/* Its log-sin and exponent tables (256 entries each), computed from their definitions. */
void nes_vrc7_tables(uint16_t *logsin, uint16_t *expt);
/* Power-on: registers 0, every envelope silent. */
void nes_vrc7_power(nes_vrc7 *c);
/* The reset line ($E000 bit 6): on clears the registers (the tremolo too, not the vibrato)
 * and silences the chip until it goes off. */
void nes_vrc7_reset(nes_vrc7 *c, int on);
/* A write of v to the register c->addr selects (key on/off at the $2x key bit's edges). */
void nes_vrc7_write(nes_vrc7 *c, uint8_t v);
/* Runs tick c->tick (the next): the six channels' phases, envelopes and LFOs one sample on;
 * returns the sum of the carriers' outputs (also in c->last). */
int16_t nes_vrc7_tick(const nes_atab *t, nes_vrc7 *c);

/* ---- sample output (nes_aout.c) ----------------------------------------------------- */

/* Completes one sample from the sum of the mixer output over its `len` cycles: filters it
 * and appends the int16 result to out[*n]. */
void nes_aout_push(nes_aout *a, uint64_t sum, uint32_t len, int16_t *out, uint32_t *n);
/* The sample stream of a logged frame from its piece sums (see nes_log_pieces): appends
 * the frame's samples to out. Identical to what the native path produces. */
void nes_aout_pieces(nes_aout *a, uint64_t n0, const uint64_t *piece, uint32_t npieces,
                     int16_t *out, uint32_t *n);

/* ---- the cartridge board (nes_board.c, nes_board_*.c) ----------------------------------- */

enum { NES_HOOK_A12 = 1, NES_HOOK_FETCH = 2, NES_HOOK_MASK = 4 };
#define NES_NO_WATCH 0xFFFFu

/* The board that runs cart (NULL: none supports it). */
const nes_board *nes_board_find(const nes_cart *c);
/* Power-on: the board's registers to their power-on values and its windows mapped. */
void nes_board_power(nes *m);
/* The console's reset button (most boards do not see it). */
void nes_board_reset(nes *m);
/* A CPU write at $4020-$FFFF (the PPU is brought up to now first where it can matter). */
void nes_board_write(nes *m, uint16_t a, uint8_t v);
/* A CPU read at $4020-$7FFF; peek: without side effects. */
uint8_t nes_board_read_low(nes *m, uint16_t a, int peek);
/* Recomputes the windows (PRG, pattern, nametable, $6000) from the board's registers and
 * logs the pattern/nametable windows that changed at the PPU's current dot. */
void nes_board_update(nes *m);
/* The $6000-$7FFF window as nes_board_update mapped it (the default of read_low/write_low). */
static inline uint8_t nes_wram_read(const nes *m, uint16_t a)
{
    return a >= 0x6000 && m->wram_rd ? m->wram_rd[a & m->wram_mask] : m->bus;
}
static inline void nes_wram_write(nes *m, uint16_t a, uint8_t v)
{
    if (a >= 0x6000 && m->wram_wr)
        m->wram_wr[a & m->wram_mask] = v;
}
/* Asks for the board's cpu_event when the CPU reaches cycle t (NES_NEVER: none). */
void nes_board_schedule(nes *m, uint64_t t);
/* A filtered A12 rising edge at dot time t, and whether the board counts them. */
static inline void nes_board_a12(nes *m, uint64_t t)
{
    m->bd->a12(m, t);
}
static inline int nes_board_counts_a12(const nes *m)
{
    return m->hooks & NES_HOOK_A12;
}
/* The machine's bank of the board state, as the unit's own struct. */
#define NES_BS(m, type) ((type *)(m)->bs)

/* ---- save states (nes_state.c) ------------------------------------------------------ */

/* Visits one field (little-endian, size 1, 2, 4 or 8 bytes) of a state being saved or
 * loaded: the boards' state operations use these through NES_ST / NES_ST_ARR. */
void nes_st_uint(nes_st *s, void *v, int size);
#define NES_ST(s, field) nes_st_uint((s), &(field), (int)sizeof(field))
#define NES_ST_ARR(s, arr)                                                                    \
    do {                                                                                      \
        for (size_t i_ = 0; i_ < sizeof(arr) / sizeof((arr)[0]); i_++)                        \
            nes_st_uint((s), &(arr)[i_], (int)sizeof((arr)[0]));                             \
    } while (0)

/* Serialises the whole machine (at a frame boundary) into a malloc'd buffer. */
gv_status nes_state_save(const nes *m, uint8_t **data, size_t *len, gv_err *err);
/* Loads a state saved for the same ROM. Validates magic, version, ROM hash, size, checksum
 * and every field's range; GV_ERR_INPUT with a one-line reason, machine unchanged. */
gv_status nes_state_load(nes *m, const uint8_t *data, size_t len, gv_err *err);

/* ---- trace (nes_trace.c) ------------------------------------------------------------ */

/* Formats the instruction at PC in the nestest log layout (before executing it) into buf
 * (at least 128 bytes); returns its length. nes_trace_emit hands that line to m->trace. */
int nes_trace_line(nes *m, char *buf, size_t len);
void nes_trace_emit(nes *m);

/* ---- test-ROM status protocol --------------------------------------------------------- */

/* Status of a test ROM: -1 while nothing valid is at $6001-$6003 (DE B0 61); else the
 * status byte at $6000 ($80 running, $81 reset wanted, else the result). msg receives the
 * NUL-terminated text at $6004 (sanitised to printable ASCII, one line). */
int nes_test_status(const nes *m, char *msg, size_t len);

#endif
