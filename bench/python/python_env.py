"""python_env.py: the throughput of the Python package's environments (docs/PYTHON.md), run by
bench/python_env.sh in a venv where gpuvet is installed.

  drop7    Drop7Env steps/s (games x moves per second, the random player's column from
           env.sample() and the step with its observations and masks) against
           bench/python/drop7_numpy.py, the same rules in plain NumPy, in the same process,
           at several batch sizes. Before any timing the NumPy games of 200 seeds are played to
           the end and every record field compared with gpuvet's (a difference stops it).
  drop7_gpu
           Drop7Env(device="cuda") steps/s (the columns from env.sample() on the device, the
           step with its observations and masks in device memory) beside Drop7Env on the CPU
           (every core) and NumPy at the same batch sizes, in the same process; after the timed
           moves the GPU's games are compared with the CPU's (every record field). Without a
           usable GPU it prints why and measures nothing.
  console  ConsoleEnv instance-frames/s against `gpuvet bench ROM` at 1..1024 instances, the
           same ROM, renderers, threads and frames per run; runs as the CLI's: from power-on, the
           first tenth of the frames untimed, the median of REPEATS rounds (each round one CLI
           run and one run of each Python configuration, one after another). Before timing, each
           configuration's hashes are compared with `gpuvet run`'s.

usage: python_env.py OUT_DIR [drop7] [drop7_gpu] [console]; GPUVET the binary, ROMS a comma-separated list
of ROM files (default: gpuvet's built-in ppu_scene.nes and ppu_scene.gb), INSTANCES,
BATCHES, REPEATS and THREADS (the emulators' host threads, both sides; default every core)
override. Writes OUT_DIR/raw.json and prints the Markdown tables.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import gpuvet

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import drop7_numpy  # noqa: E402

GPUVET = os.environ.get("GPUVET", "gpuvet")
REPEATS = int(os.environ.get("REPEATS", "3"))


def clocks():
    return time.perf_counter(), time.process_time()


def timed_steps(env, n, moves, reps):
    """Steps/s (wall, CPU) of reps x moves steps of env from seed 1, the env's own sample()."""
    env.reset(seed=1)
    w0, c0 = clocks()
    for _ in range(reps):
        env.reset(seed=1)
        for _ in range(moves):
            env.step(env.sample())
    w1, c1 = clocks()
    return reps * n * moves / (w1 - w0), reps * n * moves / max(c1 - c0, 1e-9)


def numpy_steps(n, moves):
    """NumPy's games of seeds 1..n after `moves` moves (the random player's column, the step,
    the planes and the legal masks each move) and its steps/s (wall, CPU)."""
    games = drop7_numpy.Games(np.arange(1, n + 1, dtype=np.uint64))
    w0, c0 = clocks()
    for _ in range(moves):
        games.step(games.pick_random())
        games.encode()
        games.legal()
    w1, c1 = clocks()
    return games, n * moves / (w1 - w0), n * moves / max(c1 - c0, 1e-9)


def drop7(out):
    n_check = 200
    seeds = np.arange(1, n_check + 1, dtype=np.uint64)
    g = drop7_numpy.Games(seeds)
    while g.running().any():
        g.step(g.pick_random())
    ref = gpuvet.drop7_play(seeds)
    fields = {"score": g.score, "nmoves": g.nmoves, "moves_hash": g.hash, "level": g.level,
              "chain_steps": g.chain_steps, "max_chain": g.max_chain, "exploded": g.exploded, "clears": g.clears,
              "end": g.over, "next": g.next}
    for k, v in fields.items():
        if not np.array_equal(ref[k].astype(np.int64), v.astype(np.int64)):
            raise SystemExit("drop7: NumPy's %s differs from gpuvet's on the same seeds" % k)
    if not np.array_equal(ref["board"].reshape(-1, 7, 7), g.cell):
        raise SystemExit("drop7: NumPy's final boards differ from gpuvet's")
    print("drop7: %d games to the end, every record field of drop7_numpy.py equal to gpuvet's" % n_check, flush=True)
    rows = []
    moves = 30   # from a new game: every batch still running (the shortest games last about 59 moves)
    for n in [int(b) for b in os.environ.get("BATCHES", "1,16,256,4096").split(",")]:
        env = gpuvet.Drop7Env(n, seed=1, copy=False)
        gp, gc, npy, npc = [], [], [], []
        for _ in range(REPEATS):
            a, b = timed_steps(env, n, moves, max(1, 20000 // (n * moves)))   # at least ~20000 moves a timed run
            gp.append(a)
            gc.append(b)
            games, a, b = numpy_steps(n, moves)
            npy.append(a)
            npc.append(b)
        # games still running after `moves` moves are where both stand; an ended one has been
        # replaced by its slot's next game in Drop7Env (autoreset)
        live = games.over == 0
        rec = env.records()
        same = np.array_equal(rec["nmoves"][live], games.nmoves[live]) and \
            np.array_equal(rec["score"][live], games.score[live]) and \
            np.array_equal(rec["moves_hash"][live], games.hash[live])
        row = {"batch": n, "moves_per_game": moves, "gpuvet_steps_per_s": statistics.median(gp),
               "gpuvet_steps_per_cpu_s": statistics.median(gc), "numpy_steps_per_s": statistics.median(npy),
               "numpy_steps_per_cpu_s": statistics.median(npc), "same_positions": bool(same)}
        row["speedup"] = row["gpuvet_steps_per_s"] / row["numpy_steps_per_s"]
        rows.append(row)
        print("drop7 batch %5d: gpuvet %10.0f steps/s, numpy %9.0f steps/s, %.1fx%s" % (
            n, row["gpuvet_steps_per_s"], row["numpy_steps_per_s"], row["speedup"],
            "" if same else " (POSITIONS DIFFER)"), flush=True)
    out["drop7"] = rows


def gpu_reason():
    """None when Drop7Env(device="cuda") opens, else why not."""
    if getattr(gpuvet, "GPU_BACKEND", None) is None:
        return "the package is linked with the CPU variant of the library"
    try:
        gpuvet.Drop7Env(1, device="cuda")
    except gpuvet.GpuvetError as e:
        return "no usable GPU: %s" % e
    return None


def drop7_gpu(out):
    why = gpu_reason()
    if why:
        print("drop7_gpu: not measured: %s" % why, flush=True)
        return
    rows, moves = [], 30
    numpy_max = int(os.environ.get("NUMPY_MAX", "4096"))
    for n in [int(b) for b in os.environ.get("GPU_BATCHES", "256,4096,65536").split(",")]:
        dev = gpuvet.Drop7Env(n, device="cuda", seed=1)
        cpu = gpuvet.Drop7Env(n, seed=1, copy=False)
        reps = max(1, 200000 // (n * moves))
        timed_steps(dev, n, moves, 1)            # warm-up: the device's first kernels and allocations
        g, gc, c, cc, npy = [], [], [], [], []
        for _ in range(REPEATS):
            a, b = timed_steps(dev, n, moves, reps)
            g.append(a)
            gc.append(b)
            a, b = timed_steps(cpu, n, moves, max(1, reps // 4))
            c.append(a)
            cc.append(b)
            if n <= numpy_max:
                npy.append(numpy_steps(n, moves)[1])
        # the same games after the same number of moves from seed 1 on both sides
        dev.reset(seed=1)
        cpu.reset(seed=1)
        for _ in range(moves):
            dev.step(dev.sample())
            cpu.step(cpu.sample())
        rd, rc = dev.records(), cpu.records()
        same = all(np.array_equal(rd[k], rc[k]) for k in rd.dtype.names)
        row = {"batch": n, "moves_per_game": moves, "gpu": dev.gpu_name, "gpu_steps_per_s": statistics.median(g),
               "gpu_steps_per_cpu_s": statistics.median(gc), "cpu_steps_per_s": statistics.median(c),
               "cpu_steps_per_cpu_s": statistics.median(cc),
               "numpy_steps_per_s": statistics.median(npy) if npy else None, "same_records_as_cpu": bool(same)}
        row["gpu_vs_cpu"] = row["gpu_steps_per_s"] / row["cpu_steps_per_s"]
        row["gpu_vs_numpy"] = row["gpu_steps_per_s"] / row["numpy_steps_per_s"] if npy else None
        rows.append(row)
        print("drop7_gpu batch %6d: Drop7Env cuda %11.0f steps/s, cpu %10.0f, numpy %s: %.1fx the CPU's%s" % (
            n, row["gpu_steps_per_s"], row["cpu_steps_per_s"],
            "%9.0f" % row["numpy_steps_per_s"] if npy else "-", row["gpu_vs_cpu"],
            "" if same else " (RECORDS DIFFER FROM THE CPU'S)"), flush=True)
        del dev, cpu
    out["drop7_gpu"] = rows


def cli_bench(rom, n, frames, video, audio, threads, repeats=REPEATS):
    js = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gv_python_env_bench.json")
    r = subprocess.run([GPUVET, "bench", rom, "--instances", str(n), "--frames", str(frames), "--video", video,
                        "--audio", audio, "--repeats", str(repeats), "--threads", str(threads), "--json", js, "-q"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("gpuvet bench %s: exit %d: %s" % (rom, r.returncode, r.stderr.strip()))
    rec = json.load(open(js))
    e = [v for k, v in rec.items() if k.startswith("bench_")][0][0]
    return e


def console(out):
    tmp = os.environ.get("TMPDIR", "/tmp")
    roms = os.environ.get("ROMS", "")
    roms = roms.split(",") if roms else [gpuvet.demo_rom("ppu_scene.nes", os.path.join(tmp, "ppu_scene.nes")),
                                         gpuvet.demo_rom("ppu_scene.gb", os.path.join(tmp, "ppu_scene.gb"))]
    threads = int(os.environ.get("THREADS", "0")) or os.cpu_count() or 1
    rows = []
    for rom in roms:
        for n in [int(i) for i in os.environ.get("INSTANCES", "1,4,16,64,256,1024").split(",")]:
            probe = gpuvet.ConsoleEnv(rom, 1)
            # frames per run: about a second at the one-core rate measured here
            t = time.perf_counter()
            probe.reset()
            for _ in range(20):
                probe.step(np.zeros(1, dtype=np.uint32))
            per = (time.perf_counter() - t) / 21
            frames = int(max(40, min(3000, 1.0 / (per * n / threads))))
            frames -= frames % 4
            del probe
            skips = (4, 1) if n <= 64 else (4,)    # a frame's copy costs the same per instance
            envs = {skip: gpuvet.ConsoleEnv(rom, n, video="native", audio="native", frameskip=skip,
                                            threads=threads, copy=False) for skip in skips}
            zero = np.zeros(n, dtype=np.uint32)
            pre = frames // 10

            def py_run(env, skip):
                """One run as the CLI's: power-on, the untimed preroll, the timed steps; (fps, per CPU-s)."""
                env._c.power()
                env._c.step(zero, pre, None, False)     # the untimed preroll, as the CLI's
                w0, c0 = clocks()
                for _ in range((frames - pre) // skip):
                    env.step(zero)
                w1, c1 = clocks()
                done = (frames - pre) // skip * skip
                if frames - pre - done:               # the rest, untimed: the CLI's frames in all
                    env._c.step(zero, frames - pre - done, None, False)
                return done * n / (w1 - w0), done * n / max(c1 - c0, 1e-9)
            for skip in skips:                        # warm-up
                py_run(envs[skip], skip)
            # rounds: the CLI's run and each Python configuration's one after another, REPEATS
            # times, so that a change of the machine's load falls on both sides alike
            cli_fps, cli_cpu, py = [], [], {skip: ([], []) for skip in skips}
            for _ in range(REPEATS):
                e = cli_bench(rom, n, frames, "native", "native", threads, repeats=1)
                cli_fps.append(e["fps_median"])
                cli_cpu.append(e.get("fps_per_cpu_second_median") or 0)
                for skip in skips:
                    f, c = py_run(envs[skip], skip)
                    py[skip][0].append(f)
                    py[skip][1].append(c)
            for skip in skips:
                env = envs[skip]
                vh, ah = env.hashes()
                match = all("%016x" % v == e["video_hash"] for v in vh) and all("%016x" % a == e["audio_hash"]
                                                                                 for a in ah)
                row = {"console": env.console, "rom": os.path.basename(rom), "instances": n, "frames": frames,
                       "frameskip": skip, "threads": threads, "cli_fps_median": statistics.median(cli_fps),
                       "cli_fps_per_cpu_s": statistics.median(cli_cpu) or None,
                       "python_fps_median": statistics.median(py[skip][0]),
                       "python_fps_per_cpu_s": statistics.median(py[skip][1]), "hashes_equal_cli": match,
                       "load_cli": e.get("load_max")}
                row["python_vs_cli"] = row["python_fps_median"] / row["cli_fps_median"]
                row["python_vs_cli_cpu"] = (row["python_fps_per_cpu_s"] / row["cli_fps_per_cpu_s"]
                                            if row["cli_fps_per_cpu_s"] else None)
                rows.append(row)
                print("console %s x%4d frameskip %d: python %8.0f fps, cli %8.0f fps: %.3f (per CPU-second %.3f)%s"
                      % (row["console"], n, skip, row["python_fps_median"], row["cli_fps_median"],
                         row["python_vs_cli"], row["python_vs_cli_cpu"] or 0,
                         "" if match is not False else " HASHES DIFFER"), flush=True)
            del envs, env
    out["console"] = rows


def summary(out, path):
    L = ["# gpuvet's Python environments beside their baselines (bench/python_env.sh)", "",
         "%d timed runs per figure (median; in the console part, rounds: each runs the CLI once and then each "
         "Python configuration once); python %s, numpy %s. The load average (1, 5, 15 minutes) around "
         "each part is given with it." % (out["repeats"], out["python"], out["numpy"]), ""]

    def load(part):
        ld = out.get(part + "_load") or {}
        if not ld:
            return ""
        return "Measured until %s, load average %s before and %s after." % (
            ld["at"], " ".join("%.2f" % x for x in ld["before"]), " ".join("%.2f" % x for x in ld["after"]))
    if "drop7" in out:
        L += ["## Drop7Env against the same rules in NumPy, one process", "",
              "steps/s: games x moves per second, 30 moves of every game from a new game, the random player's "
              "column and the step with observations (12 planes) and masks, both sides. Records of 200 whole games "
              "were compared field by field first (equal); \"same positions\": after the timed moves both sides hold "
              "the same games (score, moves, move hash of every game still running). " + load("drop7"), "",
              "| batch | Drop7Env steps/s | NumPy steps/s | Drop7Env / NumPy | per CPU-second: Drop7Env | NumPy |"
              " same positions |", "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in out["drop7"]:
            L.append("| %d | %.0f | %.0f | %.1fx | %.0f | %.0f | %s |" % (
                r["batch"], r["gpuvet_steps_per_s"], r["numpy_steps_per_s"], r["speedup"],
                r["gpuvet_steps_per_cpu_s"], r["numpy_steps_per_cpu_s"], "yes" if r["same_positions"] else "NO"))
        L.append("")
    if out.get("drop7_gpu"):
        r0 = out["drop7_gpu"][0]
        L += ["## Drop7Env on the GPU beside the CPU and NumPy, one process", "",
              "steps/s as above (30 moves of every game from seed 1, the columns from env.sample(): on the GPU the "
              "device's own player, the arrays left in device memory). GPU: %s; the CPU side uses every core. "
              "\"same records\": after 30 moves from seed 1 the GPU's games equal the CPU's field by field. " % r0["gpu"]
              + load("drop7_gpu"), "",
              "| batch | GPU steps/s | CPU steps/s | NumPy steps/s | GPU / CPU | GPU / NumPy | same records |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in out["drop7_gpu"]:
            L.append("| %d | %.0f | %.0f | %s | %.1fx | %s | %s |" % (
                r["batch"], r["gpu_steps_per_s"], r["cpu_steps_per_s"],
                "%.0f" % r["numpy_steps_per_s"] if r["numpy_steps_per_s"] else "-", r["gpu_vs_cpu"],
                "%.1fx" % r["gpu_vs_numpy"] if r["gpu_vs_numpy"] else "-", "yes" if r["same_records_as_cpu"] else "NO"))
        L.append("")
    if "console" in out:
        L += ["## ConsoleEnv against `gpuvet bench ROM`", "",
              "instance-frames/s, video and audio native, host threads on both sides: %d; runs from power-on with the first tenth of "
              "the frames untimed (the CLI's method), ConsoleEnv stepped from Python with each frame copied out into "
              "its (n, h, w, 3) array every `frameskip` frames. Python / CLI above 0.90 keeps the issue's "
              "\"overhead <= 10%%\". " % out["console"][0]["threads"] + load("console"), "",
              "| console | instances | frames per run | frameskip | ConsoleEnv fps | `gpuvet bench` fps | Python / CLI |"
              " per CPU-second: Python / CLI | hashes equal |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in out["console"]:
            L.append("| %s | %d | %d | %d | %.0f | %.0f | %.3f | %s | %s |" % (
                r["console"], r["instances"], r["frames"], r["frameskip"], r["python_fps_median"],
                r["cli_fps_median"], r["python_vs_cli"],
                "%.3f" % r["python_vs_cli_cpu"] if r["python_vs_cli_cpu"] else "-",
                "yes" if r["hashes_equal_cli"] else "NO"))
        L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    outdir = sys.argv[1]
    parts = sys.argv[2:] or ["drop7", "drop7_gpu", "console"]
    os.makedirs(outdir, exist_ok=True)
    raw = os.path.join(outdir, "raw.json")
    old = json.load(open(raw)) if os.path.exists(raw) else {}
    out = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_before": os.getloadavg(),
           "repeats": REPEATS, "numpy": np.__version__, "python": sys.version.split()[0]}
    for part, fn in (("drop7", drop7), ("drop7_gpu", drop7_gpu), ("console", console)):
        if part in parts:
            before = os.getloadavg()
            fn(out)
            out[part + "_load"] = {"before": before, "after": os.getloadavg(), "at": time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    out["load_after"] = os.getloadavg()
    for part in ("drop7", "drop7_gpu", "console"):       # a part not run this time keeps its earlier figures
        if part not in out and part in old:
            out[part] = old[part]
            out[part + "_load"] = old.get(part + "_load")
    with open(raw, "w") as f:
        json.dump(out, f, indent=1)
    summary(out, os.path.join(outdir, "summary.md"))


if __name__ == "__main__":
    main()
