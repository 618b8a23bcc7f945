/* fuzz_snes_msu.c: fuzz_snes_rom.c with every program an MSU-1 cartridge (its head comment).
 *   make fuzz-snes_msu FUZZ_SECONDS=300 */
#define FUZZ_SNES_CHIP 3
#include "fuzz_snes_rom.c"
