/* gb_cart.c: cartridges. Parses and validates the header ($0100-$014F), maps ROM and RAM
 * banks for MBC1 (and its MBC1M multi-game wiring), MBC2 (with its 512 x 4 bits of RAM),
 * MBC3 (with its real-time clock) and MBC5, and loads/saves battery RAM
 * atomically. The RTC counts emulated time (one second per 4194304 dots), so runs are
 * reproducible; battery files carry the usual 48-byte clock footer. */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/gb/gb_int.h"

struct gb_cart {
    gb_cart_info info;
    uint8_t *rom;
    gb_lfsr_jump lfsr; /* derived table shared by every machine using the cartridge */
};

/* Header checksum: x = 0; for each byte of $0134-$014C: x = x - byte - 1. */
static uint8_t header_checksum(const uint8_t *rom)
{
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - rom[i] - 1);
    return x;
}

/* Cartridge type byte $0147 -> MBC and features; 0 when the type is known. */
static int cart_type(uint8_t t, gb_cart_info *ci)
{
    ci->has_ram = ci->has_battery = ci->has_rtc = 0;
    switch (t) {
    case 0x00: ci->mbc = GB_MBC_NONE; return 0;
    case 0x08: ci->mbc = GB_MBC_NONE; ci->has_ram = 1; return 0;
    case 0x09: ci->mbc = GB_MBC_NONE; ci->has_ram = ci->has_battery = 1; return 0;
    case 0x01: ci->mbc = GB_MBC1; return 0;
    case 0x02: ci->mbc = GB_MBC1; ci->has_ram = 1; return 0;
    case 0x03: ci->mbc = GB_MBC1; ci->has_ram = ci->has_battery = 1; return 0;
    case 0x05: ci->mbc = GB_MBC2; ci->has_ram = 1; return 0;
    case 0x06: ci->mbc = GB_MBC2; ci->has_ram = ci->has_battery = 1; return 0;
    case 0x0F: ci->mbc = GB_MBC3; ci->has_battery = ci->has_rtc = 1; return 0;
    case 0x10: ci->mbc = GB_MBC3; ci->has_ram = ci->has_battery = ci->has_rtc = 1; return 0;
    case 0x11: ci->mbc = GB_MBC3; return 0;
    case 0x12: ci->mbc = GB_MBC3; ci->has_ram = 1; return 0;
    case 0x13: ci->mbc = GB_MBC3; ci->has_ram = ci->has_battery = 1; return 0;
    case 0x19: case 0x1C: ci->mbc = GB_MBC5; return 0;
    case 0x1A: case 0x1D: ci->mbc = GB_MBC5; ci->has_ram = 1; return 0;
    case 0x1B: case 0x1E: ci->mbc = GB_MBC5; ci->has_ram = ci->has_battery = 1; return 0;
    default: return -1;
    }
}

gv_status gb_cart_load(const uint8_t *data, size_t len, const char *name, gb_cart **out, gv_err *err)
{
    *out = NULL;
    if (!name)
        name = "ROM";
    if (len < 0x150)
        return gv_fail(err, GV_ERR_INPUT, "%s: truncated ROM: %zu bytes, a Game Boy ROM has at least 336 (header at $0100-$014F)",
                       name, len);
    gb_cart_info ci;
    memset(&ci, 0, sizeof ci);
    for (int i = 0; i < 16; i++) {
        uint8_t ch = data[0x134 + i];
        if (ch == 0)
            break;
        ci.title[i] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
    }
    ci.cgb_flag = data[0x143];
    ci.type = data[0x147];
    ci.header_checksum = data[0x14D];
    uint8_t want = header_checksum(data);
    if (want != ci.header_checksum)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header checksum: $014D holds $%02X, the header sums to $%02X",
                       name, ci.header_checksum, want);
    if (cart_type(ci.type, &ci) != 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: unsupported cartridge type $%02X (supported: ROM only, MBC1, MBC2, MBC3, MBC5)",
                       name, ci.type);
    uint8_t rs = data[0x148];
    if (rs > 8)
        return gv_fail(err, GV_ERR_INPUT, "%s: invalid ROM size code $%02X at $0148", name, rs);
    ci.rom_size = (size_t)0x8000 << rs;
    static const uint32_t ram_sizes[6] = {0, 0x800, 0x2000, 0x8000, 0x20000, 0x10000};
    uint8_t ra = data[0x149];
    if (ra > 5)
        return gv_fail(err, GV_ERR_INPUT, "%s: invalid RAM size code $%02X at $0149", name, ra);
    ci.ram_size = ci.has_ram ? ram_sizes[ra] : 0;
    if (ci.mbc == GB_MBC2)
        ci.ram_size = 512; /* built into the MBC2; the header says none */
    if (ci.has_ram && ci.ram_size == 0)
        ci.has_ram = 0;
    if (ci.mbc == GB_MBC_NONE && rs != 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: a cartridge without MBC holds 32 KiB, header says %zu KiB",
                       name, ci.rom_size / 1024);
    if ((ci.mbc == GB_MBC1 || ci.mbc == GB_MBC3) && ci.ram_size > 0x10000)
        return gv_fail(err, GV_ERR_INPUT, "%s: MBC%d cannot address %zu KiB of RAM", name, ci.mbc,
                       ci.ram_size / 1024);
    if (ci.mbc == GB_MBC1 && ci.ram_size > 0x8000)
        return gv_fail(err, GV_ERR_INPUT, "%s: MBC1 cannot address %zu KiB of RAM", name, ci.ram_size / 1024);
    if (ci.mbc == GB_MBC1 && rs > 6)
        return gv_fail(err, GV_ERR_INPUT, "%s: MBC1 cannot address %zu KiB of ROM", name, ci.rom_size / 1024);
    if (ci.mbc == GB_MBC2 && rs > 3)
        return gv_fail(err, GV_ERR_INPUT, "%s: MBC2 cannot address %zu KiB of ROM", name, ci.rom_size / 1024);
    if (len < ci.rom_size)
        return gv_fail(err, GV_ERR_INPUT, "%s: truncated ROM: %zu bytes, the header declares %zu", name, len,
                       ci.rom_size);
    /* An MBC1M multi-game cartridge (1 MiB, four 256 KiB games) has no header flag of its
     * own; each game carries a header, so bank $10 repeats the logo at $0104 (Pan Docs).
     * A logo of 48 equal bytes (blank, or erased flash) proves nothing. */
    int logo_blank = 1;
    for (int i = 1; i < 48; i++)
        logo_blank &= data[0x104 + i] == data[0x104];
    ci.multicart = ci.mbc == GB_MBC1 && ci.rom_size == 0x100000 && !logo_blank &&
                   !memcmp(data + 0x40104, data + 0x104, 48);
    ci.hash = gv_hash64(data, len);
    gb_cart *c = malloc(sizeof *c);
    uint8_t *rom = malloc(ci.rom_size);
    if (!c || !rom) {
        free(c);
        free(rom);
        return gv_fail(err, GV_ERR_ENV, "%s: out of memory for a %zu-byte ROM", name, ci.rom_size);
    }
    memcpy(rom, data, ci.rom_size);
    gb_lfsr_jump_init(&c->lfsr);
    c->info = ci;
    c->rom = rom;
    *out = c;
    return GV_OK;
}

const gb_cart_info *gb_cart_get_info(const gb_cart *c)
{
    return &c->info;
}

void gb_cart_free(gb_cart *c)
{
    if (!c)
        return;
    free(c->rom);
    free(c);
}

gb_model gb_cart_default_model(const gb_cart *c)
{
    return (c->info.cgb_flag & 0x80) ? GB_MODEL_CGB : GB_MODEL_DMG;
}

int gb_cart_mbc(const gb_cart *c)
{
    return c->info.mbc;
}

const gb_lfsr_jump *gb_cart_lfsr(const gb_cart *c)
{
    return &c->lfsr;
}

const uint8_t *gb_cart_rom(const gb_cart *c)
{
    return c->rom;
}

/* ---- banking -------------------------------------------------------------------------- */

static void map_rom(gb *g, int page0, uint32_t bank)
{
    const uint8_t *p = g->rom + (size_t)(bank & g->rom_mask) * 0x4000;
    for (int i = 0; i < 4; i++)
        g->rmap[page0 + i] = p + i * 0x1000;
}

/* Cartridge RAM bank currently at $A000, or -1 when RAM is not mapped there (disabled,
 * absent, an RTC register selected, or smaller than 8 KiB: those go through the slow path). */
static int cram_bank(const gb *g)
{
    const gb_state *s = &g->s;
    if (!s->ram_en || g->cram_size < 0x2000)
        return -1;
    uint32_t nb = g->cram_size / 0x2000;
    switch (gb_cart_mbc(g->cart)) {
    case GB_MBC1: return s->mbc1_mode ? (int)(s->mbc1_bank2 % nb) : 0;
    case GB_MBC3: return s->ram_bank <= 7 ? (int)(s->ram_bank % nb) : -1;
    case GB_MBC5: return (int)(s->ram_bank % nb);
    default: return 0;
    }
}

void gb_cart_map(gb *g)
{
    gb_state *s = &g->s;
    switch (gb_cart_mbc(g->cart)) {
    case GB_MBC1: {
        /* the 5-bit register reads 0 as 1; the 2-bit one supplies bits 5-6 (MBC1M: bits 4-5,
         * with the 5-bit register's top bit unconnected) */
        int m = g->cart->info.multicart;
        uint32_t lo = s->rom_bank & 0x1F, hi = (uint32_t)s->mbc1_bank2 << (m ? 4 : 5);
        if (lo == 0)
            lo = 1;
        map_rom(g, 0, s->mbc1_mode ? hi : 0);
        map_rom(g, 4, hi | (m ? lo & 0x0F : lo));
        break;
    }
    case GB_MBC2:
        map_rom(g, 0, 0);
        map_rom(g, 4, (s->rom_bank & 0x0F) ? (s->rom_bank & 0x0F) : 1);
        break;
    case GB_MBC3:
        map_rom(g, 0, 0);
        map_rom(g, 4, s->rom_bank ? s->rom_bank : 1);
        break;
    case GB_MBC5:
        map_rom(g, 0, 0);
        map_rom(g, 4, s->rom_bank & 0x1FF);
        break;
    default:
        map_rom(g, 0, 0);
        map_rom(g, 4, 1);
        break;
    }
    int b = cram_bank(g);
    for (int i = 0; i < 2; i++) {
        uint8_t *p = b >= 0 ? g->cram + (size_t)b * 0x2000 + (size_t)i * 0x1000 : NULL;
        g->rmap[0xA + i] = p;
        g->wmap[0xA + i] = p;
    }
}

/* Writes to $0000-$7FFF set MBC registers. */
void gb_mbc_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    int mbc = gb_cart_mbc(g->cart);
    if (mbc == GB_MBC2) {
        /* one register range, $0000-$3FFF: address bit 8 clear is the RAM enable, set the
         * 4-bit ROM bank; $4000-$7FFF do nothing */
        if (a < 0x4000) {
            if (a & 0x100)
                s->rom_bank = v & 0x0F;
            else
                s->ram_en = (v & 0x0F) == 0x0A;
        }
    } else if (a < 0x2000) {
        if (mbc != GB_MBC_NONE) {
            if (mbc == GB_MBC3 && s->ram_bank >= 8)
                gb_rtc_update(g);
            s->ram_en = (v & 0x0F) == 0x0A;
        }
    } else if (a < 0x4000) {
        if (mbc == GB_MBC1)
            s->rom_bank = v & 0x1F;
        else if (mbc == GB_MBC3)
            s->rom_bank = v & 0xFF; /* 7 bits (MBC30: 8), masked by the ROM size */
        else if (mbc == GB_MBC5)
            s->rom_bank = a < 0x3000 ? (uint16_t)((s->rom_bank & 0x100) | v)
                                     : (uint16_t)((s->rom_bank & 0xFF) | ((v & 1) << 8));
    } else if (a < 0x6000) {
        if (mbc == GB_MBC1)
            s->mbc1_bank2 = v & 3;
        else if (mbc == GB_MBC3)
            s->ram_bank = v & 0x0F;
        else if (mbc == GB_MBC5)
            s->ram_bank = v & 0x0F;
    } else {
        if (mbc == GB_MBC1) {
            s->mbc1_mode = v & 1;
        } else if (mbc == GB_MBC3 && g->cart->info.has_rtc) {
            /* Writing 0 then 1 latches the clock registers. */
            if (s->rtc_latch_prev == 0 && v == 1) {
                gb_rtc_update(g);
                memcpy(s->rtc_latched, s->rtc, 5);
            }
            s->rtc_latch_prev = v;
        }
    }
    gb_cart_map(g);
}

/* ---- MBC3 real-time clock ------------------------------------------------------------- */

/* One second: seconds, minutes and hours roll over at 60/60/24 (a register holding an
 * out-of-range value counts up to its bit width and wraps without a carry); the 9-bit
 * day counter sets the carry flag (DH bit 7) when it overflows. */
static void rtc_tick(uint8_t *r)
{
    r[0] = (r[0] + 1) & 0x3F;
    if (r[0] != 60)
        return;
    r[0] = 0;
    r[1] = (r[1] + 1) & 0x3F;
    if (r[1] != 60)
        return;
    r[1] = 0;
    r[2] = (r[2] + 1) & 0x1F;
    if (r[2] != 24)
        return;
    r[2] = 0;
    unsigned day = (unsigned)r[3] | ((unsigned)(r[4] & 1) << 8);
    day++;
    if (day > 511) {
        day = 0;
        r[4] |= 0x80;
    }
    r[3] = (uint8_t)day;
    r[4] = (uint8_t)((r[4] & 0xFE) | (day >> 8));
}

void gb_rtc_update(gb *g)
{
    gb_state *s = &g->s;
    if (!g->cart->info.has_rtc) {
        s->rtc_clk = s->clk;
        return;
    }
    uint64_t el = s->clk - s->rtc_clk;
    s->rtc_clk = s->clk;
    if (s->rtc[4] & 0x40) /* halted */
        return;
    uint64_t tot = el + s->rtc_sub;
    uint64_t secs = tot / GB_CLOCK_HZ;
    s->rtc_sub = (uint32_t)(tot % GB_CLOCK_HZ);
    for (uint64_t i = 0; i < secs; i++)
        rtc_tick(s->rtc);
}

static const uint8_t rtc_mask[5] = {0x3F, 0x3F, 0x1F, 0xFF, 0xC1};

uint8_t gb_cram_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    if (!s->ram_en)
        return 0xFF;
    if (gb_cart_mbc(g->cart) == GB_MBC3 && s->ram_bank >= 8) {
        if (s->ram_bank <= 0x0C && g->cart->info.has_rtc)
            return s->rtc_latched[s->ram_bank - 8] | (uint8_t)~rtc_mask[s->ram_bank - 8];
        return 0xFF;
    }
    if (!g->cram_size)
        return 0xFF;
    if (gb_cart_mbc(g->cart) == GB_MBC2) /* 4-bit cells at the address's low 9 bits; the
                                            upper nibble is not driven and reads 1s */
        return (uint8_t)(0xF0 | g->cram[a & 0x1FF]);
    int b = cram_bank(g);
    if (b < 0)
        b = 0;
    return g->cram[((size_t)b * 0x2000 + (a & 0x1FFF)) % g->cram_size];
}

void gb_cram_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    if (!s->ram_en)
        return;
    if (gb_cart_mbc(g->cart) == GB_MBC3 && s->ram_bank >= 8) {
        if (s->ram_bank <= 0x0C && g->cart->info.has_rtc) {
            gb_rtc_update(g);
            int r = s->ram_bank - 8;
            s->rtc[r] = v & rtc_mask[r];
            if (r == 0)
                s->rtc_sub = 0; /* writing the seconds restarts the second */
        }
        return;
    }
    if (!g->cram_size)
        return;
    if (gb_cart_mbc(g->cart) == GB_MBC2) {
        g->cram[a & 0x1FF] = v & 0x0F;
        return;
    }
    int b = cram_bank(g);
    if (b < 0)
        b = 0;
    g->cram[((size_t)b * 0x2000 + (a & 0x1FFF)) % g->cram_size] = v;
}

/* ---- battery files -------------------------------------------------------------------- */

#define RTC_FOOTER 48

size_t gb_battery_size(const gb *g)
{
    const gb_cart_info *ci = &g->cart->info;
    if (!ci->has_battery)
        return 0;
    return g->cram_size + (ci->has_rtc ? RTC_FOOTER : 0);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

gv_status gb_battery_get(const gb *g, uint8_t **data, size_t *len, gv_err *err)
{
    *data = NULL;
    *len = 0;
    size_t n = gb_battery_size(g);
    if (!n)
        return gv_fail(err, GV_ERR_INPUT, "this cartridge has no battery-backed RAM");
    uint8_t *buf = calloc(1, n);
    if (!buf)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    if (g->cram_size)
        memcpy(buf, g->cram, g->cram_size);
    if (g->cart->info.has_rtc) {
        /* Footer: 5 clock registers then 5 latched ones as 32-bit little-endian words, and
         * a 64-bit timestamp, written as 0 (the clock runs on emulated time). */
        gb_rtc_update((gb *)g);
        uint8_t *f = buf + g->cram_size;
        for (int i = 0; i < 5; i++) {
            put32(f + 4 * i, g->s.rtc[i]);
            put32(f + 20 + 4 * i, g->s.rtc_latched[i]);
        }
    }
    *data = buf;
    *len = n;
    return GV_OK;
}

gv_status gb_battery_set(gb *g, const uint8_t *data, size_t len, const char *name, gv_err *err)
{
    size_t want = gb_battery_size(g);
    if (!want)
        return gv_fail(err, GV_ERR_INPUT, "%s: this cartridge has no battery-backed RAM", name);
    int rtc = g->cart->info.has_rtc;
    /* A 44-byte footer (32-bit timestamp) is accepted as well. */
    if (len != want && !(rtc && len == want - 4))
        return gv_fail(err, GV_ERR_INPUT, "%s: battery file has %zu bytes, this cartridge needs %zu", name, len, want);
    if (g->cram_size)
        memcpy(g->cram, data, g->cram_size);
    if (rtc) {
        const uint8_t *p = data + g->cram_size;
        for (int i = 0; i < 5; i++) {
            g->s.rtc[i] = p[4 * i] & rtc_mask[i];
            g->s.rtc_latched[i] = p[20 + 4 * i] & rtc_mask[i];
        }
        g->s.rtc_clk = g->s.clk;
        g->s.rtc_sub = 0;
    }
    return GV_OK;
}
