/* gb_mbc7.c: the MBC7 (Pan Docs, "MBC7"): ROM banking, the two RAM enables, the ADXL202E
 * accelerometer's latch and its X and Y, and the 93LC56 EEPROM (256 bytes as 128 16-bit
 * words, organised by 16 bits) driven through four pins of register Ax8x, its commands as
 * Microchip's 93AA56/93LC56 datasheet gives them. The EEPROM's bytes are the cartridge RAM
 * (g->cram): the battery file and the save states carry them; word n is bytes 2n (bits
 * 15-8) and 2n+1 (bits 7-0), the order in which its bits are shifted out. */
#include "emu/gb/gb_int.h"

/* The EEPROM's progress through a command (gb_board.ee_state). */
enum {
    GB_EE_IDLE,   /* waiting for the start bit (a 1 on DI at a rising CLK) */
    GB_EE_CMD,    /* shifting in the opcode and address: 10 bits */
    GB_EE_DATA,   /* shifting in the 16 data bits of WRITE or WRAL */
    GB_EE_READ,   /* shifting out data (READ), the next word after each 16 bits */
    GB_EE_WAIT,   /* the command is complete: programming starts when CS falls */
};

/* Accelerometer: centred at $81D0, Earth's gravity moves a reading by about $70; lower X
 * toward the right, lower Y toward the bottom (Pan Docs). */
#define ACCEL_LEVEL 0x81D0
#define ACCEL_1G 0x70

void gb_set_tilt(gb *g, int16_t x, int16_t y)
{
    g->s.board.tilt[0] = x;
    g->s.board.tilt[1] = y;
}

/* The reading for a tilt t (-32767..32767 for -90..90 degrees; -32768 counts as -32767),
 * scaled linearly and rounded toward zero: the same integers on every host. */
static uint16_t accel_of(int16_t t)
{
    int32_t v = t < -32767 ? -32767 : t;
    return (uint16_t)(ACCEL_LEVEL - v * ACCEL_1G / 32767);
}

void gb_mbc7_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    if (a < 0x2000)
        s->ram_en = (v & 0x0F) == 0x0A; /* RAM enable 1 */
    else if (a < 0x4000)
        s->rom_bank = v & 0x7F;
    else if (a < 0x6000)
        s->board.ram_en2 = v == 0x40; /* RAM enable 2: $40, anything else disables */
}

static uint16_t ee_word(const gb *g, unsigned n)
{
    return (uint16_t)(g->cram[2 * n] << 8 | g->cram[2 * n + 1]);
}

static void ee_put(gb *g, unsigned n, uint16_t w)
{
    g->cram[2 * n] = (uint8_t)(w >> 8);
    g->cram[2 * n + 1] = (uint8_t)w;
}

/* CS fell: a WRITE, ERASE, ERAL or WRAL that was shifted in completely is programmed now, if
 * EWEN enabled programming. The self-timed programming takes no emulated time here: DO reads
 * ready (1) as soon as CS rises again. CS low also resets the command logic. */
static void ee_deselect(gb *g)
{
    gb_board *b = &g->s.board;
    if (b->ee_state == GB_EE_WAIT && b->ee_we) {
        switch (b->ee_op >> 2) {
        case 1: ee_put(g, b->ee_addr, b->ee_sr); break;           /* WRITE */
        case 3: ee_put(g, b->ee_addr, 0xFFFF); break;             /* ERASE */
        case 0:
            if ((b->ee_op & 3) == 2 || (b->ee_op & 3) == 1)       /* ERAL, WRAL */
                for (unsigned n = 0; n < 128; n++)
                    ee_put(g, n, (b->ee_op & 3) == 2 ? 0xFFFF : b->ee_sr);
            break;
        }
    }
    b->ee_state = GB_EE_IDLE;
    b->ee_do = 1;
}

/* A rising edge of CLK with CS high: DI is shifted in, or the next bit out. */
static void ee_clock(gb *g, int di)
{
    gb_board *b = &g->s.board;
    switch (b->ee_state) {
    case GB_EE_IDLE:
        if (di) { /* the start bit; zeros before it are ignored */
            b->ee_state = GB_EE_CMD;
            b->ee_bits = 0;
            b->ee_sr = 0;
        }
        break;
    case GB_EE_CMD:
        b->ee_sr = (uint16_t)(b->ee_sr << 1 | di);
        if (++b->ee_bits < 10)
            break;
        /* 2 opcode bits, then 8 address bits of which the first is not used (x16 words) */
        b->ee_op = (uint8_t)(b->ee_sr >> 6);
        b->ee_addr = b->ee_sr & 0x7F;
        b->ee_bits = 0;
        b->ee_sr = 0;
        switch (b->ee_op >> 2) {
        case 2: /* READ: a dummy 0, then the word from its bit 15 */
            b->ee_state = GB_EE_READ;
            b->ee_sr = ee_word(g, b->ee_addr);
            b->ee_do = 0;
            break;
        case 1: b->ee_state = GB_EE_DATA; break; /* WRITE */
        case 3: b->ee_state = GB_EE_WAIT; break; /* ERASE */
        default:
            switch (b->ee_op & 3) {
            case 3: b->ee_we = 1, b->ee_state = GB_EE_WAIT; break; /* EWEN */
            case 0: b->ee_we = 0, b->ee_state = GB_EE_WAIT; break; /* EWDS */
            case 2: b->ee_state = GB_EE_WAIT; break;               /* ERAL */
            default: b->ee_state = GB_EE_DATA; break;              /* WRAL */
            }
        }
        break;
    case GB_EE_DATA:
        b->ee_sr = (uint16_t)(b->ee_sr << 1 | di);
        if (++b->ee_bits == 16)
            b->ee_state = GB_EE_WAIT;
        break;
    case GB_EE_READ:
        /* while CS stays high the words follow one another, without a dummy bit between */
        if (b->ee_bits == 16) {
            b->ee_addr = (b->ee_addr + 1) & 0x7F;
            b->ee_sr = ee_word(g, b->ee_addr);
            b->ee_bits = 0;
        }
        b->ee_do = (uint8_t)(b->ee_sr >> (15 - b->ee_bits) & 1);
        b->ee_bits++;
        break;
    default: /* GB_EE_WAIT: clocks are ignored until CS falls */
        break;
    }
}

/* Ax8x written: bit 7 CS, bit 6 CLK, bit 1 DI. */
static void ee_pins(gb *g, uint8_t v)
{
    gb_board *b = &g->s.board;
    uint8_t old = b->ee_pins;
    b->ee_pins = v & 0xC2;
    if (!(v & 0x80)) {
        if (old & 0x80)
            ee_deselect(g);
        return;
    }
    if ((v & 0x40) && !(old & 0x40))
        ee_clock(g, (v >> 1) & 1);
}

static int enabled(const gb *g)
{
    return g->s.ram_en && g->s.board.ram_en2;
}

/* $A000-$AFFF: the register in address bits 4-7; $B000-$BFFF reads $FF. */
uint8_t gb_mbc7_read(gb *g, uint16_t a)
{
    const gb_board *b = &g->s.board;
    if (!enabled(g) || a >= 0xB000)
        return 0xFF;
    switch ((a >> 4) & 0x0F) {
    case 2: return (uint8_t)b->accel[0];
    case 3: return (uint8_t)(b->accel[0] >> 8);
    case 4: return (uint8_t)b->accel[1];
    case 5: return (uint8_t)(b->accel[1] >> 8);
    case 6: return 0x00;
    case 8: return (uint8_t)(b->ee_pins | b->ee_do); /* bits 2-5 are not connected: 0 here */
    default: return 0xFF; /* the latch registers (write only), $9x-$Fx */
    }
}

void gb_mbc7_ram_write(gb *g, uint16_t a, uint8_t v)
{
    gb_board *b = &g->s.board;
    if (!enabled(g) || a >= 0xB000)
        return;
    switch ((a >> 4) & 0x0F) {
    case 0: /* $55 erases the latched values back to $8000 and arms the latch */
        if (v == 0x55) {
            b->accel[0] = b->accel[1] = 0x8000;
            b->accel_armed = 1;
        }
        break;
    case 1: /* $AA latches the accelerometer once after an erase */
        if (v == 0xAA && b->accel_armed) {
            b->accel[0] = accel_of(b->tilt[0]);
            b->accel[1] = accel_of(b->tilt[1]);
            b->accel_armed = 0;
        }
        break;
    case 8: ee_pins(g, v); break;
    default: break;
    }
}
