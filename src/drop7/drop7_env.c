/* drop7_env.c: the host side of drop7_env.h that is no inline step: the message of an
 * illegal column, one text for the host and the device environments. */
#include <stdio.h>

#include "drop7/drop7_env.h"

gv_status drop7_slot_check(const drop7_slot *s, int i, int64_t a, const char *what, gv_err *err)
{
    if (drop7_slot_legal(s, a))
        return GV_OK;
    int m = drop7_legal(&s->g);
    char legal[32] = "", *p = legal;
    for (int x = 0; x < DROP7_N; x++)
        if ((m >> x) & 1)
            p += sprintf(p, "%s%d", p == legal ? "" : ",", x);
    return gv_fail(err, GV_ERR_INPUT, "%s: game %d: column %lld is %s (legal columns: %s)", what, i, (long long)a,
                   a < 0 || a >= DROP7_N ? "not a column 0..6" : "full", m ? legal : "none, the game is over");
}
