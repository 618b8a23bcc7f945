/* test_snes_msu.c: the MSU-1's registers and playback by hand (src/emu/snes/snes_msu.c,
 * docs/SNES.md MSU-1), on media built in memory: the data port (seek on the $2003 write,
 * reads past the end give 0), the ID string and status, the resume bit (a track paused
 * with it goes on from where it stopped; without it, or for another track, from the
 * start), repeat from the loop point, the end without repeat, volume 0 and 255 and the
 * clamp, and the state check. Values worked by hand from the documented rule. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/snes/snes_msu.h"

/* A track of n frames, L = R = base + 10 * i, with loop point loop. */
static void make_track(snes_msu_track *t, uint32_t n, uint32_t loop, int base)
{
    t->file = calloc(1, 8 + 4 * (size_t)n);
    memcpy(t->file, "MSU1", 4);
    for (uint32_t i = 0; i < n; i++)
        for (int ch = 0; ch < 2; ch++) {
            int v = base + 10 * (int)i;
            t->file[8 + 4 * i + 2 * ch] = (uint8_t)(v & 0xFF);
            t->file[8 + 4 * i + 2 * ch + 1] = (uint8_t)((v >> 8) & 0xFF);
        }
    t->n = n;
    t->loop = loop;
}

int main(void)
{
    snes_msu_media *md = calloc(1, sizeof *md);
    md->track = calloc(SNES_MSU_TRACKS, sizeof *md->track);
    uint8_t data[4] = {0x11, 0x22, 0x33, 0x44};
    md->data = malloc(4);
    memcpy(md->data, data, 4);
    md->data_len = 4;
    make_track(&md->track[1], 100, 0, 1000);
    make_track(&md->track[2], 10, 4, 0);
    make_track(&md->track[3], 4, 0, 30000);
    snes_msu_regs r;
    snes_msu_power(&r);

    /* data port */
    snes_msu_write(&r, md, 0x2000, 2);
    snes_msu_write(&r, md, 0x2001, 0);
    snes_msu_write(&r, md, 0x2002, 0);
    uint8_t before = snes_msu_read(&r, md, 0x2001); /* no seek yet: offset 0 */
    snes_msu_write(&r, md, 0x2003, 0);
    uint8_t a = snes_msu_read(&r, md, 0x2001), b = snes_msu_read(&r, md, 0x2001), c = snes_msu_read(&r, md, 0x2001);
    t_check(before == 0x11 && a == 0x33 && b == 0x44 && c == 0 && r.offset == 5, "msu data port",
            "before the $2003 write %02X (want 11); after seek 2: %02X %02X, past the end %02X (want 33 44 00), offset %u",
            before, a, b, c, (unsigned)r.offset);
    char id[7] = {0};
    for (int i = 0; i < 6; i++)
        id[i] = (char)snes_msu_read(&r, md, (uint16_t)(0x2002 + i));
    t_check(!strcmp(id, "S-MSU1") && snes_msu_read(&r, md, 0x2000) == 2, "msu id and status", "'%s', status $%02X", id,
            snes_msu_read(&r, md, 0x2000));

    /* track 1, volume 255: 10 samples; 441/320 frames a sample */
    int16_t buf[2 * 64];
    snes_msu_write(&r, md, 0x2004, 1);
    snes_msu_write(&r, md, 0x2005, 0);
    snes_msu_write(&r, md, 0x2006, 255);
    snes_msu_write(&r, md, 0x2007, 1);
    memset(buf, 0, sizeof buf);
    snes_msu_mix(&r, md, buf, 10);
    /* sample 1: pos 1, frac 121: (1010 * 199 + 1020 * 121) / 320 = 1013 (1013.78 toward zero) */
    t_check(buf[0] == 1000 && buf[2] == 1013 && r.pos == 13 && r.frac == 250, "msu resampling",
            "samples %d %d (want 1000 1013), after 10: pos %u frac %u (want 13 250: 4410 = 13*320 + 250)", buf[0], buf[2],
            (unsigned)r.pos, (unsigned)r.frac);
    /* pause with resume, play track 2, back to track 1: from pos 13 */
    snes_msu_write(&r, md, 0x2007, 4);
    uint8_t st_paused = snes_msu_read(&r, md, 0x2000);
    snes_msu_write(&r, md, 0x2004, 2);
    snes_msu_write(&r, md, 0x2005, 0);
    uint32_t pos2 = r.pos;
    snes_msu_write(&r, md, 0x2004, 1);
    snes_msu_write(&r, md, 0x2005, 0);
    uint32_t pos_resumed = r.pos;
    snes_msu_write(&r, md, 0x2004, 1); /* again: the kept position is used once */
    snes_msu_write(&r, md, 0x2005, 0);
    t_check(st_paused == 2 && pos2 == 0 && pos_resumed == 13 && r.pos == 0, "msu resume",
            "status after the pause $%02X (want 02), track 2 from %u (want 0), track 1 back from %u (want 13), "
            "selected again from %u (want 0)",
            st_paused, (unsigned)pos2, (unsigned)pos_resumed, (unsigned)r.pos);

    /* track 2 (10 frames, loop 4) with repeat: 20 samples = 27 frames and 180/320 */
    snes_msu_write(&r, md, 0x2004, 2);
    snes_msu_write(&r, md, 0x2005, 0);
    snes_msu_write(&r, md, 0x2007, 3);
    memset(buf, 0, sizeof buf);
    snes_msu_mix(&r, md, buf, 20);
    /* 20 * 441 = 8820 = 27 * 320 + 180: 27 steps over frames 0-9, then 4-9 again and again: frame 9 */
    int st_rep = snes_msu_read(&r, md, 0x2000);
    t_check(r.playing && r.pos == 9 && r.frac == 180 && st_rep == 0x32, "msu repeat", "pos %u frac %u (want 9 180), status $%02X (want 32)",
            (unsigned)r.pos, (unsigned)r.frac, st_rep);
    /* without repeat: ends within 8 samples (10 frames), then silence and bit 4 clear */
    snes_msu_write(&r, md, 0x2004, 2);
    snes_msu_write(&r, md, 0x2005, 0);
    snes_msu_write(&r, md, 0x2007, 1);
    memset(buf, 0, sizeof buf);
    snes_msu_mix(&r, md, buf, 20);
    int silent = 1;
    for (int i = 2 * 8; i < 40; i++)
        silent &= buf[i] == 0;
    t_check(!r.playing && silent && snes_msu_read(&r, md, 0x2000) == 2, "msu end without repeat",
            "playing %d, samples 8-19 silent %d, status $%02X", r.playing, silent, snes_msu_read(&r, md, 0x2000));

    /* volume 0: nothing added; track 3 (30000+) onto 10000: clamped to 32767 */
    snes_msu_write(&r, md, 0x2004, 3);
    snes_msu_write(&r, md, 0x2005, 0);
    snes_msu_write(&r, md, 0x2006, 0);
    snes_msu_write(&r, md, 0x2007, 1);
    for (int i = 0; i < 4; i++)
        buf[i] = 10000;
    snes_msu_mix(&r, md, buf, 1);
    int v0 = buf[0];
    snes_msu_write(&r, md, 0x2006, 255);
    snes_msu_mix(&r, md, buf + 2, 1);
    t_check(v0 == 10000 && buf[2] == 32767, "msu volume and clamp", "volume 0: %d (want 10000); 255 on 10000: %d (want 32767)",
            v0, buf[2]);

    /* missing track: bit 3, play ignored; the state check */
    snes_msu_write(&r, md, 0x2004, 7);
    snes_msu_write(&r, md, 0x2005, 0);
    snes_msu_write(&r, md, 0x2007, 1);
    int st_missing = snes_msu_read(&r, md, 0x2000);
    snes_msu_regs bad = r;
    bad.track = 1, bad.pos = 100;
    const char *why = snes_msu_check(&bad, md);
    t_check(st_missing == 0x0A && snes_msu_check(&r, md) == NULL && why != NULL, "msu missing track and state check",
            "status $%02X (want 0A); good state %s; position 100 of a 100-frame track: %s", st_missing,
            snes_msu_check(&r, md) ? "refused" : "accepted", why ? why : "accepted");
    snes_msu_media_free(md);
    return t_done();
}
