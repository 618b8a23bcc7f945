/* test_snes_spc.c: unit tests of the S-SMP (src/emu/snes/snes_spc.c) with values worked out
 * by hand from the documentation (anomie's SPC700 document, fullsnes), never taken from a
 * run of the core:
 *   - the documented opcode table: every opcode's cycle count on both paths, and our ca65
 *     macro pack (src/emu/snes/spc700.inc) assembling each opcode to its documented bytes;
 *   - hand-worked cases for every opcode group (results, flags, PC, cycles), DIV / DAA / DAS
 *     edge cases, and the bus cycle sequence of representative opcodes;
 *   - timers (ticks at exact cycles, clear on read, enable and disable, TEST), the ports in
 *     both directions with their timestamps, CONTROL's port clears, the DSP register pair,
 *     $F8/$F9, the register overlay on RAM;
 *   - our IPL: the bytes in snes_spc.c equal what ca65 makes of src/emu/snes/snes_ipl.s, and
 *     a simulated main CPU uploads two blocks through the ports and starts the program;
 *   - save states, the fast path against the reference path on a long program, and (as
 *     information, not a check) the speed of the fast path. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/gv.h"
#include "emu/snes/snes_spc.h"

enum { FN = 0x80, FV = 0x40, FP = 0x20, FB = 0x10, FH = 0x08, FI = 0x04, FZ = 0x02, FC = 0x01 };

/* ---- the documented opcode table ----------------------------------------------------------
 * Cycles: the untaken count (a taken branch adds `taken`); SLEEP/STOP: the opcode fetch.
 * Syntax: our assembler's; @t is the next instruction (offset 0). Operand conventions: d = $12,
 * the destination of "op dd, ds" = $34, #$56, !$1234, m.b = $0567.5 (encoded $A567).
 * Bytes: the documented encoding (operands stored last to first; bbs/bbc/cbne/dbnz d, r as
 * op d r). */
typedef struct {
    uint8_t op, cycles, taken;
    const char *src, *bytes;
} op_row;

static const op_row ops[256] = {
    {0x00,  2, 0, "nop", "00"},
    {0x01,  8, 0, "tcall 0", "01"},
    {0x02,  4, 0, "set1 $12.0", "02 12"},
    {0x03,  5, 2, "bbs $12.0, @t", "03 12 00"},
    {0x04,  3, 0, "or a, $12", "04 12"},
    {0x05,  4, 0, "or a, !$1234", "05 34 12"},
    {0x06,  3, 0, "or a, (x)", "06"},
    {0x07,  6, 0, "or a, [$12+x]", "07 12"},
    {0x08,  2, 0, "or a, #$56", "08 56"},
    {0x09,  6, 0, "or $34, $12", "09 12 34"},
    {0x0A,  5, 0, "or1 c, $0567.5", "0A 67 A5"},
    {0x0B,  4, 0, "asl $12", "0B 12"},
    {0x0C,  5, 0, "asl !$1234", "0C 34 12"},
    {0x0D,  4, 0, "push psw", "0D"},
    {0x0E,  6, 0, "tset1 !$1234", "0E 34 12"},
    {0x0F,  8, 0, "brk", "0F"},
    {0x10,  2, 2, "bpl @t", "10 00"},
    {0x11,  8, 0, "tcall 1", "11"},
    {0x12,  4, 0, "clr1 $12.0", "12 12"},
    {0x13,  5, 2, "bbc $12.0, @t", "13 12 00"},
    {0x14,  4, 0, "or a, $12+x", "14 12"},
    {0x15,  5, 0, "or a, !$1234+x", "15 34 12"},
    {0x16,  5, 0, "or a, !$1234+y", "16 34 12"},
    {0x17,  6, 0, "or a, [$12]+y", "17 12"},
    {0x18,  5, 0, "or $34, #$56", "18 56 34"},
    {0x19,  5, 0, "or (x), (y)", "19"},
    {0x1A,  6, 0, "decw $12", "1A 12"},
    {0x1B,  5, 0, "asl $12+x", "1B 12"},
    {0x1C,  2, 0, "asl a", "1C"},
    {0x1D,  2, 0, "dec x", "1D"},
    {0x1E,  4, 0, "cmp x, !$1234", "1E 34 12"},
    {0x1F,  6, 0, "jmp [!$1234+x]", "1F 34 12"},
    {0x20,  2, 0, "clrp", "20"},
    {0x21,  8, 0, "tcall 2", "21"},
    {0x22,  4, 0, "set1 $12.1", "22 12"},
    {0x23,  5, 2, "bbs $12.1, @t", "23 12 00"},
    {0x24,  3, 0, "and a, $12", "24 12"},
    {0x25,  4, 0, "and a, !$1234", "25 34 12"},
    {0x26,  3, 0, "and a, (x)", "26"},
    {0x27,  6, 0, "and a, [$12+x]", "27 12"},
    {0x28,  2, 0, "and a, #$56", "28 56"},
    {0x29,  6, 0, "and $34, $12", "29 12 34"},
    {0x2A,  5, 0, "or1 c, /$0567.5", "2A 67 A5"},
    {0x2B,  4, 0, "rol $12", "2B 12"},
    {0x2C,  5, 0, "rol !$1234", "2C 34 12"},
    {0x2D,  4, 0, "push a", "2D"},
    {0x2E,  5, 2, "cbne $12, @t", "2E 12 00"},
    {0x2F,  4, 0, "bra @t", "2F 00"},
    {0x30,  2, 2, "bmi @t", "30 00"},
    {0x31,  8, 0, "tcall 3", "31"},
    {0x32,  4, 0, "clr1 $12.1", "32 12"},
    {0x33,  5, 2, "bbc $12.1, @t", "33 12 00"},
    {0x34,  4, 0, "and a, $12+x", "34 12"},
    {0x35,  5, 0, "and a, !$1234+x", "35 34 12"},
    {0x36,  5, 0, "and a, !$1234+y", "36 34 12"},
    {0x37,  6, 0, "and a, [$12]+y", "37 12"},
    {0x38,  5, 0, "and $34, #$56", "38 56 34"},
    {0x39,  5, 0, "and (x), (y)", "39"},
    {0x3A,  6, 0, "incw $12", "3A 12"},
    {0x3B,  5, 0, "rol $12+x", "3B 12"},
    {0x3C,  2, 0, "rol a", "3C"},
    {0x3D,  2, 0, "inc x", "3D"},
    {0x3E,  3, 0, "cmp x, $12", "3E 12"},
    {0x3F,  8, 0, "call !$1234", "3F 34 12"},
    {0x40,  2, 0, "setp", "40"},
    {0x41,  8, 0, "tcall 4", "41"},
    {0x42,  4, 0, "set1 $12.2", "42 12"},
    {0x43,  5, 2, "bbs $12.2, @t", "43 12 00"},
    {0x44,  3, 0, "eor a, $12", "44 12"},
    {0x45,  4, 0, "eor a, !$1234", "45 34 12"},
    {0x46,  3, 0, "eor a, (x)", "46"},
    {0x47,  6, 0, "eor a, [$12+x]", "47 12"},
    {0x48,  2, 0, "eor a, #$56", "48 56"},
    {0x49,  6, 0, "eor $34, $12", "49 12 34"},
    {0x4A,  4, 0, "and1 c, $0567.5", "4A 67 A5"},
    {0x4B,  4, 0, "lsr $12", "4B 12"},
    {0x4C,  5, 0, "lsr !$1234", "4C 34 12"},
    {0x4D,  4, 0, "push x", "4D"},
    {0x4E,  6, 0, "tclr1 !$1234", "4E 34 12"},
    {0x4F,  6, 0, "pcall $20", "4F 20"},
    {0x50,  2, 2, "bvc @t", "50 00"},
    {0x51,  8, 0, "tcall 5", "51"},
    {0x52,  4, 0, "clr1 $12.2", "52 12"},
    {0x53,  5, 2, "bbc $12.2, @t", "53 12 00"},
    {0x54,  4, 0, "eor a, $12+x", "54 12"},
    {0x55,  5, 0, "eor a, !$1234+x", "55 34 12"},
    {0x56,  5, 0, "eor a, !$1234+y", "56 34 12"},
    {0x57,  6, 0, "eor a, [$12]+y", "57 12"},
    {0x58,  5, 0, "eor $34, #$56", "58 56 34"},
    {0x59,  5, 0, "eor (x), (y)", "59"},
    {0x5A,  4, 0, "cmpw ya, $12", "5A 12"},
    {0x5B,  5, 0, "lsr $12+x", "5B 12"},
    {0x5C,  2, 0, "lsr a", "5C"},
    {0x5D,  2, 0, "mov x, a", "5D"},
    {0x5E,  4, 0, "cmp y, !$1234", "5E 34 12"},
    {0x5F,  3, 0, "jmp !$1234", "5F 34 12"},
    {0x60,  2, 0, "clrc", "60"},
    {0x61,  8, 0, "tcall 6", "61"},
    {0x62,  4, 0, "set1 $12.3", "62 12"},
    {0x63,  5, 2, "bbs $12.3, @t", "63 12 00"},
    {0x64,  3, 0, "cmp a, $12", "64 12"},
    {0x65,  4, 0, "cmp a, !$1234", "65 34 12"},
    {0x66,  3, 0, "cmp a, (x)", "66"},
    {0x67,  6, 0, "cmp a, [$12+x]", "67 12"},
    {0x68,  2, 0, "cmp a, #$56", "68 56"},
    {0x69,  6, 0, "cmp $34, $12", "69 12 34"},
    {0x6A,  4, 0, "and1 c, /$0567.5", "6A 67 A5"},
    {0x6B,  4, 0, "ror $12", "6B 12"},
    {0x6C,  5, 0, "ror !$1234", "6C 34 12"},
    {0x6D,  4, 0, "push y", "6D"},
    {0x6E,  5, 2, "dbnz $12, @t", "6E 12 00"},
    {0x6F,  5, 0, "ret", "6F"},
    {0x70,  2, 2, "bvs @t", "70 00"},
    {0x71,  8, 0, "tcall 7", "71"},
    {0x72,  4, 0, "clr1 $12.3", "72 12"},
    {0x73,  5, 2, "bbc $12.3, @t", "73 12 00"},
    {0x74,  4, 0, "cmp a, $12+x", "74 12"},
    {0x75,  5, 0, "cmp a, !$1234+x", "75 34 12"},
    {0x76,  5, 0, "cmp a, !$1234+y", "76 34 12"},
    {0x77,  6, 0, "cmp a, [$12]+y", "77 12"},
    {0x78,  5, 0, "cmp $34, #$56", "78 56 34"},
    {0x79,  5, 0, "cmp (x), (y)", "79"},
    {0x7A,  5, 0, "addw ya, $12", "7A 12"},
    {0x7B,  5, 0, "ror $12+x", "7B 12"},
    {0x7C,  2, 0, "ror a", "7C"},
    {0x7D,  2, 0, "mov a, x", "7D"},
    {0x7E,  3, 0, "cmp y, $12", "7E 12"},
    {0x7F,  6, 0, "reti", "7F"},
    {0x80,  2, 0, "setc", "80"},
    {0x81,  8, 0, "tcall 8", "81"},
    {0x82,  4, 0, "set1 $12.4", "82 12"},
    {0x83,  5, 2, "bbs $12.4, @t", "83 12 00"},
    {0x84,  3, 0, "adc a, $12", "84 12"},
    {0x85,  4, 0, "adc a, !$1234", "85 34 12"},
    {0x86,  3, 0, "adc a, (x)", "86"},
    {0x87,  6, 0, "adc a, [$12+x]", "87 12"},
    {0x88,  2, 0, "adc a, #$56", "88 56"},
    {0x89,  6, 0, "adc $34, $12", "89 12 34"},
    {0x8A,  5, 0, "eor1 c, $0567.5", "8A 67 A5"},
    {0x8B,  4, 0, "dec $12", "8B 12"},
    {0x8C,  5, 0, "dec !$1234", "8C 34 12"},
    {0x8D,  2, 0, "mov y, #$56", "8D 56"},
    {0x8E,  4, 0, "pop psw", "8E"},
    {0x8F,  5, 0, "mov $34, #$56", "8F 56 34"},
    {0x90,  2, 2, "bcc @t", "90 00"},
    {0x91,  8, 0, "tcall 9", "91"},
    {0x92,  4, 0, "clr1 $12.4", "92 12"},
    {0x93,  5, 2, "bbc $12.4, @t", "93 12 00"},
    {0x94,  4, 0, "adc a, $12+x", "94 12"},
    {0x95,  5, 0, "adc a, !$1234+x", "95 34 12"},
    {0x96,  5, 0, "adc a, !$1234+y", "96 34 12"},
    {0x97,  6, 0, "adc a, [$12]+y", "97 12"},
    {0x98,  5, 0, "adc $34, #$56", "98 56 34"},
    {0x99,  5, 0, "adc (x), (y)", "99"},
    {0x9A,  5, 0, "subw ya, $12", "9A 12"},
    {0x9B,  5, 0, "dec $12+x", "9B 12"},
    {0x9C,  2, 0, "dec a", "9C"},
    {0x9D,  2, 0, "mov x, sp", "9D"},
    {0x9E, 12, 0, "div ya, x", "9E"},
    {0x9F,  5, 0, "xcn a", "9F"},
    {0xA0,  3, 0, "ei", "A0"},
    {0xA1,  8, 0, "tcall 10", "A1"},
    {0xA2,  4, 0, "set1 $12.5", "A2 12"},
    {0xA3,  5, 2, "bbs $12.5, @t", "A3 12 00"},
    {0xA4,  3, 0, "sbc a, $12", "A4 12"},
    {0xA5,  4, 0, "sbc a, !$1234", "A5 34 12"},
    {0xA6,  3, 0, "sbc a, (x)", "A6"},
    {0xA7,  6, 0, "sbc a, [$12+x]", "A7 12"},
    {0xA8,  2, 0, "sbc a, #$56", "A8 56"},
    {0xA9,  6, 0, "sbc $34, $12", "A9 12 34"},
    {0xAA,  4, 0, "mov1 c, $0567.5", "AA 67 A5"},
    {0xAB,  4, 0, "inc $12", "AB 12"},
    {0xAC,  5, 0, "inc !$1234", "AC 34 12"},
    {0xAD,  2, 0, "cmp y, #$56", "AD 56"},
    {0xAE,  4, 0, "pop a", "AE"},
    {0xAF,  4, 0, "mov (x)+, a", "AF"},
    {0xB0,  2, 2, "bcs @t", "B0 00"},
    {0xB1,  8, 0, "tcall 11", "B1"},
    {0xB2,  4, 0, "clr1 $12.5", "B2 12"},
    {0xB3,  5, 2, "bbc $12.5, @t", "B3 12 00"},
    {0xB4,  4, 0, "sbc a, $12+x", "B4 12"},
    {0xB5,  5, 0, "sbc a, !$1234+x", "B5 34 12"},
    {0xB6,  5, 0, "sbc a, !$1234+y", "B6 34 12"},
    {0xB7,  6, 0, "sbc a, [$12]+y", "B7 12"},
    {0xB8,  5, 0, "sbc $34, #$56", "B8 56 34"},
    {0xB9,  5, 0, "sbc (x), (y)", "B9"},
    {0xBA,  5, 0, "movw ya, $12", "BA 12"},
    {0xBB,  5, 0, "inc $12+x", "BB 12"},
    {0xBC,  2, 0, "inc a", "BC"},
    {0xBD,  2, 0, "mov sp, x", "BD"},
    {0xBE,  3, 0, "das a", "BE"},
    {0xBF,  4, 0, "mov a, (x)+", "BF"},
    {0xC0,  3, 0, "di", "C0"},
    {0xC1,  8, 0, "tcall 12", "C1"},
    {0xC2,  4, 0, "set1 $12.6", "C2 12"},
    {0xC3,  5, 2, "bbs $12.6, @t", "C3 12 00"},
    {0xC4,  4, 0, "mov $12, a", "C4 12"},
    {0xC5,  5, 0, "mov !$1234, a", "C5 34 12"},
    {0xC6,  4, 0, "mov (x), a", "C6"},
    {0xC7,  7, 0, "mov [$12+x], a", "C7 12"},
    {0xC8,  2, 0, "cmp x, #$56", "C8 56"},
    {0xC9,  5, 0, "mov !$1234, x", "C9 34 12"},
    {0xCA,  6, 0, "mov1 $0567.5, c", "CA 67 A5"},
    {0xCB,  4, 0, "mov $12, y", "CB 12"},
    {0xCC,  5, 0, "mov !$1234, y", "CC 34 12"},
    {0xCD,  2, 0, "mov x, #$56", "CD 56"},
    {0xCE,  4, 0, "pop x", "CE"},
    {0xCF,  9, 0, "mul ya", "CF"},
    {0xD0,  2, 2, "bne @t", "D0 00"},
    {0xD1,  8, 0, "tcall 13", "D1"},
    {0xD2,  4, 0, "clr1 $12.6", "D2 12"},
    {0xD3,  5, 2, "bbc $12.6, @t", "D3 12 00"},
    {0xD4,  5, 0, "mov $12+x, a", "D4 12"},
    {0xD5,  6, 0, "mov !$1234+x, a", "D5 34 12"},
    {0xD6,  6, 0, "mov !$1234+y, a", "D6 34 12"},
    {0xD7,  7, 0, "mov [$12]+y, a", "D7 12"},
    {0xD8,  4, 0, "mov $12, x", "D8 12"},
    {0xD9,  5, 0, "mov $12+y, x", "D9 12"},
    {0xDA,  5, 0, "movw $12, ya", "DA 12"},
    {0xDB,  5, 0, "mov $12+x, y", "DB 12"},
    {0xDC,  2, 0, "dec y", "DC"},
    {0xDD,  2, 0, "mov a, y", "DD"},
    {0xDE,  6, 2, "cbne $12+x, @t", "DE 12 00"},
    {0xDF,  3, 0, "daa a", "DF"},
    {0xE0,  2, 0, "clrv", "E0"},
    {0xE1,  8, 0, "tcall 14", "E1"},
    {0xE2,  4, 0, "set1 $12.7", "E2 12"},
    {0xE3,  5, 2, "bbs $12.7, @t", "E3 12 00"},
    {0xE4,  3, 0, "mov a, $12", "E4 12"},
    {0xE5,  4, 0, "mov a, !$1234", "E5 34 12"},
    {0xE6,  3, 0, "mov a, (x)", "E6"},
    {0xE7,  6, 0, "mov a, [$12+x]", "E7 12"},
    {0xE8,  2, 0, "mov a, #$56", "E8 56"},
    {0xE9,  4, 0, "mov x, !$1234", "E9 34 12"},
    {0xEA,  5, 0, "not1 $0567.5", "EA 67 A5"},
    {0xEB,  3, 0, "mov y, $12", "EB 12"},
    {0xEC,  4, 0, "mov y, !$1234", "EC 34 12"},
    {0xED,  3, 0, "notc", "ED"},
    {0xEE,  4, 0, "pop y", "EE"},
    {0xEF,  1, 0, "sleep", "EF"},
    {0xF0,  2, 2, "beq @t", "F0 00"},
    {0xF1,  8, 0, "tcall 15", "F1"},
    {0xF2,  4, 0, "clr1 $12.7", "F2 12"},
    {0xF3,  5, 2, "bbc $12.7, @t", "F3 12 00"},
    {0xF4,  4, 0, "mov a, $12+x", "F4 12"},
    {0xF5,  5, 0, "mov a, !$1234+x", "F5 34 12"},
    {0xF6,  5, 0, "mov a, !$1234+y", "F6 34 12"},
    {0xF7,  6, 0, "mov a, [$12]+y", "F7 12"},
    {0xF8,  3, 0, "mov x, $12", "F8 12"},
    {0xF9,  4, 0, "mov x, $12+y", "F9 12"},
    {0xFA,  5, 0, "mov $34, $12", "FA 12 34"},
    {0xFB,  4, 0, "mov y, $12+x", "FB 12"},
    {0xFC,  2, 0, "inc y", "FC"},
    {0xFD,  2, 0, "mov y, a", "FD"},
    {0xFE,  4, 2, "dbnz y, @t", "FE 00"},
    {0xFF,  1, 0, "stop", "FF"},
};

/* Parses "E8 56" into bytes; returns the count. */
static int hex_bytes(const char *s, uint8_t *out)
{
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        out[n++] = (uint8_t)strtoul(s, (char **)&s, 16);
    }
    return n;
}

/* ---- machines ------------------------------------------------------------------------------ */

static snes_spc *new_flat(void)
{
    snes_spc *s = malloc(sizeof *s);
    if (!s)
        exit(1);
    snes_spc_power(s);
    snes_spc_set_flat(s, 1);
    return s;
}

/* A powered-on machine with its I/O, the IPL unmapped (CONTROL = 0) and PC at $0200. */
static snes_spc *new_io(void)
{
    snes_spc *s = malloc(sizeof *s);
    if (!s)
        exit(1);
    snes_spc_power(s);
    snes_spc_bus_write(s, 0xF1, 0x00, 0, 0);
    s->pc = 0x0200;
    return s;
}

static void load_code(snes_spc *s, uint16_t at, const uint8_t *code, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s->ram[(uint16_t)(at + i)] = code[i];
}

/* ---- every opcode's cycle count (both paths) ------------------------------------------------ */

/* Runs each opcode once from $0200 in flat mode with operands that keep branches untaken
 * (flags and memory chosen per opcode), on one path; returns how many match the table. */
static int cycles_on_path(int reference, char *first_bad, size_t n)
{
    snes_spc *s = new_flat();
    int good = 0;
    first_bad[0] = 0;
    for (int op = 0; op < 256; op++) {
        memset(s->ram, 0, sizeof s->ram);
        uint8_t b[4];
        int nb = hex_bytes(ops[op].bytes, b);
        load_code(s, 0x0200, b, (size_t)nb);
        s->pc = 0x0200, s->cycles = 0, s->halted = 0;
        s->a = 0, s->x = 0, s->y = 1, s->sp = 0xEF;
        /* untaken: N, V, C clear for BMI/BVS/BCS; set for BPL/BVC/BCC; Z set for BNE, clear for BEQ */
        uint8_t hi = op >> 4;
        s->psw = (op & 0x1F) == 0x10 ? ((hi == 1 || hi == 5 || hi == 9 || hi == 0xD) ? (FN | FV | FC | FZ) : 0) : 0;
        s->a = 0; /* CBNE: (d) = 0 = A; DBNZ d: (d) = 1 -> 0; BBS: bit clear; BBC: set */
        s->ram[0x12] = (op & 0x1F) == 0x13 ? 0xFF : 0x00;
        if (op == 0x6E)
            s->ram[0x12] = 1;
        s->env.reference = reference;
        snes_spc_step(s);
        if ((int)s->cycles == ops[op].cycles)
            good++;
        else if (!first_bad[0])
            snprintf(first_bad, n, "; first difference: %s took %llu, documented %d", ops[op].src,
                     (unsigned long long)s->cycles, ops[op].cycles);
    }
    free(s);
    return good;
}

/* Taken branches add the documented 2 cycles. */
static int taken_branches(void)
{
    snes_spc *s = new_flat();
    int good = 0, total = 0;
    for (int op = 0; op < 256; op++) {
        if (!ops[op].taken)
            continue;
        total++;
        memset(s->ram, 0, sizeof s->ram);
        uint8_t b[4];
        int nb = hex_bytes(ops[op].bytes, b);
        load_code(s, 0x0200, b, (size_t)nb);
        s->pc = 0x0200, s->cycles = 0, s->halted = 0, s->y = 2, s->a = 1;
        uint8_t hi = op >> 4;
        s->psw = (op & 0x1F) == 0x10 ? ((hi == 1 || hi == 5 || hi == 9 || hi == 0xD) ? 0 : (FN | FV | FC | FZ)) : 0;
        s->ram[0x12] = (op & 0x1F) == 0x03 ? 0xFF : (op == 0x6E ? 2 : 0x00);
        snes_spc_step(s);
        good += (int)s->cycles == ops[op].cycles + ops[op].taken;
    }
    free(s);
    return good == total ? total : -good;
}

static void test_cycle_table(void)
{
    char bad[200];
    int f = cycles_on_path(0, bad, sizeof bad);
    t_check(f == 256, "spc700 cycles fast path", "%d/256 opcodes take their documented cycles%s", f, bad);
    int r = cycles_on_path(1, bad, sizeof bad);
    t_check(r == 256, "spc700 cycles reference path", "%d/256 opcodes take their documented cycles%s", r, bad);
    int t = taken_branches();
    t_check(t == 28, "spc700 cycles taken branches", "%d of 28 conditional branch opcodes (Bcc, BBS, BBC, CBNE, DBNZ) "
            "add 2 cycles when taken", t);
}

/* ---- hand-worked cases ----------------------------------------------------------------------
 * Code at $0200 in flat mode; one instruction; expected registers, one memory byte, PC and
 * cycles, each worked out from the documented semantics (the comment says how). */
typedef struct {
    const char *name;
    const char *code;
    uint8_t a, x, y, sp, psw;
    uint16_t m1; uint8_t v1;       /* initial memory (m1 = 0: none) */
    uint16_t m2; uint8_t v2;
    uint8_t ea, ex, ey, esp, epsw;
    uint16_t epc;
    uint16_t em; uint8_t ev;       /* expected memory (em = 0: none) */
    int cycles;
} hcase;

static const hcase cases[] = {
    /* MOV loads set N and Z */
    {"mov a,#0: Z", "E8 00", 0x55, 0, 0, 0xEF, FN, 0, 0, 0, 0, 0x00, 0, 0, 0xEF, FZ, 0x0202, 0, 0, 2},
    {"mov a,#$80: N", "E8 80", 0, 0, 0, 0xEF, FZ, 0, 0, 0, 0, 0x80, 0, 0, 0xEF, FN, 0x0202, 0, 0, 2},
    /* ADC: $50 + $50 = $A0: signed overflow (V), no carry out of bit 3 (H = 0) */
    {"adc $50+$50", "88 50", 0x50, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0xA0, 0, 0, 0xEF, FN | FV, 0x0202, 0, 0, 2},
    /* ADC: $FF + $01 + C = $101: C, H (carry out of bit 3), result $01 */
    {"adc $FF+$01+C", "88 01", 0xFF, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x01, 0, 0, 0xEF, FH | FC, 0x0202, 0, 0, 2},
    /* SBC: $00 - $01 with C (no borrow in) = $FF, borrow: C = 0, H = 0, N */
    {"sbc $00-$01", "A8 01", 0x00, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0xFF, 0, 0, 0xEF, FN, 0x0202, 0, 0, 2},
    /* SBC: $80 - $10 = $70: -128 - 16 overflows (V); no borrow (C), no nibble borrow (H) */
    {"sbc $80-$10", "A8 10", 0x80, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x70, 0, 0, 0xEF, FV | FH | FC, 0x0202, 0, 0, 2},
    {"cmp equal", "68 20", 0x20, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x20, 0, 0, 0xEF, FZ | FC, 0x0202, 0, 0, 2},
    {"cmp less", "68 21", 0x20, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x20, 0, 0, 0xEF, FN, 0x0202, 0, 0, 2},
    {"and to zero", "28 0F", 0xF0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x00, 0, 0, 0xEF, FZ, 0x0202, 0, 0, 2},
    {"or", "08 01", 0x80, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x81, 0, 0, 0xEF, FN, 0x0202, 0, 0, 2},
    {"eor", "48 FF", 0x0F, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0xF0, 0, 0, 0xEF, FN, 0x0202, 0, 0, 2},
    /* shifts: the bit shifted out goes to C */
    {"asl a", "1C", 0x81, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xEF, FC, 0x0201, 0, 0, 2},
    {"rol a", "3C", 0x80, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x01, 0, 0, 0xEF, FC, 0x0201, 0, 0, 2},
    {"lsr a", "5C", 0x01, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x00, 0, 0, 0xEF, FZ | FC, 0x0201, 0, 0, 2},
    {"ror a", "7C", 0x01, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x80, 0, 0, 0xEF, FN | FC, 0x0201, 0, 0, 2},
    {"asl d", "0B 12", 0, 0, 0, 0xEF, 0, 0x12, 0x80, 0, 0, 0, 0, 0, 0xEF, FZ | FC, 0x0202, 0x12, 0x00, 4},
    {"inc x wraps", "3D", 0, 0xFF, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0x00, 0, 0xEF, FZ, 0x0201, 0, 0, 2},
    {"dec y wraps", "DC", 0, 0, 0x00, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xEF, FN, 0x0201, 0, 0, 2},
    {"inc !a", "AC 34 12", 0, 0, 0, 0xEF, 0, 0x1234, 0x7F, 0, 0, 0, 0, 0, 0xEF, FN, 0x0203, 0x1234, 0x80, 5},
    {"xcn", "9F", 0x12, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x21, 0, 0, 0xEF, 0, 0x0201, 0, 0, 5},
    /* MUL: $12 * $34 = $03A8; N and Z from Y ($03), so N is clear although A = $A8 */
    {"mul", "CF", 0x34, 0, 0x12, 0xEF, FN | FZ, 0, 0, 0, 0, 0xA8, 0, 0x03, 0xEF, 0, 0x0201, 0, 0, 9},
    {"mul zero", "CF", 0x34, 0, 0x00, 0xEF, 0, 0, 0, 0, 0, 0x00, 0, 0x00, 0xEF, FZ, 0x0201, 0, 0, 9},
    /* DIV: $1234 / $56 = $36 rem $10; H = (X & 15 = 6) <= (Y & 15 = 2) = 0 */
    {"div", "9E", 0x34, 0x56, 0x12, 0xEF, 0, 0, 0, 0, 0, 0x36, 0x56, 0x10, 0xEF, 0, 0x0201, 0, 0, 12},
    /* DIV: $0100 / 2 = $80 rem 0 (an exact quotient: the restoring step compares with >=) */
    {"div exact", "9E", 0x00, 0x02, 0x01, 0xEF, 0, 0, 0, 0, 0, 0x80, 0x02, 0x00, 0xEF, FN, 0x0201, 0, 0, 12},
    /* DIV: $01FF / 1 = $1FF: A = $FF, V = bit 8, Y = 0; H = (1 <= 1) */
    {"div quotient $1FF", "9E", 0xFF, 0x01, 0x01, 0xEF, 0, 0, 0, 0, 0, 0xFF, 0x01, 0x00, 0xEF, FN | FV | FH, 0x0201, 0, 0, 12},
    /* DIV overflow (quotient >= $200), values from the documented algorithm:
     * $0400 / 2 -> A = $FF, Y = $02, V; H = (2 <= 4); $FFFF / 1 -> A = $01, Y = $FE, V, H;
     * $0000 / 0 -> A = $FF, Y = 0, V, H = (0 <= 0) */
    {"div overflow $0400/2", "9E", 0x00, 0x02, 0x04, 0xEF, 0, 0, 0, 0, 0, 0xFF, 0x02, 0x02, 0xEF, FN | FV | FH, 0x0201, 0, 0, 12},
    {"div overflow $FFFF/1", "9E", 0xFF, 0x01, 0xFF, 0xEF, 0, 0, 0, 0, 0, 0x01, 0x01, 0xFE, 0xEF, FV | FH, 0x0201, 0, 0, 12},
    {"div by zero", "9E", 0x00, 0x00, 0x00, 0xEF, FZ, 0, 0, 0, 0, 0xFF, 0x00, 0x00, 0xEF, FN | FV | FH, 0x0201, 0, 0, 12},
    /* DAA: low digit $A > 9 -> +6; DAA $9A: > $99 -> +$60 and C, then +6 -> $00 */
    {"daa low digit", "DF", 0x1A, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x20, 0, 0, 0xEF, 0, 0x0201, 0, 0, 3},
    {"daa $9A", "DF", 0x9A, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0x00, 0, 0, 0xEF, FZ | FC, 0x0201, 0, 0, 3},
    {"daa half carry", "DF", 0x22, 0, 0, 0xEF, FH, 0, 0, 0, 0, 0x28, 0, 0, 0xEF, FH, 0x0201, 0, 0, 3},
    {"daa carry", "DF", 0x05, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x65, 0, 0, 0xEF, FC, 0x0201, 0, 0, 3},
    /* DAS: H clear (a nibble borrow) -> -6; C clear -> -$60 and C stays clear; H is kept */
    {"das low digit", "BE", 0x1F, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x19, 0, 0, 0xEF, FC, 0x0201, 0, 0, 3},
    /* H clear alone (low digit 0 <= 9): $10 - 6 = $0A */
    {"das half borrow", "BE", 0x10, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0x0A, 0, 0, 0xEF, FC, 0x0201, 0, 0, 3},
    {"das borrow", "BE", 0xA0, 0, 0, 0xEF, FH, 0, 0, 0, 0, 0x40, 0, 0, 0xEF, FH, 0x0201, 0, 0, 3},
    {"das > $99", "BE", 0x9A, 0, 0, 0xEF, FC | FH, 0, 0, 0, 0, 0x34, 0, 0, 0xEF, FH, 0x0201, 0, 0, 3},
    /* register moves */
    {"mov x,sp", "9D", 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0x80, 0, 0x80, FN, 0x0201, 0, 0, 2},
    {"mov sp,x: no flags", "BD", 0, 0x00, 0, 0xEF, FN, 0, 0, 0, 0, 0, 0x00, 0, 0x00, FN, 0x0201, 0, 0, 2},
    /* MOV (X)+, A stores then increments X; MOV A, (X)+ with P set reads page 1 and wraps X */
    {"mov (x)+,a", "AF", 0x77, 0x10, 0, 0xEF, 0, 0, 0, 0, 0, 0x77, 0x11, 0, 0xEF, 0, 0x0201, 0x0010, 0x77, 4},
    {"mov a,(x)+ in page 1", "BF", 0, 0xFF, 0, 0xEF, FP, 0x01FF, 0x5A, 0, 0, 0x5A, 0x00, 0, 0xEF, FP, 0x0201, 0, 0, 4},
    /* direct page addressing wraps within the page */
    {"mov a,d+x wraps", "F4 FF", 0, 0x02, 0, 0xEF, 0, 0x0001, 0x44, 0, 0, 0x44, 0x02, 0, 0xEF, 0, 0x0202, 0, 0, 4},
    {"mov a,d+x wraps P=1", "F4 FF", 0, 0x02, 0, 0xEF, FP, 0x0101, 0x45, 0, 0, 0x45, 0x02, 0, 0xEF, FP, 0x0202, 0, 0, 4},
    /* indirect: [d+X] takes the pointer at d+X; [d]+Y adds Y to the pointer at d */
    {"mov a,[d+x]", "E7 12", 0, 0x02, 0, 0xEF, 0, 0x0014, 0x00, 0x0015, 0x30, 0, 0x02, 0, 0xEF, FZ, 0x0202, 0, 0, 6},
    {"mov a,[d]+y", "F7 12", 0, 0, 0x01, 0xEF, 0, 0x0012, 0xFF, 0x0013, 0x2F, 0, 0, 0x01, 0xEF, FZ, 0x0202, 0, 0, 6},
    {"mov [d]+y,a", "D7 12", 0x99, 0, 0x02, 0xEF, 0, 0x0012, 0x00, 0x0013, 0x40, 0x99, 0, 0x02, 0xEF, 0, 0x0202, 0x4002, 0x99, 7},
    /* memory-to-memory forms: bytes are op source destination */
    {"mov dd,ds", "FA 12 34", 0, 0, 0, 0xEF, FZ, 0x0012, 0x99, 0, 0, 0, 0, 0, 0xEF, FZ, 0x0203, 0x0034, 0x99, 5},
    {"mov d,#i", "8F 56 12", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0x0012, 0x56, 5},
    {"adc dd,ds", "89 12 34", 0, 0, 0, 0xEF, 0, 0x0012, 0x01, 0x0034, 0xFF, 0, 0, 0, 0xEF, FH | FZ | FC, 0x0203, 0x0034, 0x00, 6},
    {"cmp d,#i", "78 05 34", 0, 0, 0, 0xEF, 0, 0x0034, 0x05, 0, 0, 0, 0, 0, 0xEF, FZ | FC, 0x0203, 0x0034, 0x05, 5},
    {"sbc (x),(y)", "B9", 0, 0x10, 0x20, 0xEF, FC, 0x0010, 0x05, 0x0020, 0x03, 0, 0x10, 0x20, 0xEF, FH | FC, 0x0201, 0x0010, 0x02, 5},
    /* 16-bit */
    {"incw", "3A 12", 0, 0, 0, 0xEF, 0, 0x0012, 0xFF, 0x0013, 0x7F, 0, 0, 0, 0xEF, FN, 0x0202, 0x0013, 0x80, 6},
    {"decw to zero", "1A 12", 0, 0, 0, 0xEF, 0, 0x0012, 0x01, 0x0013, 0x00, 0, 0, 0, 0xEF, FZ, 0x0202, 0x0012, 0x00, 6},
    /* ADDW $7FFF + 1 = $8000: V, N, H (carry out of bit 11), no C */
    {"addw", "7A 12", 0xFF, 0, 0x7F, 0xEF, 0, 0x0012, 0x01, 0x0013, 0x00, 0x00, 0, 0x80, 0xEF, FN | FV | FH, 0x0202, 0, 0, 5},
    /* SUBW $0000 - 1 = $FFFF: borrow (C = 0), no H, N */
    {"subw", "9A 12", 0x00, 0, 0x00, 0xEF, FC, 0x0012, 0x01, 0x0013, 0x00, 0xFF, 0, 0xFF, 0xEF, FN, 0x0202, 0, 0, 5},
    {"cmpw equal", "5A 12", 0x34, 0, 0x12, 0xEF, 0, 0x0012, 0x34, 0x0013, 0x12, 0x34, 0, 0x12, 0xEF, FZ | FC, 0x0202, 0, 0, 4},
    {"movw ya,d", "BA 12", 0x11, 0, 0x22, 0xEF, 0, 0x0012, 0x00, 0x0013, 0x80, 0x00, 0, 0x80, 0xEF, FN, 0x0202, 0, 0, 5},
    {"movw d,ya: no flags", "DA 12", 0x00, 0, 0x00, 0xEF, FN, 0, 0, 0, 0, 0, 0, 0, 0xEF, FN, 0x0202, 0x0013, 0x00, 5},
    /* branches: taken adds 2 cycles; the offset counts from the next instruction */
    {"bne taken", "D0 05", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0, 0x0207, 0, 0, 4},
    {"bne not taken", "D0 05", 0, 0, 0, 0xEF, FZ, 0, 0, 0, 0, 0, 0, 0, 0xEF, FZ, 0x0202, 0, 0, 2},
    {"bra back", "2F FE", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0, 0x0200, 0, 0, 4},
    {"bbs taken", "63 12 04", 0, 0, 0, 0xEF, 0, 0x0012, 0x08, 0, 0, 0, 0, 0, 0xEF, 0, 0x0207, 0, 0, 7},
    {"bbc not taken", "73 12 04", 0, 0, 0, 0xEF, 0, 0x0012, 0x08, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0, 0, 5},
    {"cbne equal", "2E 12 02", 0x05, 0, 0, 0xEF, 0, 0x0012, 0x05, 0, 0, 0x05, 0, 0, 0xEF, 0, 0x0203, 0, 0, 5},
    {"cbne differs", "2E 12 02", 0x06, 0, 0, 0xEF, 0, 0x0012, 0x05, 0, 0, 0x06, 0, 0, 0xEF, 0, 0x0205, 0, 0, 7},
    {"dbnz y to 0", "FE FE", 0, 0, 0x01, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xEF, 0, 0x0202, 0, 0, 4},
    {"dbnz y loops", "FE FE", 0, 0, 0x02, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xEF, 0, 0x0200, 0, 0, 6},
    {"dbnz d to 0", "6E 12 FD", 0, 0, 0, 0xEF, 0, 0x0012, 0x01, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0x0012, 0x00, 5},
    /* jumps, calls and returns */
    {"jmp !a", "5F 34 12", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0, 0x1234, 0, 0, 3},
    {"jmp [!a+x]", "1F 00 10", 0, 0x02, 0, 0xEF, 0, 0x1002, 0x78, 0x1003, 0x56, 0, 0x02, 0, 0xEF, 0, 0x5678, 0, 0, 6},
    {"call", "3F 34 12", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xED, 0, 0x1234, 0x01EE, 0x03, 8},
    {"pcall", "4F 20", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xED, 0, 0xFF20, 0x01EF, 0x02, 6},
    {"tcall 1", "11", 0, 0, 0, 0xEF, 0, 0xFFDC, 0x00, 0xFFDD, 0x30, 0, 0, 0, 0xED, 0, 0x3000, 0x01EE, 0x01, 8},
    /* BRK pushes PC and PSW, sets B, clears I, jumps through $FFDE */
    {"brk", "0F", 0, 0, 0, 0xEF, FI | FC, 0xFFDE, 0x00, 0xFFDF, 0x40, 0, 0, 0, 0xEC, FB | FC, 0x4000, 0x01ED, FI | FC, 8},
    {"ret", "6F", 0, 0, 0, 0xED, 0, 0x01EE, 0x34, 0x01EF, 0x12, 0, 0, 0, 0xEF, 0, 0x1234, 0, 0, 5},
    {"reti", "7F", 0, 0, 0, 0xEE, 0, 0x01EF, 0x12, 0x01EF, 0x12, 0, 0, 0, 0xF1, 0x12, 0x0000, 0, 0, 6},
    {"push a", "2D", 0xAB, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0xAB, 0, 0, 0xEE, 0, 0x0201, 0x01EF, 0xAB, 4},
    {"pop x: no flags", "CE", 0, 0, 0, 0xEE, FZ, 0x01EF, 0xCD, 0, 0, 0, 0xCD, 0, 0xEF, FZ, 0x0201, 0, 0, 4},
    {"pop psw", "8E", 0, 0, 0, 0xEE, 0, 0x01EF, 0xFF, 0, 0, 0, 0, 0, 0xEF, 0xFF, 0x0201, 0, 0, 4},
    {"stack wraps in page 1", "2D", 0x5C, 0, 0, 0x00, 0, 0, 0, 0, 0, 0x5C, 0, 0, 0xFF, 0, 0x0201, 0x0100, 0x5C, 4},
    /* bit operations */
    {"set1 d.7", "E2 12", 0, 0, 0, 0xEF, 0, 0x0012, 0x00, 0, 0, 0, 0, 0, 0xEF, 0, 0x0202, 0x0012, 0x80, 4},
    {"clr1 d.0", "12 12", 0, 0, 0, 0xEF, 0, 0x0012, 0xFF, 0, 0, 0, 0, 0, 0xEF, 0, 0x0202, 0x0012, 0xFE, 4},
    /* TSET1: (a) |= A; N Z from A - (a) = $0F - $F0 = $1F */
    {"tset1", "0E 34 12", 0x0F, 0, 0, 0xEF, FZ, 0x1234, 0xF0, 0, 0, 0x0F, 0, 0, 0xEF, 0, 0x0203, 0x1234, 0xFF, 6},
    {"tclr1", "4E 34 12", 0xF0, 0, 0, 0xEF, 0, 0x1234, 0xF0, 0, 0, 0xF0, 0, 0, 0xEF, FZ, 0x0203, 0x1234, 0x00, 6},
    /* m.b = $0567.5 ($A567); the byte holds $20 (bit 5 set) */
    {"and1", "4A 67 A5", 0, 0, 0, 0xEF, FC, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, FC, 0x0203, 0, 0, 4},
    {"and1 not", "6A 67 A5", 0, 0, 0, 0xEF, FC, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0, 0, 4},
    {"or1", "0A 67 A5", 0, 0, 0, 0xEF, 0, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, FC, 0x0203, 0, 0, 5},
    {"or1 not", "2A 67 A5", 0, 0, 0, 0xEF, 0, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0, 0, 5},
    {"eor1", "8A 67 A5", 0, 0, 0, 0xEF, FC, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0, 0, 5},
    {"not1", "EA 67 A5", 0, 0, 0, 0xEF, 0, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, 0, 0x0203, 0x0567, 0x00, 5},
    {"mov1 c,m.b", "AA 67 A5", 0, 0, 0, 0xEF, 0, 0x0567, 0x20, 0, 0, 0, 0, 0, 0xEF, FC, 0x0203, 0, 0, 4},
    {"mov1 m.b,c", "CA 67 A5", 0, 0, 0, 0xEF, FC, 0x0567, 0x00, 0, 0, 0, 0, 0, 0xEF, FC, 0x0203, 0x0567, 0x20, 6},
    /* flag instructions (CLRV clears H too) */
    {"clrc", "60", 0, 0, 0, 0xEF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0xFE, 0x0201, 0, 0, 2},
    {"setc", "80", 0, 0, 0, 0xEF, 0x00, 0, 0, 0, 0, 0, 0, 0, 0xEF, FC, 0x0201, 0, 0, 2},
    {"notc", "ED", 0, 0, 0, 0xEF, FC, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0, 0x0201, 0, 0, 3},
    {"clrv", "E0", 0, 0, 0, 0xEF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0xB7, 0x0201, 0, 0, 2},
    {"setp", "40", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xEF, FP, 0x0201, 0, 0, 2},
    {"clrp", "20", 0, 0, 0, 0xEF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0xDF, 0x0201, 0, 0, 2},
    {"ei", "A0", 0, 0, 0, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0, 0xEF, FI, 0x0201, 0, 0, 3},
    {"di", "C0", 0, 0, 0, 0xEF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0xEF, 0xFB, 0x0201, 0, 0, 3},
    {"nop", "00", 1, 2, 3, 0xEF, 0x55, 0, 0, 0, 0, 1, 2, 3, 0xEF, 0x55, 0x0201, 0, 0, 2},
};

static void test_hand_cases(void)
{
    snes_spc *s = new_flat();
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < ncases; i++) {
        const hcase *h = &cases[i];
        for (int path = 0; path < 2; path++) {
            memset(s->ram, 0, sizeof s->ram);
            uint8_t b[4];
            load_code(s, 0x0200, b, (size_t)hex_bytes(h->code, b));
            if (h->m1)
                s->ram[h->m1] = h->v1;
            if (h->m2)
                s->ram[h->m2] = h->v2;
            s->pc = 0x0200, s->cycles = 0, s->halted = 0;
            s->a = h->a, s->x = h->x, s->y = h->y, s->sp = h->sp, s->psw = h->psw;
            s->env.reference = path;
            snes_spc_step(s);
            int ok = s->a == h->ea && s->x == h->ex && s->y == h->ey && s->sp == h->esp && s->psw == h->epsw &&
                     s->pc == h->epc && (int)s->cycles == h->cycles && (!h->em || s->ram[h->em] == h->ev);
            if (path == 1 || !ok) {
                char name[96];
                snprintf(name, sizeof name, "spc700 %s", h->name);
                t_check(ok, name, "%s [%s path]: A=%02X X=%02X Y=%02X SP=%02X PSW=%02X PC=%04X %llu cycles%s%s "
                        "(want A=%02X X=%02X Y=%02X SP=%02X PSW=%02X PC=%04X %d cycles)", h->code,
                        path ? "both" : "fast", s->a, s->x, s->y, s->sp, s->psw, s->pc, (unsigned long long)s->cycles,
                        h->em ? ", mem ok: " : "", h->em ? (s->ram[h->em] == h->ev ? "yes" : "NO") : "",
                        h->ea, h->ex, h->ey, h->esp, h->epsw, h->epc, h->cycles);
                if (!ok)
                    break;
            }
        }
    }
    s->env.reference = 0;
    free(s);
}

/* ---- bus cycle sequences -------------------------------------------------------------------
 * The documented order of every cycle of representative opcodes (code at $0200, flat mode):
 * R addr, W addr=value, I (idle). */
typedef struct {
    const char *name, *code;
    uint8_t a, x, y, sp, psw;
    uint16_t m1; uint8_t v1;
    const char *bus; /* "R0200 R0201 I W0012=56 ..." */
} bcase;

static const bcase bus_cases[] = {
    /* MOV d,#i reads the destination before writing it */
    {"mov d,#i", "8F 56 12", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 R0202 R0012 W0012=56"},
    /* MOV dd,ds does not read its destination */
    {"mov dd,ds", "FA 12 34", 0, 0, 0, 0xEF, 0, 0x12, 0x77, "R0200 R0201 R0012 R0202 W0034=77"},
    {"mov !a+x,a", "D5 00 30", 0x42, 0x05, 0, 0xEF, 0, 0, 0, "R0200 R0201 R0202 I R3005 W3005=42"},
    /* one-byte opcodes read the next byte (PC not advanced) */
    {"nop", "00", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201"},
    {"mov (x)+,a", "AF", 0x99, 0x40, 0, 0xEF, 0, 0, 0, "R0200 R0201 I W0040=99"},
    {"mov a,(x)+", "BF", 0, 0x40, 0, 0xEF, 0, 0, 0, "R0200 R0201 R0040 I"},
    /* [d]+Y: the idle cycle comes before the pointer on a read, after it on a store */
    {"mov a,[d]+y", "F7 10", 0, 0, 0x01, 0xEF, 0, 0x10, 0x00, "R0200 R0201 I R0010 R0011 R0001"},
    {"mov [d]+y,a", "D7 10", 0x11, 0, 0x01, 0xEF, 0, 0x10, 0x00, "R0200 R0201 R0010 R0011 I R0001 W0001=11"},
    {"adc dd,ds", "89 12 34", 0, 0, 0, 0xEF, 0, 0x12, 0x01, "R0200 R0201 R0012 R0202 R0034 W0034=01"},
    {"cmp dd,ds", "69 12 34", 0, 0, 0, 0xEF, 0, 0x12, 0x01, "R0200 R0201 R0012 R0202 R0034 I"},
    {"movw d,ya", "DA 12", 0x34, 0, 0x12, 0xEF, 0, 0, 0, "R0200 R0201 R0012 W0012=34 W0013=12"},
    {"incw", "3A FF", 0, 0, 0, 0xEF, 0, 0xFF, 0xFF, "R0200 R0201 R00FF W00FF=00 R0000 W0000=01"},
    {"tset1", "0E 34 12", 0x01, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 R0202 R1234 R1234 W1234=01"},
    {"mov1 m.b,c", "CA 34 12", 0, 0, 0, 0xEF, FC, 0, 0, "R0200 R0201 R0202 R1234 I W1234=01"},
    {"bbs taken", "03 12 10", 0, 0, 0, 0xEF, 0, 0x12, 0x01, "R0200 R0201 R0012 I R0202 I I"},
    {"cbne d+x", "DE 10 10", 0, 0x02, 0, 0xEF, 0, 0x12, 0x01, "R0200 R0201 I R0012 I R0202 I I"},
    {"dbnz d", "6E 12 10", 0, 0, 0, 0xEF, 0, 0x12, 0x05, "R0200 R0201 R0012 W0012=04 R0202 I I"},
    {"call", "3F 00 30", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 R0202 I W01EF=02 W01EE=03 I I"},
    {"tcall 0", "01", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 I W01EF=02 W01EE=01 I RFFDE RFFDF"},
    {"pcall", "4F 80", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 I W01EF=02 W01EE=02 I"},
    {"brk", "0F", 0, 0, 0, 0xEF, 0x03, 0, 0, "R0200 R0201 W01EF=02 W01EE=01 W01ED=03 I RFFDE RFFDF"},
    {"ret", "6F", 0, 0, 0, 0xED, 0, 0, 0, "R0200 R0201 I R01EE R01EF"},
    {"reti", "7F", 0, 0, 0, 0xEC, 0, 0, 0, "R0200 R0201 I R01ED R01EE R01EF"},
    {"push a", "2D", 0x5A, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 W01EF=5A I"},
    {"pop a", "AE", 0, 0, 0, 0xEE, 0, 0, 0, "R0200 R0201 I R01EF"},
    {"mul", "CF", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 I I I I I I I"},
    {"div", "9E", 0, 1, 0, 0xEF, 0, 0, 0, "R0200 R0201 I I I I I I I I I I"},
    {"daa", "DF", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 I"},
    {"xcn", "9F", 0, 0, 0, 0xEF, 0, 0, 0, "R0200 R0201 I I I"},
    {"jmp [!a+x]", "1F 00 30", 0, 0x04, 0, 0xEF, 0, 0, 0, "R0200 R0201 R0202 I R3004 R3005"},
};

/* Compares the log with a "R0200 W0012=56 I" list; describes the first difference in why. */
static int bus_matches(const snes_spc *s, const char *want, char *why, size_t wn)
{
    size_t i = 0;
    const char *p = want;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char kind = *p++;
        unsigned addr = 0, val = 0;
        int has_val = 0;
        if (kind != 'I') {
            addr = (unsigned)strtoul(p, (char **)&p, 16);
            if (*p == '=') {
                val = (unsigned)strtoul(p + 1, (char **)&p, 16);
                has_val = 1;
            }
        }
        if (i >= s->env.log_n) {
            snprintf(why, wn, "log ends after %zu cycles", i);
            return 0;
        }
        const snes_spc_bus *b = &s->env.log[i];
        int k = kind == 'R' ? SNES_SPC_BUS_READ : kind == 'W' ? SNES_SPC_BUS_WRITE : SNES_SPC_BUS_IDLE;
        if (b->kind != k || (kind != 'I' && b->addr != addr) || (has_val && b->val != val)) {
            snprintf(why, wn, "cycle %zu: kind %d $%04X=$%02X, want %c$%04X", i, b->kind, b->addr, b->val, kind, addr);
            return 0;
        }
        i++;
    }
    if (i != s->env.log_n) {
        snprintf(why, wn, "%zu cycles logged, %zu expected", s->env.log_n, i);
        return 0;
    }
    snprintf(why, wn, "%zu cycles as documented", i);
    return 1;
}

static void test_bus_sequences(void)
{
    snes_spc *s = new_flat();
    snes_spc_bus log[32];
    for (size_t i = 0; i < sizeof bus_cases / sizeof bus_cases[0]; i++) {
        const bcase *c = &bus_cases[i];
        memset(s->ram, 0, sizeof s->ram);
        uint8_t b[4];
        load_code(s, 0x0200, b, (size_t)hex_bytes(c->code, b));
        if (c->m1 || c->v1)
            s->ram[c->m1] = c->v1;
        s->pc = 0x0200, s->cycles = 0, s->halted = 0;
        s->a = c->a, s->x = c->x, s->y = c->y, s->sp = c->sp, s->psw = c->psw;
        s->env.log = log, s->env.log_cap = 32, s->env.log_n = 0;
        snes_spc_step(s);
        char why[160], name[80];
        snprintf(name, sizeof name, "spc700 bus %s", c->name);
        t_check(bus_matches(s, c->bus, why, sizeof why), name, "%s: %s", c->code, why);
    }
    /* SLEEP: the fetch, then halted steps of (read PC, idle) for as long as it runs */
    memset(s->ram, 0, sizeof s->ram);
    s->ram[0x0200] = 0xEF;
    s->pc = 0x0200, s->cycles = 0, s->halted = 0;
    s->env.log = log, s->env.log_cap = 32, s->env.log_n = 0;
    snes_spc_run(s, 7);
    char why[160];
    int ok = bus_matches(s, "R0200 R0201 I R0201 I R0201 I", why, sizeof why) && s->halted && s->pc == 0x0201;
    snes_spc_run(s, 1000);
    ok &= s->pc == 0x0201 && s->cycles == 1001;
    t_check(ok, "spc700 bus sleep", "SLEEP halts: %s; after 1000 cycles PC still $%04X, clock %llu (runs in 2-cycle steps)",
            why, s->pc, (unsigned long long)s->cycles);
    s->env.log = NULL, s->env.log_cap = 0;
    free(s);
}

/* ---- timers -------------------------------------------------------------------------------- */

static uint8_t rd_at(snes_spc *s, uint16_t a, uint64_t t) { return snes_spc_bus_read(s, a, t); }
static void wr_at(snes_spc *s, uint16_t a, uint8_t v, uint64_t t) { snes_spc_bus_write(s, a, v, t, 0); }

static void test_timers(void)
{
    snes_spc *s = new_io();
    /* power-on: TnOUT = $F */
    uint8_t p0 = rd_at(s, 0xFD, 0), p1 = rd_at(s, 0xFE, 0), p2 = rd_at(s, 0xFF, 0), again = rd_at(s, 0xFF, 1);
    t_check(p0 == 15 && p1 == 15 && p2 == 15 && again == 0, "spc700 timer power-on",
            "T0OUT %d T1OUT %d T2OUT %d at power-on (want 15), T2OUT %d after a read (want 0)", p0, p1, p2, again);

    /* T2, target 4, enabled at cycle 0: stage 1 ticks at 16, 32, 48, 64 -> first output at 64 */
    snes_spc_power(s);
    wr_at(s, 0xFC, 4, 0);
    wr_at(s, 0xF1, 0x04, 0);
    uint8_t a63 = rd_at(s, 0xFF, 63), a64 = rd_at(s, 0xFF, 64), a65 = rd_at(s, 0xFF, 65);
    uint8_t a127 = rd_at(s, 0xFF, 127), a128 = rd_at(s, 0xFF, 128);
    uint8_t a320 = rd_at(s, 0xFF, 320); /* outputs at 192, 256, 320 */
    t_check(a63 == 0 && a64 == 1 && a65 == 0 && a127 == 0 && a128 == 1 && a320 == 3, "spc700 timer T2 exact cycles",
            "target 4 from cycle 0: read at 63/64/65 = %d/%d/%d (want 0/1/0: cleared by the read), "
            "127/128 = %d/%d (want 0/1), 320 = %d (want 3)", a63, a64, a65, a127, a128, a320);

    /* T0, target 0 (= 256): 256 ticks of 128 cycles */
    snes_spc_power(s);
    wr_at(s, 0xFA, 0, 0);
    wr_at(s, 0xF1, 0x01, 0);
    uint8_t b0 = rd_at(s, 0xFD, 32767), b1 = rd_at(s, 0xFD, 32768), b2 = rd_at(s, 0xFD, 32768 * 3);
    t_check(b0 == 0 && b1 == 1 && b2 == 2, "spc700 timer T0 target 256",
            "read at 32767 = %d, 32768 = %d (want 0, 1), at 98304 = %d (want 2)", b0, b1, b2);

    /* T1, target 1: one output per 128 cycles; the 4-bit counter wraps: 17 -> 1 */
    snes_spc_power(s);
    wr_at(s, 0xFB, 1, 0);
    wr_at(s, 0xF1, 0x02, 0);
    uint8_t c17 = rd_at(s, 0xFE, 17 * 128);
    t_check(c17 == 1, "spc700 timer 4-bit wrap", "17 outputs read as %d (want 17 & 15 = 1)", c17);

    /* stage 1 is not reset by enabling: enabled at 10, T2's next stage-1 tick is still at 16 */
    snes_spc_power(s);
    wr_at(s, 0xFC, 1, 0);
    wr_at(s, 0xF1, 0x04, 10);
    uint8_t d15 = rd_at(s, 0xFF, 15), d16 = rd_at(s, 0xFF, 16);
    t_check(d15 == 0 && d16 == 1, "spc700 timer stage 1 free-running", "enabled at cycle 10: read at 15 = %d, 16 = %d "
            "(want 0, 1)", d15, d16);

    /* disabling stops counting and keeps TnOUT; enabling again (0 -> 1) clears stages 2 and 3;
     * writing 1 to an enabled timer's bit changes nothing */
    snes_spc_power(s);
    wr_at(s, 0xFC, 1, 0);
    wr_at(s, 0xF1, 0x04, 0);
    wr_at(s, 0xF1, 0x00, 40);                 /* outputs at 16 and 32 */
    uint8_t e_off = rd_at(s, 0xFF, 200);
    wr_at(s, 0xFC, 3, 200);
    wr_at(s, 0xF1, 0x04, 200);                /* 0 -> 1: stage 2 = 0 */
    wr_at(s, 0xF1, 0x04, 230);                /* 1 -> 1: no reset (ticks at 208, 224 counted) */
    uint8_t e_on = rd_at(s, 0xFF, 240);       /* third tick at 240: one output */
    t_check(e_off == 2 && e_on == 1, "spc700 timer enable/disable", "disabled at 40 after 2 outputs: %d at cycle 200 "
            "(want 2); re-enabled at 200 with target 3, rewritten at 230: %d at 240 (want 1)", e_off, e_on);

    /* a target set below the running counter makes it wrap through 256 */
    snes_spc_power(s);
    wr_at(s, 0xFC, 10, 0);
    wr_at(s, 0xF1, 0x04, 0);                  /* stage 2 = 5 after the tick at 80 */
    wr_at(s, 0xFC, 3, 90);
    uint8_t w1 = rd_at(s, 0xFF, 16 * (5 + 253) - 1), w2 = rd_at(s, 0xFF, 16 * (5 + 254));
    t_check(w1 == 0 && w2 == 1, "spc700 timer target below counter", "counter 5, target set to 3: no output until "
            "the counter wraps (%d one tick early, %d after 254 more ticks; want 0, 1)", w1, w2);

    /* TEST: the timers count only with bit 3 set and bit 0 clear; writes are ignored while P is set */
    snes_spc_power(s);
    wr_at(s, 0xFC, 1, 0);
    wr_at(s, 0xF1, 0x04, 0);
    wr_at(s, 0xF0, 0x02, 8);                  /* T = 0: stopped */
    uint8_t f_stop = rd_at(s, 0xFF, 100);
    snes_spc_bus_write(s, 0xF0, 0x0A, 100, FP); /* ignored: P set */
    uint8_t f_still = rd_at(s, 0xFF, 200);
    wr_at(s, 0xF0, 0x0A, 200);
    uint8_t f_run = rd_at(s, 0xFF, 240);      /* ticks at 208, 224, 240 */
    t_check(f_stop == 0 && f_still == 0 && f_run == 3, "spc700 timer TEST register",
            "TEST=$02: %d outputs (want 0); TEST=$0A with P set: %d (want 0); TEST=$0A: %d by 240 (want 3)",
            f_stop, f_still, f_run);

    /* the CPU's own accesses, at their cycles: mov $FC,#1 (write in cycle 4), mov $F1,#4 (write
     * in cycle 9), four NOPs (10-17), mov a,$FF (read in cycle 20: the tick at 16 counted),
     * mov x,$FF (read in cycle 23: cleared), mov $FF,a (its read of $FF in cycle 26, its write
     * in 27 reaches only RAM), mov y,$FF (read in cycle 30: the next tick is at 32): 31 cycles. */
    snes_spc_power(s);
    static const uint8_t prog[] = {0x8F, 0x01, 0xFC, 0x8F, 0x04, 0xF1, 0x00, 0x00, 0x00, 0x00,
                                   0xE4, 0xFF, 0xF8, 0xFF, 0xC4, 0xFF, 0xEB, 0xFF};
    snes_spc_bus_write(s, 0xF1, 0x00, 0, 0);
    load_code(s, 0x0200, prog, sizeof prog);
    s->pc = 0x0200;
    s->cycles = 0;
    s->a = 0x77;
    for (int i = 0; i < 10; i++)
        snes_spc_step(s);
    t_check(s->a == 1 && s->x == 0 && s->y == 0 && s->cycles == 31 && s->ram[0xFF] == 1, "spc700 timer from code",
            "A=%d X=%d Y=%d after %llu cycles (want 1, 0, 0 after 31), RAM under $FF = %d (want 1: writes reach RAM)",
            s->a, s->x, s->y, (unsigned long long)s->cycles, s->ram[0xFF]);

    /* the dummy read of MOV d,A clears the counter (the write itself does nothing) */
    snes_spc_power(s);
    static const uint8_t prog2[] = {0xC4, 0xFF, 0xE4, 0xFF};   /* mov $FF,a ; mov a,$FF */
    load_code(s, 0x0200, prog2, sizeof prog2);
    snes_spc_bus_write(s, 0xF1, 0x00, 0, 0);
    s->pc = 0x0200;
    snes_spc_step(s);
    snes_spc_step(s);
    t_check(s->a == 0, "spc700 timer cleared by a store's read", "power-on T2OUT is 15; after mov $FF,a then "
            "mov a,$FF: A = %d (want 0)", s->a);
    free(s);
}

/* TEST, by hand (fullsnes "SPC700 I/O Ports"): bits 4-5 add 0/1/4/9 wait cycles to RAM
 * accesses, bits 6-7 to I/O and ROM accesses; internal cycles wait as RAM or I/O ones by the
 * document's per-opcode table (NOP: its one internal cycle on RAM timing; BRA: both idle
 * cycles on I/O timing). And a TEST pause holds the timers' clock: the ticks come later. */
static void test_test_reg(void)
{
    snes_spc *s = new_io();
    /* nop; mov a,$F4; bra +0 at $0200, run with TEST = $1A (RAM +1) and $4A (I/O +1) */
    static const uint8_t prog[] = {0x00, 0xE4, 0xF4, 0x2F, 0x00};
    int cyc[2][3];
    static const uint8_t tv[2] = {0x1A, 0x4A};
    for (int k = 0; k < 2; k++) {
        snes_spc_power(s);
        snes_spc_bus_write(s, 0xF1, 0x00, 0, 0);
        snes_spc_bus_write(s, 0xF0, tv[k], 0, 0);
        load_code(s, 0x0200, prog, sizeof prog);
        s->pc = 0x0200;
        for (int i = 0; i < 3; i++)
            cyc[k][i] = snes_spc_step(s);
    }
    /* $1A: nop F D = 2+2, mov a,$F4 F F R = 2+2+1, bra F F I I = 2+2+1+1;
     * $4A: nop 1+1, mov 1+1+2, bra 1+1+2+2 */
    t_check(cyc[0][0] == 4 && cyc[0][1] == 5 && cyc[0][2] == 6 && cyc[1][0] == 2 && cyc[1][1] == 4 && cyc[1][2] == 6,
            "spc700 TEST wait cycles", "TEST $1A: nop %d, mov a,$F4 %d, bra %d cycles (want 4 5 6); TEST $4A: %d %d %d "
            "(want 2 4 6)", cyc[0][0], cyc[0][1], cyc[0][2], cyc[1][0], cyc[1][1], cyc[1][2]);

    /* T2 target 1 from cycle 0 (ticks at 16, 32, ...); TEST $0B (bit 0: held) from 8 to 100:
     * the clock lost 92 cycles, so the next ticks are at 108, 124 (not 112, 128) */
    snes_spc_power(s);
    wr_at(s, 0xFC, 1, 0);
    wr_at(s, 0xF1, 0x04, 0);
    wr_at(s, 0xF0, 0x0B, 8);
    wr_at(s, 0xF0, 0x0A, 100);
    uint8_t h107 = rd_at(s, 0xFF, 107), h108 = rd_at(s, 0xFF, 108), h124 = rd_at(s, 0xFF, 124);
    t_check(h107 == 0 && h108 == 1 && h124 == 1, "spc700 TEST pause holds the timer clock",
            "held 8-100: T2OUT at 107 %d, 108 %d, 124 %d (want 0 1 1: ticks at 108 and 124)", h107, h108, h124);
    free(s);
}

/* ---- ports and registers ------------------------------------------------------------------- */

static uint8_t dsp_log_reg, dsp_log_val;
static uint64_t dsp_log_cycle;
static int dsp_log_n;
static void dsp_w(void *ctx, uint8_t reg, uint8_t v, uint64_t cycle)
{
    (void)ctx;
    dsp_log_reg = reg, dsp_log_val = v, dsp_log_cycle = cycle, dsp_log_n++;
}
static uint8_t dsp_r(void *ctx, uint8_t reg, uint64_t cycle)
{
    (void)ctx, (void)cycle;
    return (uint8_t)(reg ^ 0xA5);
}

static void test_ports(void)
{
    snes_spc *s = new_io();
    /* SPC -> main CPU: mov $F5,#$42 writes in cycle 4; seen at times > 4 */
    static const uint8_t w[] = {0x8F, 0x42, 0xF5};
    load_code(s, 0x0200, w, sizeof w);
    snes_spc_step(s);
    uint8_t now = snes_spc_port_read(s, 1), at4 = snes_spc_port_read_at(s, 1, 4), at5 = snes_spc_port_read_at(s, 1, 5);
    t_check(now == 0x42 && at4 == 0x00 && at5 == 0x42 && s->ram[0xF5] == 0x42, "spc700 port SPC to CPU",
            "port 1 = $%02X (want $42); at cycle 4 the main CPU sees $%02X (want the old $00), at 5 $%02X; RAM under "
            "$F5 = $%02X", now, at4, at5, s->ram[0xF5]);

    /* main CPU -> SPC; the SPC's own writes do not change what it reads */
    snes_spc_power(s);
    snes_spc_bus_write(s, 0xF1, 0x00, 0, 0);
    static const uint8_t r[] = {0xC4, 0xF6, 0xE4, 0xF6}; /* mov $F6,a ; mov a,$F6 */
    load_code(s, 0x0200, r, sizeof r);
    s->pc = 0x0200;
    s->a = 0x11;
    snes_spc_port_write(s, 2, 0x99);
    snes_spc_step(s);
    snes_spc_step(s);
    t_check(s->a == 0x99 && snes_spc_port_read(s, 2) == 0x11, "spc700 port CPU to SPC",
            "SPC reads $%02X from port 2 (want $99 from the main CPU); main CPU reads $%02X (want $11 the SPC wrote)",
            s->a, snes_spc_port_read(s, 2));

    /* a write timed in the future: mov a,$F4 reads in cycle 2 (old), four NOPs, mov x,$F4 in cycle 13 */
    snes_spc_power(s);
    snes_spc_bus_write(s, 0xF1, 0x00, 0, 0);
    static const uint8_t f[] = {0xE4, 0xF4, 0x00, 0x00, 0x00, 0x00, 0xF8, 0xF4};
    load_code(s, 0x0200, f, sizeof f);
    s->pc = 0x0200;
    snes_spc_port_write_at(s, 0, 0x5E, 12);
    snes_spc_run(s, 14);
    t_check(s->a == 0x00 && s->x == 0x5E, "spc700 port timed write", "write at cycle 12: read in cycle 2 gives $%02X "
            "(want $00), in cycle 13 $%02X (want $5E)", s->a, s->x);

    /* CONTROL bit 4 clears input ports 0/1, bit 5 ports 2/3, each time a 1 is written */
    for (int p = 0; p < 4; p++)
        snes_spc_port_write(s, p, (uint8_t)(0x10 + p));
    snes_spc_bus_write(s, 0xF1, 0x10, s->cycles, 0);
    uint8_t g0 = snes_spc_bus_read(s, 0xF4, s->cycles), g1 = snes_spc_bus_read(s, 0xF5, s->cycles);
    uint8_t g2 = snes_spc_bus_read(s, 0xF6, s->cycles), g3 = snes_spc_bus_read(s, 0xF7, s->cycles);
    snes_spc_port_write(s, 0, 0x44);
    snes_spc_bus_write(s, 0xF1, 0x30, s->cycles, 0);
    uint8_t h0 = snes_spc_bus_read(s, 0xF4, s->cycles), h2 = snes_spc_bus_read(s, 0xF6, s->cycles);
    t_check(g0 == 0 && g1 == 0 && g2 == 0x12 && g3 == 0x13 && h0 == 0 && h2 == 0, "spc700 CONTROL port clears",
            "CONTROL=$10: ports read %02X %02X %02X %02X (want 00 00 12 13); CONTROL=$30 again: %02X %02X (want 00 00)",
            g0, g1, g2, g3, h0, h2);

    /* a main-CPU write queued for cycle T, then a CONTROL clear at T + 5: the clear wins */
    uint64_t t = s->cycles;
    snes_spc_port_write_at(s, 1, 0x66, t + 10);
    snes_spc_bus_write(s, 0xF1, 0x10, t + 15, 0);
    uint8_t q1 = snes_spc_bus_read(s, 0xF5, t + 20);
    snes_spc_port_write_at(s, 1, 0x67, t + 30);
    snes_spc_bus_write(s, 0xF1, 0x10, t + 25, 0);
    uint8_t q2 = snes_spc_bus_read(s, 0xF5, t + 35);
    t_check(q1 == 0 && q2 == 0x67, "spc700 CONTROL clear and queued writes", "write due at +10, clear at +15: "
            "reads $%02X (want $00); write due at +30 after a clear at +25: $%02X (want $67)", q1, q2);

    /* write-only registers read 0; $F8/$F9 hold what is written; DSPADDR/DSPDATA */
    snes_spc_bus_write(s, 0xFA, 0x33, 0, 0);
    snes_spc_bus_write(s, 0xF8, 0x5A, 0, 0);
    snes_spc_bus_write(s, 0xF9, 0xA5, 0, 0);
    uint8_t z0 = snes_spc_bus_read(s, 0xF0, 0), z1 = snes_spc_bus_read(s, 0xF1, 0), za = snes_spc_bus_read(s, 0xFA, 0);
    uint8_t r8 = snes_spc_bus_read(s, 0xF8, 0), r9 = snes_spc_bus_read(s, 0xF9, 0);
    t_check(z0 == 0 && z1 == 0 && za == 0 && r8 == 0x5A && r9 == 0xA5, "spc700 registers F0 F1 FA F8 F9",
            "TEST/CONTROL/T0TARGET read %d %d %d (want 0), $F8/$F9 %02X %02X (want 5A A5)", z0, z1, za, r8, r9);
    snes_spc_bus_write(s, 0xF2, 0x05, 0, 0);
    snes_spc_bus_write(s, 0xF3, 0x77, 0, 0);
    snes_spc_bus_write(s, 0xF2, 0x85, 0, 0);
    uint8_t mirror = snes_spc_bus_read(s, 0xF3, 0);
    snes_spc_bus_write(s, 0xF3, 0x11, 0, 0);   /* DSPADDR >= $80: ignored */
    uint8_t addr = snes_spc_bus_read(s, 0xF2, 0);
    t_check(s->dsp[5] == 0x77 && mirror == 0x77 && addr == 0x85, "spc700 DSP register file",
            "reg $05 = $%02X (want $77); read through DSPADDR $85 = $%02X (want $77, address & $7F); write with "
            "DSPADDR $85 ignored; DSPADDR reads $%02X", s->dsp[5], mirror, addr);
    s->env.dsp.read = dsp_r;
    s->env.dsp.write = dsp_w;
    static const uint8_t d[] = {0x8F, 0x2C, 0xF2, 0x8F, 0x7F, 0xF3, 0xE4, 0xF3}; /* mov $F2,#$2C; mov $F3,#$7F; mov a,$F3 */
    load_code(s, 0x0300, d, sizeof d);
    s->pc = 0x0300;
    uint64_t t0 = s->cycles;
    snes_spc_run(s, t0 + 13);
    t_check(dsp_log_n == 1 && dsp_log_reg == 0x2C && dsp_log_val == 0x7F && dsp_log_cycle == t0 + 9 &&
                s->a == (0x2C ^ 0xA5), "spc700 DSP hook", "hook got %d write(s): reg $%02X = $%02X at cycle +%llu "
            "(want one, $2C = $7F at +9); read gave $%02X (want $%02X)", dsp_log_n, dsp_log_reg, dsp_log_val,
            (unsigned long long)(dsp_log_cycle - t0), s->a, 0x2C ^ 0xA5);
    s->env.dsp.read = NULL, s->env.dsp.write = NULL;

    /* registers are an overlay: writes reach the RAM below, reads see the register; TEST bit 1
     * clear stops RAM writes outside the registers */
    snes_spc_port_write(s, 3, 0xC3);
    snes_spc_bus_write(s, 0xF7, 0x3C, s->cycles, 0);
    uint8_t ov = snes_spc_bus_read(s, 0xF7, s->cycles);
    snes_spc_bus_write(s, 0xF0, 0x08, s->cycles, 0);
    snes_spc_bus_write(s, 0x0400, 0x12, s->cycles, 0);
    snes_spc_bus_write(s, 0xF0, 0x0A, s->cycles, 0);
    t_check(s->ram[0xF7] == 0x3C && ov == 0xC3 && s->ram[0x0400] == 0x00, "spc700 register overlay and TEST bit 1",
            "RAM under $F7 = $%02X (want $3C), $F7 reads $%02X (want $C3); RAM write with TEST bit 1 clear: $%02X "
            "(want $00)", s->ram[0xF7], ov, s->ram[0x0400]);
    free(s);
}

/* ---- the IPL ------------------------------------------------------------------------------- */

/* Runs the SPC in 8-cycle slices until `port` reads v; returns 0 on time-out. */
static int wait_port(snes_spc *s, int port, uint8_t v)
{
    for (int i = 0; i < 200000; i++) {
        if (snes_spc_port_read(s, port) == v)
            return 1;
        snes_spc_run(s, s->cycles + 8);
    }
    return 0;
}

/* The main CPU's side of the documented protocol: one block of n bytes to `addr`, started
 * with `kick` in port 0 (the first time $CC). Returns the index to use after it, or -1. */
static int upload_block(snes_spc *s, uint16_t addr, const uint8_t *data, int n, uint8_t kick)
{
    snes_spc_port_write(s, 2, (uint8_t)addr);
    snes_spc_port_write(s, 3, (uint8_t)(addr >> 8));
    snes_spc_port_write(s, 1, 1);
    snes_spc_port_write(s, 0, kick);
    if (!wait_port(s, 0, kick))
        return -1;
    for (int i = 0; i < n; i++) {
        snes_spc_port_write(s, 1, data[i]);
        snes_spc_port_write(s, 0, (uint8_t)i);
        if (!wait_port(s, 0, (uint8_t)i))
            return -1;
    }
    return n;
}

static void test_ipl(void)
{
    snes_spc *s = malloc(sizeof *s);
    snes_spc_power(s);
    for (int i = 0; i < 0x10000; i++) /* garbage everywhere, to see what the IPL clears */
        s->ram[i] = (uint8_t)(i * 7 + 3);
    s->ram[0xFFC0] = 0x77;
    snes_spc_reset(s);
    t_check(s->pc == 0xFFC0 && snes_spc_peek(s, 0xFFFE) == 0xC0 && snes_spc_peek(s, 0xFFFF) == 0xFF,
            "spc700 IPL reset vector", "after reset PC = $%04X (want $FFC0 from the vector at $FFFE)", s->pc);
    int ready = wait_port(s, 0, 0xAA) && snes_spc_port_read(s, 1) == 0xBB;
    uint64_t t_ready = s->cycles;
    int zp = 1;
    for (int i = 0x02; i < 0xF0; i++)
        zp &= s->ram[i] == 0;
    t_check(ready && zp && s->sp == 0xEF, "spc700 IPL ready", "ports 0/1 = $%02X/$%02X after %llu cycles (want $AA/$BB), "
            "$0002-$00EF %s, SP = $%02X (want $EF)", snes_spc_port_read(s, 0), snes_spc_port_read(s, 1),
            (unsigned long long)t_ready, zp ? "cleared" : "NOT cleared", s->sp);

    /* block 1: a program at $0300; block 2: 300 bytes at $05F0 (the index wraps at 256, the
     * destination crosses pages); then a jump to $0300. The program: report its entry
     * registers in ports, unmap the IPL, read $FFC0 (RAM now), sum block 2, report, loop:
     *   0300 mov $F4,a ; mov $F5,x ; mov $F6,y  (C4 F4 D8 F5 CB F6)
     *   0306 push psw ; pop a ; mov $F7,a        (0D AE C4 F7)    PSW on entry
     *   030A mov x,sp ; mov $10,x                (9D D8 10)       SP on entry (after push/pop)
     *   030D mov $F1,#$00                        (8F 00 F1)       unmap the IPL
     *   0310 mov a,!$FFC0 ; mov $11,a            (E5 C0 FF C4 11)
     *   0315 bra $0315                           (2F FE)
     * Block 2 is checked byte for byte in ARAM. */
    static const uint8_t prog[] = {0xC4, 0xF4, 0xD8, 0xF5, 0xCB, 0xF6, 0x0D, 0xAE, 0xC4, 0xF7, 0x9D, 0xD8,
                                   0x10, 0x8F, 0x00, 0xF1, 0xE5, 0xC0, 0xFF, 0xC4, 0x11, 0x2F, 0xFE};
    uint8_t data[300];
    for (int i = 0; i < 300; i++)
        data[i] = (uint8_t)(i ^ 0x5A);
    int idx = upload_block(s, 0x0300, prog, (int)sizeof prog, 0xCC);
    int idx2 = idx < 0 ? -1 : upload_block(s, 0x05F0, data, 300, (uint8_t)(idx + 2));
    int ok_up = idx2 == 300;
    int same = ok_up && !memcmp(s->ram + 0x0300, prog, sizeof prog) && !memcmp(s->ram + 0x05F0, data, 300);
    t_check(same, "spc700 IPL upload", "two blocks (%d bytes at $0300, 300 at $05F0 across the index wrap) %s",
            (int)sizeof prog, same ? "in ARAM byte for byte" : "NOT as sent");
    /* the jump: address $0300, mode 0, index + 2 (300 + 2 = 302 -> $2E) */
    uint8_t kick = (uint8_t)((idx2 + 2) & 0xFF);
    if (!kick)
        kick++;
    snes_spc_port_write(s, 2, 0x00);
    snes_spc_port_write(s, 3, 0x03);
    snes_spc_port_write(s, 1, 0);
    snes_spc_port_write(s, 0, kick);
    int echoed = wait_port(s, 0, kick);
    int entered = 0;
    for (int i = 0; i < 200 && !entered; i++) {
        snes_spc_step(s);
        entered = s->pc == 0x0300;
    }
    uint8_t ea = s->a, ex = s->x, ey = s->y, esp = s->sp, epsw = s->psw;
    snes_spc_run(s, s->cycles + 200);
    t_check(echoed && entered && ea == 0 && ex == 0 && ey == 0 && esp == 0xEF && epsw == 0x02, "spc700 IPL entry",
            "kick $%02X echoed: %s; at $0300 A=%02X X=%02X Y=%02X SP=%02X PSW=%02X (want 00 00 00 EF 02)", kick,
            echoed ? "yes" : "no", ea, ex, ey, esp, epsw);
    t_check(snes_spc_port_read(s, 0) == 0 && snes_spc_port_read(s, 1) == 0 && snes_spc_port_read(s, 2) == 0 &&
                snes_spc_port_read(s, 3) == 0x02 && s->ram[0x10] == 0xEF && s->ram[0x11] == 0x77,
            "spc700 IPL program ran", "the program reported A/X/Y/PSW %02X %02X %02X %02X in the ports, SP $%02X, "
            "$FFC0 after unmapping the IPL $%02X (want 00 00 00 02, EF, 77 from RAM)", snes_spc_port_read(s, 0),
            snes_spc_port_read(s, 1), snes_spc_port_read(s, 2), snes_spc_port_read(s, 3), s->ram[0x10], s->ram[0x11]);
    free(s);
}

/* ---- the assembler (needs ca65/ld65) --------------------------------------------------------- */

static int have_cc65(void)
{
    return system("command -v ca65 >/dev/null 2>&1 && command -v ld65 >/dev/null 2>&1") == 0;
}

/* Assembles src (text) at org with our macro pack; returns the bytes (malloc'd) or NULL. */
static uint8_t *assemble(const char *dir, const char *root, const char *name, const char *src, const char *org,
                         size_t *len)
{
    char path[1400], cmd[4400];
    snprintf(path, sizeof path, "%s/%s.s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "ca65 -I '%s/src/emu/snes' -o '%s/%s.o' '%s' 2>'%s/%s.err' && ld65 -t none -S '%s' "
             "-o '%s/%s.bin' '%s/%s.o' 2>>'%s/%s.err'", root, dir, name, path, dir, name, org, dir, name, dir, name,
             dir, name);
    if (system(cmd) != 0)
        return NULL;
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    uint8_t *d;
    gv_err e;
    if (gv_read_file(path, 0, &d, len, &e) != GV_OK)
        return NULL;
    return d;
}

static void test_assembler(const char *root, const char *tmp)
{
    if (!have_cc65()) {
        t_skip("spc700 assembler", "ca65/ld65 not installed (Debian package cc65)");
        t_skip("spc700 IPL source", "ca65/ld65 not installed (Debian package cc65)");
        return;
    }
    /* every opcode once */
    size_t cap = 64 * 1024, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src + n, cap - n, ".include \"spc700.inc\"\n");
    for (int op = 0; op < 256; op++) {
        char line[80], lab[16];
        snprintf(lab, sizeof lab, "t%02X", op);
        const char *at = strstr(ops[op].src, "@t");
        if (at)
            snprintf(line, sizeof line, "%.*s%s", (int)(at - ops[op].src), ops[op].src, lab);
        else
            snprintf(line, sizeof line, "%s", ops[op].src);
        n += (size_t)snprintf(src + n, cap - n, "        %s\n%s:\n", line, lab);
    }
    n += (size_t)snprintf(src + n, cap - n, "        spc700_end \"6502\"\n");
    size_t len;
    uint8_t *bin = assemble(tmp, root, "all_ops", src, "$0200", &len);
    free(src);
    if (!bin) {
        t_check(0, "spc700 assembler all opcodes", "ca65/ld65 failed on the 256-opcode file (see %s/all_ops.err)", tmp);
    } else {
        size_t pos = 0;
        int good = 0;
        char bad[160] = "";
        for (int op = 0; op < 256; op++) {
            uint8_t want[4];
            int nb = hex_bytes(ops[op].bytes, want);
            if (pos + (size_t)nb <= len && !memcmp(bin + pos, want, (size_t)nb))
                good++;
            else if (!bad[0])
                snprintf(bad, sizeof bad, "; first difference: '%s' (want %s)", ops[op].src, ops[op].bytes);
            pos += (size_t)nb;
        }
        t_check(good == 256 && pos == len, "spc700 assembler all opcodes", "%d/256 opcodes assemble to their "
                "documented bytes (%zu bytes, want %zu)%s", good, len, pos, bad);
        free(bin);
    }
    /* branch offsets both ways, cheap local labels, upper-case registers */
    static const char br[] = ".include \"spc700.inc\"\n"
                             "back:   nop\n"             /* $0200 */
                             "        bne back\n"        /* $0201: $0200 - $0203 = -3 */
                             "@l:     bbs $12.0, @f\n"   /* $0203: $0207 - $0206 = +1 */
                             "        mov A, X\n"        /* $0206: registers in either case */
                             "@f:     cbne $12+X, @l\n"  /* $0207: $0203 - $020A = -7 */
                             "        dbnz y, back\n"    /* $020A: $0200 - $020C = -12 */
                             "        spc700_end \"6502\"\n";
    static const uint8_t br_want[] = {0x00, 0xD0, 0xFD, 0x03, 0x12, 0x01, 0x7D, 0xDE, 0x12, 0xF9, 0xFE, 0xF4};
    bin = assemble(tmp, root, "branches", br, "$0200", &len);
    t_check(bin && len == sizeof br_want && !memcmp(bin, br_want, len), "spc700 assembler branches",
            "backward/forward offsets of bne, bbs, dbnz, cbne and a cheap local label: %s",
            bin && len == sizeof br_want && !memcmp(bin, br_want, len) ? "as worked out by hand" : "DIFFERENT");
    free(bin);
    /* bad input is refused */
    static const struct { const char *name, *line; } bad[] = {
        {"branch out of range", "x0: nop\n .res 200\n bne x0\n"},
        {"direct page > $FF", " mov a, $123\n"},
        {"unknown operands", " mov x, y\n"},
        {"bit number > 7", " set1 $12.8\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256], name[80];
        snprintf(text, sizeof text, ".include \"spc700.inc\"\n%s spc700_end \"6502\"\n", bad[i].line);
        bin = assemble(tmp, root, "bad", text, "$0200", &len);
        snprintf(name, sizeof name, "spc700 assembler refuses %s", bad[i].name);
        t_check(bin == NULL, name, "%s", bin ? "assembled anyway" : "ca65/ld65 report an error");
        free(bin);
    }
    /* our IPL: the bytes in snes_spc.c are what the source assembles to */
    char ipl_path[1400];
    snprintf(ipl_path, sizeof ipl_path, "%s/src/emu/snes/snes_ipl.s", root);
    uint8_t *ipl_src;
    size_t ipl_len;
    gv_err e;
    if (gv_read_file(ipl_path, 0, &ipl_src, &ipl_len, &e) != GV_OK) {
        t_check(0, "spc700 IPL source", "%s", e.msg);
        return;
    }
    bin = assemble(tmp, root, "ipl", (const char *)ipl_src, "$FFC0", &len);
    free(ipl_src);
    int same = bin && len == 64 && !memcmp(bin, snes_spc_ipl_rom, 64);
    int diff_at = -1;
    for (size_t i = 0; bin && i < len && i < 64 && diff_at < 0; i++)
        if (bin[i] != snes_spc_ipl_rom[i])
            diff_at = (int)i;
    t_check(same, "spc700 IPL source", "src/emu/snes/snes_ipl.s assembles to %zu bytes, %s snes_spc_ipl_rom "
            "(first difference at offset %d)", bin ? len : 0, same ? "equal to" : "NOT equal to", diff_at);
    free(bin);
}

/* ---- save states, both paths, speed ---------------------------------------------------------- */

/* A loop of typical sound-driver code (hand-assembled, at $0400), touching the timers, the
 * DSP pair, the ports and the usual addressing modes:
 *   0400 mov x,#0            CD 00
 *   0402 mov a,!$0600+x      F5 00 06    table read
 *   0405 clrc ; adc a,$20    60 84 20
 *   0408 mov $20,a           C4 20
 *   040A mov $F2,x ; mov $F3,a  D8 F2 C4 F3   DSP register write
 *   040E movw ya,$20 ; addw ya,$22 ; movw $22,ya   BA 20 7A 22 DA 22
 *   0414 mov a,[$24]+y       F7 24
 *   0416 mov (x),a ... no: mov $30+x,a   D4 30
 *   0418 call !$0440         3F 40 04
 *   041B inc x ; cmp x,#$20 ; bne $0402    3D C8 20 D0 E2
 *   0420 mov a,$FD ; mov $F4,a           E4 FD C4 F4
 *   0424 bra $0400           2F DA
 *   0440 push a ; asl a ; rol $26 ; pop a ; ret    2D 1C 2B 26 AE 6F */
static const uint8_t bench_code[] = {
    0xCD, 0x00, 0xF5, 0x00, 0x06, 0x60, 0x84, 0x20, 0xC4, 0x20, 0xD8, 0xF2, 0xC4, 0xF3,
    0xBA, 0x20, 0x7A, 0x22, 0xDA, 0x22, 0xF7, 0x24, 0xD4, 0x30, 0x3F, 0x40, 0x04,
    0x3D, 0xC8, 0x20, 0xD0, 0xE2, 0xE4, 0xFD, 0xC4, 0xF4, 0x2F, 0xDA,
};
static const uint8_t bench_sub[] = {0x2D, 0x1C, 0x2B, 0x26, 0xAE, 0x6F};

static void bench_setup(snes_spc *s)
{
    snes_spc_power(s);
    load_code(s, 0x0400, bench_code, sizeof bench_code);
    load_code(s, 0x0440, bench_sub, sizeof bench_sub);
    for (int i = 0; i < 256; i++)
        s->ram[0x0600 + i] = (uint8_t)(i * 37 + 11);
    s->ram[0x24] = 0x00, s->ram[0x25] = 0x06;
    snes_spc_bus_write(s, 0xFA, 0x10, 0, 0);
    snes_spc_bus_write(s, 0xF1, 0x01, 0, 0); /* T0 on, IPL unmapped */
    s->pc = 0x0400;
    s->sp = 0xEF;
}

static void test_paths_and_states(void)
{
    snes_spc *f = malloc(sizeof *f), *r = malloc(sizeof *r);
    bench_setup(f);
    bench_setup(r);
    r->env.reference = 1;
    snes_spc_port_write_at(f, 1, 0x42, 5000);
    snes_spc_port_write_at(r, 1, 0x42, 5000);
    snes_spc_run(f, 2000000);
    snes_spc_run(r, 2000000);
    int same = !memcmp(f, r, SNES_SPC_STATE_BYTES);
    t_check(same, "spc700 fast path = reference path", "2M cycles of a sound-driver-like loop (timers, DSP pair, "
            "ports, calls): whole machine state %s", same ? "identical" : "DIFFERENT");

    /* save, run, load, run again: identical */
    uint8_t *st = malloc(SNES_SPC_STATE_BYTES);
    snes_spc_state_save(f, st);
    snes_spc_run(f, 2500000);
    uint8_t *after = malloc(SNES_SPC_STATE_BYTES);
    snes_spc_state_save(f, after);
    gv_err e;
    gv_status ls = snes_spc_state_load(f, st, SNES_SPC_STATE_BYTES, &e);
    snes_spc_run(f, 2500000);
    int rt = ls == GV_OK && !memcmp(f, after, SNES_SPC_STATE_BYTES);
    t_check(rt, "spc700 state round trip", "save at 2M cycles, run to 2.5M, load, run again: %s",
            rt ? "identical" : "DIFFERENT");
    st[offsetof(snes_spc, ipl_base)] ^= 0x40; /* inconsistent with CONTROL */
    memcpy(after, f, SNES_SPC_STATE_BYTES);
    gv_status bad = snes_spc_state_load(f, st, SNES_SPC_STATE_BYTES, &e);
    gv_status shrt = snes_spc_state_load(f, st, 100, &e);
    t_check(bad == GV_ERR_INPUT && shrt == GV_ERR_INPUT && !memcmp(f, after, SNES_SPC_STATE_BYTES),
            "spc700 state bad input", "corrupt image and short image refused (GV_ERR_INPUT), machine untouched: %s", e.msg);
    free(st);
    free(after);

    /* speed of the fast path: information only, not a check */
    bench_setup(f);
    uint64_t n = getenv("GV_SPC_BENCH") ? 1000000000ull : 50000000ull;
    double t0 = gv_now();
    snes_spc_run(f, n);
    double dt = gv_now() - t0;
    printf("info spc700 speed: %.0f million SPC cycles/s on the fast path (%llu cycles of the sound-driver loop in "
           "%.3f s; a video frame needs ~17,000; set GV_SPC_BENCH=1 for a longer run)\n",
           (double)n / dt / 1e6, (unsigned long long)n, dt);
    bench_setup(r);
    r->env.reference = 1;
    t0 = gv_now();
    snes_spc_run(r, n / 10);
    dt = gv_now() - t0;
    printf("info spc700 speed: %.0f million SPC cycles/s on the reference path\n", (double)(n / 10) / dt / 1e6);
    free(f);
    free(r);
}

int main(void)
{
    const char *root = getenv("GV_ROOT");
    if (!root)
        root = ".";
    char tmp[] = "/tmp/gv_spc_XXXXXX";
    if (!mkdtemp(tmp)) {
        printf("FAIL spc700 setup: cannot make a temporary folder\n");
        return 1;
    }
    test_cycle_table();
    test_hand_cases();
    test_bus_sequences();
    test_timers();
    test_test_reg();
    test_ports();
    test_ipl();
    test_assembler(root, tmp);
    test_paths_and_states();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", tmp);
    return t_done();
}
