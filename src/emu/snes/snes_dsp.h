/* snes_dsp.h: the SNES S-DSP, the sound generator beside the SPC700: 8 voices of BRR samples
 * with Gaussian interpolation, pitch modulation, noise, ADSR/GAIN envelopes, the echo unit
 * (buffer in ARAM, 8-tap FIR, feedback) and the stereo mixer, at one sample per 32 SPC cycles
 * (32 kHz); plus the integer 32 kHz -> 48 kHz resampler that WAV output uses.
 *
 * The DSP owns its registers and state only. It reads and writes the SPC's 64 KiB of ARAM
 * through env.aram and is stepped in SPC cycles: snes_dsp_run(d, cycle) produces every sample
 * whose 32-cycle period ends at or before `cycle`. Register accesses carry their SPC cycle and
 * first run the DSP up to it, so a write in cycle c affects the samples whose period ends
 * after c. Output goes into a caller buffer (env.out, signed 16-bit, L R interleaved).
 * Everything is integer arithmetic: host and device renderers can be bit-identical.
 *
 * The state is plain data (no pointers) up to `env`; SNES_DSP_STATE_BYTES bytes of it are the
 * save state. docs/SNES_DSP.md has the model, its sources and how a parallel renderer splits
 * the work. */
#ifndef GV_EMU_SNES_SNES_DSP_H
#define GV_EMU_SNES_SNES_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

struct snes_spc;

enum { SNES_DSP_CYCLES_PER_SAMPLE = 32, SNES_DSP_VOICES = 8 };

/* Register numbers: voice registers are (voice << 4) | reg. */
enum {
    SNES_DSP_VOLL = 0x0, SNES_DSP_VOLR = 0x1, SNES_DSP_PITCHL = 0x2, SNES_DSP_PITCHH = 0x3,
    SNES_DSP_SRCN = 0x4, SNES_DSP_ADSR1 = 0x5, SNES_DSP_ADSR2 = 0x6, SNES_DSP_GAIN = 0x7,
    SNES_DSP_ENVX = 0x8, SNES_DSP_OUTX = 0x9,
    SNES_DSP_MVOLL = 0x0C, SNES_DSP_MVOLR = 0x1C, SNES_DSP_EVOLL = 0x2C, SNES_DSP_EVOLR = 0x3C,
    SNES_DSP_KON = 0x4C, SNES_DSP_KOFF = 0x5C, SNES_DSP_FLG = 0x6C, SNES_DSP_ENDX = 0x7C,
    SNES_DSP_EFB = 0x0D, SNES_DSP_PMON = 0x2D, SNES_DSP_NON = 0x3D, SNES_DSP_EON = 0x4D,
    SNES_DSP_DIR = 0x5D, SNES_DSP_ESA = 0x6D, SNES_DSP_EDL = 0x7D, SNES_DSP_FIR = 0x0F, /* FIRn = $nF */
};

/* Envelope phases. */
enum { SNES_DSP_ENV_RELEASE = 0, SNES_DSP_ENV_ATTACK = 1, SNES_DSP_ENV_DECAY = 2, SNES_DSP_ENV_SUSTAIN = 3 };

/* One voice: everything its BRR/pitch/envelope steps touch. */
typedef struct {
    int16_t buf[12];      /* ring of decoded 15-bit samples, three groups of four */
    uint16_t brr_addr;    /* the current 9-byte block */
    uint16_t counter;     /* pitch counter: bits 15-12 sample, 11-4 Gaussian index */
    int16_t env;          /* envelope level 0-$7FF */
    int16_t out;          /* this sample's output after the envelope (15-bit, what OUTX shows) */
    int16_t env_raw;      /* the last new level before clamping, & $7FF: bent GAIN's test */
    uint8_t brr_off;      /* next byte pair in the block: 1, 3, 5 or 7 */
    uint8_t buf_pos;      /* ring index of the oldest group: 0, 4 or 8 */
    uint8_t env_mode;     /* SNES_DSP_ENV_* */
    uint8_t kon_delay;    /* samples left of the key-on delay (5 after KON) */
} snes_dsp_voice;

/* The 32 kHz -> 48 kHz resampler (see snes_dsp_resample). */
typedef struct {
    int16_t prev[2];      /* the previous 32 kHz sample, L and R */
    uint8_t phase;        /* 0: the next input makes two outputs, 1: one */
    uint8_t pad_[3];
} snes_dsp_resampler;

typedef struct snes_dsp {
    /* ---- the machine (SNES_DSP_STATE_BYTES bytes from here) ---- */
    uint64_t cycle;               /* SPC cycle up to which samples have been produced: a multiple of 32 */
    uint64_t samples;             /* samples produced since power-on */
    snes_dsp_voice v[SNES_DSP_VOICES];
    int16_t fir[2][8];            /* FIR history, L and R, newest at fir_pos */
    uint32_t rate_counter;        /* global envelope/noise counter, 0..30719 */
    uint16_t noise;               /* 15-bit LFSR */
    uint16_t echo_idx;            /* echo buffer entry (4 bytes each) */
    uint16_t echo_len;            /* entries in the buffer, latched from EDL at entry 0 */
    uint8_t fir_pos;
    uint8_t kon_latch;            /* KON as written, taken at the next poll */
    uint8_t endx;
    uint8_t poll;                 /* toggles each sample: KON/KOFF are polled when it is 0 */
    uint8_t reg[128];             /* the register file */
    snes_dsp_resampler rs;
    uint8_t esa;                  /* ESA as read at the end of the previous sample: this sample's echo base */
    uint8_t pad_[1];

    /* ---- the environment: set by the caller, never saved ---- */
    struct {
        uint8_t *aram;            /* the SPC's 64 KiB */
        const uint8_t *ram_write; /* the SPC's TEST bit 1 (snes_spc.ram_write): echo writes reach
                                   * ARAM only while it is 1; NULL (no SPC attached): always */
        int16_t *out;             /* output, L R interleaved: out[2*out_n], out[2*out_n+1] */
        size_t out_cap, out_n;    /* capacity and count in stereo samples */
        uint64_t out_dropped;     /* samples produced while the buffer was full */
    } env;
} snes_dsp;

#define SNES_DSP_STATE_BYTES offsetof(snes_dsp, env)

/* The 512-entry Gaussian interpolation table (a property of the chip, see snes_dsp.c). */
extern const int16_t snes_dsp_gauss[512];

/* Power-on: zeroes the state (env too, so attach again), FLG = $E0 (reset, mute, echo writes
 * off), the noise LFSR at -$4000, ENDX = 0. `aram` may be NULL until attached. */
void snes_dsp_power(snes_dsp *d, uint8_t *aram);
/* Attaches to an SPC: the ARAM pointer and the $F2/$F3 hook (snes_dsp_read/write); the DSP's
 * clock moves up to the SPC's (rounded down to a sample) if it is behind. Attach before the
 * SPC runs: what it wrote to the hook-less register file (s->dsp) is not carried over. */
void snes_dsp_attach(snes_dsp *d, struct snes_spc *s);

/* Produces every sample whose period ends at or before SPC cycle `cycle`. */
void snes_dsp_run(snes_dsp *d, uint64_t cycle);
/* One sample in three phases, for renderers that split the work (snes_dsp_run calls them
 * in this order; docs/SNES_DSP.md, "Splitting the work"):
 *   begin: KON/KOFF/FLG.7 and the noise step (global);
 *   voice: one voice's pitch, interpolation, envelope, BRR; voices depend on each other only
 *     through PMON (voice v reads voice v-1's output of the same sample), so without PMON
 *     the eight calls may run in any order or in parallel;
 *   end: mixing in voice order, echo (reads and writes ARAM), volumes, output. */
void snes_dsp_sample_begin(snes_dsp *d);
void snes_dsp_sample_voice(snes_dsp *d, int v);
void snes_dsp_sample_end(snes_dsp *d);
/* Register access at SPC cycle `cycle` (reg 0-$7F); both run the DSP up to `cycle` first. */
uint8_t snes_dsp_read(snes_dsp *d, uint8_t reg, uint64_t cycle);
void snes_dsp_write(snes_dsp *d, uint8_t reg, uint8_t v, uint64_t cycle);

/* The building blocks, exposed for tests and for renderers that split the work:
 * brr_group: decodes 4 nibbles (two data bytes) with the block's header into out[4],
 *   p1/p2 the previous two samples (out[-1], out[-2]) as 15-bit values.
 * gauss_interp: the interpolation of four 15-bit samples (oldest first) at index i (0-255). */
void snes_dsp_brr_group(uint8_t hdr, uint8_t b0, uint8_t b1, int p1, int p2, int16_t out[4]);
int snes_dsp_gauss_interp(int i, int s0, int s1, int s2, int s3);
/* Whether envelope/noise rate r (0-31) fires at global counter value c. */
int snes_dsp_rate_fires(int r, uint32_t c);

/* The 32 kHz -> 48 kHz resampler: n stereo input samples (interleaved) give 2 or 1 outputs
 * each, alternately (3 per 2 inputs), written interleaved to out; returns how many stereo
 * samples it wrote, at most snes_dsp_resample_cap(n). Integer and exactly defined (the rule is
 * in snes_dsp.c and docs/SNES_DSP.md), so every audio path gives the same bytes. */
size_t snes_dsp_resample_cap(size_t n);
size_t snes_dsp_resample(snes_dsp_resampler *r, const int16_t *in, size_t n, int16_t *out);

/* Save states: the machine in SNES_DSP_STATE_BYTES bytes; load checks the size and the
 * invariants and leaves d untouched on GV_ERR_INPUT; env is kept. */
void snes_dsp_state_save(const snes_dsp *d, uint8_t *buf);
gv_status snes_dsp_state_load(snes_dsp *d, const uint8_t *buf, size_t len, gv_err *err);

#endif
