/* fuzz_snes_sa1.c: fuzz_snes_rom.c with every program an SA-1 cartridge (its head comment).
 *   make fuzz-snes_sa1 FUZZ_SECONDS=300 */
#define FUZZ_SNES_CHIP 2
#include "fuzz_snes_rom.c"
