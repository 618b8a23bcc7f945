/* common.h: what gpuvet's own Game Boy test ROMs share: register addresses, the
 * interrupt hooks of crt0.s, serial output, counted checks and the pass/fail report
 * (serial text plus the register signature B,C,D,E,H,L = 3,5,8,13,21,34 after LD B,B;
 * $42 in each on failure). Built with SDCC's sm83 port. */
#ifndef GB_TEST_COMMON_H
#define GB_TEST_COMMON_H

#include <stdint.h>

#define REG(a) (*(volatile uint8_t *)(a))
#define rP1 REG(0xFF00)
#define rSB REG(0xFF01)
#define rSC REG(0xFF02)
#define rDIV REG(0xFF04)
#define rTIMA REG(0xFF05)
#define rTMA REG(0xFF06)
#define rTAC REG(0xFF07)
#define rIF REG(0xFF0F)
#define rNR10 REG(0xFF10)
#define rNR11 REG(0xFF11)
#define rNR12 REG(0xFF12)
#define rNR13 REG(0xFF13)
#define rNR14 REG(0xFF14)
#define rNR21 REG(0xFF16)
#define rNR22 REG(0xFF17)
#define rNR23 REG(0xFF18)
#define rNR24 REG(0xFF19)
#define rNR30 REG(0xFF1A)
#define rNR31 REG(0xFF1B)
#define rNR32 REG(0xFF1C)
#define rNR33 REG(0xFF1D)
#define rNR34 REG(0xFF1E)
#define rNR41 REG(0xFF20)
#define rNR42 REG(0xFF21)
#define rNR43 REG(0xFF22)
#define rNR44 REG(0xFF23)
#define rNR50 REG(0xFF24)
#define rNR51 REG(0xFF25)
#define rNR52 REG(0xFF26)
#define WAVE_RAM ((volatile uint8_t *)0xFF30)
#define rLCDC REG(0xFF40)
#define rSTAT REG(0xFF41)
#define rSCY REG(0xFF42)
#define rSCX REG(0xFF43)
#define rLY REG(0xFF44)
#define rLYC REG(0xFF45)
#define rDMA REG(0xFF46)
#define rBGP REG(0xFF47)
#define rOBP0 REG(0xFF48)
#define rOBP1 REG(0xFF49)
#define rWY REG(0xFF4A)
#define rWX REG(0xFF4B)
#define rKEY1 REG(0xFF4D)
#define rVBK REG(0xFF4F)
#define rBCPS REG(0xFF68)
#define rBCPD REG(0xFF69)
#define rOCPS REG(0xFF6A)
#define rOCPD REG(0xFF6B)
#define rSVBK REG(0xFF70)
#define rIE REG(0xFFFF)

#define VRAM ((volatile uint8_t *)0x8000)
#define OAM ((volatile uint8_t *)0xFE00)

extern uint8_t boot_a;
extern void (*hook_vblank)(void);
extern void (*hook_stat)(void);
extern void (*hook_timer)(void);
extern void (*hook_serial)(void);
extern void (*hook_joypad)(void);

#define IS_CGB() (boot_a == 0x11)

void ser_putc(char c);
void ser_puts(const char *s);
void ser_hex8(uint8_t v);
void ser_hex16(uint16_t v);
/* Prints "Passed"/"Failed", sets the register signature, executes LD B,B and stops. */
void report(uint8_t ok);
/* Counts a check; a failed one prints "FAIL what got GG want WW" (the first CHECK_SHOWN
 * failures). */
#define CHECK_SHOWN 16
void check(uint8_t ok, const char *what, uint8_t got, uint8_t want);
uint16_t check_failures(void); /* failed checks so far */
/* Prints "checks NNNN failures NNNN" and reports: passed when no check failed. */
void report_checks(void);
/* Waits for the start of VBlank (LY = 144) by polling. */
void wait_vblank(void);
/* Turns the LCD off safely (waits for VBlank first). */
void lcd_off(void);

#endif
