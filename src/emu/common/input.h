/* input.h: controller input from a movie file, the same format for every console.
 *
 * A movie is plain text, one event per line:
 *
 *     # gpuvet input movie: comments start with '#'; blank lines are ignored
 *     0:                  nothing held from frame 0 on
 *     120: Start          Start held from frame 120 (the 121st frame after power-on)...
 *     125:                ...until frame 125
 *     300: A Right        several buttons: names separated by spaces (or '+')
 *     400: TiltX=-16384   an analog axis (a console's axes: the Game Boy's TiltX TiltY)
 *
 * FRAME is the machine's frame counter when the frame begins (0 = the first frame after
 * power-on; a loaded save state continues its own count), events in increasing order;
 * the buttons of an event are held until the next event. Button names are the console's
 * (emu_console.buttons: NES "A B Select Start Up Down Left Right", Game Boy "A B Select
 * Start Right Left Up Down"), in any case. NAME=VALUE sets analog axis NAME (emu_console.axes,
 * in any case) to VALUE, a decimal integer from -32768 to 32767; an axis an event does not
 * name is 0 (centred) until the next event, as its buttons are held only until then.
 * Anything else is a one-line error naming the file and line. */
#ifndef GV_EMU_COMMON_INPUT_H
#define GV_EMU_COMMON_INPUT_H

#include <stdint.h>

#include "emu/common/console.h"

typedef struct {
    uint64_t frame;
    emu_buttons buttons;
    int16_t axes[EMU_MAX_AXES]; /* in the order of the console's axes */
} emu_input_event;

typedef struct {
    emu_input_event *ev; /* in increasing frame order */
    int n;
    uint64_t hash;       /* XXH3-64 of the file, for records */
} emu_movie;

#define EMU_MOVIE_MAX_EVENTS 10000000
/* The largest frame number an event may name: frame counters are compared as signed 64-bit
 * counts in places, and no run gets near it (2^63 - 1). */
#define EMU_MOVIE_MAX_FRAME ((uint64_t)INT64_MAX)

/* Parses text (len bytes) for console con; name labels errors. */
gv_status emu_movie_parse(const char *text, size_t len, const char *name, const emu_console *con, emu_movie *m,
                          gv_err *err);
gv_status emu_movie_load(const char *path, const emu_console *con, emu_movie *m, gv_err *err);
/* The buttons held during frame `frame`. */
emu_buttons emu_movie_at(const emu_movie *m, uint64_t frame);
/* The axes during frame `frame` (EMU_MAX_AXES values into out). */
void emu_movie_axes(const emu_movie *m, uint64_t frame, int16_t *out);
void emu_movie_free(emu_movie *m);

#endif
