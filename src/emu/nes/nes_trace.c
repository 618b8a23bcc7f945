/* nes_trace.c: one line per instruction in the layout of the widely used nestest log
 * (Nintendulator's): PC, opcode bytes, disassembly with the effective address and the value
 * there before the instruction runs (unofficial opcodes marked '*'), A X Y P SP, the PPU's
 * line and dot, the CPU cycle count. Memory is read with nes_peek, without side effects. */
#include "emu/nes/nes_int.h"

#include <stdio.h>
#include <string.h>

enum { IMP, ACC, IMM, ZP, ZPX, ZPY, ABS, ABX, ABY, IND, IZX, IZY, REL };

/* Mnemonic of each opcode; a leading '*' marks an unofficial one. */
static const char *const names[256] = {
    "BRK", "ORA", "*KIL", "*SLO", "*NOP", "ORA", "ASL", "*SLO", "PHP", "ORA", "ASL", "*ANC", "*NOP", "ORA", "ASL", "*SLO",
    "BPL", "ORA", "*KIL", "*SLO", "*NOP", "ORA", "ASL", "*SLO", "CLC", "ORA", "*NOP", "*SLO", "*NOP", "ORA", "ASL", "*SLO",
    "JSR", "AND", "*KIL", "*RLA", "BIT", "AND", "ROL", "*RLA", "PLP", "AND", "ROL", "*ANC", "BIT", "AND", "ROL", "*RLA",
    "BMI", "AND", "*KIL", "*RLA", "*NOP", "AND", "ROL", "*RLA", "SEC", "AND", "*NOP", "*RLA", "*NOP", "AND", "ROL", "*RLA",
    "RTI", "EOR", "*KIL", "*SRE", "*NOP", "EOR", "LSR", "*SRE", "PHA", "EOR", "LSR", "*ALR", "JMP", "EOR", "LSR", "*SRE",
    "BVC", "EOR", "*KIL", "*SRE", "*NOP", "EOR", "LSR", "*SRE", "CLI", "EOR", "*NOP", "*SRE", "*NOP", "EOR", "LSR", "*SRE",
    "RTS", "ADC", "*KIL", "*RRA", "*NOP", "ADC", "ROR", "*RRA", "PLA", "ADC", "ROR", "*ARR", "JMP", "ADC", "ROR", "*RRA",
    "BVS", "ADC", "*KIL", "*RRA", "*NOP", "ADC", "ROR", "*RRA", "SEI", "ADC", "*NOP", "*RRA", "*NOP", "ADC", "ROR", "*RRA",
    "*NOP", "STA", "*NOP", "*SAX", "STY", "STA", "STX", "*SAX", "DEY", "*NOP", "TXA", "*XAA", "STY", "STA", "STX", "*SAX",
    "BCC", "STA", "*KIL", "*AHX", "STY", "STA", "STX", "*SAX", "TYA", "STA", "TXS", "*TAS", "*SHY", "STA", "*SHX", "*AHX",
    "LDY", "LDA", "LDX", "*LAX", "LDY", "LDA", "LDX", "*LAX", "TAY", "LDA", "TAX", "*LAX", "LDY", "LDA", "LDX", "*LAX",
    "BCS", "LDA", "*KIL", "*LAX", "LDY", "LDA", "LDX", "*LAX", "CLV", "LDA", "TSX", "*LAS", "LDY", "LDA", "LDX", "*LAX",
    "CPY", "CMP", "*NOP", "*DCP", "CPY", "CMP", "DEC", "*DCP", "INY", "CMP", "DEX", "*AXS", "CPY", "CMP", "DEC", "*DCP",
    "BNE", "CMP", "*KIL", "*DCP", "*NOP", "CMP", "DEC", "*DCP", "CLD", "CMP", "*NOP", "*DCP", "*NOP", "CMP", "DEC", "*DCP",
    "CPX", "SBC", "*NOP", "*ISB", "CPX", "SBC", "INC", "*ISB", "INX", "SBC", "NOP", "*SBC", "CPX", "SBC", "INC", "*ISB",
    "BEQ", "SBC", "*KIL", "*ISB", "*NOP", "SBC", "INC", "*ISB", "SED", "SBC", "*NOP", "*ISB", "*NOP", "SBC", "INC", "*ISB",
};

/* Addressing mode of each opcode. */
static const uint8_t modes[256] = {
    IMP, IZX, IMP, IZX, ZP, ZP, ZP, ZP, IMP, IMM, ACC, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPX, ZPX, IMP, ABY, IMP, ABY, ABX, ABX, ABX, ABX,
    ABS, IZX, IMP, IZX, ZP, ZP, ZP, ZP, IMP, IMM, ACC, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPX, ZPX, IMP, ABY, IMP, ABY, ABX, ABX, ABX, ABX,
    IMP, IZX, IMP, IZX, ZP, ZP, ZP, ZP, IMP, IMM, ACC, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPX, ZPX, IMP, ABY, IMP, ABY, ABX, ABX, ABX, ABX,
    IMP, IZX, IMP, IZX, ZP, ZP, ZP, ZP, IMP, IMM, ACC, IMM, IND, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPX, ZPX, IMP, ABY, IMP, ABY, ABX, ABX, ABX, ABX,
    IMM, IZX, IMM, IZX, ZP, ZP, ZP, ZP, IMP, IMM, IMP, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPY, ZPY, IMP, ABY, IMP, ABY, ABX, ABX, ABY, ABY,
    IMM, IZX, IMM, IZX, ZP, ZP, ZP, ZP, IMP, IMM, IMP, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPY, ZPY, IMP, ABY, IMP, ABY, ABX, ABX, ABY, ABY,
    IMM, IZX, IMM, IZX, ZP, ZP, ZP, ZP, IMP, IMM, IMP, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPX, ZPX, IMP, ABY, IMP, ABY, ABX, ABX, ABX, ABX,
    IMM, IZX, IMM, IZX, ZP, ZP, ZP, ZP, IMP, IMM, IMP, IMM, ABS, ABS, ABS, ABS,
    REL, IZY, IMP, IZY, ZPX, ZPX, ZPX, ZPX, IMP, ABY, IMP, ABY, ABX, ABX, ABX, ABX,
};

static int operand_len(int mode)
{
    switch (mode) {
    case IMP: case ACC: return 0;
    case ABS: case ABX: case ABY: case IND: return 2;
    default: return 1;
    }
}

int nes_trace_line(nes *m, char *buf, size_t len)
{
    nes_ppu_sync(m);
    const nes_cpu *c = &m->cpu;
    uint16_t pc = c->pc;
    int op = nes_peek(m, pc), mode = modes[op];
    int n = operand_len(mode);
    uint8_t b1 = nes_peek(m, (uint16_t)(pc + 1)), b2 = nes_peek(m, (uint16_t)(pc + 2));
    uint16_t w = (uint16_t)(b1 | b2 << 8);
    char bytes[16], dis[64];
    if (n == 0)
        snprintf(bytes, sizeof bytes, "%02X", op);
    else if (n == 1)
        snprintf(bytes, sizeof bytes, "%02X %02X", op, b1);
    else
        snprintf(bytes, sizeof bytes, "%02X %02X %02X", op, b1, b2);
    const char *name = names[op];
    int unoff = name[0] == '*';
    if (unoff)
        name++;
    switch (mode) {
    case IMP: snprintf(dis, sizeof dis, "%s", name); break;
    case ACC: snprintf(dis, sizeof dis, "%s A", name); break;
    case IMM: snprintf(dis, sizeof dis, "%s #$%02X", name, b1); break;
    case ZP: snprintf(dis, sizeof dis, "%s $%02X = %02X", name, b1, nes_peek(m, b1)); break;
    case ZPX:
    case ZPY: {
        uint8_t a = (uint8_t)(b1 + (mode == ZPX ? c->x : c->y));
        snprintf(dis, sizeof dis, "%s $%02X,%c @ %02X = %02X", name, b1, mode == ZPX ? 'X' : 'Y', a, nes_peek(m, a));
        break;
    }
    case ABS:
        if (op == 0x4C || op == 0x20)
            snprintf(dis, sizeof dis, "%s $%04X", name, w);
        else
            snprintf(dis, sizeof dis, "%s $%04X = %02X", name, w, nes_peek(m, w));
        break;
    case ABX:
    case ABY: {
        uint16_t a = (uint16_t)(w + (mode == ABX ? c->x : c->y));
        snprintf(dis, sizeof dis, "%s $%04X,%c @ %04X = %02X", name, w, mode == ABX ? 'X' : 'Y', a, nes_peek(m, a));
        break;
    }
    case IND: {
        uint16_t t = (uint16_t)(nes_peek(m, w) | nes_peek(m, (uint16_t)((w & 0xFF00) | ((w + 1) & 0xFF))) << 8);
        snprintf(dis, sizeof dis, "%s ($%04X) = %04X", name, w, t);
        break;
    }
    case IZX: {
        uint8_t p = (uint8_t)(b1 + c->x);
        uint16_t a = (uint16_t)(nes_peek(m, p) | nes_peek(m, (uint8_t)(p + 1)) << 8);
        snprintf(dis, sizeof dis, "%s ($%02X,X) @ %02X = %04X = %02X", name, b1, p, a, nes_peek(m, a));
        break;
    }
    case IZY: {
        uint16_t base = (uint16_t)(nes_peek(m, b1) | nes_peek(m, (uint8_t)(b1 + 1)) << 8);
        uint16_t a = (uint16_t)(base + c->y);
        snprintf(dis, sizeof dis, "%s ($%02X),Y = %04X @ %04X = %02X", name, b1, base, a, nes_peek(m, a));
        break;
    }
    default: /* REL */
        snprintf(dis, sizeof dis, "%s $%04X", name, (uint16_t)(pc + 2 + (int8_t)b1));
        break;
    }
    uint8_t p = (uint8_t)(c->fn << 7 | c->fv << 6 | 0x20 | c->fd << 3 | c->fi << 2 | c->fz << 1 | c->fc);
    return snprintf(buf, len, "%04X  %-8s %c%-32sA:%02X X:%02X Y:%02X P:%02X SP:%02X PPU:%3d,%3d CYC:%llu",
                    pc, bytes, unoff ? '*' : ' ', dis, c->a, c->x, c->y, p, c->s, m->ppu.line, m->ppu.dot,
                    (unsigned long long)m->cyc);
}

void nes_trace_emit(nes *m)
{
    char line[192];
    int n = nes_trace_line(m, line, sizeof line);
    if (n > 0)
        m->trace(m->trace_ctx, line, (size_t)n);
}
