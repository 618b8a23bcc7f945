/* snes_int.h: the SNES machine's insides, shared by snes_machine.c (bus, CPU I/O, DMA,
 * timing, sound), snes_ppu.c (PPU registers and the scanline renderer), snes_state.c and
 * snes_console.c. Everything the machine must save lives in snes_state (plain data); the
 * CPU, SPC and DSP keep their own states. */
#ifndef GV_EMU_SNES_SNES_INT_H
#define GV_EMU_SNES_SNES_INT_H

#include "emu/snes/snes.h"
#include "emu/snes/snes_cpu.h"
#include "emu/snes/snes_dsp.h"
#include "emu/snes/snes_gsu.h"
#include "emu/snes/snes_msu.h"
#include "emu/snes/snes_sa1.h"
#include "emu/snes/snes_spc.h"
#include "emu/snes/snes_video.h"

/* NTSC timing in master clocks (21.477 MHz): 1364 a line, 262 lines a frame. */
enum {
    SNES_LINE_CLOCKS = 1364,
    SNES_LINES = 262,
    SNES_FRAME_CLOCKS = SNES_LINE_CLOCKS * SNES_LINES,
    SNES_REFRESH_AT = 536,     /* DRAM refresh: the CPU stops 40 clocks from dot 134 (538 on even
                                * lines, 534 on odd ones: a multiple of 8 clocks apart) */
    SNES_REFRESH_CLOCKS = 40,
    SNES_JOY_CLOCKS = 4224,    /* joypad auto-read: HVBJOY bit 0 this long */
    SNES_HDMA_AT = 1104,       /* HDMA of the next line: dot 276 */
    SNES_HBLANK_AT = 1096,     /* $4212 bit 6 from dot 274 ... */
    SNES_HBLANK_END = 4,       /* ... to dot 1 of the next line */
    SNES_MAX_AUDIO = 2048,     /* 48 kHz sample frames a frame can make (about 800) */
};

#define SNES_MASTER_HZ 21477272u /* NTSC master clock */
#define SNES_SPC_HZ 1024000u     /* S-SMP cycles a second (24.576 MHz / 24) */

typedef struct {
    uint8_t ctrl;          /* $43x0 DMAPx */
    uint8_t bbad;          /* $43x1 B-bus address */
    uint16_t a1t;          /* $43x2/3 A-bus address (HDMA: table start) */
    uint8_t a1b;           /* $43x4 A-bus bank */
    uint8_t dasb;          /* $43x7 HDMA indirect bank */
    uint16_t das;          /* $43x5/6 byte count (HDMA: indirect address) */
    uint16_t a2a;          /* $43x8/9 HDMA table address */
    uint8_t nltr;          /* $43xA HDMA line counter */
    uint8_t unused;        /* $43xB/$43xF */
    uint8_t do_transfer;   /* HDMA: transfer on the next line */
    uint8_t done;          /* HDMA: table ended for this frame */
} snes_dma_ch;

typedef struct {
    uint16_t cgram[256];   /* BGR555 */
    uint8_t vram[65536];
    uint8_t oam[544];
    uint8_t inidisp, obsel, bgmode, mosaic;
    uint8_t bgsc[4], bgnba[2];
    uint16_t hofs[4], vofs[4];
    uint8_t ofs_prev, pad0;      /* the BG scroll write latch */
    uint8_t vmain, cg_hi;        /* cg_hi: the next CGDATA byte is the high one */
    uint16_t vmadd, vram_buf;    /* VRAM word address, read prefetch */
    uint8_t cgadd, cg_latch;
    uint16_t oamadd, oam_reload; /* byte address 0-543, and the address $2102/3 set */
    uint8_t oam_latch, oam_prio;
    uint8_t m7sel, m7_prev;
    int16_t m7a, m7b, m7c, m7d, m7x, m7y, m7hofs, m7vofs;
    uint8_t wsel[3];             /* $2123-$2125 */
    uint8_t wpos[4];             /* $2126-$2129: left 1, right 1, left 2, right 2 */
    uint8_t wbglog, wobjlog, tm, ts, tmw, tsw, cgwsel, cgadsub, setini;
    uint16_t fixed;              /* COLDATA as BGR555 */
    uint16_t hlatch, vlatch;
    uint8_t hl_hi, vl_hi, latched, stat_flags; /* STAT77 range/time over */
    uint8_t mdr1, mdr2;
} snes_ppu;

typedef struct {
    /* timing */
    uint64_t frame;            /* frames completed */
    uint64_t frame_start;      /* master clock of line 0 of the current frame */
    uint32_t vdisp;            /* first line of vertical blank: 225 or 240 */
    /* CPU I/O */
    uint8_t nmitimen, wrio, wrmpya, wrmpyb;
    uint16_t wrdiv, rddiv, rdmpy;
    uint8_t alu_op, alu_b;     /* the arithmetic under way: 0 none, 1 multiply, 2 divide; its
                                * 8-bit operand ($4203 or $4206) */
    uint16_t reset_phase;      /* the master clock (low 16 bits) of the last power-on or reset
                                * (line 0 of its first frame): the DMA's 8-clock grid, the DRAM
                                * refresh's line parity and the auto-read's 256-clock grid count
                                * from it (frames are not all a multiple of 8 clocks long) */
    uint64_t alu_at;           /* CPU cycle number of the write that started it */
    uint16_t htime, vtime;
    uint8_t hdmaen, memsel, nmi_flag, irq_flag;
    uint16_t joy[4];           /* $4218-$421F after auto-read */
    uint32_t joy_shift[2];     /* $4016/$4017 serial shift registers */
    uint8_t joy_strobe, open_bus_dummy;
    uint16_t buttons;          /* what controller 1 holds */
    uint32_t wmadd;            /* $2181-$2183 */
    uint64_t joy_busy_until;   /* $4212 bit 0 while auto-read runs: the 4224 clocks before */
    uint64_t reset_frame;      /* `frame` at the last power-on or reset */
    snes_dma_ch dma[8];
    snes_ppu ppu;
    snes_msu_regs msu;         /* the MSU-1 (all zero without one) */
    uint8_t wram[131072];
} snes_state;

/* The lines of the current frame: 262, or 263 in interlace field 0 (Anomie's timing doc:
 * in interlace mode frames with $213F bit 7 = 0 are 263 scanlines; fullsnes "SNES Timing
 * H/V Events": V=262, the extra scanline, only in interlace field 0). The field is the
 * frame number's low bit ($213F bit 7); interlace is SETINI bit 0 as line 261 ends. */
static inline uint32_t snes_frame_lines(const snes_state *s)
{
    return SNES_LINES + ((s->ppu.setini & 1) && !(s->frame & 1));
}

/* The video log of a frame (EMU_OUT_VIDEO_LOG), in the terms of snes_video.h: each picture
 * line's register snapshot (consecutive equal ones stored once), the register changes made
 * inside lines (snes_vmid: at their pixel), the video memory writes
 * in segments stamped with the lines drawn before them, and the memories at the frame's
 * start when the renderers' copies cannot know them (after power, reset or a state load).
 * The host renderer reads it in place (snes_vlog_view); snes_vlog_pack makes the
 * snes_vpacked form the device renderer reads. */
typedef struct {
    snes_vregs regs[SNES_VH];
    uint8_t line_reg[SNES_VH];
    int nregs, nsegs;
    int lines, wide, il;     /* the frame's layout (snes_frame_dims) */
    snes_vseg segs[SNES_VH + 1];
    uint32_t *mw;            /* SNES_MW writes */
    size_t n, cap;
    snes_vmid *mid;          /* the changes inside lines (snes_vmid) */
    size_t nmid, midcap;
    int snapshot;
    int oom;                 /* a write could not be stored: the log is unusable */
    snes_vmem snap;
} snes_vlog;
snes_vview snes_vlog_view(const snes_vlog *lg);
size_t snes_vlog_packed_size(const snes_vlog *lg);
void snes_vlog_pack(const snes_vlog *lg, uint8_t *dst);

struct snes {
    snes_state s;
    snes_cpu cpu;
    snes_spc spc;
    snes_dsp dsp;
    const snes_cart *cart;
    const snes_cart_info *ci;
    const uint8_t *rom;
    const snes_msu_media *msu; /* the cartridge's MSU-1, or NULL */
    size_t msu_mixed;          /* 32 kHz samples of this frame the MSU-1 has been mixed into */
    size_t rom_map;            /* bytes of ROM address space (a power of two, at least 32 KiB) */
    uint8_t *romcopy;          /* the cartridge's bus image (snes_cart_bus), rom_map bytes */
    uint8_t *sram;             /* sram_size bytes, or NULL (a GSU cartridge: its Game Pak RAM) */
    snes_gsu *gsu;             /* the Super FX of a GSU cartridge, or NULL */
    snes_sa1 *sa1;             /* the SA-1 of an SA-1 cartridge (its BW-RAM: sram), or NULL */
    size_t sram_size;
    unsigned outputs;
    emu_line_fn trace;
    void *trace_ctx;
    int16_t dsp_out[2 * 1024]; /* the DSP's 32 kHz samples of the current frame */
    int16_t audio[2 * SNES_MAX_AUDIO];
    int audio_n;
    snes_vlog *vlog;           /* with SNES_OUT_VIDEO_LOG */
    uint32_t lines_drawn;      /* picture lines drawn this frame (the log's stamp) */
    int vlog_snap;             /* the next frame's log carries the memories (power, reset, state load) */
    int lines, wide, il;       /* this frame's layout (snes_frame_dims): lines from the overscan
                                * and interlace from SETINI at its start, wide from its first
                                * hi-res line on */
    uint64_t refresh_at;       /* this line's DRAM refresh, not yet taken: its master clock, or UINT64_MAX */
    /* Writes inside a picture line (docs/SNES.md, "Mid-line writes"): until master clock
     * mid_end (the line's HDMA point; 0 outside picture lines) a PPU register write that
     * changes the picture redraws picture line mid_y from its pixel on. */
    uint64_t mid_end, mid_ls;  /* mid_ls: the line's master clock 0 */
    int mid_y;
    uint32_t mid_w0;           /* the video log's writes when the line began */
    snes_vregs mid_regs;       /* the registers the line is drawn with so far */
    int mid_nundo;             /* VRAM and OAM bytes written inside the line: address, old value */
    uint32_t mid_undo[256];
    uint8_t fb[SNES_FB_BYTES];
    snes_cpu_bus bus;
};

/* snes_machine.c */
void snes_map_pages(snes *m);
/* A GSU cartridge: the GSU run up to master clock clk, the page table rebuilt when the bus
 * ownership changed, the CPU's IRQ line updated. */
void snes_gsu_sync(snes *m, uint64_t clk);
/* An SA-1 cartridge: the SA-1 run up to master clock clk, the page table rebuilt when the
 * Super MMC or BMAPS changed, the CPU's IRQ line updated. */
void snes_sa1_sync(snes *m, uint64_t clk);
uint64_t snes_spc_time(uint64_t master_clock);
void snes_sync_spc(snes *m, uint64_t master_clock);

/* snes_ppu.c */
void snes_ppu_power(snes_ppu *p);
/* The reset button: forced blank; the memories and the other registers kept. */
void snes_ppu_reset(snes_ppu *p);
/* reg: $00-$33 of $21xx. Returns the number of video memory bytes written (0-2), each
 * as an SNES_MW word in mw. */
int snes_ppu_write(snes_ppu *p, uint8_t reg, uint8_t v, uint32_t mw[2]);
/* The registers a line is drawn with (snes_video.h). */
void snes_vregs_of(const snes_ppu *p, snes_vregs *r);
/* reg: $34-$3F; clk: the master clock of the access (the counter latch of $2137) */
uint8_t snes_ppu_read(snes *m, uint8_t reg, uint64_t clk);
/* The reads that change the PPU ($2138-$213B: OAM, VRAM, CGRAM data ports). */
uint8_t snes_ppu_read_mem(snes_ppu *p, uint8_t reg);
/* Draws picture line y (0-238: screen line y + 1) into its rows of the frame fb
 * (snes_render_rows) with the registers r (snes_vregs_of) and the memories of p now (it
 * sets p's STAT77 sprite flags). */
void snes_ppu_draw_line(snes_ppu *p, const snes_vregs *r, int y, int il, int wide, uint8_t *fb);
/* The video memory bytes (snes_vmem offsets) a write of PPU register reg would change now:
 * $2104 (OAM), $2118/$2119 (VRAM); 0 for the others. */
int snes_ppu_write_targets(const snes_ppu *p, uint8_t reg, uint32_t a[2]);
/* Only the sprite evaluation of picture line y (the STAT77 flags), when nothing is drawn. */
void snes_ppu_obj_flags(snes_ppu *p, int y, int il);

/* The H/V counters latch (a $2137 read or WRIO bit 7 going low) at master clock clk. */
void snes_ppu_latch_counters(snes *m, uint64_t clk);

#endif
