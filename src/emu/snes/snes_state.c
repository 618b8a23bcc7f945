/* snes_state.c: SNES save states. Layout (little-endian, this build's struct layout):
 *   "GVSNSTAT", u32 version, u32 sizeof(snes_state), u32 SRAM size, u32 sizeof(snes_cpu_state),
 *   u64 ROM hash, u64 XXH3 of the payload, then the payload: snes_state, the CPU state, the
 *   SPC's SNES_SPC_STATE_BYTES, the DSP's SNES_DSP_STATE_BYTES, the SRAM (a GSU
 *   cartridge: its Game Pak RAM) and, for a GSU cartridge, the GSU's state (snes_gsu_state).
 * Version 5 added the GSU's state; version 7 the SA-1's (snes_sa1_state, its CPU's state
 * inside) after the SRAM of an SA-1 cartridge; version 8 its timer, BBF, BRF and the
 * character conversion's state in snes_sa1_state; older states are refused.
 * States are taken between frames. Loading checks everything the machine uses as a time
 * (the CPU, SPC and DSP clocks must agree with the frame's start, so a crafted state cannot
 * make a frame run for ever); the SPC and DSP check their own parts. On any error the
 * machine is left as it was. Saving, loading and saving again gives the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "emu/common/emu_state.h"
#include "emu/snes/snes_int.h"

#define STATE_MAGIC "GVSNSTAT"
#define STATE_VERSION 8u /* 5: the Super FX; 6: the MSU-1's registers in snes_state; 7: the SA-1's state;
                          * 8: the SA-1's timer, bitmap and character conversion registers */
#define STATE_HDR EMU_STATE_HEAD
#define MAX_AHEAD (16ull * SNES_FRAME_CLOCKS)


static size_t payload_size(const snes *m)
{
    return sizeof(snes_state) + sizeof(snes_cpu_state) + SNES_SPC_STATE_BYTES + SNES_DSP_STATE_BYTES + m->sram_size +
           (m->gsu ? sizeof(snes_gsu_state) : 0) + (m->sa1 ? sizeof(snes_sa1_state) : 0);
}

gv_status snes_state_save(const snes *m, uint8_t **data, size_t *len, gv_err *err)
{
    size_t n = STATE_HDR + payload_size(m);
    uint8_t *b = emu_state_new(n - STATE_HDR, STATE_MAGIC, STATE_VERSION, (uint32_t)sizeof(snes_state),
                               (uint32_t)m->sram_size, (uint32_t)sizeof(snes_cpu_state), m->ci->hash);
    *data = NULL;
    *len = 0;
    if (!b)
        return gv_fail(err, GV_ERR_ENV, "out of memory for a save state");
    uint8_t *p = b + STATE_HDR;
    memcpy(p, &m->s, sizeof m->s);
    p += sizeof m->s;
    memcpy(p, &m->cpu.s, sizeof m->cpu.s);
    p += sizeof m->cpu.s;
    snes_spc_state_save(&m->spc, p);
    p += SNES_SPC_STATE_BYTES;
    snes_dsp_state_save(&m->dsp, p);
    p += SNES_DSP_STATE_BYTES;
    if (m->sram_size)
        memcpy(p, m->sram, m->sram_size);
    p += m->sram_size;
    if (m->gsu)
        memcpy(p, &m->gsu->s, sizeof m->gsu->s);
    if (m->sa1) {
        snes_sa1_state as = m->sa1->s;
        as.cpu = m->sa1->cpu.s;
        memcpy(p, &as, sizeof as);
    }
    emu_state_seal(b, n);
    *data = b;
    *len = n;
    return GV_OK;
}

gv_status snes_state_load(snes *m, const uint8_t *d, size_t len, gv_err *err)
{
    if (len >= 8 && (!memcmp(d, "GVGBSTAT", 8) || !memcmp(d, "GVNESST\x1A", 8)))
        return gv_fail(err, GV_ERR_INPUT, "a %s save state, not a SNES one", d[2] == 'G' ? "Game Boy" : "NES");
    if (len < STATE_HDR || memcmp(d, STATE_MAGIC, 8))
        return gv_fail(err, GV_ERR_INPUT, "not a gpuvet SNES save state (bad magic)");
    if (emu_get32(d + 8) != STATE_VERSION)
        return gv_fail(err, GV_ERR_INPUT, "SNES save state version %u; this gpuvet reads version %u", emu_get32(d + 8),
                       STATE_VERSION);
    if (emu_get32(d + 12) != sizeof(snes_state) || emu_get32(d + 20) != sizeof(snes_cpu_state))
        return gv_fail(err, GV_ERR_INPUT, "SNES save state from a build with another layout");
    if (emu_get32(d + 16) != m->sram_size || emu_get64(d + 24) != m->ci->hash)
        return gv_fail(err, GV_ERR_INPUT, "the save state belongs to another cartridge");
    if (len != STATE_HDR + payload_size(m))
        return gv_fail(err, GV_ERR_INPUT, "SNES save state of %zu bytes, expected %zu (truncated?)", len,
                       STATE_HDR + payload_size(m));
    if (!emu_state_sealed(d, len))
        return gv_fail(err, GV_ERR_INPUT, "SNES save state checksum mismatch (corrupt file)");
    const uint8_t *p = d + STATE_HDR;
    snes_state *s = malloc(sizeof *s);
    if (!s)
        return gv_fail(err, GV_ERR_ENV, "out of memory for a save state");
    memcpy(s, p, sizeof *s);
    p += sizeof *s;
    snes_cpu_state cs;
    memcpy(&cs, p, sizeof cs);
    p += sizeof cs;
    const uint8_t *spc_p = p, *dsp_p = p + SNES_SPC_STATE_BYTES, *sram_p = dsp_p + SNES_DSP_STATE_BYTES;
    const char *bad = NULL;
    /* the CPU at or after the frame's start, and no further ahead than DMA can take it
     * (eight channels of 64 KiB at 8 clocks a byte: under 12 frames); the SPC and DSP
     * between the frame's start and the CPU */
    if (cs.clock < s->frame_start || cs.clock - s->frame_start > MAX_AHEAD)
        bad = "CPU clock";
    else if (s->vdisp != 225 && s->vdisp != 240)
        bad = "vertical display size";
    else if (m->msu ? snes_msu_check(&s->msu, m->msu) != NULL : memcmp(&s->msu, &(snes_msu_regs){0}, sizeof s->msu) != 0)
        bad = m->msu ? snes_msu_check(&s->msu, m->msu) : "MSU-1 registers on a cartridge without one";
    else if (cs.waiting > 1 || cs.stopped > 1 || cs.nmi_pending > 1 || cs.irq_line > 1)
        bad = "CPU flags";
    snes_gsu_state gs;
    memset(&gs, 0, sizeof gs);
    if (m->gsu && !bad) {
        memcpy(&gs, sram_p + m->sram_size, sizeof gs);
        /* the GSU between the frame's start and a little past the CPU (an instruction) */
        if (snes_gsu_state_bad(&gs) || gs.clock < s->frame_start || gs.clock > cs.clock + 4096)
            bad = "GSU state";
    }
    snes_sa1_state as;
    memset(&as, 0, sizeof as);
    if (m->sa1 && !bad) {
        memcpy(&as, sram_p + m->sram_size, sizeof as);
        /* the SA-1 between the frame's start and a little past the CPU (an instruction) */
        if (snes_sa1_state_bad(&as) || as.cpu.clock < s->frame_start * SNES_SA1_UNITS ||
            as.cpu.clock > (cs.clock + 4096) * SNES_SA1_UNITS)
            bad = "SA-1 state";
    }
    if (!bad) {
        /* the SPC and DSP check their own images; their clocks must match the frame's */
        snes_spc *spc = malloc(sizeof *spc);
        snes_dsp *dsp = malloc(sizeof *dsp);
        gv_err e2;
        if (!spc || !dsp) {
            free(spc), free(dsp), free(s);
            return gv_fail(err, GV_ERR_ENV, "out of memory for a save state");
        }
        *spc = m->spc;
        *dsp = m->dsp;
        if (snes_spc_state_load(spc, spc_p, SNES_SPC_STATE_BYTES, &e2) != GV_OK ||
            snes_dsp_state_load(dsp, dsp_p, SNES_DSP_STATE_BYTES, &e2) != GV_OK) {
            free(spc), free(dsp), free(s);
            return gv_fail(err, GV_ERR_INPUT, "corrupt SNES save state: %s", e2.msg);
        }
        uint64_t t = snes_spc_time(s->frame_start), t_cpu = snes_spc_time(cs.clock);
        if (spc->cycles + 64 < t || spc->cycles > t_cpu + 64 || dsp->cycle > spc->cycles + 64 || dsp->cycle + 64 < t)
            bad = "sound clocks";
        if (!bad) {
            m->spc = *spc;
            m->dsp = *dsp;
        }
        free(spc), free(dsp);
    }
    if (bad) {
        free(s);
        return gv_fail(err, GV_ERR_INPUT, "corrupt SNES save state: impossible %s", bad);
    }
    m->s = *s;
    free(s);
    m->vlog_snap = 1; /* the renderers' copies of the video memories are stale */
    m->msu_mixed = 0;
    m->cpu.s = cs;
    snes_cpu_regs r = cs.r;
    snes_cpu_set_regs(&m->cpu, &r);
    if (m->sram_size)
        memcpy(m->sram, sram_p, m->sram_size);
    if (m->gsu)
        m->gsu->s = gs;
    if (m->sa1) {
        m->sa1->s = as;
        m->sa1->cpu.s = as.cpu;
        snes_cpu_regs ar = as.cpu.r;
        snes_cpu_set_regs(&m->sa1->cpu, &ar);
        m->sa1->snes_irq_was = (uint8_t)snes_sa1_snes_irq(m->sa1);
        snes_sa1_map(m->sa1);
    }
    snes_dsp_attach(&m->dsp, &m->spc);
    m->dsp.env.out = m->dsp_out;
    m->dsp.env.out_cap = sizeof m->dsp_out / (2 * sizeof(int16_t));
    m->dsp.env.out_n = 0;
    snes_map_pages(m);
    return GV_OK;
}
