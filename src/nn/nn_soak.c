/* nn_soak.c: the engine of `gpuvet soak` (see nn_soak.h). */
#include "nn/nn_soak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "core/record.h"
#include "nn/ckpt.h"

/* Finds a non-finite parameter, AdamW moment or running stat: returns 1 and describes it
 * in what (tensor name and index), or 0 when everything is finite. */
static int state_nonfinite(const nn_state *s, char *what, size_t len)
{
    const nn_layout *L = s->L;
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (t->kind == NN_T_NUM_BATCHES)
            continue;
        for (size_t k = 0; k < t->numel; k++) {
            size_t o = t->offset + k;
            const char *bad = NULL;
            if (t->kind != NN_T_PARAM)
                bad = isfinite(s->buffers[o]) ? NULL : "value";
            else
                bad = !isfinite(s->params[o]) ? "value" : !isfinite(s->adam_m[o]) ? "AdamW m" : !isfinite(s->adam_v[o]) ? "AdamW v" : NULL;
            if (bad) {
                snprintf(what, len, "%s of %s[%zu]", bad, t->name, k);
                return 1;
            }
        }
    }
    return 0;
}


/* One soak run on device d, the run's record into e; *pass says whether it passed. */
static gv_status soak_one(const dev_id *d, nn_dtype dt, const nn_layout *L, const nn_state *s0, const nn_soak_opts *a,
                          cJSON *e, int *pass_out, gv_err *errp)
{
    gv_err err = {{0}};
    nn_trainer *t;
    *pass_out = 0;
    gv_status s = nn_trainer_open(d, L, (nn_trainer_opts){.dtype = dt, .max_batch = a->batch, .threads = a->threads}, &t, errp);
    if (s != GV_OK)
        return s;
    nn_batch b;
    nn_batch_alloc(&b, a->batch);
    nn_batch_random(&b, a->seed + 1);
    nn_state st;
    nn_state_alloc(&st, L);
    double *curve = gv_xmalloc(sizeof(double) * (size_t)a->steps);
    for (long i = 0; i < a->steps; i++)
        curve[i] = NAN;
    s = nn_trainer_set_state(t, s0, &err);
    if (s == GV_OK)
        s = nn_trainer_set_batch(t, &b, &err);
    gv_progress pg;
    gv_progress_init(&pg);
    int finite = 1;
    long bad_step = -1;
    char bad_what[160] = "the loss";
    double t0 = gv_now();
    for (long i = 0; i < a->steps && s == GV_OK; i++) {
        s = nn_trainer_step(t, &curve[i], &err);
        if (s == GV_OK && !isfinite(curve[i])) {
            finite = 0, bad_step = i;
            break;
        }
        if (s == GV_OK && ((i + 1) % 50 == 0 || i + 1 == a->steps)) {
            nn_state_poison(&st);
            s = nn_trainer_get_state(t, &st, &err);
            if (s == GV_OK && state_nonfinite(&st, bad_what, sizeof bad_what)) {
                finite = 0, bad_step = i;
                break;
            }
        }
        gv_progress_update(&pg, "soak %s %s: step %ld/%ld, loss %.4f", d->label, nn_dtype_name(dt), i + 1, a->steps,
                           curve[i]);
    }
    double secs = gv_now() - t0;
    gv_progress_done(&pg);
    if (s != GV_OK) {
        *errp = err;
    } else {
        double first = curve[0], last = finite ? curve[a->steps - 1] : NAN;
        double ratio = first / last;
        int pass = finite && ratio >= a->min_drop;
        if (a->out)
            fprintf(a->out, "soak %s %s: %ld steps in %.1f s, loss %.4f -> %.4f (fell %.1fx, need %.0fx), %s: %s\n",
                    d->label, nn_dtype_name(dt), a->steps, secs, first, last, ratio, a->min_drop,
                    finite ? "all finite" : "NON-FINITE", pass ? "PASS" : "FAIL");
        if (a->out && !finite)
            fprintf(a->out, "soak %s: non-finite %s after step %ld\n", d->label, bad_what, bad_step + 1);
        cJSON_AddStringToObject(e, "device", d->label);
        cJSON_AddStringToObject(e, "dtype", nn_dtype_name(dt));
        cJSON_AddNumberToObject(e, "channels", L->cfg.channels);
        cJSON_AddNumberToObject(e, "blocks", L->cfg.blocks);
        cJSON_AddStringToObject(e, "norm", nn_norm_name(L->cfg.norm));
        cJSON_AddNumberToObject(e, "batch", a->batch);
        cJSON_AddNumberToObject(e, "steps", (double)a->steps);
        cJSON_AddNumberToObject(e, "seed", (double)a->seed);
        gv_json_add_num(e, "loss_first", first);
        gv_json_add_num(e, "loss_last", last);
        gv_json_add_num(e, "loss_ratio", ratio);
        cJSON_AddNumberToObject(e, "min_drop", a->min_drop);
        cJSON_AddBoolToObject(e, "finite", finite);
        if (!finite) {
            cJSON_AddNumberToObject(e, "nonfinite_step", (double)bad_step + 1);
            cJSON_AddStringToObject(e, "nonfinite_what", bad_what);
        }
        cJSON_AddBoolToObject(e, "pass", pass);
        gv_json_add_num(e, "seconds", secs);
        cJSON_AddItemToObject(e, "curve", gv_json_doubles(curve, (int)a->steps));
        *pass_out = pass;
        if (a->save && finite) {
            s = nn_trainer_get_state(t, &st, errp);
            if (s == GV_OK)
                s = nn_ckpt_save(a->save, &st, dt == NN_FP64 ? NN_ST_F64 : NN_ST_F32, errp);
            if (s == GV_OK && a->out && !a->quiet)
                fprintf(a->out, "soak: saved the trained state_dict to %s\n", a->save);
        }
    }
    free(curve);
    nn_state_free(&st);
    nn_batch_free(&b);
    nn_trainer_destroy(t);
    return s;
}


gv_status nn_soak_run(const nn_soak_opts *o, cJSON *rec, nn_soak_result *r, gv_err *err)
{
    memset(r, 0, sizeof *r);
    nn_config cfg = o->cfg;
    nn_st_file f = {0};
    if (o->init) {
        nn_config fc;
        gv_status s = nn_ckpt_open(o->init, &f, &fc, err);
        if (s != GV_OK)
            return s;
        if ((o->cfg_given & 1 && fc.channels != cfg.channels) || (o->cfg_given & 2 && fc.blocks != cfg.blocks) ||
            (o->cfg_given & 4 && fc.norm != cfg.norm)) {
            nn_st_free(&f);
            return gv_fail(err, GV_ERR_INPUT, "--init %s holds channels %d, blocks %d, %s norm: drop the flags that "
                           "differ", o->init, fc.channels, fc.blocks, nn_norm_name(fc.norm));
        }
        cfg = fc;
    }
    gv_status s = nn_config_check(&cfg, err);
    if (s != GV_OK) {
        nn_st_free(&f);
        return s;
    }
    if (o->save && o->ndev * o->ndtypes != 1) {
        nn_st_free(&f);
        return gv_fail(err, GV_ERR_INPUT, "--save needs a single device and dtype (one trained state to write)");
    }
    nn_layout L;
    nn_layout_init(&L, &cfg);
    for (int d = 0; d < o->ndev && s == GV_OK; d++)
        for (int k = 0; k < o->ndtypes && s == GV_OK; k++)
            if (nn_dtype_on(&o->devs[d], o->dtypes[k]))
                s = nn_fits(&o->devs[d], &L, &(nn_trainer_opts){.dtype = o->dtypes[k], .max_batch = o->batch}, err);
    if (s != GV_OK) {
        nn_st_free(&f);
        nn_layout_free(&L);
        return s;
    }
    nn_state s0;
    nn_state_alloc(&s0, &L);
    nn_state_init_random(&s0, o->seed);
    if (o->init) {
        s = nn_ckpt_read_state(&f, "", &s0, err);
        nn_st_free(&f);
        if (s != GV_OK) {
            nn_state_free(&s0);
            nn_layout_free(&L);
            return s;
        }
    }
    cJSON *runs = gv_json_add_arr(rec, "soak_runs");
    if (o->out && !o->quiet)
        fprintf(o->out, "soak: channels %d, blocks %d, %s norm, batch %d, %ld steps%s%s\n", cfg.channels, cfg.blocks,
                nn_norm_name(cfg.norm), o->batch, o->steps, o->init ? ", from " : "", o->init ? o->init : "");
    for (int d = 0; d < o->ndev && s == GV_OK; d++)
        for (int k = 0; k < o->ndtypes && s == GV_OK; k++) {
            nn_dtype dt = o->dtypes[k];
            if (!nn_dtype_on(&o->devs[d], dt)) {
                if (o->out)
                    fprintf(o->out, "soak %s %s: skipped (this device trains in %s)\n", o->devs[d].label,
                            nn_dtype_name(dt), o->devs[d].kind == DEV_CPU ? "fp64 and fp32" : "fp32 and bf16");
                continue;
            }
            cJSON *e = cJSON_CreateObject();
            char phase[64];
            snprintf(phase, sizeof phase, "soak %s %s", o->devs[d].label, nn_dtype_name(dt));
            gv_telemetry_phase_begin(o->tel, phase, o->devs[d].kind == DEV_GPU ? GV_PHASE_GPU : GV_PHASE_CPU);
            int pass = 0;
            s = soak_one(&o->devs[d], dt, &L, &s0, o, e, &pass, err);
            gv_telemetry_phase_end(o->tel, (double)o->batch * (double)o->steps);
            cJSON_AddStringToObject(e, "telemetry_phase", phase);
            cJSON_AddItemToArray(runs, e);
            if (!cJSON_GetObjectItem(rec, "soak"))
                cJSON_AddItemReferenceToObject(rec, "soak", e);
            if (s == GV_OK) {
                r->runs++;
                r->failed += !pass;
            }
        }
    if (s == GV_OK && !r->runs)
        s = gv_fail(err, GV_ERR_INPUT, "no device trains in the dtypes asked for");
    nn_state_free(&s0);
    nn_layout_free(&L);
    return s;
}
