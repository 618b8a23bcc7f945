/* testrom.h: the verdict of a test ROM, read the way the ROM reports it. Three protocols,
 * each watched on every console that has what it needs (emu_test_view):
 *   status block  at $6000 (NES) or $A000 (Game Boy): signature DE B0 61 at +1, a status
 *                 byte at +0 ($80 running, $81 reset wanted, else the result: 0 passed),
 *                 NUL-terminated text at +4;
 *   serial        the text shifted out of the serial port says "Passed" or "Failed";
 *   breakpoint    mooneye's: the opcode LD B,B executed with B,C,D,E,H,L = 3,5,8,13,21,34
 *                 (passed) or all $42 (failed), or else with the last six bytes sent over
 *                 the serial port equal to either (the ROM sends them before the LD B,B;
 *                 older builds of the suite load the $42s into the registers only there);
 *                 LD B,B with neither is only an instruction.
 * A ROM that reports only on screen gets no verdict, and the reason says so. */
#ifndef GV_EMU_COMMON_TESTROM_H
#define GV_EMU_COMMON_TESTROM_H

#include "emu/common/console.h"

enum {
    EMU_TEST_NONE = -1,   /* no verdict (yet) */
    EMU_TEST_FAILED = 0,
    EMU_TEST_PASSED = 1,
};

/* What the runner must do after a frame. */
typedef enum {
    EMU_TEST_GO_ON,   /* run the next frame */
    EMU_TEST_RESUME,  /* a breakpoint without a signature: re-arm it and finish the frame */
    EMU_TEST_RESET,   /* press reset now (the ROM asked for it, the delay has passed) */
    EMU_TEST_DONE,    /* the verdict is in */
} emu_test_action;

typedef struct {
    int verdict;            /* EMU_TEST_* */
    const char *protocol;   /* "status block at $6000", "serial output", "LD B,B signature: registers"
                               (or ": serial bytes"), or NULL */
    int status;             /* the status byte, or -1 when no block was seen */
    char message[512];      /* the ROM's own text (block or serial), printable, one line */
    int resets;             /* resets done on the ROM's request */
    /* the reset protocol: a request is acted on once, at least reset_delay frames after
     * it appears; a new request counts only after the status has left $81 */
    long reset_at;          /* frame of the pending reset, -1 none */
    int reset_armed;
} emu_test;

/* Frames to wait before a requested reset: the protocol asks for at least 100 ms. */
#define EMU_TEST_RESET_DELAY 7

void emu_test_init(emu_test *t);
/* Looks at the machine after frame `frame` (trapped: the breakpoint stopped it). */
emu_test_action emu_test_step(emu_test *t, const emu_test_view *v, long frame);
/* One line for people: "passed (status block at $6000): All tests passed" or why none. */
void emu_test_describe(const emu_test *t, long frames, char *buf, size_t len);

#endif
