/* test_snes_cpu.c: unit tests of the 65C816 core (src/emu/snes/snes_cpu.c), worked out by
 * hand from the WDC W65C816S datasheet (table 5-7 and its notes), Clark's "65C816 Opcodes"
 * and the measured facts in docs/SNES_65816.md, not by running the core:
 *   - one instruction per case, in both modes and all widths: registers, flags, memory
 *     and the whole bus cycle list (kind, 24-bit address, byte) of each addressing mode;
 *   - decimal ADC/SBC in 8 and 16 bits, invalid digits included;
 *   - MVN/MVP, WAI and STP with interrupts, NMI/IRQ entry and its timing rule, reset;
 *   - the fast bus against the reference bus on random instruction streams (with slow
 *     pages and 6/8/12-clock pages), and against the cycle counts of the reference;
 *   - a speed figure on the fast bus (printed as information, never asserted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/gv.h"
#include "emu/snes/snes_cpu.h"

/* ---- a test machine: 16 MiB of memory on the reference bus, every cycle logged ------- */

typedef struct {
    uint8_t *mem;
    snes_cpu cpu;
    snes_cpu_bus bus;
    char log[4096];
    size_t loglen;
} tm;

static unsigned tm_cycle(void *ctx, uint32_t addr, uint8_t *v, unsigned fl, uint64_t clock)
{
    tm *t = ctx;
    char kind;
    int has_value = 1;
    if (fl & SNES_CYC_WRITE) {
        t->mem[addr] = *v;
        kind = 'w';
    } else if (fl & SNES_CYC_VPB) {
        *v = t->mem[addr];
        kind = 'v';
    } else if ((fl & (SNES_CYC_VDA | SNES_CYC_VPA)) == (SNES_CYC_VDA | SNES_CYC_VPA)) {
        *v = t->mem[addr];
        kind = 'o';
    } else if (fl & SNES_CYC_VPA) {
        *v = t->mem[addr];
        kind = 'p';
    } else if (fl & SNES_CYC_VDA) {
        *v = t->mem[addr];
        kind = 'r';
    } else {
        kind = 'i';
        has_value = 0;
    }
    if (fl & SNES_CYC_MLB) /* the cycles of a read-modify-write: upper case */
        kind = (char)(kind - 32);
    if (t->loglen + 16 < sizeof t->log) {
        int n = has_value ? snprintf(t->log + t->loglen, 16, "%s%c%06X=%02X", t->loglen ? " " : "", kind, addr, *v)
                          : snprintf(t->log + t->loglen, 16, "%s%c%06X", t->loglen ? " " : "", kind, addr);
        t->loglen += (size_t)n;
    }
    (void)clock;
    return has_value ? 8 : 6;
}

static void tm_init(tm *t)
{
    memset(t, 0, sizeof *t);
    t->mem = calloc(1u << 24, 1);
    if (!t->mem) {
        printf("FAIL snes cpu: out of memory\n");
        exit(1);
    }
    t->bus.ctx = t;
    t->bus.cycle = tm_cycle;
    snes_cpu_init(&t->cpu, &t->bus);
}

/* Writes "hex bytes; ADDR=hex bytes; ..." into memory. The first list (no '=') goes at at. */
static void tm_poke(tm *t, uint32_t at, const char *s)
{
    while (s && *s) {
        while (*s == ' ' || *s == ';')
            s++;
        if (!*s)
            break;
        const char *eq = strchr(s, '='), *semi = strchr(s, ';');
        if (eq && (!semi || eq < semi)) {
            at = (uint32_t)strtoul(s, NULL, 16);
            s = eq + 1;
        }
        while (*s && *s != ';') {
            char *end;
            unsigned long v = strtoul(s, &end, 16);
            if (end == s)
                break;
            t->mem[at++ & 0xFFFFFF] = (uint8_t)v;
            s = end;
            while (*s == ' ')
                s++;
        }
    }
}

/* ---- one instruction per case --------------------------------------------------------- */

typedef struct {
    const char *name;
    int e;
    uint8_t p;
    uint16_t a, x, y, s, d;
    uint8_t dbr, pbr;
    uint16_t pc;
    const char *code;   /* bytes at PBR:PC */
    const char *mem;    /* "ADDR=bytes; ..." */
    const char *cycles; /* the bus cycles: o opcode, p operand, r/w data, v vector, i internal;
                         * upper case with MLB active; ADDR=byte for all but internal */
    const char *after;  /* expected: "a=1234 p=30 ..." and "mADDR=byte" */
} icase;

/* Native and emulation p values used below: 30 = m, x set (8-bit); 00 = 16-bit. */
static const icase cases[] = {
    /* direct page, the DL penalty (note 2) */
    {"LDA d, 16-bit, DL!=0: +1 internal cycle", 0, 0x00, 0, 0, 0, 0x1FF, 0x0001, 0, 0, 0x8000, "A5 10", "000011=34 12",
     "o008000=A5 p008001=10 i008001 r000011=34 r000012=12", "a=1234 p=00 pc=8002"},
    {"LDA d, 8-bit, DL=0", 0, 0x30, 0xAB00, 0, 0, 0x1FF, 0x2000, 0, 0, 0x8000, "A5 FF", "0020FF=80",
     "o008000=A5 p008001=FF r0020FF=80", "a=AB80 p=B0"},
    {"LDA d,X emulation, DL=0: wraps in the page", 1, 0x30, 0, 0xFF, 0, 0x1FF, 0x0100, 0, 0, 0x8000, "B5 10",
     "00010F=5A", "o008000=B5 p008001=10 i008001 r00010F=5A", "a=005A p=30"},
    {"LDA d,X native 8-bit index: no page wrap", 0, 0x30, 0, 0xFF, 0, 0x1FF, 0x0100, 0, 0, 0x8000, "B5 10",
     "00020F=5A", "o008000=B5 p008001=10 i008001 r00020F=5A", "a=005A"},
    {"LDA d,X emulation, DL!=0: no wrap, penalty", 1, 0x30, 0, 0xFF, 0, 0x1FF, 0x0101, 0, 0, 0x8000, "B5 10",
     "000210=01", "o008000=B5 p008001=10 i008001 i008001 r000210=01", "a=0001"},
    /* absolute indexed, note 4 */
    {"LDA a,X 8-bit index, page cross", 0, 0x30, 0, 0x20, 0, 0x1FF, 0, 0x12, 0, 0x8000, "BD F0 20", "122110=77",
     "o008000=BD p008001=F0 p008002=20 i122010 r122110=77", "a=0077"},
    {"LDA a,X 8-bit index, no cross: no extra cycle", 0, 0x30, 0, 0x01, 0, 0x1FF, 0, 0x12, 0, 0x8000, "BD F0 20",
     "1220F1=66", "o008000=BD p008001=F0 p008002=20 r1220F1=66", "a=0066"},
    {"LDA a,X 16-bit index: always the extra cycle", 0, 0x20, 0, 0x0001, 0, 0x1FF, 0, 0x12, 0, 0x8000, "BD F0 20",
     "1220F1=66", "o008000=BD p008001=F0 p008002=20 i1220F1 r1220F1=66", "a=0066 p=20"},
    {"LDA a,Y into the next bank", 0, 0x30, 0, 0, 0x20, 0x1FF, 0, 0x12, 0, 0x8000, "B9 F0 FF", "130010=99",
     "o008000=B9 p008001=F0 p008002=FF i12FF10 r130010=99", "a=0099 p=B0"},
    {"STA a,X emulation: writes always take the extra cycle", 1, 0x30, 0x55, 0x01, 0, 0x1FF, 0, 0, 0, 0x8000,
     "9D 00 30", "", "o008000=9D p008001=00 p008002=30 i003001 w003001=55", "m003001=55"},
    {"LDA a 16-bit: high byte in the next bank", 0, 0x10, 0, 0, 0, 0x1FF, 0, 0x7E, 0, 0x8000, "AD FF FF",
     "7EFFFF=CD; 7F0000=AB", "o008000=AD p008001=FF p008002=FF r7EFFFF=CD r7F0000=AB", "a=ABCD p=90"},
    {"LDA al,X into the next bank", 0, 0x30, 0, 0x02, 0, 0x1FF, 0, 0, 0, 0x8000, "BF FF FF 12", "130001=42",
     "o008000=BF p008001=FF p008002=FF p008003=12 r130001=42", "a=0042"},
    {"LDX a,Y 16-bit", 0, 0x20, 0, 0, 0x0001, 0x1FF, 0, 0, 0, 0x8000, "BE 00 40", "004001=34 12",
     "o008000=BE p008001=00 p008002=40 i004001 r004001=34 r004002=12", "x=1234 p=20"},
    /* indirect modes */
    {"LDA (d) emulation, D=0: pointer wraps in page 0", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "B2 FF",
     "0000FF=34; 000000=12; 001234=5A", "o008000=B2 p008001=FF r0000FF=34 r000000=12 r001234=5A", "a=005A"},
    {"LDA (d) emulation, DL=0 DH!=0: pointer wraps in its page", 1, 0x30, 0, 0, 0, 0x1FF, 0x0100, 0, 0, 0x8000, "B2 FF",
     "0001FF=34; 000100=12; 001234=5A", "o008000=B2 p008001=FF r0001FF=34 r000100=12 r001234=5A", "a=005A"},
    {"LDA (d) emulation, DL!=0: pointer carries", 1, 0x30, 0, 0, 0, 0x1FF, 0x0101, 0, 0, 0x8000, "B2 FE",
     "0001FF=34; 000200=12; 001234=5A", "o008000=B2 p008001=FE i008001 r0001FF=34 r000200=12 r001234=5A", "a=005A"},
    {"LDA (d,X) emulation, D=0: index wraps in page 0", 1, 0x30, 0, 0x10, 0, 0x1FF, 0, 0, 0, 0x8000, "A1 F5",
     "000005=00 30; 003000=11", "o008000=A1 p008001=F5 i008001 r000005=00 r000006=30 r003000=11", "a=0011"},
    {"LDA (d),Y page cross", 0, 0x30, 0, 0, 0x10, 0x1FF, 0, 0x01, 0, 0x8000, "B1 20", "000020=F8 40; 014108=AA",
     "o008000=B1 p008001=20 r000020=F8 r000021=40 i014008 r014108=AA", "a=00AA p=B0"},
    {"STA (d),Y: always the extra cycle", 0, 0x30, 0x12, 0, 0x01, 0x1FF, 0, 0x01, 0, 0x8000, "91 20", "000020=00 40",
     "o008000=91 p008001=20 r000020=00 r000021=40 i014001 w014001=12", "m014001=12"},
    {"LDA [d],Y 16-bit, 24-bit pointer", 0, 0x00, 0, 0, 0x0002, 0x1FF, 0, 0, 0, 0x8000, "B7 10",
     "000010=FE FF 05; 060000=11 22",
     "o008000=B7 p008001=10 r000010=FE r000011=FF r000012=05 r060000=11 r060001=22", "a=2211 p=00"},
    {"LDA [d] emulation: a new mode, no page wrap", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "A7 FF",
     "0000FF=00; 000100=80 7E; 7E8000=3C",
     "o008000=A7 p008001=FF r0000FF=00 r000100=80 r000101=7E r7E8000=3C", "a=003C"},
    {"LDA d,S", 0, 0x30, 0, 0, 0, 0x01F0, 0, 0, 0, 0x8000, "A3 05", "0001F5=12",
     "o008000=A3 p008001=05 i008001 r0001F5=12", "a=0012"},
    {"LDA d,S emulation: a new mode, not wrapped in page 1", 1, 0x30, 0, 0, 0, 0x01F0, 0, 0, 0, 0x8000, "A3 20",
     "000210=21", "o008000=A3 p008001=20 i008001 r000210=21", "a=0021"},
    {"LDA (d,S),Y: two internal cycles, DL ignored", 0, 0x20, 0, 0, 0x0100, 0x01F0, 0x0001, 0x03, 0, 0x8000, "B3 02",
     "0001F2=00 20; 032100=77", "o008000=B3 p008001=02 i008001 r0001F2=00 r0001F3=20 i0001F3 r032100=77", "a=0077"},
    /* immediates */
    {"LDA # 16-bit: 3 bytes", 0, 0x00, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "A9 34 12", "",
     "o008000=A9 p008001=34 p008002=12", "a=1234 pc=8003"},
    {"LDX # emulation 8-bit", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "A2 80", "", "o008000=A2 p008001=80",
     "x=0080 p=B0 pc=8002"},
    {"LDY # 16-bit index with 8-bit A", 0, 0x20, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "A0 00 80", "",
     "o008000=A0 p008001=00 p008002=80", "y=8000 p=A0 pc=8003"},
    /* read-modify-write */
    {"INC a native 8-bit: read, internal, write (MLB)", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0x7E, 0, 0x8000, "EE 00 10",
     "7E1000=FF", "o008000=EE p008001=00 p008002=10 R7E1000=FF I7E1000 W7E1000=00", "m7E1000=00 p=32"},
    {"INC a emulation: the old byte is written first (note 17)", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "EE 00 10",
     "001000=41", "o008000=EE p008001=00 p008002=10 R001000=41 W001000=41 W001000=42", "m001000=42 p=30"},
    {"ASL a 16-bit: high byte written first", 0, 0x00, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "0E 00 10",
     "001000=01 80", "o008000=0E p008001=00 p008002=10 R001000=01 R001001=80 I001001 W001001=00 W001000=02",
     "m001000=02 m001001=00 p=01"},
    {"ASL A 8-bit keeps B", 0, 0x30, 0x1281, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "0A", "", "o008000=0A i008001",
     "a=1202 p=31"},
    {"ROR d,X emulation", 1, 0x31, 0, 0x05, 0, 0x1FF, 0, 0, 0, 0x8000, "76 10", "000015=02",
     "o008000=76 p008001=10 i008001 R000015=02 W000015=02 W000015=81", "m000015=81 p=B0"},
    {"DEC a,X native: the index cycle always", 0, 0x30, 0, 0x01, 0, 0x1FF, 0, 0, 0, 0x8000, "DE 00 10",
     "001001=01", "o008000=DE p008001=00 p008002=10 i001001 R001001=01 I001001 W001001=00", "m001001=00 p=32"},
    {"TSB d: z from A AND m", 0, 0x30, 0x0F, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "04 20", "000020=F0",
     "o008000=04 p008001=20 R000020=F0 I000020 W000020=FF", "m000020=FF p=32"},
    {"TRB a 16-bit", 0, 0x00, 0x00FF, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "1C 00 20", "002000=0F F0",
     "o008000=1C p008001=00 p008002=20 R002000=0F R002001=F0 I002001 W002001=F0 W002000=00",
     "m002000=00 m002001=F0 p=00"},
    {"LSR A 16-bit", 0, 0x00, 0x8001, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "4A", "", "o008000=4A i008001", "a=4000 p=01"},
    {"ROL A 16-bit through carry", 0, 0x01, 0x8000, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "2A", "", "o008000=2A i008001",
     "a=0001 p=01"},
    {"DEC A 8-bit to zero", 1, 0x30, 0x0101, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "3A", "", "o008000=3A i008001",
     "a=0100 p=32"},
    /* branches (notes 5, 6) */
    {"BNE taken, emulation, page cross: 4 cycles", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x80F0, "D0 20", "",
     "o0080F0=D0 p0080F1=20 i0080F1 i0080F1", "pc=8112"},
    {"BNE taken, native, page cross: 3 cycles", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x80F0, "D0 20", "",
     "o0080F0=D0 p0080F1=20 i0080F1", "pc=8112"},
    {"BEQ not taken: 2 cycles", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "F0 20", "", "o008000=F0 p008001=20",
     "pc=8002"},
    {"BRA backwards wraps within the bank", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0x05, 0x0002, "80 F0", "",
     "o050002=80 p050003=F0 i050003", "pc=FFF4 pbr=05"},
    {"BRL", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "82 00 10", "", "o008000=82 p008001=00 p008002=10 i008002",
     "pc=9003"},
    /* jumps, calls, returns */
    {"JSR a emulation: the stack wraps in page 1", 1, 0x30, 0, 0, 0, 0x0100, 0, 0, 0, 0x8000, "20 34 12", "",
     "o008000=20 p008001=34 p008002=12 i008002 w000100=80 w0001FF=02", "pc=1234 s=01FE"},
    {"JSL", 0, 0x30, 0, 0, 0, 0x01FF, 0, 0, 0x12, 0x3456, "22 00 80 C0", "",
     "o123456=22 p123457=00 p123458=80 w0001FF=12 i0001FF p123459=C0 w0001FE=34 w0001FD=59",
     "pc=8000 pbr=C0 s=01FC"},
    {"RTS", 0, 0x30, 0, 0, 0, 0x01FC, 0, 0, 0, 0x8000, "60", "0001FD=59 34",
     "o008000=60 i008001 i008001 r0001FD=59 r0001FE=34 i0001FE", "pc=345A s=01FE"},
    {"RTL emulation: a new instruction, S not wrapped until the end", 1, 0x30, 0, 0, 0, 0x01FE, 0, 0, 0, 0x8000,
     "6B", "0001FF=02 80 7E", "o008000=6B i008001 i008001 r0001FF=02 r000200=80 r000201=7E",
     "pc=8003 pbr=7E s=0101"},
    {"RTI native: p, PC, PBR", 0, 0x00, 0, 0, 0, 0x01F0, 0, 0, 0, 0x8000, "40", "0001F1=30 00 90 05",
     "o008000=40 i008001 i008001 r0001F1=30 r0001F2=00 r0001F3=90 r0001F4=05", "p=30 pc=9000 pbr=05 s=01F4"},
    {"RTI emulation: p, PC, wrapping in page 1", 1, 0x30, 0, 0, 0, 0x01FD, 0, 0, 0, 0x8000, "40",
     "0001FE=C3 00; 000100=90", "o008000=40 i008001 i008001 r0001FE=C3 r0001FF=00 r000100=90",
     "p=F3 pc=9000 s=0100"},
    {"JMP (a): pointer in bank 0", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0x12, 0x8000, "6C 00 30", "003000=00 90",
     "o128000=6C p128001=00 p128002=30 r003000=00 r003001=90", "pc=9000 pbr=12"},
    {"JMP (a,X): pointer in the program bank", 0, 0x30, 0, 0x02, 0, 0x1FF, 0, 0, 0x12, 0x8000, "7C 00 30",
     "123002=00 A0", "o128000=7C p128001=00 p128002=30 i128002 r123002=00 r123003=A0", "pc=A000 pbr=12"},
    {"JML [a]", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0x12, 0x8000, "DC 00 30", "003000=00 80 7E",
     "o128000=DC p128001=00 p128002=30 r003000=00 r003001=80 r003002=7E", "pc=8000 pbr=7E"},
    {"JSR (a,X): pushes between the address bytes", 0, 0x30, 0, 0x02, 0, 0x1FF, 0, 0, 0x12, 0x8000, "FC 00 30",
     "123002=00 A0", "o128000=FC p128001=00 w0001FF=80 w0001FE=02 p128002=30 i128002 r123002=00 r123003=A0",
     "pc=A000 s=01FD"},
    {"JML al", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "5C 56 34 12", "", "o008000=5C p008001=56 p008002=34 p008003=12",
     "pc=3456 pbr=12"},
    {"BRK native: PBR, PC+2, p pushed; i set, d clear, bank 0", 0, 0x0B, 0, 0, 0, 0x01FF, 0, 0, 0x12, 0x3400, "00 EE",
     "00FFE6=00 90",
     "o123400=00 p123401=EE w0001FF=12 w0001FE=34 w0001FD=02 w0001FC=0B v00FFE6=00 v00FFE7=90",
     "p=07 pc=9000 pbr=00 s=01FB"},
    {"BRK emulation: vector $FFFE, break bit pushed set", 1, 0x38, 0, 0, 0, 0x01FF, 0, 0, 0, 0x3400, "00 EE",
     "00FFFE=00 90", "o003400=00 p003401=EE w0001FF=34 w0001FE=02 w0001FD=38 v00FFFE=00 v00FFFF=90",
     "p=34 pc=9000 s=01FC"},
    {"COP emulation: vector $FFF4", 1, 0x30, 0, 0, 0, 0x01FF, 0, 0, 0, 0x3400, "02 00", "00FFF4=00 A0",
     "o003400=02 p003401=00 w0001FF=34 w0001FE=02 w0001FD=30 v00FFF4=00 v00FFF5=A0", "p=34 pc=A000"},
    {"COP native: vector $FFE4", 0, 0x30, 0, 0, 0, 0x01FF, 0, 0, 0x01, 0x3400, "02 00", "00FFE4=00 A0",
     "o013400=02 p013401=00 w0001FF=01 w0001FE=34 w0001FD=02 w0001FC=30 v00FFE4=00 v00FFE5=A0",
     "p=34 pc=A000 pbr=00"},
    /* stack */
    {"PHA emulation: wraps in page 1", 1, 0x30, 0x42, 0, 0, 0x0100, 0, 0, 0, 0x8000, "48", "",
     "o008000=48 i008001 w000100=42", "s=01FF m000100=42"},
    {"PHA 16-bit: high byte first", 0, 0x00, 0x1234, 0, 0, 0x1000, 0, 0, 0, 0x8000, "48", "",
     "o008000=48 i008001 w001000=12 w000FFF=34", "s=0FFE"},
    {"PEA emulation: a new instruction, no page wrap", 1, 0x30, 0, 0, 0, 0x0100, 0, 0, 0, 0x8000, "F4 34 12", "",
     "o008000=F4 p008001=34 p008002=12 w000100=12 w0000FF=34", "s=01FE m0000FF=34"},
    {"PEI with DL!=0", 0, 0x30, 0, 0, 0, 0x01FF, 0x0001, 0, 0, 0x8000, "D4 10", "000011=78 56",
     "o008000=D4 p008001=10 i008001 r000011=78 r000012=56 w0001FF=56 w0001FE=78", "s=01FD"},
    {"PER", 0, 0x30, 0, 0, 0, 0x01FF, 0, 0, 0, 0x8000, "62 00 10", "",
     "o008000=62 p008001=00 p008002=10 i008002 w0001FF=90 w0001FE=03", "s=01FD"},
    {"PLB emulation: a new instruction, no page wrap", 1, 0x30, 0, 0, 0, 0x01FF, 0, 0, 0, 0x8000, "AB", "000200=7E",
     "o008000=AB i008001 i008001 r000200=7E", "dbr=7E s=0100 p=30"},
    {"PLA emulation: wraps in page 1", 1, 0x30, 0, 0, 0, 0x01FF, 0, 0, 0, 0x8000, "68", "000100=80",
     "o008000=68 i008001 i008001 r000100=80", "a=0080 p=B0 s=0100"},
    {"PLP setting x clears XH and YH", 0, 0x00, 0, 0x1234, 0xABCD, 0x01FE, 0, 0, 0, 0x8000, "28", "0001FF=10",
     "o008000=28 i008001 i008001 r0001FF=10", "p=10 x=0034 y=00CD"},
    {"PLD", 0, 0x30, 0, 0, 0, 0x01FD, 0, 0, 0, 0x8000, "2B", "0001FE=00 80",
     "o008000=2B i008001 i008001 r0001FE=00 r0001FF=80", "d=8000 p=B0 s=01FF"},
    {"PHD", 0, 0x30, 0, 0, 0, 0x01FF, 0x1234, 0, 0, 0x8000, "0B", "", "o008000=0B i008001 w0001FF=12 w0001FE=34",
     "s=01FD"},
    {"PHK, PHB", 0, 0x30, 0, 0, 0, 0x01FF, 0, 0x7E, 0x05, 0x8000, "4B", "", "o058000=4B i058001 w0001FF=05", "s=01FE"},
    {"PLX 16-bit", 0, 0x00, 0, 0, 0, 0x01FD, 0, 0, 0, 0x8000, "FA", "0001FE=00 80",
     "o008000=FA i008001 i008001 r0001FE=00 r0001FF=80", "x=8000 p=80"},
    /* flags, mode switches, transfers */
    {"REP in emulation: m and x stay set", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "C2 FF", "",
     "o008000=C2 p008001=FF i008001", "p=30"},
    {"SEP #$10 native clears XH, YH", 0, 0x00, 0, 0x1234, 0x5678, 0x1FF, 0, 0, 0, 0x8000, "E2 10", "",
     "o008000=E2 p008001=10 i008001", "p=10 x=0034 y=0078"},
    {"XCE native to emulation: widths, SH, carry", 0, 0x01, 0xABCD, 0x1234, 0x5678, 0x1FF0, 0, 0, 0, 0x8000, "FB", "",
     "o008000=FB i008001", "e=1 p=30 a=ABCD x=0034 y=0078 s=01F0"},
    {"XCE emulation to native: carry set, widths stay 8-bit", 1, 0x30, 0, 0, 0, 0x01F0, 0, 0, 0, 0x8000, "FB", "",
     "o008000=FB i008001", "e=0 p=31 s=01F0"},
    {"TCS emulation: SH stays $01", 1, 0x30, 0x1234, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "1B", "", "o008000=1B i008001",
     "s=0134 p=30"},
    {"TXS native with 8-bit index: SH = 0", 0, 0x30, 0, 0x34, 0, 0x1FF, 0, 0, 0, 0x8000, "9A", "", "o008000=9A i008001",
     "s=0034"},
    {"TSC is 16-bit whatever m", 1, 0x30, 0x1234, 0, 0, 0x01F0, 0, 0, 0, 0x8000, "3B", "", "o008000=3B i008001",
     "a=01F0 p=30"},
    {"TCD flags from 16 bits", 0, 0x30, 0x8000, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "5B", "", "o008000=5B i008001",
     "d=8000 p=B0"},
    {"XBA: flags from the new low byte", 0, 0x30, 0x12FF, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "EB", "",
     "o008000=EB i008001 i008001", "a=FF12 p=30"},
    {"TAX 8-bit index from 16-bit A", 0, 0x10, 0x1280, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "AA", "", "o008000=AA i008001",
     "x=0080 p=90"},
    {"TXA 8-bit A keeps B", 0, 0x20, 0x1200, 0x34FF, 0, 0x1FF, 0, 0, 0, 0x8000, "8A", "", "o008000=8A i008001",
     "a=12FF p=A0"},
    {"TXY 16-bit", 0, 0x00, 0, 0x8000, 0, 0x1FF, 0, 0, 0, 0x8000, "9B", "", "o008000=9B i008001", "y=8000 p=80"},
    {"TSX 8-bit", 1, 0x30, 0, 0, 0, 0x01F0, 0, 0, 0, 0x8000, "BA", "", "o008000=BA i008001", "x=00F0 p=B0"},
    {"INX 8-bit wraps", 1, 0x30, 0, 0xFF, 0, 0x1FF, 0, 0, 0, 0x8000, "E8", "", "o008000=E8 i008001", "x=0000 p=32"},
    {"DEY 16-bit", 0, 0x00, 0, 0, 0x0000, 0x1FF, 0, 0, 0, 0x8000, "88", "", "o008000=88 i008001", "y=FFFF p=80"},
    {"WDM: 2 bytes, 2 cycles, the operand not read", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "42 00", "",
     "o008000=42 i008001", "pc=8002"},
    {"NOP", 1, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "EA", "", "o008000=EA i008001", "pc=8001"},
    {"CLC SEC CLI SEI CLV CLD SED: SED", 0, 0x30, 0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "F8", "", "o008000=F8 i008001", "p=38"},
    /* compares, BIT, stores */
    {"BIT # affects z only", 0, 0xF0, 0x0F, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "89 F0", "", "o008000=89 p008001=F0",
     "p=F2"},
    {"BIT a 16-bit: n, v from bits 15, 14", 0, 0x00, 0x0001, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "2C 00 10", "001000=01 40",
     "o008000=2C p008001=00 p008002=10 r001000=01 r001001=40", "p=40"},
    {"CMP # 16-bit equal", 0, 0x00, 0x1000, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "C9 00 10", "",
     "o008000=C9 p008001=00 p008002=10", "p=03 a=1000"},
    {"CPX # 8-bit less", 1, 0x30, 0, 0x10, 0, 0x1FF, 0, 0, 0, 0x8000, "E0 20", "", "o008000=E0 p008001=20", "p=B0"},
    {"CPY d 16-bit", 0, 0x00, 0, 0, 0x0500, 0x1FF, 0, 0, 0, 0x8000, "C4 10", "000010=00 04",
     "o008000=C4 p008001=10 r000010=00 r000011=04", "p=01"},
    {"STZ a,X 16-bit", 0, 0x00, 0, 0x0002, 0, 0x1FF, 0, 0, 0, 0x8000, "9E 00 10", "001002=FF FF",
     "o008000=9E p008001=00 p008002=10 i001002 w001002=00 w001003=00", "m001002=00 m001003=00"},
    {"STX d,Y", 0, 0x30, 0, 0x77, 0x05, 0x1FF, 0, 0, 0, 0x8000, "96 10", "", "o008000=96 p008001=10 i008001 w000015=77",
     "m000015=77"},
    {"STY a 16-bit", 0, 0x00, 0, 0, 0xBEEF, 0x1FF, 0, 0x7F, 0, 0x8000, "8C FE FF", "",
     "o008000=8C p008001=FE p008002=FF w7FFFFE=EF w7FFFFF=BE", "m7FFFFE=EF m7FFFFF=BE"},
    {"STA [d],Y", 0, 0x30, 0x5A, 0, 0x01, 0x1FF, 0, 0, 0, 0x8000, "97 10", "000010=FF FF 7E",
     "o008000=97 p008001=10 r000010=FF r000011=FF r000012=7E w7F0000=5A", "m7F0000=5A"},
    {"AND (d,S),Y 16-bit", 0, 0x00, 0xF0F0, 0, 0x0001, 0x01F0, 0, 0x02, 0, 0x8000, "33 01", "0001F1=FF 10; 021100=FF 0F",
     "o008000=33 p008001=01 i008001 r0001F1=FF r0001F2=10 i0001F2 r021100=FF r021101=0F", "a=00F0 p=00"},
    {"EOR d,X 16-bit at the end of bank 0", 0, 0x00, 0xFFFF, 0x0001, 0, 0x1FF, 0xFFFE, 0, 0, 0x8000, "55 00",
     "00FFFF=0F; 000000=F0", "o008000=55 p008001=00 i008001 i008001 r00FFFF=0F r000000=F0", "a=0FF0 p=00"},
    {"ORA al 8-bit", 1, 0x30, 0x01, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "0F 00 00 7E", "7E0000=80",
     "o008000=0F p008001=00 p008002=00 p008003=7E r7E0000=80", "a=0081 p=B0"},
    /* decimal mode */
    {"ADC # decimal 8-bit: 58+46+1", 1, 0x39, 0x58, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "69 46", "", "o008000=69 p008001=46",
     "a=0005 p=79"},
    {"ADC # decimal 16-bit: 1234+8766 = 10000", 0, 0x08, 0x1234, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "69 66 87", "",
     "o008000=69 p008001=66 p008002=87", "a=0000 p=0B"},
    {"ADC # decimal 16-bit carry through three digits", 0, 0x08, 0x0999, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "69 01 00", "",
     "o008000=69 p008001=01 p008002=00", "a=1000 p=08"},
    {"ADC # decimal 8-bit invalid digit: 0F+01", 1, 0x38, 0x0F, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "69 01", "",
     "o008000=69 p008001=01", "a=0016 p=38"},
    {"SBC # decimal 16-bit (Clark's example): 0001-2003", 0, 0x09, 0x0001, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "E9 03 20", "",
     "o008000=E9 p008001=03 p008002=20", "a=7998 p=08"},
    {"SBC # decimal 8-bit invalid digit: B0-4D-1", 1, 0x38, 0x60B0, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "E9 4D", "",
     "o008000=E9 p008001=4D", "a=606C p=79"},
    {"SBC # decimal 16-bit: 1000-0001", 0, 0x09, 0x1000, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "E9 01 00", "",
     "o008000=E9 p008001=01 p008002=00", "a=0999 p=09"},
    {"SBC # binary 16-bit borrow", 0, 0x01, 0x0000, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "E9 01 00", "",
     "o008000=E9 p008001=01 p008002=00", "a=FFFF p=80"},
    {"ADC # binary 8-bit overflow", 1, 0x30, 0x7F, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "69 01", "", "o008000=69 p008001=01",
     "a=0080 p=F0"},
    {"ADC # binary 16-bit carry out", 0, 0x00, 0xFFFF, 0, 0, 0x1FF, 0, 0, 0, 0x8000, "69 01 00", "",
     "o008000=69 p008001=01 p008002=00", "a=0000 p=03"},
};

/* Checks "k=v" expectations against the machine; returns the first mismatch or NULL. */
static const char *check_after(tm *t, const char *after, char *buf, size_t n)
{
    snes_cpu_regs r;
    snes_cpu_get_regs(&t->cpu, &r);
    const char *s = after;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        char key[16];
        int i = 0;
        while (*s && *s != '=' && i < 15)
            key[i++] = *s++;
        key[i] = 0;
        if (*s == '=')
            s++;
        char *end;
        unsigned long want = strtoul(s, &end, 16);
        s = end;
        unsigned long got;
        if (key[0] == 'm' && key[1])
            got = t->mem[strtoul(key + 1, NULL, 16) & 0xFFFFFF];
        else if (!strcmp(key, "a")) got = r.a;
        else if (!strcmp(key, "x")) got = r.x;
        else if (!strcmp(key, "y")) got = r.y;
        else if (!strcmp(key, "s")) got = r.s;
        else if (!strcmp(key, "d")) got = r.d;
        else if (!strcmp(key, "pc")) got = r.pc;
        else if (!strcmp(key, "p")) got = r.p;
        else if (!strcmp(key, "e")) got = r.e;
        else if (!strcmp(key, "dbr")) got = r.dbr;
        else if (!strcmp(key, "pbr")) got = r.pbr;
        else {
            snprintf(buf, n, "unknown key %s", key);
            return buf;
        }
        if (got != want) {
            snprintf(buf, n, "%s=%lX want %lX", key, got, want);
            return buf;
        }
    }
    return NULL;
}

static void test_cases(void)
{
    tm t;
    tm_init(&t);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const icase *k = &cases[i];
        memset(t.mem, 0, 1u << 24);
        snes_cpu_regs r = {k->a, k->x, k->y, k->s, k->d, k->pc, k->dbr, k->pbr, k->p, (uint8_t)k->e};
        snes_cpu_init(&t.cpu, &t.bus);
        snes_cpu_set_regs(&t.cpu, &r);
        tm_poke(&t, (uint32_t)k->pbr << 16 | k->pc, k->code);
        tm_poke(&t, 0, k->mem);
        t.loglen = 0;
        t.log[0] = 0;
        int n = snes_cpu_step(&t.cpu);
        char buf[128];
        const char *bad = check_after(&t, k->after, buf, sizeof buf);
        int ncyc_want = 1;
        for (const char *q = k->cycles; *q; q++)
            ncyc_want += *q == ' ';
        char name[160];
        snprintf(name, sizeof name, "snes cpu %s", k->name);
        int ok = !bad && strcmp(t.log, k->cycles) == 0 && n == ncyc_want;
        if (ok)
            t_check(1, name, "%d cycles, %s; %s", n, k->after, k->cycles);
        else
            t_check(0, name, "%s; cycles %d (want %d): got  %s | want %s", bad ? bad : "registers ok", n, ncyc_want,
                    t.log, k->cycles);
    }
    free(t.mem);
}

/* ---- block moves ----------------------------------------------------------------------- */

static void test_block_moves(void)
{
    tm t;
    tm_init(&t);
    /* MVN $02,$01: copy 3 bytes from 01:1000 to 02:2000, A = count-1 = 2. */
    snes_cpu_regs r = {2, 0x1000, 0x2000, 0x1FF, 0, 0x8000, 0x00, 0x00, 0x00, 0};
    snes_cpu_set_regs(&t.cpu, &r);
    tm_poke(&t, 0x008000, "54 02 01 EA");
    tm_poke(&t, 0x011000, "AA BB CC");
    t.loglen = 0;
    int n1 = snes_cpu_step(&t.cpu);
    char first[sizeof t.log];
    snprintf(first, sizeof first, "%s", t.log);
    snes_cpu_get_regs(&t.cpu, &r);
    t_check(n1 == 7 && !strcmp(first, "o008000=54 p008001=02 p008002=01 r011000=AA w022000=AA i022000 i022000") &&
                r.pc == 0x8000 && r.a == 1 && r.x == 0x1001 && r.y == 0x2001 && r.dbr == 0x02,
            "snes cpu MVN one byte per execution", "%d cycles: %s; then PC=%04X A=%04X X=%04X Y=%04X DBR=%02X", n1, first,
            r.pc, r.a, r.x, r.y, r.dbr);
    int n2 = snes_cpu_step(&t.cpu), n3 = snes_cpu_step(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &r);
    t_check(n2 == 7 && n3 == 7 && r.pc == 0x8003 && r.a == 0xFFFF && r.x == 0x1003 && r.y == 0x2003 &&
                t.mem[0x022000] == 0xAA && t.mem[0x022001] == 0xBB && t.mem[0x022002] == 0xCC,
            "snes cpu MVN ends when A wraps to $FFFF", "cycles %d %d; PC=%04X A=%04X X=%04X Y=%04X, dest %02X %02X %02X",
            n2, n3, r.pc, r.a, r.x, r.y, t.mem[0x022000], t.mem[0x022001], t.mem[0x022002]);

    /* MVP with 8-bit index registers: X, Y decrement in 8 bits. */
    snes_cpu_regs q = {1, 0x01, 0xFF, 0x1FF, 0, 0x9000, 0x00, 0x00, 0x10, 0};
    snes_cpu_set_regs(&t.cpu, &q);
    tm_poke(&t, 0x009000, "44 7F 7E");
    tm_poke(&t, 0x7E0000, "11 22");
    int m1 = snes_cpu_step(&t.cpu), m2 = snes_cpu_step(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &q);
    t_check(m1 == 7 && m2 == 7 && q.pc == 0x9003 && q.a == 0xFFFF && q.x == 0xFF && q.y == 0xFD &&
                t.mem[0x7F00FF] == 0x22 && t.mem[0x7F00FE] == 0x11 && q.dbr == 0x7F,
            "snes cpu MVP 8-bit index decrements", "PC=%04X A=%04X X=%04X Y=%04X DBR=%02X dest FE,FF = %02X %02X", q.pc,
            q.a, q.x, q.y, q.dbr, t.mem[0x7F00FE], t.mem[0x7F00FF]);
    free(t.mem);
}

/* ---- interrupts, WAI, STP, reset ------------------------------------------------------- */

static void test_interrupts(void)
{
    tm t;
    tm_init(&t);
    /* Reset: vector at $FFFC, emulation mode, 7 cycles. */
    tm_poke(&t, 0x00FFFC, "00 80");
    snes_cpu_regs r = {0x1234, 0x5678, 0x9ABC, 0x0FEE, 0x4000, 0x1111, 0x12, 0x34, 0x0B, 0};
    snes_cpu_set_regs(&t.cpu, &r);
    t.loglen = 0;
    snes_cpu_reset(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &r);
    t_check(r.e == 1 && r.pc == 0x8000 && r.pbr == 0 && r.dbr == 0 && r.d == 0 && r.s == 0x01EE && r.x == 0x78 &&
                r.y == 0xBC && r.a == 0x1234 && r.p == 0x37 && t.cpu.s.cycles == 7 &&
                !strcmp(t.log, "i001111 i001111 i0001EE i0001ED i0001EC v00FFFC=00 v00FFFD=80"),
            "snes cpu reset", "e=%d PC=%04X S=%04X X=%04X Y=%04X A=%04X p=%02X after %llu cycles: %s", r.e, r.pc, r.s,
            r.x, r.y, r.a, r.p, (unsigned long long)t.cpu.s.cycles, t.log);

    /* IRQ in native mode while running NOPs: taken at an instruction boundary. */
    memset(t.mem, 0, 1u << 24);
    for (int i = 0; i < 64; i++)
        t.mem[0x8000 + i] = 0xEA;
    tm_poke(&t, 0x00FFEE, "00 90");
    snes_cpu_regs n = {0, 0, 0, 0x1FF, 0, 0x8000, 0, 0x00, 0x30, 0};
    snes_cpu_init(&t.cpu, &t.bus);
    snes_cpu_set_regs(&t.cpu, &n);
    snes_cpu_step(&t.cpu); /* NOP: 8 + 6 master clocks */
    snes_cpu_set_irq(&t.cpu, 1, t.cpu.s.clock);
    t.loglen = 0;
    int c1 = snes_cpu_step(&t.cpu); /* raised after the NOP's last cycle began: one more NOP first */
    char l1[sizeof t.log];
    snprintf(l1, sizeof l1, "%s", t.log);
    t.loglen = 0;
    int c2 = snes_cpu_step(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &n);
    t_check(c1 == 2 && !strcmp(l1, "o008001=EA i008002") && c2 == 8 && n.pc == 0x9000 && (n.p & SNES_P_I) &&
                !strcmp(t.log, "i008002 i008002 w0001FF=00 w0001FE=80 w0001FD=02 w0001FC=30 v00FFEE=00 v00FFEF=90"),
            "snes cpu IRQ raised during the last cycle waits one instruction",
            "first step %d cycles (%s), then entry %d cycles: %s", c1, l1, c2, t.log);

    /* IRQ masked by i: not taken; NMI taken at the next boundary (edge latched). */
    n = (snes_cpu_regs){0, 0, 0, 0x1FF, 0, 0x8000, 0, 0, 0x34, 0};
    snes_cpu_init(&t.cpu, &t.bus);
    snes_cpu_set_regs(&t.cpu, &n);
    tm_poke(&t, 0x00FFEA, "00 A0");
    snes_cpu_set_irq(&t.cpu, 1, 0);
    int s1 = snes_cpu_step(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &n);
    uint16_t pc1 = n.pc;
    snes_cpu_set_nmi(&t.cpu, 0);
    int s2 = snes_cpu_step(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &n);
    t_check(s1 == 2 && pc1 == 0x8001 && s2 == 8 && n.pc == 0xA000 && !t.cpu.s.nmi_pending,
            "snes cpu IRQ masked by i, NMI taken", "masked step %d cycles to PC=%04X; NMI entry %d cycles to PC=%04X",
            s1, pc1, s2, n.pc);

    /* Emulation-mode IRQ: vector $FFFE, p pushed with bit 4 clear, no PBR push. */
    n = (snes_cpu_regs){0, 0, 0, 0x1FF, 0, 0x8000, 0, 0, 0x30, 1};
    snes_cpu_init(&t.cpu, &t.bus);
    snes_cpu_set_regs(&t.cpu, &n);
    tm_poke(&t, 0x00FFFE, "00 B0");
    snes_cpu_set_irq(&t.cpu, 1, 0);
    t.loglen = 0;
    int s3 = snes_cpu_step(&t.cpu);
    snes_cpu_get_regs(&t.cpu, &n);
    t_check(s3 == 7 && n.pc == 0xB000 && n.s == 0x1FC &&
                !strcmp(t.log, "i008000 i008000 w0001FF=80 w0001FE=00 w0001FD=20 v00FFFE=00 v00FFFF=B0"),
            "snes cpu IRQ in emulation mode", "%d cycles: %s", s3, t.log);
    snes_cpu_set_irq(&t.cpu, 0, 0);

    /* WAI: the clock runs to the limit with no interrupt; an IRQ with i set wakes it
     * without servicing; with i clear it is serviced. */
    memset(t.mem, 0, 1u << 24);
    tm_poke(&t, 0x008000, "CB A9 42 CB EA");
    tm_poke(&t, 0x00FFEE, "00 90");
    tm_poke(&t, 0x009000, "80 FE"); /* the handler: BRA to itself */
    n = (snes_cpu_regs){0, 0, 0, 0x1FF, 0, 0x8000, 0, 0, 0x34, 0};
    snes_cpu_init(&t.cpu, &t.bus);
    snes_cpu_set_regs(&t.cpu, &n);
    snes_cpu_run(&t.cpu, 1000);
    uint64_t clk = t.cpu.s.clock;
    snes_cpu_get_regs(&t.cpu, &n);
    int waiting = t.cpu.s.waiting;
    t_check(waiting && n.pc == 0x8001 && clk >= 1000 && clk < 1006, "snes cpu WAI waits",
            "after run to 1000: waiting=%d PC=%04X clock=%llu (3 cycles then idle)", waiting, n.pc,
            (unsigned long long)clk);
    snes_cpu_set_irq(&t.cpu, 1, clk);
    snes_cpu_run(&t.cpu, clk + 30); /* wake (i set): LDA #$42 runs, not the handler */
    snes_cpu_get_regs(&t.cpu, &n);
    t_check(t.cpu.s.waiting && n.a == 0x42 && n.pc == 0x8004,
            "snes cpu WAI with i set resumes without servicing",
            "A=%04X PC=%04X waiting=%d (LDA #$42 ran, then the second WAI)", n.a, n.pc, t.cpu.s.waiting);
    snes_cpu_set_irq(&t.cpu, 0, t.cpu.s.clock);
    n.pc = 0x8003;
    n.p = 0x30; /* i clear; back to the second WAI */
    snes_cpu_set_regs(&t.cpu, &n);
    t.cpu.s.waiting = 0;
    snes_cpu_run(&t.cpu, t.cpu.s.clock + 600);
    int w2 = t.cpu.s.waiting;
    snes_cpu_set_irq(&t.cpu, 1, t.cpu.s.clock);
    snes_cpu_run(&t.cpu, t.cpu.s.clock + 100);
    snes_cpu_get_regs(&t.cpu, &n);
    t_check(w2 && n.pbr == 0 && n.pc == 0x9000 && t.mem[0x1FD] == 0x04 && t.mem[0x1FE] == 0x80,
            "snes cpu WAI with i clear services the IRQ", "waited=%d, then PC=%04X, pushed PCL=%02X (after WAI)", w2,
            n.pc, t.mem[0x1FD]);

    /* STP: nothing runs until reset; the clock still reaches the limit. */
    memset(t.mem, 0, 1u << 24);
    tm_poke(&t, 0x008000, "DB EA");
    tm_poke(&t, 0x00FFFC, "01 80"); /* reset goes to the NOP */
    n = (snes_cpu_regs){0, 0, 0, 0x1FF, 0, 0x8000, 0, 0, 0x30, 1};
    snes_cpu_init(&t.cpu, &t.bus);
    snes_cpu_set_regs(&t.cpu, &n);
    snes_cpu_set_nmi(&t.cpu, 0);
    t.cpu.s.nmi_pending = 0; /* no interrupt before STP */
    snes_cpu_run(&t.cpu, 500);
    snes_cpu_get_regs(&t.cpu, &n);
    uint64_t cyc = t.cpu.s.cycles;
    snes_cpu_set_nmi(&t.cpu, t.cpu.s.clock);
    snes_cpu_run(&t.cpu, 1000);
    snes_cpu_regs n2;
    snes_cpu_get_regs(&t.cpu, &n2);
    int stopped = t.cpu.s.stopped;
    snes_cpu_reset(&t.cpu);
    snes_cpu_step(&t.cpu);
    snes_cpu_regs n3;
    snes_cpu_get_regs(&t.cpu, &n3);
    t_check(stopped && cyc == 3 && n.pc == 0x8001 && n2.pc == 0x8001 && t.cpu.s.clock >= 1000 && n3.pc == 0x8002 &&
                !t.cpu.s.stopped,
            "snes cpu STP stops until reset", "3 cycles then stopped (PC=%04X, NMI ignored: PC=%04X); after reset and "
            "one step PC=%04X", n.pc, n2.pc, n3.pc);
    free(t.mem);
}

/* ---- the fast bus against the reference bus --------------------------------------------- */

/* Fast bus machine: 16 MiB of memory; pages $00-$3F:$2000-$5FFF go through the slow
 * callbacks (same memory, 12 clocks); banks $80+ are 6-clock pages, the rest 8. The
 * reference bus uses the same lengths. */
typedef struct {
    uint8_t *mem;
    uint64_t slow_reads, slow_writes;
} fastmem;

static unsigned len_of(uint32_t a)
{
    uint32_t bank = a >> 16, off = a & 0xFFFF;
    if (bank < 0x40 && off >= 0x2000 && off < 0x6000)
        return 12;
    return bank >= 0x80 ? 6 : 8;
}

static uint8_t slow_rd(void *ctx, uint32_t a, uint64_t *clock)
{
    fastmem *f = ctx;
    f->slow_reads++;
    *clock += len_of(a);
    return f->mem[a];
}

static void slow_wr(void *ctx, uint32_t a, uint8_t v, uint64_t *clock)
{
    fastmem *f = ctx;
    f->slow_writes++;
    *clock += len_of(a);
    f->mem[a] = v;
}

static void fast_bus_init(snes_cpu_bus *b, fastmem *f)
{
    memset(b, 0, sizeof *b);
    b->ctx = f;
    b->read = slow_rd;
    b->write = slow_wr;
    for (uint32_t p = 0; p < SNES_CPU_PAGES; p++) {
        uint32_t a = p << SNES_CPU_PAGE_SHIFT;
        int slow = len_of(a) == 12;
        b->page[p].r = slow ? NULL : f->mem + a;
        b->page[p].w = slow ? NULL : f->mem + a;
        b->page[p].len = len_of(a);
    }
}

typedef struct {
    uint8_t *mem;
} refmem;

static unsigned ref_cyc(void *ctx, uint32_t addr, uint8_t *v, unsigned fl, uint64_t clock)
{
    refmem *r = ctx;
    (void)clock;
    if (fl & SNES_CYC_WRITE)
        r->mem[addr] = *v;
    else if (fl & (SNES_CYC_VDA | SNES_CYC_VPA | SNES_CYC_VPB))
        *v = r->mem[addr];
    else
        return 6;
    return len_of(addr);
}

static uint64_t xs = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void)
{
    xs ^= xs << 13;
    xs ^= xs >> 7;
    xs ^= xs << 17;
    return (uint32_t)(xs >> 32);
}

/* Random bytes in the code and data areas and random registers; STP, WAI are replaced so
 * that the stream keeps running. The two machines step together and are compared after
 * every instruction (registers, clock, cycle count) and at the end (all of memory). */
static void test_fast_vs_ref(void)
{
    const uint32_t size = 1u << 24;
    fastmem fm = {calloc(size, 1), 0, 0};
    refmem rm = {calloc(size, 1)};
    snes_cpu_bus *fb = calloc(1, sizeof *fb), *rb = calloc(1, sizeof *rb);
    if (!fm.mem || !rm.mem || !fb || !rb) {
        printf("FAIL snes cpu fast vs reference: out of memory\n");
        exit(1);
    }
    fast_bus_init(fb, &fm);
    rb->ctx = &rm;
    rb->cycle = ref_cyc;
    long steps = 0, mismatches = 0;
    char first[256] = "";
    for (int round = 0; round < 200; round++) {
        /* random contents where the random streams will mostly go */
        for (int k = 0; k < 4096; k++) {
            uint32_t a = rnd() & 0xFFFFFF;
            fm.mem[a] = rm.mem[a] = (uint8_t)rnd();
        }
        uint32_t base = ((rnd() % 3 == 0) ? 0x808000u : 0x008000u) | ((rnd() & 0x3F) << 16);
        for (int k = 0; k < 512; k++) {
            uint8_t b = (uint8_t)rnd();
            if (b == 0xDB || b == 0xCB)
                b = 0xEA;
            fm.mem[(base + (uint32_t)k) & 0xFFFFFF] = rm.mem[(base + (uint32_t)k) & 0xFFFFFF] = b;
        }
        for (uint32_t v = 0xFFE0; v < 0x10000; v++) /* vectors into the code area */
            fm.mem[v] = rm.mem[v] = (v & 1) ? 0x80 : (uint8_t)rnd();
        snes_cpu f, r;
        snes_cpu_init(&f, fb);
        snes_cpu_init(&r, rb);
        snes_cpu_regs g = {(uint16_t)rnd(), (uint16_t)rnd(), (uint16_t)rnd(), (uint16_t)rnd(),
                           (uint16_t)(rnd() % 3 ? rnd() & 0xFF00 : rnd()), (uint16_t)base, (uint8_t)rnd(),
                           (uint8_t)(base >> 16), (uint8_t)rnd(), (uint8_t)(rnd() & 1)};
        snes_cpu_set_regs(&f, &g);
        snes_cpu_set_regs(&r, &g);
        for (int k = 0; k < 300; k++) {
            if (k == 150) { /* an NMI and an IRQ in the middle, at the same clock */
                snes_cpu_set_nmi(&f, f.s.clock);
                snes_cpu_set_nmi(&r, r.s.clock);
                snes_cpu_set_irq(&f, 1, f.s.clock);
                snes_cpu_set_irq(&r, 1, r.s.clock);
            }
            int nf = snes_cpu_step(&f), nr = snes_cpu_step(&r);
            steps++;
            snes_cpu_regs a, b;
            snes_cpu_get_regs(&f, &a);
            snes_cpu_get_regs(&r, &b);
            if (nf != nr || f.s.clock != r.s.clock || memcmp(&a, &b, sizeof a) != 0 || f.s.mdr != r.s.mdr) {
                if (!mismatches++)
                    snprintf(first, sizeof first,
                             "round %d step %d: cycles %d/%d clock %llu/%llu PC %02X:%04X/%02X:%04X A %04X/%04X", round, k,
                             nf, nr, (unsigned long long)f.s.clock, (unsigned long long)r.s.clock, a.pbr, a.pc, b.pbr,
                             b.pc, a.a, b.a);
                break;
            }
        }
    }
    int memdiff = memcmp(fm.mem, rm.mem, size) != 0;
    t_check(mismatches == 0 && !memdiff && fm.slow_reads > 0 && fm.slow_writes > 0,
            "snes cpu fast bus equals reference bus on random streams",
            "%ld instructions in 200 random programs (with NMI/IRQ, slow 12-clock pages, 6/8-clock pages): %ld "
            "mismatches, memory %s; %llu slow reads, %llu slow writes%s%s",
            steps, mismatches, memdiff ? "differs" : "identical", (unsigned long long)fm.slow_reads,
            (unsigned long long)fm.slow_writes, first[0] ? "; " : "", first);

    /* snes_cpu_run on a program: the same clock and state as stepping on the reference. */
    memset(fm.mem, 0, size);
    memset(rm.mem, 0, size);
    /* 16-bit checksum loop over $7E:0000-$7E:0FFF, 50 times:
     *   8000 REP #$30; LDA #$0000; LDX #$0000; CLC
     *   8008 ADC $7E0000,X; INX; INX; CPX #$1000; BNE 8008
     *   8014 STA $0100; LDY $0102; INY; STY $0102; CPY #50; BNE 8000; STP
     * (with 16-bit index X, ADC al,X reads $7E0000+X) */
    static const uint8_t prog[] = {0xC2, 0x30, 0xA9, 0x00, 0x00, 0xA2, 0x00, 0x00, 0x18, 0x7F, 0x00, 0x00, 0x7E,
                                   0xE8, 0xE8, 0xE0, 0x00, 0x10, 0xD0, 0xF5, 0x8D, 0x00, 0x01, 0xAC, 0x02, 0x01,
                                   0xC8, 0x8C, 0x02, 0x01, 0xC0, 0x32, 0x00, 0xD0, 0xDD, 0xDB};
    memcpy(fm.mem + 0x8000, prog, sizeof prog);
    memcpy(rm.mem + 0x8000, prog, sizeof prog);
    for (int k = 0; k < 4096; k++)
        fm.mem[0x7E0000 + k] = rm.mem[0x7E0000 + k] = (uint8_t)rnd();
    snes_cpu f, r;
    snes_cpu_init(&f, fb);
    snes_cpu_init(&r, rb);
    snes_cpu_regs g = {0, 0, 0, 0x1FF, 0, 0x8000, 0, 0, 0x34, 0}; /* native */
    snes_cpu_set_regs(&f, &g);
    snes_cpu_set_regs(&r, &g);
    while (!r.s.stopped)
        snes_cpu_step(&r);
    snes_cpu_run(&f, r.s.clock); /* STP ends exactly at the reference's clock */
    snes_cpu_regs a, b;
    snes_cpu_get_regs(&f, &a);
    snes_cpu_get_regs(&r, &b);
    /* expected checksum: the (random) words added mod $10000 (CPX leaves the carry clear
     * before each ADC) */
    uint32_t sum = 0;
    for (int k = 0; k < 4096; k += 2)
        sum += (uint32_t)(rm.mem[0x7E0000 + k] | rm.mem[0x7E0000 + k + 1] << 8);
    uint16_t got = (uint16_t)(fm.mem[0x100] | fm.mem[0x101] << 8);
    t_check(f.s.stopped && f.s.cycles == r.s.cycles && f.s.clock == r.s.clock && got == (uint16_t)sum &&
                b.a == a.a && !memcmp(&a, &b, sizeof a) &&
                !memcmp(fm.mem, rm.mem, size),
            "snes cpu run (fast) equals step (reference) on a checksum loop",
            "sum %04X (want %04X), %llu cycles fast, %llu reference; clocks %llu, %llu", got, (uint16_t)sum,
            (unsigned long long)f.s.cycles, (unsigned long long)r.s.cycles, (unsigned long long)f.s.clock,
            (unsigned long long)r.s.clock);

    /* Speed: the same loop on the fast bus, repeated; information only. */
    double t0 = gv_now(), el = 0;
    uint64_t cycles = 0;
    int reps = 0;
    do {
        snes_cpu_init(&f, fb);
        snes_cpu_set_regs(&f, &g);
        fm.mem[0x102] = fm.mem[0x103] = 0;
        snes_cpu_run(&f, UINT64_MAX / 2);
        cycles += f.s.cycles;
        reps++;
        el = gv_now() - t0;
    } while (el < 0.3);
    printf("info snes cpu speed: %.1f million 65816 cycles/s on the fast bus (%d runs of a 16-bit checksum "
           "loop, %.2f s; not asserted)\n", cycles / el / 1e6, reps, el);

    /* A mixed 8-bit workload: d,X read-modify-store, JSR/RTS, PHA/PLA, a,X, branches.
     *   8000 SEP #$30; 8002 LDX #0; 8004 LDA $10,X; CLC; ADC #1; STA $10,X; JSR $9000;
     *   INX; CPX #$40; BNE 8004; BRA 8002
     *   9000 PHA; LDA $0200,X; EOR $20; STA $0200,X; PLA; RTS */
    static const uint8_t mixed[] = {0xE2, 0x30, 0xA2, 0x00, 0xB5, 0x10, 0x18, 0x69, 0x01, 0x95, 0x10,
                                    0x20, 0x00, 0x90, 0xE8, 0xE0, 0x40, 0xD0, 0xF1, 0x80, 0xED};
    static const uint8_t sub[] = {0x48, 0xBD, 0x00, 0x02, 0x45, 0x20, 0x9D, 0x00, 0x02, 0x68, 0x60};
    memcpy(fm.mem + 0x8000, mixed, sizeof mixed);
    memcpy(fm.mem + 0x9000, sub, sizeof sub);
    snes_cpu_init(&f, fb);
    snes_cpu_set_regs(&f, &g);
    t0 = gv_now();
    do {
        snes_cpu_run(&f, f.s.clock + 20000000);
        el = gv_now() - t0;
    } while (el < 0.3);
    printf("info snes cpu speed: %.1f million 65816 cycles/s on the fast bus (mixed 8-bit loop with JSR/RTS, "
           "stack, d,X and a,X; %.2f s; not asserted)\n", f.s.cycles / el / 1e6, el);
    free(fm.mem);
    free(rm.mem);
    free(fb);
    free(rb);
}


/* ---- cycle counts of all 256 opcodes against Clark's formulas ----------------------- */

/* Clark's "65C816 Opcodes" cycle column per opcode, with m and x the flag values (1 for
 * 8 bits), w = 1 when DL != 0, e = 1 in emulation mode, and no page crossing (the index
 * registers are 0). "b" marks a branch: 2, plus 1 when taken (offset 0, no page cross). */
static const char *const clark_cycles[256] = {
    /* 00 */ "8-e", "7-m+w", "8-e", "5-m", "7-2m+w", "4-m+w", "7-2m+w", "7-m+w",
    /* 08 */ "3", "3-m", "2", "4", "8-2m", "5-m", "8-2m", "6-m",
    /* 10 */ "b", "7-m+w-x", "6-m+w", "8-m", "7-2m+w", "5-m+w", "8-2m+w", "7-m+w",
    /* 18 */ "2", "6-m-x", "2", "2", "8-2m", "6-m-x", "9-2m", "6-m",
    /* 20 */ "6", "7-m+w", "8", "5-m", "4-m+w", "4-m+w", "7-2m+w", "7-m+w",
    /* 28 */ "4", "3-m", "2", "5", "5-m", "5-m", "8-2m", "6-m",
    /* 30 */ "b", "7-m+w-x", "6-m+w", "8-m", "5-m+w", "5-m+w", "8-2m+w", "7-m+w",
    /* 38 */ "2", "6-m-x", "2", "2", "6-m-x", "6-m-x", "9-2m", "6-m",
    /* 40 */ "7-e", "7-m+w", "2", "5-m", "7", "4-m+w", "7-2m+w", "7-m+w",
    /* 48 */ "4-m", "3-m", "2", "3", "3", "5-m", "8-2m", "6-m",
    /* 50 */ "b", "7-m+w-x", "6-m+w", "8-m", "7", "5-m+w", "8-2m+w", "7-m+w",
    /* 58 */ "2", "6-m-x", "4-x", "2", "4", "6-m-x", "9-2m", "6-m",
    /* 60 */ "6", "7-m+w", "6", "5-m", "4-m+w", "4-m+w", "7-2m+w", "7-m+w",
    /* 68 */ "5-m", "3-m", "2", "6", "5", "5-m", "8-2m", "6-m",
    /* 70 */ "b", "7-m+w-x", "6-m+w", "8-m", "5-m+w", "5-m+w", "8-2m+w", "7-m+w",
    /* 78 */ "2", "6-m-x", "5-x", "2", "6", "6-m-x", "9-2m", "6-m",
    /* 80 */ "3", "7-m+w", "4", "5-m", "4-x+w", "4-m+w", "4-x+w", "7-m+w",
    /* 88 */ "2", "3-m", "2", "3", "5-x", "5-m", "5-x", "6-m",
    /* 90 */ "b", "7-m+w", "6-m+w", "8-m", "5-x+w", "5-m+w", "5-x+w", "7-m+w",
    /* 98 */ "2", "6-m", "2", "2", "5-m", "6-m", "6-m", "6-m",
    /* A0 */ "3-x", "7-m+w", "3-x", "5-m", "4-x+w", "4-m+w", "4-x+w", "7-m+w",
    /* A8 */ "2", "3-m", "2", "4", "5-x", "5-m", "5-x", "6-m",
    /* B0 */ "b", "7-m+w-x", "6-m+w", "8-m", "5-x+w", "5-m+w", "5-x+w", "7-m+w",
    /* B8 */ "2", "6-m-x", "2", "2", "6-2x", "6-m-x", "6-2x", "6-m",
    /* C0 */ "3-x", "7-m+w", "3", "5-m", "4-x+w", "4-m+w", "7-2m+w", "7-m+w",
    /* C8 */ "2", "3-m", "2", "3", "5-x", "5-m", "8-2m", "6-m",
    /* D0 */ "b", "7-m+w-x", "6-m+w", "8-m", "6+w", "5-m+w", "8-2m+w", "7-m+w",
    /* D8 */ "2", "6-m-x", "4-x", "3", "6", "6-m-x", "9-2m", "6-m",
    /* E0 */ "3-x", "7-m+w", "3", "5-m", "4-x+w", "4-m+w", "7-2m+w", "7-m+w",
    /* E8 */ "2", "3-m", "2", "3", "5-x", "5-m", "8-2m", "6-m",
    /* F0 */ "b", "7-m+w-x", "6-m+w", "8-m", "5", "5-m+w", "8-2m+w", "7-m+w",
    /* F8 */ "2", "6-m-x", "5-x", "2", "8", "6-m-x", "9-2m", "6-m",
};

static int eval_formula(const char *f, int m, int x, int w, int e, int taken)
{
    if (f[0] == 'b')
        return 2 + taken;
    int v = (int)strtol(f, (char **)&f, 10);
    while (*f) {
        int sign = *f++ == '-' ? -1 : 1, k = 1;
        if (*f >= '0' && *f <= '9')
            k = (int)strtol(f, (char **)&f, 10);
        char t = *f++;
        int val = t == 'm' ? m : t == 'x' ? x : t == 'w' ? w : e;
        v += sign * k * val;
    }
    return v;
}

/* A bus where every byte reads 0 except the opcode at 00:8000; writes are dropped. */
static uint8_t cc_opcode;
static unsigned cc_cycle(void *ctx, uint32_t addr, uint8_t *v, unsigned fl, uint64_t clock)
{
    (void)ctx, (void)clock;
    if (!(fl & SNES_CYC_WRITE) && (fl & (SNES_CYC_VDA | SNES_CYC_VPA | SNES_CYC_VPB)))
        *v = addr == 0x008000 ? cc_opcode : 0;
    return 8;
}

static void test_cycle_formulas(void)
{
    snes_cpu_bus *bus = calloc(1, sizeof *bus);
    bus->cycle = cc_cycle;
    /* e, p: emulation; native with each of the four width pairs; each with DL = 0 and 1,
     * and with the flags clear and then set (so that each branch goes both ways). */
    static const struct { int e; uint8_t p; } modes[] = {{1, 0x30}, {0, 0x30}, {0, 0x20}, {0, 0x10}, {0, 0x00}};
    int checked = 0, bad = 0;
    char first[200] = "";
    for (int mi = 0; mi < 5; mi++) {
        for (int w = 0; w < 2; w++) {
            for (int fl = 0; fl < 2; fl++) {
                for (int op = 0; op < 256; op++) {
                    uint8_t p = (uint8_t)(modes[mi].p | (fl ? 0xC3 : 0)); /* n v z c */
                    int m = (p & 0x20) != 0, x = (p & 0x10) != 0, e = modes[mi].e;
                    int taken = 0;
                    switch (op) {
                    case 0x10: taken = !(p & 0x80); break;
                    case 0x30: taken = (p & 0x80) != 0; break;
                    case 0x50: taken = !(p & 0x40); break;
                    case 0x70: taken = (p & 0x40) != 0; break;
                    case 0x90: taken = !(p & 0x01); break;
                    case 0xB0: taken = (p & 0x01) != 0; break;
                    case 0xD0: taken = !(p & 0x02); break;
                    case 0xF0: taken = (p & 0x02) != 0; break;
                    }
                    snes_cpu c;
                    snes_cpu_init(&c, bus);
                    snes_cpu_regs r = {0, 0, 0, 0x01F0, (uint16_t)(w ? 0x0001 : 0x0000), 0x8000, 0, 0, p, (uint8_t)e};
                    snes_cpu_set_regs(&c, &r);
                    cc_opcode = (uint8_t)op;
                    int got = snes_cpu_step(&c);
                    int want = eval_formula(clark_cycles[op], m, x, w, e, taken);
                    checked++;
                    if (got != want && !bad++)
                        snprintf(first, sizeof first, "opcode %02X e=%d m=%d x=%d w=%d: %d cycles, formula %s gives %d",
                                 op, e, m, x, w, got, clark_cycles[op], want);
                }
            }
        }
    }
    t_check(bad == 0, "snes cpu cycle counts of all opcodes (Clark's formulas)",
            "%d opcode/mode/width/DL/flag combinations, %d differ%s%s", checked, bad, first[0] ? "; " : "", first);
    free(bus);
}

int main(void)
{
    test_cycle_formulas();
    test_cases();
    test_block_moves();
    test_interrupts();
    test_fast_vs_ref();
    return t_done();
}
