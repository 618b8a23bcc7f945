/* gb_cart.c: cartridges. Parses and validates the header ($0100-$014F; the MMM01's is its
 * menu's, in the last 32 KiB), maps ROM and RAM banks for every board (MBC1 and its MBC1M
 * multi-game wiring, MBC2 with its 512 x 4 bits of RAM, MBC3, MBC5, MBC7, MMM01, HuC1,
 * HuC3), dispatches the boards' registers (the MBC3's clock in gb_mbc3.c, the MBC7 in
 * gb_mbc7.c, the HuC3's clock MCU in gb_huc3.c) and frames the battery file: the RAM (or
 * EEPROM), then a clock's footer. The clocks count emulated time (their 32768 Hz crystal
 * ticks every 128 dots), so runs are reproducible. Pan Docs' page of each board. */
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
static uint8_t header_checksum(const uint8_t *h)
{
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - h[i] - 1);
    return x;
}

size_t gb_cart_header_at(const uint8_t *data, size_t len)
{
    /* The MMM01 maps the last 32 KiB at power-on: its menu and the cartridge's own header
     * are there; $0100 holds the first game's header (Pan Docs, "MMM01"). */
    if (len >= 0x10000 && !(len & 0x7FFF)) {
        const uint8_t *h = data + len - 0x8000;
        if (h[0x147] >= 0x0B && h[0x147] <= 0x0D && header_checksum(h) == h[0x14D])
            return len - 0x8000;
    }
    return 0;
}

const char *gb_cart_board_name(int mbc)
{
    switch (mbc) {
    case GB_MBC1: return "MBC1";
    case GB_MBC2: return "MBC2";
    case GB_MBC3: return "MBC3";
    case GB_MBC5: return "MBC5";
    case GB_MBC7: return "MBC7";
    case GB_MMM01: return "MMM01";
    case GB_HUC1: return "HuC1";
    case GB_HUC3: return "HuC3";
    default: return "no MBC";
    }
}

/* Cartridge type byte $0147 -> board and features (Pan Docs, "The Cartridge Header"); 0 when
 * the type is known. */
static int cart_type(uint8_t t, gb_cart_info *ci)
{
    static const struct { uint8_t type, mbc, ram, battery, rtc; } types[] = {
        {0x00, GB_MBC_NONE, 0, 0, 0}, {0x08, GB_MBC_NONE, 1, 0, 0}, {0x09, GB_MBC_NONE, 1, 1, 0},
        {0x01, GB_MBC1, 0, 0, 0},     {0x02, GB_MBC1, 1, 0, 0},     {0x03, GB_MBC1, 1, 1, 0},
        {0x05, GB_MBC2, 1, 0, 0},     {0x06, GB_MBC2, 1, 1, 0},
        {0x0B, GB_MMM01, 0, 0, 0},    {0x0C, GB_MMM01, 1, 0, 0},    {0x0D, GB_MMM01, 1, 1, 0},
        {0x0F, GB_MBC3, 0, 1, 1},     {0x10, GB_MBC3, 1, 1, 1},     {0x11, GB_MBC3, 0, 0, 0},
        {0x12, GB_MBC3, 1, 0, 0},     {0x13, GB_MBC3, 1, 1, 0},
        {0x19, GB_MBC5, 0, 0, 0},     {0x1A, GB_MBC5, 1, 0, 0},     {0x1B, GB_MBC5, 1, 1, 0},
        {0x1C, GB_MBC5, 0, 0, 0},     {0x1D, GB_MBC5, 1, 0, 0},     {0x1E, GB_MBC5, 1, 1, 0},
        /* MBC7+SENSOR+RUMBLE+RAM+BATTERY: the "RAM" is its EEPROM, kept without a battery */
        {0x22, GB_MBC7, 1, 1, 0},
        /* HuC3: RAM with a battery (a replaceable coin cell) and the clock MCU */
        {0xFE, GB_HUC3, 1, 1, 1},     {0xFF, GB_HUC1, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == t) {
            ci->mbc = types[i].mbc;
            ci->has_ram = types[i].ram;
            ci->has_battery = types[i].battery;
            ci->has_rtc = types[i].rtc;
            return 0;
        }
    return -1;
}

/* The largest ROM (as a $0148 size code) and RAM each board can address, for the header
 * checks: bank register widths from Pan Docs. */
static void board_limits(int mbc, int *rom_code, size_t *ram_max)
{
    switch (mbc) {
    case GB_MBC1: *rom_code = 6, *ram_max = 0x8000; break;
    case GB_MBC2: *rom_code = 3, *ram_max = 512; break;
    case GB_MBC3: *rom_code = 7, *ram_max = 0x10000; break;   /* the MBC30: 8 bits, 8 banks */
    case GB_MBC5: *rom_code = 8, *ram_max = 0x20000; break;
    case GB_MBC7: *rom_code = 6, *ram_max = 256; break;       /* 7 bank bits */
    case GB_MMM01: *rom_code = 8, *ram_max = 0x20000; break;  /* 9 bank bits, 4 RAM bank bits */
    case GB_HUC1: *rom_code = 6, *ram_max = 0x20000; break;   /* "at least" 6 and 2 bits */
    case GB_HUC3: *rom_code = 6, *ram_max = 0x20000; break;   /* 7 bits; RAM "at least" 2 */
    default: *rom_code = 0, *ram_max = 0x2000; break;         /* no MBC */
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
    ci.header = gb_cart_header_at(data, len);
    const uint8_t *h = data + ci.header;
    for (int i = 0; i < 16; i++) {
        uint8_t ch = h[0x134 + i];
        if (ch == 0)
            break;
        ci.title[i] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
    }
    ci.cgb_flag = h[0x143];
    ci.type = h[0x147];
    ci.header_checksum = h[0x14D];
    uint8_t want = header_checksum(h);
    if (want != ci.header_checksum)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header checksum: $014D holds $%02X, the header sums to $%02X",
                       name, ci.header_checksum, want);
    if (cart_type(ci.type, &ci) != 0)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: unsupported cartridge type $%02X (supported: ROM only, MBC1, MBC2, MBC3, MBC5, MBC7, MMM01, "
                       "HuC1, HuC3)",
                       name, ci.type);
    uint8_t rs = h[0x148];
    if (rs > 8)
        return gv_fail(err, GV_ERR_INPUT, "%s: invalid ROM size code $%02X at $0148", name, rs);
    ci.rom_size = (size_t)0x8000 << rs;
    static const uint32_t ram_sizes[6] = {0, 0x800, 0x2000, 0x8000, 0x20000, 0x10000};
    uint8_t ra = h[0x149];
    if (ra > 5)
        return gv_fail(err, GV_ERR_INPUT, "%s: invalid RAM size code $%02X at $0149", name, ra);
    ci.ram_size = ci.has_ram ? ram_sizes[ra] : 0;
    if (ci.mbc == GB_MBC2)
        ci.ram_size = 512; /* built into the MBC2; the header says none */
    if (ci.mbc == GB_MBC7)
        ci.ram_size = 256; /* the 93LC56 EEPROM, whatever the header says */
    if (ci.has_ram && ci.ram_size == 0)
        ci.has_ram = 0;
    const char *board = gb_cart_board_name(ci.mbc);
    int rom_code;
    size_t ram_max;
    board_limits(ci.mbc, &rom_code, &ram_max);
    if (ci.mbc == GB_MBC_NONE && rs != 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: a cartridge without MBC holds 32 KiB, header says %zu KiB",
                       name, ci.rom_size / 1024);
    if (rs > rom_code)
        return gv_fail(err, GV_ERR_INPUT, "%s: %s cannot address %zu KiB of ROM (%zu KiB at most)", name, board,
                       ci.rom_size / 1024, ((size_t)0x8000 << rom_code) / 1024);
    if (ci.ram_size > ram_max)
        return gv_fail(err, GV_ERR_INPUT, "%s: %s cannot address %zu KiB of RAM (%zu KiB at most)", name, board,
                       ci.ram_size / 1024, ram_max / 1024);
    /* An MMM01 dump whose header at $0100 names the MMM01 begins with its menu (a game's
     * header names the game's own board): its first 32 KiB go to the end, where the
     * cartridge has them. */
    int rotate = ci.mbc == GB_MMM01 && !ci.header;
    if (ci.mbc == GB_MMM01 && len != ci.rom_size)
        return gv_fail(err, GV_ERR_INPUT, "%s: an MMM01 image of %zu bytes, its menu's header declares %zu", name, len,
                       ci.rom_size);
    if (rotate && ci.rom_size < 0x10000)
        return gv_fail(err, GV_ERR_INPUT, "%s: an MMM01 image of %zu bytes holds no game beside its menu", name, len);
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
    if (rotate) {
        memcpy(rom, data + 0x8000, ci.rom_size - 0x8000);
        memcpy(rom + ci.rom_size - 0x8000, data, 0x8000);
        ci.header = ci.rom_size - 0x8000;
    } else {
        memcpy(rom, data, ci.rom_size);
    }
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

/* 8 KiB banks of cartridge RAM (a 2 KiB RAM is one, seen through its first 2 KiB). */
static uint32_t ram_banks(const gb *g)
{
    return (g->cram_size + 0x1FFF) / 0x2000;
}

/* The MMM01's banks (Pan Docs' addressing diagrams), from its four 7-bit registers:
 * r0 $0000: RAM enable (bits 0-3), RAM bank mask (4-5), mapping enable (6);
 * r1 $2000: ROM bank low (0-4), ROM bank mid (5-6);
 * r2 $4000: RAM bank low (0-1), RAM bank high (2-3), ROM bank high (4-5), mode lock (6);
 * r3 $6000: MBC1 mode (0), ROM bank mask (1-5, its lowest bit always 0), multiplex (6).
 * Before mapping is enabled the last 32 KiB (the menu) is at $0000-$7FFF. */
static void mmm01_banks(const gb *g, uint32_t *rom0, uint32_t *rom1, uint32_t *ram)
{
    const uint8_t *r = g->s.board.mmm01;
    uint32_t low = r[1] & 0x1F, mid = (r[1] >> 5) & 3, ram_low = r[2] & 3, ram_high = (r[2] >> 2) & 3;
    uint32_t rom_high = (r[2] >> 4) & 3, ram_mask = (r[0] >> 4) & 3, rom_mask = (r[3] >> 1) & 0x1E;
    int mode = r[3] & 1, mux = (r[3] >> 6) & 1;
    /* bank 0 of the game (its unmasked bits all 0) reads as bank 1 at $4000 */
    uint32_t low1 = (low & ~rom_mask) ? low : (low | 1);
    uint32_t game_ram_low = mode ? ram_low : (ram_low & ram_mask);
    if (!mux) {
        *rom0 = rom_high << 7 | mid << 5 | (low & rom_mask);
        *rom1 = rom_high << 7 | mid << 5 | low1;
        *ram = ram_high << 2 | game_ram_low;
    } else { /* multiplex: RAM bank low and ROM bank mid change places */
        *rom0 = rom_high << 7 | game_ram_low << 5 | (low & rom_mask);
        *rom1 = rom_high << 7 | ram_low << 5 | low1;
        *ram = ram_high << 2 | mid;
    }
    if (!(r[0] & 0x40)) { /* unmapped: the menu */
        *rom0 = g->rom_mask & ~1u;
        *rom1 = g->rom_mask;
    }
}

/* The cartridge RAM bank at $A000 and whether writes reach it, or -1 when $A000-$BFFF does
 * not show RAM there (disabled, absent, a register selected, or a bank the board does not
 * have): those accesses go through the slow path. */
static int cram_bank(const gb *g, int *writable)
{
    const gb_state *s = &g->s;
    uint32_t nb = ram_banks(g);
    *writable = 1;
    if (!g->cram_size)
        return -1;
    switch (gb_cart_mbc(g->cart)) {
    case GB_MBC1: return s->ram_en ? (int)((s->mbc1_mode ? s->mbc1_bank2 : 0) % nb) : -1;
    case GB_MBC2: return s->ram_en ? 0 : -1;
    case GB_MBC3: return s->ram_en && s->ram_bank < nb ? (int)s->ram_bank : -1; /* others read $FF */
    case GB_MBC5: return s->ram_en ? (int)(s->ram_bank % nb) : -1;
    case GB_HUC1: return s->board.mode != 0x0E ? (int)(s->ram_bank % nb) : -1; /* no enable: IR or RAM */
    case GB_HUC3:
        *writable = s->board.mode == 0x0A;
        return s->board.mode == 0x0A || s->board.mode == 0x00 ? (int)(s->ram_bank % nb) : -1;
    case GB_MMM01: {
        uint32_t r0, r1, ram;
        mmm01_banks(g, &r0, &r1, &ram);
        return (s->board.mmm01[0] & 0x0F) == 0x0A ? (int)(ram % nb) : -1;
    }
    default: return 0; /* no MBC: at most 8 KiB behind a plain address decoder, always enabled
                          (Pan Docs, "No MBC") */
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
    case GB_MBC7: case GB_HUC1: case GB_HUC3: /* bank 0 can be mapped at $4000, as on the MBC5 */
        map_rom(g, 0, 0);
        map_rom(g, 4, s->rom_bank);
        break;
    case GB_MMM01: {
        uint32_t r0, r1, ram;
        mmm01_banks(g, &r0, &r1, &ram);
        map_rom(g, 0, r0);
        map_rom(g, 4, r1);
        break;
    }
    default:
        map_rom(g, 0, 0);
        map_rom(g, 4, 1);
        break;
    }
    int w = 0;
    int b = g->cram_size >= 0x2000 ? cram_bank(g, &w) : -1;
    for (int i = 0; i < 2; i++) {
        uint8_t *p = b >= 0 ? g->cram + (size_t)b * 0x2000 + (size_t)i * 0x1000 : NULL;
        g->rmap[0xA + i] = p;
        g->wmap[0xA + i] = w ? p : NULL;
    }
}

/* An MMM01 register write: the bits the menu sets are writable only before mapping is
 * enabled, and the masks lock bits of ROM and RAM bank low even then. */
static void mmm01_write(gb *g, int reg, uint8_t v)
{
    uint8_t *r = g->s.board.mmm01;
    int unmapped = !(r[0] & 0x40);
    uint8_t w = 0;
    switch (reg) {
    case 0: w = (uint8_t)(0x0F | (unmapped ? 0x70 : 0)); break;
    case 1: w = (uint8_t)((~(r[3] >> 1) & 0x1E) | 1 | (unmapped ? 0x60 : 0)); break;
    case 2: w = (uint8_t)((~(r[0] >> 4) & 3) | (unmapped ? 0x7C : 0)); break;
    case 3: w = (uint8_t)(((r[2] & 0x40) ? 0 : 1) | (unmapped ? 0x7E : 0)); break;
    }
    r[reg] = (uint8_t)((r[reg] & ~w) | (v & w & 0x7F));
}

/* Writes to $0000-$7FFF set MBC registers. */
void gb_mbc_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    int reg = a >> 13; /* 0: $0000-$1FFF, 1: $2000-$3FFF, 2: $4000-$5FFF, 3: $6000-$7FFF */
    switch (gb_cart_mbc(g->cart)) {
    case GB_MBC1:
        if (reg == 0)
            s->ram_en = (v & 0x0F) == 0x0A;
        else if (reg == 1)
            s->rom_bank = v & 0x1F;
        else if (reg == 2)
            s->mbc1_bank2 = v & 3;
        else
            s->mbc1_mode = v & 1;
        break;
    case GB_MBC2:
        /* one register range, $0000-$3FFF: address bit 8 clear is the RAM enable, set the
         * 4-bit ROM bank; $4000-$7FFF do nothing */
        if (a < 0x4000) {
            if (a & 0x100)
                s->rom_bank = v & 0x0F;
            else
                s->ram_en = (v & 0x0F) == 0x0A;
        }
        break;
    case GB_MBC3:
        if (reg == 0)
            s->ram_en = (v & 0x0F) == 0x0A;
        else if (reg == 1)
            s->rom_bank = v; /* 7 bits (MBC30: 8), masked by the ROM size */
        else if (reg == 2)
            s->ram_bank = v & 0x0F; /* the high nibble is not connected */
        else if (g->cart->info.has_rtc)
            gb_mbc3_latch(g, v);
        break;
    case GB_MBC5:
        if (reg == 0)
            s->ram_en = (v & 0x0F) == 0x0A;
        else if (reg == 1)
            s->rom_bank = a < 0x3000 ? (uint16_t)((s->rom_bank & 0x100) | v)
                                     : (uint16_t)((s->rom_bank & 0xFF) | ((v & 1) << 8));
        else if (reg == 2)
            s->ram_bank = v & 0x0F;
        break;
    case GB_MBC7:
        gb_mbc7_write(g, a, v);
        break;
    case GB_HUC1:
    case GB_HUC3:
        /* $0000: what $A000-$BFFF shows (HuC1: $0E the IR port, else RAM; HuC3: its low
         * nibble, gb_huc3.c); $2000: the ROM bank (HuC1 at least 6 bits, HuC3 7); $4000:
         * the RAM bank (at least 2 bits); $6000: nothing */
        if (reg == 0)
            s->board.mode = gb_cart_mbc(g->cart) == GB_HUC3 ? (v & 0x0F) : v;
        else if (reg == 1)
            s->rom_bank = gb_cart_mbc(g->cart) == GB_HUC3 ? (v & 0x7F) : v;
        else if (reg == 2)
            s->ram_bank = v & 0x0F;
        break;
    case GB_MMM01:
        mmm01_write(g, reg, v);
        break;
    default: /* no MBC: a RAM chip on the bus is always enabled */
        break;
    }
    gb_cart_map(g);
}

/* The byte at $A000-$BFFF from RAM bank b (wrapping within a RAM smaller than 8 KiB). */
static uint8_t *cram_at(gb *g, uint32_t b, uint16_t a)
{
    return &g->cram[((size_t)b * 0x2000 + (a & 0x1FFF)) % g->cram_size];
}

/* Reads of $A000-$BFFF that the page pointers do not serve. */
uint8_t gb_cram_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    int mbc = gb_cart_mbc(g->cart), w;
    if (mbc == GB_MBC7)
        return gb_mbc7_read(g, a);
    if (mbc == GB_MBC3 && s->ram_en && s->ram_bank >= 8 && s->ram_bank <= 0x0C && g->cart->info.has_rtc)
        return gb_mbc3_rtc_read(g, s->ram_bank - 8);
    if (mbc == GB_HUC1 && s->board.mode == 0x0E)
        return 0xC0; /* the IR receiver: $C1 saw light, $C0 did not; no light reaches it here */
    if (mbc == GB_HUC3 && s->board.mode >= 0x0B && s->board.mode <= 0x0E)
        return gb_huc3_read(g);
    int b = cram_bank(g, &w);
    if (b < 0)
        return 0xFF; /* disabled, or nothing selected: open bus, $FF here */
    if (mbc == GB_MBC2) /* 4-bit cells at the address's low 9 bits; the upper nibble is not
                           driven and reads 1s */
        return (uint8_t)(0xF0 | g->cram[a & 0x1FF]);
    return *cram_at(g, (uint32_t)b, a);
}

void gb_cram_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    int mbc = gb_cart_mbc(g->cart), w;
    if (mbc == GB_MBC7) {
        gb_mbc7_ram_write(g, a, v);
        return;
    }
    if (mbc == GB_MBC3 && s->ram_en && s->ram_bank >= 8 && s->ram_bank <= 0x0C && g->cart->info.has_rtc) {
        gb_mbc3_rtc_write(g, s->ram_bank - 8, v);
        return;
    }
    if ((mbc == GB_HUC1 || mbc == GB_HUC3) && s->board.mode == 0x0E) {
        s->board.ir_led = v & 1; /* the IR transmitter; no receiver sees it */
        return;
    }
    if (mbc == GB_HUC3 && s->board.mode >= 0x0B && s->board.mode <= 0x0D) {
        gb_huc3_io_write(g, v);
        return;
    }
    int b = cram_bank(g, &w);
    if (b < 0 || !w)
        return;
    if (mbc == GB_MBC2) {
        g->cram[a & 0x1FF] = v & 0x0F;
        return;
    }
    *cram_at(g, (uint32_t)b, a) = v;
}

/* ---- the clocks' crystal, power-on ---------------------------------------------------- */

uint64_t gb_crystal_ticks(gb *g)
{
    gb_state *s = &g->s;
    uint64_t t = s->clk / 128 - s->rtc_clk / 128; /* 4194304 / 32768 dots a tick */
    s->rtc_clk = s->clk;
    return t;
}

void gb_cart_ram_init(gb *g)
{
    /* a new EEPROM is erased (every bit 1); RAM starts at 0 */
    if (g->cram_size)
        memset(g->cram, gb_cart_mbc(g->cart) == GB_MBC7 ? 0xFF : 0x00, g->cram_size);
}

void gb_cart_keep(const gb *g, gb_cart_kept *k)
{
    memcpy(k->rtc, g->s.rtc, sizeof k->rtc);
    memcpy(k->rtc_latched, g->s.rtc_latched, sizeof k->rtc_latched);
    k->rtc_sub = g->s.rtc_sub;
    k->board = g->s.board;
}

void gb_cart_power(gb *g, const gb_cart_kept *k)
{
    gb_state *s = &g->s;
    const gb_cart_info *ci = &g->cart->info;
    s->rom_bank = 1;
    s->board.accel[0] = s->board.accel[1] = 0x8000; /* the MBC7's accelerometer before a latch */
    s->board.ee_do = 1;
    if (!ci->has_battery) {
        gb_cart_ram_init(g);
        return;
    }
    /* The battery keeps the RAM or EEPROM (left as it is) and the clock, which runs on: its
     * registers, the phase of its second and the MCU's memory carry over, and it counts its
     * crystal's ticks from this power-on. */
    if (ci->has_rtc) {
        memcpy(s->rtc, k->rtc, sizeof s->rtc);
        memcpy(s->rtc_latched, k->rtc_latched, sizeof s->rtc_latched);
        s->rtc_sub = k->rtc_sub;
        s->rtc_clk = s->clk;
        s->board.unix_time = k->board.unix_time;
        memcpy(s->board.huc3_mem, k->board.huc3_mem, sizeof s->board.huc3_mem);
    }
}

/* ---- battery files -------------------------------------------------------------------- */

/* Bytes after the RAM in the battery file: the clock's footer. */
static size_t footer_size(const gb_cart_info *ci)
{
    if (!ci->has_rtc)
        return 0;
    return ci->mbc == GB_HUC3 ? GB_HUC3_FOOTER : GB_MBC3_FOOTER;
}

size_t gb_cart_battery_size(const gb_cart *c)
{
    const gb_cart_info *ci = &c->info;
    return ci->has_battery ? ci->ram_size + footer_size(ci) : 0;
}

size_t gb_battery_size(const gb *g)
{
    return gb_cart_battery_size(g->cart);
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
    /* The clock is brought up to the current dot first: what the file holds is the time now
     * (a const machine's clock, whose counting changes no observable state). */
    if (g->cart->info.mbc == GB_MBC3 && g->cart->info.has_rtc)
        gb_mbc3_footer_get((gb *)g, buf + g->cram_size);
    if (g->cart->info.mbc == GB_HUC3)
        gb_huc3_footer_get((gb *)g, buf + g->cram_size);
    *data = buf;
    *len = n;
    return GV_OK;
}

gv_status gb_battery_set(gb *g, const uint8_t *data, size_t len, const char *name, gv_err *err)
{
    const gb_cart_info *ci = &g->cart->info;
    size_t want = gb_battery_size(g);
    if (!want)
        return gv_fail(err, GV_ERR_INPUT, "%s: this cartridge has no battery-backed RAM", name);
    int mbc3_rtc = ci->mbc == GB_MBC3 && ci->has_rtc;
    /* An MBC3 footer of 44 bytes (a 32-bit timestamp) is accepted as well. */
    if (len != want && !(mbc3_rtc && len == want - 4))
        return gv_fail(err, GV_ERR_INPUT, "%s: battery file has %zu bytes, this cartridge needs %zu%s", name, len, want,
                       mbc3_rtc ? " (or 4 fewer: a 32-bit clock timestamp)" : "");
    if (g->cram_size)
        memcpy(g->cram, data, g->cram_size);
    if (mbc3_rtc)
        gb_mbc3_footer_set(g, data + g->cram_size, len - g->cram_size);
    if (ci->mbc == GB_HUC3)
        gb_huc3_footer_set(g, data + g->cram_size);
    return GV_OK;
}
