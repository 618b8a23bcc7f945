/* emu_state.h: the head the Game Boy's and the SNES's save states share (the NES's is older
 * and its own). 40 bytes, little-endian: an 8-byte magic, u32 version, three u32 words the
 * console gives its layout in (state sizes, RAM size, model), u64 ROM hash, u64 XXH3 of
 * the payload after the head. */
#ifndef GV_EMU_COMMON_EMU_STATE_H
#define GV_EMU_COMMON_EMU_STATE_H

#include <stddef.h>
#include <stdint.h>

#define EMU_STATE_HEAD 40

/* A zeroed state of EMU_STATE_HEAD + payload bytes with its head written but for the
 * payload hash (emu_state_seal writes it once the payload is in); NULL when out of memory.
 * The caller frees it with free(). */
uint8_t *emu_state_new(size_t payload, const char magic[8], uint32_t version, uint32_t w0, uint32_t w1, uint32_t w2,
                       uint64_t rom_hash);

/* Writes the payload hash of the n-byte state b. */
void emu_state_seal(uint8_t *b, size_t n);

/* Does the payload hash of the n-byte state b (n >= EMU_STATE_HEAD) match its payload? */
int emu_state_sealed(const uint8_t *b, size_t n);

/* Little-endian words of a state. */
void emu_put32(uint8_t *p, uint32_t v);
uint32_t emu_get32(const uint8_t *p);
uint64_t emu_get64(const uint8_t *p);

#endif
