"""test_gpuvet.py: the Python package gpuvet against the CLI (run by tests/python/test_python.sh
in a venv where the package is installed; GPUVET, GV_ROOT, GV_BUILD as for every test).

Each test says what it compared: the runner prints "PASS python <test>: <what>", "FAIL python
<test>: <the first line of the failure>" or "SKIP python <test>: <why>" (a skip is not a pass).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

import numpy as np

import gpuvet
from gv_unittest import Said, gil_ticks, main, same_records

GPUVET = os.environ["GPUVET"]
ROOT = os.environ["GV_ROOT"]
BUILD = os.environ.get("GV_BUILD", "")
TMP = os.environ.get("GV_PY_TMP") or tempfile.mkdtemp()


def cli(*args, check=True):
    r = subprocess.run([GPUVET, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError("gpuvet %s: exit %d: %s" % (" ".join(map(str, args)), r.returncode, r.stderr.strip()))
    return r


def run_hashes(rom, frames, movie=None, video="native", extra=()):
    """video_hash, audio_hash of `gpuvet run`."""
    args = ["run", rom, "--frames", frames, "--video", video, "--no-battery", "-q", *extra]
    if movie:
        args += ["--input", movie]
    out = cli(*args).stdout
    return (re.search(r"^video_hash (\S+)", out, re.M).group(1), re.search(r"^audio_hash (\S+)", out, re.M).group(1))


def games_until(env, want, player="random"):
    """Steps env with the CLI's player until every slot has finished `want` games; returns
    {seed: record} of all games ended."""
    got = {}
    counts = np.zeros(env.num_envs, dtype=int)
    while counts.min() < want:
        _, _, _, _, info = env.step(env.sample(player))
        if info["ended"]:
            for i in np.flatnonzero(info["_record"]):
                got[int(info["record"][i]["seed"])] = info["record"][i].copy()
                counts[i] += 1
    return got


def gpu_usable():
    """Whether this package can open a CUDA environment here (a GPU-variant package on a GPU)."""
    if gpuvet.GPU_BACKEND is None:
        return False
    try:
        gpuvet.Drop7Env(1, device="cuda")
        return True
    except gpuvet.EnvError:
        return False


GPU = gpu_usable()


class TestDrop7(Said):
    def test_records_vs_engine_and_reference(self):
        n, seed = 64, 1000
        env = gpuvet.Drop7Env(n, seed=seed)
        obs, info = env.reset()
        self.assertEqual(obs.shape, (n, 12, 7, 7))
        self.assertEqual(obs.dtype, np.float32)
        self.assertEqual(info["action_mask"].shape, (n, 7))
        got = games_until(env, 2)
        seeds = np.arange(seed, seed + 2 * n, dtype=np.uint64)
        for device in ("cpu", "ref"):
            want = gpuvet.drop7_play(seeds, device=device)
            for w in want:
                d = same_records(got[int(w["seed"])], w)
                self.assertIsNone(d, "seed %d, %s: %s" % (w["seed"], device, d))
        self.say("%d games (2 per slot, seeds %d..%d) played by Drop7Env with the random player: every record "
                 "field equal to drop7_sim_batch's on the CPU and on the plain reference" % (2 * n, seed,
                                                                                              seed + 2 * n - 1))

    def test_records_vs_cli(self):
        n, seed = 48, 77
        env = gpuvet.Drop7Env(n, seed=seed)
        env.reset()
        got = games_until(env, 1)
        recs = [got[s] for s in range(seed, seed + n)]
        score = np.array([int(r["score"]) for r in recs])
        moves = np.array([int(r["nmoves"]) for r in recs])
        ends = [int(r["end"]) for r in recs]
        js = os.path.join(TMP, "play.json")
        cli("play", "--policy", "random", "--games", n, "--seed", seed, "--baselines", "random", "--json", js, "-q")
        p = json.load(open(js))["play"][0]
        self.assertEqual(p["score_mean"], score.mean())
        self.assertEqual(p["score_median"], np.median(score))
        self.assertEqual(p["moves_mean"], moves.mean())
        self.assertEqual((p["end_full"], p["end_overflow"], p["end_cap"]), (ends.count(1), ends.count(2), ends.count(3)))
        jb = os.path.join(TMP, "bench.json")
        cli("bench", "drop7", "--devices", "cpu", "--batches", n, "--players", "random", "--seed", seed, "--repeats", 1,
            "--min-time", 0.01, "--json", jb, "-q")
        b = json.load(open(jb))["bench_drop7"][0]
        self.assertEqual(b["moves"], moves.sum())
        self.say("%d games from seed %d: `gpuvet play --policy random` score mean %.2f, median %g, moves mean %.3f, "
                 "ends %d/%d/%d and `gpuvet bench drop7 --batches %d` moves per call %d, all equal to Drop7Env's "
                 "records" % (n, seed, p["score_mean"], p["score_median"], p["moves_mean"], p["end_full"],
                              p["end_overflow"], p["end_cap"], n, b["moves"]))

    def test_greedy_and_hardcore(self):
        n, seed = 16, 5
        for mode in ("normal", "hardcore"):
            env = gpuvet.Drop7Env(n, seed=seed, mode=mode)
            env.reset()
            got = games_until(env, 1, "greedy")
            want = gpuvet.drop7_play(np.arange(seed, seed + n), player="greedy", mode=mode)
            for w in want:
                self.assertIsNone(same_records(got[int(w["seed"])], w), "%s seed %d" % (mode, w["seed"]))
        self.say("greedy player, normal and hardcore modes, %d games each: records equal to drop7_sim_batch's" % n)

    def test_observation_is_the_encoder(self):
        sys.path.insert(0, os.path.join(ROOT, "tests", "drop7"))
        import encode_ref
        env = gpuvet.Drop7Env(32, seed=9)
        env.reset()
        checked = finals = 0
        for _ in range(150):
            a = env.sample()
            obs, rew, term, trunc, info = env.step(a)
            mask = info["action_mask"]
            cells = obs[:, :10].argmax(axis=1)                   # (n, 7, 7) cell codes
            self.assertTrue(np.all(obs[:, :10].sum(axis=1) == 1.0))
            self.assertTrue(np.array_equal(mask, cells[:, 0, :] == 0))
            for i in range(0, 32, 8):
                rows = ["".join(".1234567SC"[c] for c in row) for row in cells[i]]
                nxt = int(round(obs[i, 10, 0, 0] * 7))
                drops = int(round(obs[i, 11, 0, 0] * 30))
                ref = encode_ref.encode(rows, nxt, drops)
                self.assertTrue(np.array_equal(ref, obs[i]), "slot %d" % i)
                checked += 1
            if info["ended"]:
                for i in np.flatnonzero(info["_record"]):
                    board = info["record"][i]["board"].reshape(7, 7)
                    self.assertTrue(np.array_equal(info["final_observation"][i][:10].argmax(axis=0), board))
                    finals += 1
        self.say("%d observations equal tests/drop7/encode_ref.py's planes of the same cells, next disc and drops; "
                 "masks equal the empty top cells; %d final observations show their record's board" % (checked, finals))

    def test_autoreset_and_truncation(self):
        env = gpuvet.Drop7Env(4, seed=3, max_moves=10)
        obs, info = env.reset()
        for t in range(10):
            obs, rew, term, trunc, info = env.step(env.sample())
        self.assertTrue(np.all(trunc) and not np.any(term))
        self.assertTrue(np.all(info["record"]["end"] == 3) and np.all(info["record"]["nmoves"] == 10))
        self.assertEqual(list(info["seed"]), [3, 4, 5, 6])
        self.assertEqual(list(env.records()["seed"]), [7, 8, 9, 10])
        self.assertTrue(np.all(env.records()["nmoves"] == 0))
        self.say("max_moves 10: every slot truncated at move 10 with end 3 (the cap), the next games (seeds 7..10) "
                 "started in the same step")

    def test_bad_input(self):
        cases = []

        def expect(cls, fn, what):
            with self.assertRaises(cls) as c:
                fn()
            self.assertEqual(len(str(c.exception).splitlines()), 1)
            cases.append("%s -> %s" % (what, type(c.exception).__name__))

        expect(gpuvet.InputError, lambda: gpuvet.Drop7Env(0), "n=0")
        expect(gpuvet.InputError, lambda: gpuvet.Drop7Env(-3), "n=-3")
        expect(gpuvet.InputError, lambda: gpuvet.Drop7Env(4, mode="easy"), "mode easy")
        expect(gpuvet.InputError, lambda: gpuvet.Drop7Env(4, device="tpu"), "device tpu")
        expect(gpuvet.InputError, lambda: gpuvet.Drop7Env(4, arrays="list"), "arrays list")
        if not GPU:
            expect(gpuvet.EnvError, lambda: gpuvet.Drop7Env(4, device="cuda"), "device cuda (no GPU here)")
            with self.assertRaises(gpuvet.EnvError) as c:
                gpuvet.Drop7Env(4, device="cuda")
            r = cli("bench", "drop7", "--devices", "cuda", "-q", check=False)
            self.assertEqual((r.returncode, r.stderr.strip()), (c.exception.exit_code, "gpuvet bench drop7: %s" % c.exception))
            cases[-1] += " (= `gpuvet bench drop7 --devices cuda`'s line, exit %d)" % r.returncode
        env = gpuvet.Drop7Env(4, seed=1)
        expect(gpuvet.InputError, lambda: env.step([0, 0, 0, 0]), "step before reset")
        obs, info = env.reset()
        expect(gpuvet.InputError, lambda: env.step([0, 0, 0]), "3 actions for 4 games")
        expect(gpuvet.InputError, lambda: env.step(np.zeros((4, 1), dtype=int)), "actions of shape (4,1)")
        expect(gpuvet.InputError, lambda: env.step([0.5, 0, 0, 0]), "float actions")
        expect(gpuvet.InputError, lambda: env.step([0, 0, 7, 0]), "column 7")
        expect(gpuvet.InputError, lambda: env.step([0, -1, 0, 0]), "column -1")
        # fill column 0 of game 0 until it is full, then play it
        full = None
        for _ in range(200):
            m = env.step(env.sample())[4]["action_mask"] if full is None else None
            bad = np.flatnonzero(~m[:, 0]) if m is not None else []
            if len(bad):
                full = int(bad[0])
                break
        if full is not None:
            before = env.records()
            a = env.sample()
            a[full] = 0
            expect(gpuvet.InputError, lambda: env.step(a), "a full column")
            self.assertIsNone(same_records(env.records(), before), "a refused step changed a game")
        self.assertTrue(issubclass(gpuvet.InputError, ValueError))
        self.say("%d bad inputs raised one-line exceptions: %s; a refused step changed nothing" % (len(cases),
                                                                                                 ", ".join(cases)))

    def test_threads_and_gil(self):
        def play(seed, out):
            env = gpuvet.Drop7Env(512, seed=seed)
            env.reset()
            total = 0.0
            for _ in range(60):
                total += env.step(env.sample())[1].sum()
            out[seed] = (total, env.records()["moves_hash"].copy())

        alone, together = {}, {}
        for s in (1, 2, 3):
            play(s, alone)
        ts = [threading.Thread(target=play, args=(s, together)) for s in (1, 2, 3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        # the GIL is released during a step: the main thread runs Python inside one long call
        big = gpuvet.Drop7Env(100000, seed=1, copy=False)
        big.reset()
        acts = big.sample()
        c = big  # the C call alone: NumPy's own copies in the wrapper release the GIL too
        ticks, secs = gil_ticks(lambda: c._c.step(acts, c._obs, c._mask, c._rew, c._term, c._trunc, c._rec, c._fobs,
                                                  c._seeds))
        self.assertGreater(ticks, 0, "no Python ran during a %.0f ms step: the GIL was held" % (secs * 1e3))
        for s in (1, 2, 3):
            self.assertEqual(alone[s][0], together[s][0])
            self.assertTrue(np.array_equal(alone[s][1], together[s][1]))
        # one environment from two threads: calls take turns, nothing is lost
        env = gpuvet.Drop7Env(256, seed=4)
        env.reset()
        moves = [0, 0]

        def stepper(k):
            for _ in range(40):
                a = np.zeros(256, dtype=np.int64)
                env._c.sample(0, a)
                try:
                    env.step(a)
                    moves[k] += 256
                except gpuvet.InputError:  # the other thread played in between: a full column
                    pass

        t2 = [threading.Thread(target=stepper, args=(k,)) for k in (0, 1)]
        for t in t2:
            t.start()
        for t in t2:
            t.join()
        played = int(env.records()["nmoves"].sum())
        self.assertGreater(played, 0)
        self.say("3 environments stepped in 3 threads give the same rewards and move hashes as one after another; "
                 "the main thread ran %d loop turns of Python in the middle 60%% of one %.0f ms step of 100000 games "
                 "(the GIL is released); one environment shared by 2 threads stayed consistent" % (ticks, secs * 1e3))

    def test_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not importable here (Debian's python3-torch)")
        sys.path.insert(0, os.path.join(ROOT, "bench", "torch"))
        from drop7_reference import Drop7Net
        env = gpuvet.Drop7Env(16, seed=2, copy=False)
        obs, info = env.reset()
        t = torch.from_numpy(obs)
        u = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))
        self.assertEqual(t.data_ptr(), obs.ctypes.data)
        self.assertEqual(u.data_ptr(), obs.ctypes.data)
        env.step(env.sample())
        self.assertTrue(torch.equal(u, torch.from_numpy(obs.copy())))  # the step wrote into the shared memory
        net = Drop7Net(channels=16, blocks=1)
        logits, value = net(u)
        self.assertEqual(tuple(logits.shape), (16, 7))
        self.say("torch %s: the observation shared without a copy (from_numpy and a DLPack round trip point at the "
                 "same memory, a step shows through), Drop7Net of bench/torch/drop7_reference.py runs on it"
                 % torch.__version__)


class TestDLPack(Said):
    """gpuvet.Array on the CPU (kDLCPU): arrays="dlpack" and as_dlpack(); the GPU's side is
    tests/python/test_device.py."""

    def test_cpu_arrays_numpy(self):
        env = gpuvet.Drop7Env(8, seed=4, arrays="dlpack", copy=False)
        ref = gpuvet.Drop7Env(8, seed=4)
        obs, info = env.reset()
        o2, i2 = ref.reset()
        self.assertIsInstance(obs, gpuvet.Array)
        self.assertEqual(obs.__dlpack_device__(), (1, 0))
        self.assertEqual((obs.shape, obs.dtype, obs.device), ((8, 12, 7, 7), "float32", "cpu"))
        v = np.from_dlpack(obs)
        self.assertEqual(v.ctypes.data, obs.ptr, "numpy.from_dlpack copied")
        self.assertTrue(np.array_equal(v, o2))
        mask = info["action_mask"]
        self.assertEqual(mask.dtype, "bool")
        self.assertTrue(np.array_equal(np.from_dlpack(mask.as_uint8()).astype(bool), i2["action_mask"]))
        steps = 0
        for _ in range(60):
            a = env.sample()                     # a gpuvet.Array too, accepted as actions
            self.assertTrue(np.array_equal(a.numpy(), ref.sample()))
            r1, r2 = env.step(a), ref.step(a.numpy())
            for x, y in zip(r1[:4], r2[:4]):
                self.assertTrue(np.array_equal(x.numpy(), y))
            self.assertTrue(np.array_equal(r1[4]["action_mask"].numpy(), r2[4]["action_mask"]))
            self.assertTrue(np.array_equal(v, r2[0]), "the step did not write into the shared observation")
            steps += 1
        # a capsule holds one reference to the owner (the environment's array) until its deleter runs
        own = env._obs
        rc = sys.getrefcount(own)
        cap = obs.__dlpack__()
        self.assertEqual(sys.getrefcount(own), rc + 1)
        del cap
        self.assertEqual(sys.getrefcount(own), rc, "an unconsumed capsule leaked its reference")
        w = np.from_dlpack(gpuvet.as_dlpack(np.arange(12, dtype=np.uint64).reshape(3, 4)))
        self.assertEqual(w.dtype, np.uint64)
        self.assertEqual(w[2, 3], 11)
        self.say("Drop7Env(arrays='dlpack') gives gpuvet.Array kDLCPU (1, 0): numpy.from_dlpack shares the "
                 "observation (same address) and sees %d steps write into it; every array equal to the NumPy "
                 "environment's, the bool mask as kDLBool and through as_uint8(); an unconsumed capsule releases "
                 "its reference; as_dlpack(uint64 (3,4)) round trip" % steps)

    def test_cpu_arrays_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not importable here (Debian's python3-torch): torch.from_dlpack not tried")
        env = gpuvet.Drop7Env(16, seed=6, arrays="dlpack", copy=False)
        obs, info = env.reset()
        t = torch.from_dlpack(obs)
        self.assertEqual(t.data_ptr(), obs.ptr, "torch.from_dlpack copied")
        m = torch.from_dlpack(info["action_mask"].as_uint8())
        self.assertEqual(m.data_ptr(), info["action_mask"].ptr)
        try:
            mb = torch.from_dlpack(info["action_mask"])
            boolean = "read as %s" % mb.dtype
        except Exception as e:    # torch before DLPack's bool (Debian 12's 1.13)
            boolean = "refused by this torch (%s), as_uint8() read" % str(e).splitlines()[0][:60]
        env.step(env.sample())
        self.assertTrue(torch.equal(t, torch.from_numpy(env._obs)))
        own = env._obs
        rc = sys.getrefcount(own)
        t2 = torch.from_dlpack(obs)
        self.assertEqual(sys.getrefcount(own), rc + 1)
        snap = t2.clone()
        del env, obs, info, t
        self.assertTrue(torch.equal(t2, snap))
        before = sys.getrefcount(own)
        del t2   # its deleter lets the environment's array go
        self.assertEqual(sys.getrefcount(own), before - 1, "the tensor's capsule did not release its reference")
        con = gpuvet.ConsoleEnv(roms()[0][1], 2, frameskip=3, arrays="dlpack", grey=True, downscale=2)
        plain = gpuvet.ConsoleEnv(roms()[0][1], 2, frameskip=3, grey=True, downscale=2)
        f1, f2 = con.reset()[0], plain.reset()[0]
        tf = torch.from_dlpack(f1)
        self.assertEqual(tuple(tf.shape), (2, 120, 128))
        self.assertTrue(torch.equal(tf, torch.from_numpy(f2)))
        self.say("torch %s: torch.from_dlpack(gpuvet.Array kDLCPU) shares the observation (same data_ptr), a step "
                 "shows through, the tensor keeps the memory alive after the environment is dropped (one reference "
                 "per capsule); the bool mask %s; ConsoleEnv(arrays='dlpack') grey 2x2 frames equal the NumPy ones"
                 % (torch.__version__, boolean))


def roms():
    """(console, path) of the ROMs to test: the built-in demos, and an SNES ROM of ours when
    the suite has built them (tests/emu/test_emu_golden.sh builds them into GV_BUILD/roms)."""
    out = [("nes", gpuvet.demo_rom("ppu_scene.nes", os.path.join(TMP, "ppu_scene.nes"))),
           ("gb", gpuvet.demo_rom("ppu_scene.gb", os.path.join(TMP, "ppu_scene.gb")))]
    snes = os.path.join(BUILD, "roms", "snes", "ppu_scene.sfc")
    if os.path.exists(snes):
        out.append(("snes", snes))
    return out


def movie(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


class TestConsole(Said):
    def test_hashes_vs_run_per_instance_input(self):
        """Our input test ROMs (built by the suite into GV_BUILD/roms) react to the buttons:
        instance 0 plays the movie that passes them (tests/emu/input_<console>.txt), instance
        1 holds nothing, instance 2 holds Start throughout."""
        done = []
        for con in ("nes", "gb"):
            rom = os.path.join(BUILD, "roms", con, "input_test." + con)
            if not os.path.exists(rom):
                continue
            mv0 = os.path.join(ROOT, "tests", "emu", "input_%s.txt" % con)
            events = []
            for line in open(mv0):
                line = line.split("#")[0].strip()
                if line:
                    f, _, names = line.partition(":")
                    events.append((int(f), names.replace("+", " ").split()))
            env = gpuvet.ConsoleEnv(rom, 3)
            start = env.button_mask("Start")

            def held(frame):
                names = [b for f, b in events if f <= frame][-1:] or [[]]
                return env.button_mask(*names[0])

            env.reset()                              # frame 0: nothing held
            for f in range(1, 120):
                env.step(np.array([held(f), 0, start], dtype=np.uint32))
            vh, ah = env.hashes()
            movies = [None, movie(os.path.join(TMP, "none.txt"), ["0:"]),
                      movie(os.path.join(TMP, "start.txt"), ["0:", "1: Start"])]
            movies[0] = movie(os.path.join(TMP, "m0.txt"), ["0:"] + ["%d: %s" % (f, " ".join(b)) for f, b in events
                                                                     if f > 0])
            for i in range(3):
                want = run_hashes(rom, 120, movies[i])
                self.assertEqual(("%016x" % vh[i], "%016x" % ah[i]), want, "%s instance %d" % (con, i))
            rams = {env.ram(i).tobytes() for i in range(3)}
            self.assertEqual(len(rams), 3, "%s: the three inputs should leave three different RAMs" % con)
            done.append("%s (video %s)" % (con, ", ".join("%016x" % h for h in vh)))
        if not done:
            self.skipTest("our input test ROMs are not built in GV_BUILD/roms (tests/emu/test_emu_input.sh builds "
                          "them with ca65 and sdcc)")
        self.say("3 instances of our input test ROM, each with its own buttons for 120 frames (the passing movie, "
                 "nothing, Start): three different work RAMs, the video and audio hashes of each equal to `gpuvet run "
                 "--input` with the same buttons, on " + "; ".join(done))

    def test_frames_vs_frame_hashes(self):
        done = []
        for con, rom in roms():
            for video in ("native", "host"):
                env = gpuvet.ConsoleEnv(rom, 2, video=video, frameskip=1)
                frames = [env.reset()[0][0]]
                for _ in range(39):
                    frames.append(env.step(np.zeros(2, dtype=np.uint32))[0][0])
                fh = os.path.join(TMP, "fh.txt")
                cli("run", rom, "--frames", 40, "--video", video, "--no-battery", "-q", "--frame-hashes", fh)
                want = [l.split()[1] for l in open(fh) if l.strip() and not l.startswith("#")]
                got = ["%016x" % gpuvet.hash64(f.tobytes()) for f in frames]
                self.assertEqual(got, want, "%s %s" % (con, video))
                self.assertEqual(frames[-1].shape, (env.height, env.width, 3))
            grey = gpuvet.ConsoleEnv(rom, 1, grey=True, frameskip=4)
            g = grey.reset()[0][0]
            rgb = gpuvet.ConsoleEnv(rom, 1, frameskip=4).reset()[0][0].astype(np.uint32)
            y = (299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2] + 500) // 1000
            self.assertTrue(np.array_equal(g, y.astype(np.uint8)))
            done.append(con)
        self.say("40 frames per renderer (native, host) as arrays: XXH3 of each equals `gpuvet run --frame-hashes`; "
                 "grey frames equal the luma of the RGB ones; on " + ", ".join(done))

    def test_snes_frame_sizes(self):
        """SNES frames at their own sizes (docs/SNES.md "Frame sizes"): 256x224 after power and
        while the ROM sets up, then 512x478 (hires_il), 256x239 (overscan), 512x224
        (hires_m5), each frame equal to `gpuvet run --frame-hashes`'s."""
        done = []
        for name, size in (("hires_il", (478, 512)), ("overscan", (239, 256)), ("hires_m5", (224, 512))):
            rom = os.path.join(BUILD, "roms", "snes", name + ".sfc")
            if not os.path.exists(rom):
                continue
            env = gpuvet.ConsoleEnv(rom, 2, frameskip=1)
            self.assertEqual((env.max_width, env.max_height, env.width, env.height), (512, 478, 256, 224))
            frames = [env.reset()[0][0]]
            for _ in range(39):  # the ROM's set-up takes about 30 frames (256x224)
                frames.append(env.step(np.zeros(2, dtype=np.uint32))[0][0])
            self.assertEqual(frames[-1].shape, size + (3,))
            self.assertEqual((env.height, env.width), size)
            fh = os.path.join(TMP, "fh.txt")
            cli("run", rom, "--frames", 40, "--no-battery", "-q", "--frame-hashes", fh)
            want = [l.split()[1] for l in open(fh) if l.strip() and not l.startswith("#")]
            self.assertEqual(["%016x" % gpuvet.hash64(f.tobytes()) for f in frames], want, name)
            grey = gpuvet.ConsoleEnv(rom, 1, grey=True, frameskip=40, downscale=2 if name != "overscan" else 1)
            g = grey.reset()[0]
            self.assertEqual(g.shape, (1, size[0] // grey.downscale, size[1] // grey.downscale))
            done.append("%s %dx%d" % (name, size[1], size[0]))
        if not done:
            self.skipTest("the SNES test ROMs did not build")
        self.say("each frame at its size, XXH3 equal to `gpuvet run --frame-hashes` (40 frames, 2 instances), "
                 "grey and downscaled at its size: " + ", ".join(done))

    def test_sound_and_downscale(self):
        """keep_audio: each step's samples, concatenated from power-on, hash to the instance's
        audio hash (`gpuvet run`'s); a WAV of `gpuvet run --wav` holds the same samples.
        downscale: each k x k block's rounded mean, computed here from the full frame."""
        done = []
        for con, rom in roms():
            env = gpuvet.ConsoleEnv(rom, 2, frameskip=3, keep_audio=True)
            steps = [env.reset()]
            parts = [[s] for s in env.sound()]
            for _ in range(19):
                env.step(np.array([0, env.button_mask("Start")], dtype=np.uint32))
                for k, s in enumerate(env.sound()):
                    parts[k].append(s)
            vh, ah = env.hashes()
            for k in range(2):
                pcm = np.concatenate(parts[k])
                self.assertEqual(pcm.shape[1], env.audio_channels)
                self.assertEqual("%016x" % gpuvet.hash64(pcm.tobytes()), "%016x" % ah[k], "%s instance %d" % (con, k))
            wav = os.path.join(TMP, "s.wav")
            cli("run", rom, "--frames", 60, "--wav", wav, "--no-battery", "-q")
            import wave
            with wave.open(wav, "rb") as w:
                self.assertEqual((w.getframerate(), w.getnchannels()), (env.audio_rate, env.audio_channels))
                wpcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").reshape(-1, env.audio_channels)
            pcm0 = np.concatenate(parts[0])
            self.assertTrue(np.array_equal(wpcm, pcm0), "%s: %d samples in the WAV, %d kept" % (con, len(wpcm), len(pcm0)))
            full = gpuvet.ConsoleEnv(rom, 1, frameskip=7).reset()[0][0].astype(np.uint32)
            for k in (2, 4):
                small = gpuvet.ConsoleEnv(rom, 1, frameskip=7, downscale=k).reset()[0][0]
                h, w_ = full.shape[0] // k, full.shape[1] // k
                want = (full.reshape(h, k, w_, k, 3).sum(axis=(1, 3)) + k * k // 2) // (k * k)
                self.assertEqual(small.shape, (h, w_, 3))
                self.assertTrue(np.array_equal(small, want.astype(np.uint8)), "%s downscale %d" % (con, k))
                g = gpuvet.ConsoleEnv(rom, 1, frameskip=7, downscale=k, grey=True).reset()[0][0]
                y = (299 * want[..., 0] + 587 * want[..., 1] + 114 * want[..., 2] + 500) // 1000
                self.assertTrue(np.array_equal(g, y.astype(np.uint8)), "%s downscale %d grey" % (con, k))
            with self.assertRaises(gpuvet.InputError):
                gpuvet.ConsoleEnv(rom, 1, downscale=7)
            with self.assertRaises(gpuvet.InputError):
                gpuvet.ConsoleEnv(rom, 1).sound()
            done.append("%s (%d + %d samples in 60 frames)" % (con, len(pcm0),
                                                              len(np.concatenate(parts[1]))))
        self.say("20 steps of 3 frames, 2 instances with different buttons, keep_audio: each instance's samples, "
                 "joined, hash to its audio hash, and instance 0's equal `gpuvet run --wav`'s 60 frames sample for "
                 "sample; downscale 2 and 4 (RGB and grey) equal the rounded block means of the full frame; "
                 "downscale 7 and sound() without keep_audio raise InputError: " + ", ".join(done))

    def test_state_round_trip_and_ram(self):
        done = []
        for con, rom in roms():
            env = gpuvet.ConsoleEnv(rom, 2, frameskip=5)
            start = env.button_mask("Start")
            env.reset()
            for _ in range(10):
                env.step(np.array([start, 0], dtype=np.uint32))
            s = env.save_state(0)
            ram0 = env.ram(0)
            self.assertEqual(len(ram0), env.ram_bytes)
            env.load_state(1, s)
            self.assertTrue(np.array_equal(env.ram(1), ram0))
            off = np.arange(0, env.ram_bytes, max(1, env.ram_bytes // 64))
            peek = env.peek(off)
            self.assertTrue(np.array_equal(peek[0], ram0[off]) and np.array_equal(peek[1], ram0[off]))
            ours = []
            for _ in range(6):
                o = env.step(np.array([0, 0], dtype=np.uint32))[0]
                self.assertTrue(np.array_equal(o[0], o[1]))
                ours.append("%016x" % gpuvet.hash64(o[0].tobytes()))
            st = os.path.join(TMP, "s.state")
            open(st, "wb").write(s)
            fh = os.path.join(TMP, "fh2.txt")
            cli("run", rom, "--frames", 30, "--load-state", st, "--no-battery", "-q", "--frame-hashes", fh)
            want = [l.split()[1] for l in open(fh) if l.strip() and not l.startswith("#")]
            self.assertEqual(ours, want[4::5])
            done.append("%s (%d-byte state, %d bytes of RAM)" % (con, len(s), env.ram_bytes))
        self.say("a state saved from instance 0 after 55 frames loads into instance 1 (RAM equal, peek equal), both "
                 "then draw the same frames, and `gpuvet run --load-state` of it draws them too: " + ", ".join(done))

    def test_bad_input(self):
        cases = []

        def expect(cls, fn, what, cli_args=None):
            with self.assertRaises(cls) as c:
                fn()
            msg = str(c.exception)
            self.assertEqual(len(msg.splitlines()), 1, msg)
            if cli_args:
                r = cli(*cli_args, check=False)
                self.assertEqual(r.returncode, c.exception.exit_code)
                self.assertEqual(r.stderr.strip(), "gpuvet run: " + msg)
            cases.append("%s -> %s%s" % (what, type(c.exception).__name__, " (= the CLI's line)" if cli_args else ""))

        nes = roms()[0][1]
        missing = os.path.join(TMP, "missing.nes")
        expect(gpuvet.InputError, lambda: gpuvet.ConsoleEnv(missing, 2), "a missing ROM", ["run", missing])
        junk = os.path.join(TMP, "junk.nes")
        open(junk, "wb").write(b"NES\x1a" + bytes(range(256)) * 3)
        expect(gpuvet.InputError, lambda: gpuvet.ConsoleEnv(junk, 2), "a broken NES header", ["run", junk])
        txt = os.path.join(TMP, "notes.txt")
        open(txt, "w").write("hello\n")
        expect(gpuvet.InputError, lambda: gpuvet.ConsoleEnv(txt, 1), "a text file", ["run", txt])
        expect(gpuvet.InputError, lambda: gpuvet.ConsoleEnv(nes, 0), "n=0")
        expect(gpuvet.InputError, lambda: gpuvet.ConsoleEnv(nes, 1, video="fast"), "video fast")
        expect(gpuvet.InputError, lambda: gpuvet.ConsoleEnv(nes, 1, frameskip=0), "frameskip 0")
        env = gpuvet.ConsoleEnv(nes, 2)
        env.reset()
        expect(gpuvet.InputError, lambda: env.step([1, 2, 3]), "3 actions for 2 instances")
        expect(gpuvet.InputError, lambda: env.step(np.zeros((2, 2), dtype=np.uint32)), "actions of shape (2,2)")
        expect(gpuvet.InputError, lambda: env.load_state(0, b"garbage"), "a bad state")
        expect(gpuvet.InputError, lambda: env.load_state(5, env.save_state(0)), "instance 5 of 2")
        expect(gpuvet.InputError, lambda: env.peek([0, 1 << 20]), "a RAM offset past the end")
        expect(gpuvet.InputError, lambda: env.button_mask("Turbo"), "button Turbo")
        if not GPU:
            expect(gpuvet.EnvError, lambda: gpuvet.ConsoleEnv(nes, 1, video="device"), "video device (no GPU here)",
                   ["run", nes, "--video", "device", "--frames", 1])
        self.say("%d bad inputs raised one-line exceptions, never a crash: %s" % (len(cases), ", ".join(cases)))


class TestExample(Said):
    def test_docs_example_runs(self):
        text = open(os.path.join(ROOT, "docs", "PYTHON.md")).read()
        m = re.search(r"<!-- example: selfplay -->\s*```python\n(.*?)```", text, re.S)
        self.assertIsNotNone(m, "docs/PYTHON.md has no block marked <!-- example: selfplay -->")
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skipTest("torch is not importable here: the example of docs/PYTHON.md needs it")
        path = os.path.join(TMP, "example.py")
        open(path, "w").write(m.group(1))
        env = dict(os.environ, GPUVET_EXAMPLE_SECONDS="12", PYTHONPATH=os.path.join(ROOT, "bench", "torch"))
        r = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr.strip().splitlines()[-1:] if r.stderr else "")
        last = [l for l in r.stdout.splitlines() if l.strip()][-1]
        self.say("the self-play example of docs/PYTHON.md ran for 12 s: " + last)


if __name__ == "__main__":
    main(sys.modules[__name__], "python")
