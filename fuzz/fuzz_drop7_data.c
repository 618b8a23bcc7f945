/* fuzz_drop7_data.c: libFuzzer target for the self-play dataset loader (drop7_data_read on
 * the safetensors reader; make fuzz-drop7_data FUZZ_SECONDS=600). Any input must give
 * GV_OK or a clean GV_ERR_INPUT: no crash, no leak, no read outside the buffer, no undefined
 * behaviour; a dataset that loads must hold only what the loader promises. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "drop7/drop7.h"
#include "drop7/drop7_data.h"
#include "nn/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nn_st_file f;
    gv_err err;
    if (nn_st_parse(&f, "fuzz.safetensors", data, size, &err) != GV_OK)
        return 0;
    drop7_data d;
    if (drop7_data_read(&f, &d, &err) == GV_OK) {
        /* what train relies on: distributions and finite values */
        for (long i = 0; i < d.n; i++) {
            float s = 0;
            for (int a = 0; a < DROP7_N; a++)
                s += d.policy[i * DROP7_N + a];
            if (!(fabsf(s - 1) < 0.01f) || !isfinite(d.value[i]))
                abort();
        }
        drop7_data_free(&d);
    }
    nn_st_free(&f);
    return 0;
}
