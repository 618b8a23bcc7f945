/* fuzz_snes_gsu.c: fuzz_snes_rom.c with every program a Super FX cartridge (its head comment).
 *   make fuzz-snes_gsu FUZZ_SECONDS=300 */
#define FUZZ_SNES_CHIP 1
#include "fuzz_snes_rom.c"
