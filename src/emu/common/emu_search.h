/* emu_search.h: the binary search the consoles' audio renderers share, on the host and on
 * the device: a frame's keyframes (Game Boy) or oscillator spans (NES) are sorted by their
 * start time, and a renderer looks up the one in force at a time t. A macro, so that it
 * works on any record type and key width and inlines into the kernels like the code
 * around it. */
#ifndef GV_EMU_COMMON_EMU_SEARCH_H
#define GV_EMU_COMMON_EMU_SEARCH_H

#include <stdint.h>

/* idx = the index of the last of arr[0..n) whose member key is <= t, for keys in
 * increasing order with arr[0].key <= t (0 when n <= 1). */
#define EMU_FIND_LAST_LE(idx, arr, n, key, t)                                                    \
    do {                                                                                          \
        uint32_t lo_ = 0, hi_ = (n);                                                              \
        while (hi_ - lo_ > 1) {                                                                   \
            uint32_t mid_ = (lo_ + hi_) / 2;                                                      \
            if ((arr)[mid_].key <= (t))                                                           \
                lo_ = mid_;                                                                       \
            else                                                                                  \
                hi_ = mid_;                                                                       \
        }                                                                                         \
        (idx) = lo_;                                                                              \
    } while (0)

#endif
