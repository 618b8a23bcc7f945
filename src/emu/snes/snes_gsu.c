/* snes_gsu.c: the Super FX (GSU-1/GSU-2) core, its caches and its SNES-side registers
 * (snes_gsu.h). Facts from fullsnes ("SNES Cart GSU-n": memory map, I/O ports, bitmap
 * ports, opcode tables, prefixes, code cache, pixel cache, other caches).
 *
 * The opcode prefetch: the GSU fetches the byte after an opcode while executing it, so the
 * byte after any jump is executed before the jump's target. Modelled as `pipe`: each step
 * takes the opcode from the pipe and fetches the next byte at R15 into it; during the
 * opcode R15 is the address of the next opcode (LINK, R15 as an operand); operand bytes go
 * through the pipe too; an opcode that writes R15 leaves the pipe's byte to run next.
 * Prefixes: ALT1/ALT2/ALT3, TO, WITH, FROM set their flags; branches leave them; every
 * other opcode resets them (B, ALT1, ALT2, Sreg = Dreg = R0). An ALT combination an opcode
 * does not have falls back: ALT3 to ALT1, then to none; ALT2 to none.
 *
 * Timing (an approximation, docs/SNES.md): a GSU cycle is 1 master clock at 21.4 MHz
 * (CLSR bit 0) and 2 at 10.7 MHz; an opcode or operand byte takes 1 cycle from a loaded
 * cache line and 5 (21 MHz) or 3 (10 MHz) from ROM or RAM; ROM and RAM data bytes the same
 * 5/3; the multiplies their documented cycles; the ROM buffer is ready 5/3 cycles after R14
 * changes (GETx waits for it); a pixel cache row written out costs its bytes (read and
 * written when partly plotted). The GSU's ROM/RAM accesses are not held up by RON/RAN. */
#include <string.h>

#include "emu/snes/snes_gsu.h"

#define S (g->s)
#define ALT ((S.sfr >> 8) & 3)

void snes_gsu_init(snes_gsu *g, const uint8_t *rom, size_t rom_size, uint8_t *ram, size_t ram_size, uint8_t vcr)
{
    memset(g, 0, sizeof *g);
    g->rom = rom;
    g->rom_mask = (uint32_t)(rom_size - 1);
    g->ram = ram;
    g->ram_mask = (uint32_t)(ram_size - 1);
    S.vcr = vcr;
}

void snes_gsu_reset(snes_gsu *g, uint64_t clock)
{
    uint8_t vcr = S.vcr;
    memset(&g->s, 0, sizeof g->s);
    S.vcr = vcr;
    S.clock = clock;
    g->bus_changed = 1;
}

uint8_t snes_gsu_rom_dummy(uint16_t addr)
{
    static const uint8_t lo[8] = {0x00, 0x00, 0x04, 0x00, 0x00, 0x08, 0x00, 0x0C};
    return addr & 1 ? 0x01 : lo[(addr >> 1) & 7];
}

int snes_gsu_state_bad(const snes_gsu_state *s)
{
    /* the ROM buffer is ready at most a ROM read (10 master clocks) after the GSU's clock */
    return s->sreg > 15 || s->dreg > 15 || s->refill > 1 || s->rombuf_at > s->clock + 16;
}

/* ---- the GSU's buses ------------------------------------------------------------------ */

static inline uint32_t mem_cycles(const snes_gsu *g) { return g->s.clsr & 1 ? 5 : 3; }

/* A byte of the GSU's address space: banks $00-$3F ROM in LoROM fashion (the lower halves
 * mirror the upper), $40-$5F ROM linear, $70-$71 RAM; elsewhere (nothing there) 0. */
static uint8_t bus_read(const snes_gsu *g, uint8_t bank, uint16_t a)
{
    bank &= 0x7F;
    if (bank < 0x40)
        return g->rom[((uint32_t)bank << 15 | (a & 0x7FFFu)) & g->rom_mask];
    if (bank < 0x60)
        return g->rom[((uint32_t)(bank - 0x40) << 16 | a) & g->rom_mask];
    if (bank == 0x70 || bank == 0x71)
        return g->ram[((uint32_t)(bank & 1) << 16 | a) & g->ram_mask];
    return 0;
}

static inline uint8_t *ram_at(snes_gsu *g, uint16_t a)
{
    return &g->ram[((uint32_t)g->s.rambr << 16 | a) & g->ram_mask];
}

static uint16_t ram_word(snes_gsu *g, uint16_t a)
{
    S.ramaddr = a;
    g->cyc += 2 * mem_cycles(g);
    /* a word at an odd address: its LSB there, its MSB at the even one below */
    return (uint16_t)(*ram_at(g, a) | *ram_at(g, a ^ 1) << 8);
}

static void ram_store_word(snes_gsu *g, uint16_t a, uint16_t v)
{
    S.ramaddr = a;
    g->cyc += 2 * mem_cycles(g);
    *ram_at(g, a) = (uint8_t)v;
    *ram_at(g, a ^ 1) = (uint8_t)(v >> 8);
}

/* The byte at R15 in PBR, through the code cache: [CBR, CBR+512) is cached in 16-byte
 * lines at cache[address & 1FF]; a line not yet loaded is loaded on its first use. */
static uint8_t fetch(snes_gsu *g)
{
    uint16_t pc = S.r[15];
    if ((uint16_t)(pc - S.cbr) < 512) {
        uint32_t line = 1u << ((pc >> 4) & 31);
        if (S.cache_lines & line) {
            g->cyc += 1;
            return S.cache[pc & 0x1FF];
        }
        uint16_t base = pc & 0xFFF0;
        for (int i = 0; i < 16; i++)
            S.cache[(base + i) & 0x1FF] = bus_read(g, S.pbr, (uint16_t)(base + i));
        S.cache_lines |= line;
        g->cyc += mem_cycles(g);
        return S.cache[pc & 0x1FF];
    }
    g->cyc += mem_cycles(g);
    return bus_read(g, S.pbr, pc);
}

/* An operand byte: the pipe's, and the next byte fetched into it. */
static uint8_t operand(snes_gsu *g)
{
    uint8_t v = S.pipe;
    S.r[15]++;
    S.pipe = fetch(g);
    return v;
}

static void rombuf_load(snes_gsu *g)
{
    S.rombuf = bus_read(g, S.rombr, S.r[14]);
    S.rombuf_at = S.clock + (uint64_t)(g->cyc + mem_cycles(g)) * (S.clsr & 1 ? 1 : 2);
}

static uint8_t rombuf_get(snes_gsu *g)
{
    uint64_t now = S.clock + (uint64_t)g->cyc * (S.clsr & 1 ? 1 : 2);
    if (now < S.rombuf_at)
        g->cyc += (uint32_t)((S.rombuf_at - now) / (S.clsr & 1 ? 1 : 2));
    return S.rombuf;
}

/* Register writes: R14 reloads the ROM buffer, R15 jumps (after the pipe's byte). */
static inline void set_reg(snes_gsu *g, int n, uint16_t v)
{
    S.r[n] = v;
    if (n == 14)
        rombuf_load(g);
    else if (n == 15)
        g->r15_set = 1;
}

static inline void flags_sz(snes_gsu *g, uint16_t v)
{
    S.sfr = (uint16_t)((S.sfr & ~(GSU_S | GSU_Z)) | (v & 0x8000 ? GSU_S : 0) | (v ? 0 : GSU_Z));
}

static inline void set_flag(snes_gsu *g, uint16_t f, int on) { S.sfr = (uint16_t)(on ? S.sfr | f : S.sfr & ~f); }

/* Dreg = v with S and Z */
static inline void result(snes_gsu *g, uint16_t v)
{
    flags_sz(g, v);
    set_reg(g, S.dreg, v);
}

/* ---- the bitmap ----------------------------------------------------------------------- */

static inline int depth_bits(const snes_gsu *g)
{
    int md = g->s.scmr & 3;
    return md == 0 ? 2 : md == 3 ? 8 : 4; /* 2 (reserved) draws as 16 colours */
}

/* RAM offset of the row of 8 pixels at (x & F8, y): tile number by screen height (or OBJ
 * mode), tile size 16/32/64 bytes, two bytes a pixel row, planes in pairs 16 bytes apart. */
static uint32_t row_addr(const snes_gsu *g, uint8_t x, uint8_t y)
{
    int ht = (g->s.scmr >> 2 & 1) | (g->s.scmr >> 4 & 2);
    if (g->s.por & 0x10)
        ht = 3;
    uint32_t tile;
    switch (ht) {
    case 0: tile = (uint32_t)(x >> 3) * 0x10 + (y >> 3); break;
    case 1: tile = (uint32_t)(x >> 3) * 0x14 + (y >> 3); break;
    case 2: tile = (uint32_t)(x >> 3) * 0x18 + (y >> 3); break;
    default:
        tile = (uint32_t)(y & 0x80) << 2 | (uint32_t)(x & 0x80) << 1 | (uint32_t)(y & 0x78) << 1 | (uint32_t)(x & 0x78) >> 3;
        break;
    }
    return (uint32_t)g->s.scbr * 0x400 + tile * (uint32_t)depth_bits(g) * 8 + (uint32_t)(y & 7) * 2;
}

static inline uint8_t *plane_byte(snes_gsu *g, uint32_t row, int p)
{
    return &g->ram[(row + (uint32_t)(p >> 1) * 16 + (uint32_t)(p & 1)) & g->ram_mask];
}

/* Writes the pixel cache's row to RAM: its plotted pixels replace those bits. */
static void px_flush(snes_gsu *g)
{
    if (!S.px_mask)
        return;
    int bits = depth_bits(g);
    uint32_t row = row_addr(g, S.px_x, S.px_y);
    for (int p = 0; p < bits; p++) {
        uint8_t *b = plane_byte(g, row, p), v = *b;
        for (int i = 0; i < 8; i++) {
            uint8_t bit = (uint8_t)(0x80 >> i);
            if (S.px_mask & bit)
                v = (uint8_t)((v & ~bit) | ((S.px_col[i] >> p) & 1 ? bit : 0));
        }
        *b = v;
    }
    g->cyc += (uint32_t)bits * mem_cycles(g) * (S.px_mask == 0xFF ? 1 : 2);
    S.px_mask = 0;
}

static void plot(snes_gsu *g)
{
    uint8_t x = (uint8_t)S.r[1], y = (uint8_t)S.r[2], c = S.colr;
    int md = S.scmr & 3;
    if ((S.por & 2) && md != 3 && ((x ^ y) & 1))
        c >>= 4; /* dither: the upper nibble on odd squares */
    uint8_t mask = md == 0 ? 0x03 : md == 3 && !(S.por & 8) ? 0xFF : 0x0F;
    if ((S.por & 1) || (c & mask)) {
        if (S.px_mask && (S.px_x != (x & 0xF8) || S.px_y != y))
            px_flush(g);
        S.px_x = x & 0xF8, S.px_y = y;
        S.px_col[x & 7] = c;
        S.px_mask |= (uint8_t)(0x80 >> (x & 7));
        if (S.px_mask == 0xFF)
            px_flush(g);
    }
    S.r[1]++;
}

static uint8_t rpix(snes_gsu *g)
{
    px_flush(g);
    uint8_t x = (uint8_t)S.r[1], y = (uint8_t)S.r[2], v = 0;
    int bits = depth_bits(g);
    uint32_t row = row_addr(g, x, y);
    for (int p = 0; p < bits; p++)
        v |= (uint8_t)(((*plane_byte(g, row, p) >> (7 - (x & 7))) & 1) << p);
    g->cyc += (uint32_t)bits * mem_cycles(g);
    return v;
}

/* COLOR/GETC: POR bit 2 puts the incoming high nibble in the low one, bit 3 keeps COLR's
 * high nibble. */
static void color_set(snes_gsu *g, uint8_t v)
{
    if (S.por & 4)
        v = (uint8_t)((v & 0xF0) | (v >> 4));
    S.colr = S.por & 8 ? (uint8_t)((S.colr & 0xF0) | (v & 0x0F)) : v;
}

/* ---- the instructions ----------------------------------------------------------------- */

static void add(snes_gsu *g, uint16_t a, uint16_t b, int carry, int store)
{
    uint32_t r = (uint32_t)a + b + (uint32_t)carry;
    uint16_t v = (uint16_t)r;
    set_flag(g, GSU_CY, r > 0xFFFF);
    set_flag(g, GSU_OV, (~(a ^ b) & (a ^ v) & 0x8000) != 0);
    if (store)
        result(g, v);
    else
        flags_sz(g, v);
}

static void sub(snes_gsu *g, uint16_t a, uint16_t b, int borrow, int store)
{
    int32_t r = (int32_t)a - b - borrow;
    uint16_t v = (uint16_t)r;
    set_flag(g, GSU_CY, r >= 0);
    set_flag(g, GSU_OV, ((a ^ b) & (a ^ v) & 0x8000) != 0);
    if (store)
        result(g, v);
    else
        flags_sz(g, v);
}

static void stop(snes_gsu *g)
{
    S.sfr = (uint16_t)((S.sfr & ~GSU_GO) | GSU_IRQ);
    S.stop_at = S.clock + (uint64_t)g->cyc * (S.clsr & 1 ? 1 : 2);
    g->bus_changed = 1;
}

static void cache_flush(snes_gsu *g, uint16_t base)
{
    S.cbr = base & 0xFFF0;
    S.cache_lines = 0;
}

/* Runs one opcode; returns 1 when it was a prefix or branch (the prefix state stays). */
static int exec(snes_gsu *g, uint8_t op)
{
    int alt = ALT, n = op & 15;
    uint16_t sv = S.r[S.sreg];
    switch (op >> 4) {
    case 0x0:
        if (op >= 0x05) {
            int8_t e = (int8_t)operand(g);
            int take;
            uint16_t f = S.sfr;
            switch (op) {
            case 0x05: take = 1; break;
            case 0x06: take = !!(f & GSU_S) == !!(f & GSU_OV); break;
            case 0x07: take = !!(f & GSU_S) != !!(f & GSU_OV); break;
            case 0x08: take = !(f & GSU_Z); break;
            case 0x09: take = !!(f & GSU_Z); break;
            case 0x0A: take = !(f & GSU_S); break;
            case 0x0B: take = !!(f & GSU_S); break;
            case 0x0C: take = !(f & GSU_CY); break;
            case 0x0D: take = !!(f & GSU_CY); break;
            case 0x0E: take = !(f & GSU_OV); break;
            default: take = !!(f & GSU_OV); break;
            }
            if (take)
                set_reg(g, 15, (uint16_t)(S.r[15] + e));
            return 1;
        }
        if (op == 0x00) {
            stop(g);
        } else if (op == 0x02) {
            if (S.cbr != (S.r[15] & 0xFFF0))
                cache_flush(g, S.r[15]);
        } else if (op == 0x03) {
            set_flag(g, GSU_CY, sv & 1);
            result(g, (uint16_t)(sv >> 1));
        } else if (op == 0x04) {
            uint16_t v = (uint16_t)(sv << 1 | (S.sfr & GSU_CY ? 1 : 0));
            set_flag(g, GSU_CY, sv >> 15);
            result(g, v);
        }
        break;
    case 0x1: /* TO Rn, or MOVE after WITH */
        if (S.sfr & GSU_B) {
            set_reg(g, n, sv);
            break;
        }
        S.dreg = (uint8_t)n;
        return 1;
    case 0x2: /* WITH Rn */
        S.sreg = S.dreg = (uint8_t)n;
        S.sfr |= GSU_B;
        return 1;
    case 0x3:
        if (n <= 11) {
            if (alt & 1) { /* STB (Rn) */
                S.ramaddr = S.r[n];
                *ram_at(g, S.r[n]) = (uint8_t)sv;
                g->cyc += mem_cycles(g);
            } else { /* STW (Rn) */
                ram_store_word(g, S.r[n], sv);
            }
        } else if (n == 12) { /* LOOP */
            S.r[12]--;
            flags_sz(g, S.r[12]);
            if (S.r[12])
                set_reg(g, 15, S.r[13]);
        } else {
            S.sfr = (uint16_t)((S.sfr & ~(GSU_ALT1 | GSU_ALT2)) | (uint16_t)(n - 12) << 8);
            return 1;
        }
        break;
    case 0x4:
        if (n <= 11) {
            if (alt & 1) { /* LDB (Rn) */
                S.ramaddr = S.r[n];
                g->cyc += mem_cycles(g);
                set_reg(g, S.dreg, *ram_at(g, S.r[n]));
            } else { /* LDW (Rn) */
                set_reg(g, S.dreg, ram_word(g, S.r[n]));
            }
        } else if (n == 12) {
            if (alt & 1)
                result(g, rpix(g));
            else
                plot(g);
        } else if (n == 13) { /* SWAP */
            result(g, (uint16_t)(sv << 8 | sv >> 8));
        } else if (n == 14) {
            if (alt & 1)
                S.por = (uint8_t)(sv & 0x1F); /* CMODE */
            else
                color_set(g, (uint8_t)sv);
        } else { /* NOT */
            result(g, (uint16_t)~sv);
        }
        break;
    case 0x5: {
        uint16_t o = alt & 2 ? (uint16_t)n : S.r[n];
        add(g, sv, o, (alt & 1) && (S.sfr & GSU_CY), 1);
        break;
    }
    case 0x6:
        if (alt == 3)
            sub(g, sv, S.r[n], 0, 0); /* CMP */
        else if (alt == 2)
            sub(g, sv, (uint16_t)n, 0, 1);
        else
            sub(g, sv, S.r[n], alt == 1 && !(S.sfr & GSU_CY), 1);
        break;
    case 0x7:
        if (n == 0) { /* MERGE */
            uint16_t v = (uint16_t)((S.r[7] & 0xFF00) | S.r[8] >> 8);
            set_flag(g, GSU_S, (v & 0x8080) != 0);
            set_flag(g, GSU_OV, (v & 0xC0C0) != 0);
            set_flag(g, GSU_CY, (v & 0xE0E0) != 0);
            set_flag(g, GSU_Z, (v & 0xF0F0) != 0);
            set_reg(g, S.dreg, v);
        } else {
            uint16_t o = alt & 2 ? (uint16_t)n : S.r[n];
            result(g, alt & 1 ? (uint16_t)(sv & ~o) : (uint16_t)(sv & o));
        }
        break;
    case 0x8: {
        uint16_t o = alt & 2 ? (uint16_t)n : S.r[n];
        uint16_t v = alt & 1 ? (uint16_t)((sv & 0xFF) * (o & 0xFF)) : (uint16_t)((int8_t)sv * (int8_t)o);
        if (!((S.cfgr & 0x20) && !(S.clsr & 1)))
            g->cyc += 1;
        result(g, v);
        break;
    }
    case 0x9:
        if (n == 0) { /* SBK */
            ram_store_word(g, S.ramaddr, sv);
        } else if (n <= 4) { /* LINK #n */
            set_reg(g, 11, (uint16_t)(S.r[15] + n));
        } else if (n == 5) { /* SEX */
            result(g, (uint16_t)(int8_t)sv);
        } else if (n == 6) { /* ASR, DIV2 */
            set_flag(g, GSU_CY, sv & 1);
            result(g, (alt & 1) && sv == 0xFFFF ? 0 : (uint16_t)((int16_t)sv >> 1));
        } else if (n == 7) { /* ROR */
            uint16_t v = (uint16_t)(sv >> 1 | (S.sfr & GSU_CY ? 0x8000 : 0));
            set_flag(g, GSU_CY, sv & 1);
            result(g, v);
        } else if (n <= 13) {
            if (alt & 1) { /* LJMP Rn: PBR = Rn, R15 = Sreg, the cache emptied */
                S.pbr = (uint8_t)S.r[n];
                set_reg(g, 15, sv);
                cache_flush(g, sv);
            } else { /* JMP Rn */
                set_reg(g, 15, S.r[n]);
            }
        } else if (n == 14) { /* LOB */
            uint16_t v = sv & 0xFF;
            S.sfr = (uint16_t)((S.sfr & ~(GSU_S | GSU_Z)) | (v & 0x80 ? GSU_S : 0) | (v ? 0 : GSU_Z));
            set_reg(g, S.dreg, v);
        } else { /* FMULT, LMULT */
            int32_t p = (int32_t)(int16_t)sv * (int16_t)S.r[6];
            g->cyc += (S.cfgr & 0x20) && !(S.clsr & 1) ? 3 : 7;
            set_flag(g, GSU_CY, (p >> 15) & 1);
            if (alt & 1)
                set_reg(g, 4, (uint16_t)p);
            result(g, (uint16_t)((uint32_t)p >> 16));
        }
        break;
    case 0xA:
        if (alt == 2) { /* SMS (yy),Rn */
            ram_store_word(g, (uint16_t)(operand(g) << 1), S.r[n]);
        } else if (alt & 1) { /* LMS Rn,(yy) */
            uint16_t a = (uint16_t)(operand(g) << 1);
            set_reg(g, n, ram_word(g, a));
        } else { /* IBT Rn,#pp */
            set_reg(g, n, (uint16_t)(int8_t)operand(g));
        }
        break;
    case 0xB: /* FROM Rn, or MOVES after WITH */
        if (S.sfr & GSU_B) {
            uint16_t v = S.r[n];
            set_flag(g, GSU_OV, (v & 0x80) != 0);
            result(g, v);
            break;
        }
        S.sreg = (uint8_t)n;
        return 1;
    case 0xC:
        if (n == 0) { /* HIB */
            uint16_t v = sv >> 8;
            S.sfr = (uint16_t)((S.sfr & ~(GSU_S | GSU_Z)) | (v & 0x80 ? GSU_S : 0) | (v ? 0 : GSU_Z));
            set_reg(g, S.dreg, v);
        } else {
            uint16_t o = alt & 2 ? (uint16_t)n : S.r[n];
            result(g, alt & 1 ? (uint16_t)(sv ^ o) : (uint16_t)(sv | o));
        }
        break;
    case 0xD:
        if (n < 15) { /* INC Rn */
            uint16_t v = (uint16_t)(S.r[n] + 1);
            flags_sz(g, v);
            set_reg(g, n, v);
        } else if (alt == 2) { /* RAMB */
            S.rambr = (uint8_t)(sv & 1);
        } else if (alt == 3) { /* ROMB */
            S.rombr = (uint8_t)sv;
        } else { /* GETC */
            color_set(g, rombuf_get(g));
        }
        break;
    case 0xE:
        if (n < 15) { /* DEC Rn */
            uint16_t v = (uint16_t)(S.r[n] - 1);
            flags_sz(g, v);
            set_reg(g, n, v);
        } else {
            uint8_t b = rombuf_get(g);
            uint16_t v = alt == 0 ? b : alt == 1 ? (uint16_t)((sv & 0xFF) | b << 8)
                       : alt == 2 ? (uint16_t)((sv & 0xFF00) | b) : (uint16_t)(int8_t)b;
            set_reg(g, S.dreg, v);
        }
        break;
    default: /* 0xF */
        {
            uint16_t a = operand(g);
            a |= (uint16_t)(operand(g) << 8);
            if (alt == 2) /* SM (xx),Rn */
                ram_store_word(g, a, S.r[n]);
            else if (alt & 1) /* LM Rn,(xx) */
                set_reg(g, n, ram_word(g, a));
            else /* IWT Rn,#xx */
                set_reg(g, n, a);
        }
        break;
    }
    return 0;
}

static void step(snes_gsu *g)
{
    uint8_t op = S.pipe;
    S.pipe = fetch(g);
    g->r15_set = 0;
    if (!exec(g, op)) {
        S.sfr &= (uint16_t)~(GSU_ALT1 | GSU_ALT2 | GSU_B);
        S.sreg = S.dreg = 0;
    }
    if (!g->r15_set)
        S.r[15]++;
}

void snes_gsu_run(snes_gsu *g, uint64_t until)
{
    while ((S.sfr & GSU_GO) && S.clock < until) {
        g->cyc = 0;
        if (S.refill) { /* started: the first opcode byte into the pipe */
            S.refill = 0;
            S.pipe = fetch(g);
            S.r[15]++;
        } else {
            step(g);
        }
        S.clock += (uint64_t)g->cyc * (S.clsr & 1 ? 1 : 2);
    }
    if (!(S.sfr & GSU_GO) && S.clock < until)
        S.clock = until;
}

/* ---- the SNES's side ------------------------------------------------------------------ */

static void start(snes_gsu *g)
{
    if (!(S.sfr & GSU_GO))
        g->bus_changed = 1;
    S.sfr |= GSU_GO;
    S.refill = 1;
}

/* The register at $3000-$303F that addr (with its mirrors) reaches: 0-$3F, or -1. */
static int io_reg(uint16_t addr)
{
    uint16_t a = addr & 0x3FF;
    if (addr >= 0x3500 || (a >= 0x100 && a < 0x300))
        return -1;
    a &= 0x3F;
    return a >= 0x20 && a < 0x30 ? a + 0x10 : a;
}

uint8_t snes_gsu_io_read(snes_gsu *g, uint16_t addr, uint8_t open_bus)
{
    if (addr >= 0x3100 && addr < 0x3300)
        return S.cache[addr - 0x3100];
    int r = io_reg(addr);
    if (r < 0)
        return open_bus;
    if (r < 0x20)
        return (uint8_t)(S.r[r >> 1] >> (r & 1 ? 8 : 0));
    switch (r) {
    case 0x30: return (uint8_t)S.sfr;
    case 0x31: {
        uint8_t v = (uint8_t)(S.sfr >> 8);
        S.sfr &= (uint16_t)~GSU_IRQ;
        return v;
    }
    case 0x34: return S.pbr;
    case 0x36: return S.rombr;
    case 0x3B: return S.vcr;
    case 0x3C: return S.rambr;
    case 0x3E: return (uint8_t)S.cbr;
    case 0x3F: return (uint8_t)(S.cbr >> 8);
    default: return 0;
    }
}

void snes_gsu_io_write(snes_gsu *g, uint16_t addr, uint8_t v)
{
    if (addr >= 0x3100 && addr < 0x3300) {
        uint16_t i = addr - 0x3100;
        S.cache[i] = v;
        if ((i & 15) == 15)
            S.cache_lines |= 1u << (i >> 4);
        return;
    }
    int r = io_reg(addr);
    if (r < 0)
        return;
    if (r < 0x20) {
        if (!(r & 1)) {
            S.latch = v;
            return;
        }
        int n = r >> 1;
        S.r[n] = (uint16_t)(S.latch | v << 8);
        if (n == 14) {
            g->cyc = 0;
            rombuf_load(g);
        }
        if (n == 15)
            start(g);
        return;
    }
    switch (r) {
    case 0x30: {
        int was = S.sfr & GSU_GO;
        S.sfr = (uint16_t)((S.sfr & ~0x3E) | (v & 0x3E));
        if (was && !(S.sfr & GSU_GO)) { /* aborted: the cache emptied, CBR 0 */
            cache_flush(g, 0);
            g->bus_changed = 1;
        } else if (!was && (S.sfr & GSU_GO)) {
            S.sfr &= (uint16_t)~GSU_GO;
            start(g);
        } else if (!(S.sfr & GSU_GO)) {
            cache_flush(g, 0);
        }
        return;
    }
    case 0x33: S.bramr = v & 1; return;
    case 0x34: S.pbr = v; return;
    case 0x37: S.cfgr = v; return;
    case 0x38: S.scbr = v; return;
    case 0x39: S.clsr = v & 1; return;
    case 0x3A:
        if ((S.scmr ^ v) & 0x18)
            g->bus_changed = 1;
        S.scmr = v;
        return;
    default: return;
    }
}
