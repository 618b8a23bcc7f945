"""test_device.py: the Python package's GPU side on a GPU machine (docs/PYTHON.md, "On the GPU"):
Drop7Env(device="cuda") against Drop7Env(device="cpu") for the same seeds (every observation,
mask, reward, end flag, seed and record of every step, and the sampled columns), the records
against drop7_play's engine, DLPack round trips (gpuvet.Array -> torch.from_dlpack without a copy,
CUDA tensors as actions, the capsule keeping the environment alive), bad columns on the device,
the GIL released during a device step, and ConsoleEnv(video="device") frames (RGB, grey,
downscaled on the device) against ConsoleEnv(video="native") on the same per-instance input.

Run in a venv where the package was installed over a GPU=cuda library (tests/python/test_python.sh
runs it after test_gpuvet.py; see docs/PYTHON.md for the command on a GPU machine). Prints
"PASS python-gpu <test>: <what was compared>", "FAIL ..." or "SKIP python-gpu <test>: <why>";
without a usable GPU every test is a SKIP with the reason (never a pass). GV_BUILD (for the SNES
test ROM, when the suite built it) is optional.
"""
import gc
import os
import sys

import numpy as np

import gpuvet
from gv_unittest import Said, gil_ticks, main, same_records

BUILD = os.environ.get("GV_BUILD", "")
TMP = os.environ.get("GV_PY_TMP") or __import__("tempfile").mkdtemp()


def gpu_reason():
    """None when a CUDA environment opens, else why not (the library's one-line message)."""
    if gpuvet.GPU_BACKEND is None:
        return ("the package is linked with the CPU variant of the library (build the program with make GPU=cuda, "
                "then pip install ./python, or set GPUVET_GPU=cuda)")
    try:
        gpuvet.Drop7Env(1, device="cuda")
    except gpuvet.GpuvetError as e:
        return "no usable GPU: %s" % e
    return None


REASON = gpu_reason()


def torch_cuda():
    """torch when it is importable and sees a GPU, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def host(a):
    """A host NumPy copy of a gpuvet.Array or a NumPy array."""
    return a.numpy() if isinstance(a, gpuvet.Array) else np.asarray(a)


class OnGpu(Said):
    def setUp(self):
        if REASON:
            self.skipTest(REASON)


class TestDrop7Device(OnGpu):
    def lockstep(self, n, seed, mode, player, steps, feed):
        """Steps a CPU and a CUDA environment with the CPU's player's columns (feed "host": a
        NumPy vector; "array": the CUDA env's own sample, a device gpuvet.Array; "torch": a
        CUDA torch tensor) and compares everything every step. Returns (steps, games ended)."""
        cpu = gpuvet.Drop7Env(n, device="cpu", mode=mode, seed=seed)
        gpu = gpuvet.Drop7Env(n, device="cuda", mode=mode, seed=seed)
        o1, i1 = cpu.reset()
        o2, i2 = gpu.reset()
        self.assertIsInstance(o2, gpuvet.Array)
        self.assertEqual(o2.device, "cuda:0")
        self.assertTrue(np.array_equal(o1, host(o2)), "reset observations differ")
        self.assertTrue(np.array_equal(i1["action_mask"], host(i2["action_mask"])), "reset masks differ")
        torch = torch_cuda()
        ended = 0
        for k in range(steps):
            a = cpu.sample(player)
            s = gpu.sample(player)
            self.assertTrue(np.array_equal(a, host(s)), "step %d: %s player's columns differ" % (k, player))
            if feed == "array":
                act = s
            elif feed == "torch" and torch is not None:
                act = torch.from_dlpack(s).to(torch.int32)   # a CUDA tensor of another width
            else:
                act = a
            r1 = cpu.step(a)
            r2 = gpu.step(act)
            for name, x, y in (("obs", r1[0], r2[0]), ("reward", r1[1], r2[1]), ("terminated", r1[2], r2[2]),
                               ("truncated", r1[3], r2[3]), ("mask", r1[4]["action_mask"], r2[4]["action_mask"]),
                               ("seed", r1[4]["seed"], r2[4]["seed"])):
                self.assertTrue(np.array_equal(host(x), host(y)), "step %d: %s differs" % (k, name))
            self.assertEqual(r1[4]["ended"], r2[4]["ended"], "step %d: games ended" % k)
            if r1[4]["ended"]:
                done = r1[4]["_record"]
                self.assertTrue(np.array_equal(done, r2[4]["_record"]))
                d = same_records(r1[4]["record"][done], r2[4]["record"][done])
                self.assertIsNone(d, "step %d: a record differs: %s" % (k, d))
                fo2 = host(r2[4]["final_observation"])
                self.assertTrue(np.array_equal(r1[4]["final_observation"][done], fo2[done]))
                ended += int(r1[4]["ended"])
        self.assertIsNone(same_records(cpu.records(), gpu.records()), "games in progress differ")
        return steps, ended

    def test_cuda_equals_cpu(self):
        done = []
        for mode, player, feed, n, steps in (("normal", "random", "host", 256, 400), ("normal", "greedy", "array", 64, 300),
                                             ("hardcore", "random", "torch", 128, 300),
                                             ("hardcore", "greedy", "host", 32, 200)):
            st, ended = self.lockstep(n, 1000 + n, mode, player, steps, feed)
            how = feed if feed != "torch" or torch_cuda() else "host (no CUDA torch here)"
            done.append("%s/%s %d games x %d steps, %d ended, actions from %s" % (mode, player, n, st, ended, how))
        self.say("Drop7Env cuda == cpu every step (obs, mask, reward, terminated, truncated, seed, the sampled "
                 "columns, ended games' records and final observations, records in progress): " + "; ".join(done))

    def test_records_vs_engine(self):
        n, seed = 200, 77
        env = gpuvet.Drop7Env(n, device="cuda", seed=seed)
        env.reset()
        got, counts = {}, np.zeros(n, dtype=int)
        while counts.min() < 1:
            _, _, _, _, info = env.step(env.sample())
            if info["ended"]:
                for i in np.flatnonzero(info["_record"]):
                    got.setdefault(int(info["record"][i]["seed"]), info["record"][i].copy())
                    counts[i] += 1
        want = gpuvet.drop7_play(np.arange(seed, seed + n, dtype=np.uint64), device="cpu")
        for w in want:
            d = same_records(got[int(w["seed"])], w)
            self.assertIsNone(d, "seed %d: %s" % (w["seed"], d))
        gpu_whole = gpuvet.drop7_play(np.arange(seed, seed + n, dtype=np.uint64), device="cuda")
        for w, g in zip(want, gpu_whole):
            self.assertIsNone(same_records(w, g))
        self.say("%d games (seeds %d..%d) stepped on the device with its own random player: every record field equal "
                 "to drop7_sim_batch's on the CPU and to the whole-game GPU kernel's (`gpuvet bench drop7`'s engine)"
                 % (n, seed, seed + n - 1))

    def test_dlpack_round_trip(self):
        env = gpuvet.Drop7Env(32, device="cuda", seed=3)
        obs, info = env.reset()
        cap = obs.__dlpack__()
        del cap   # never consumed: its deleter runs with it
        torch = torch_cuda()
        if torch is None:
            self.skipTest("torch with CUDA is not importable here: torch.from_dlpack of device arrays not tried "
                          "(test_cuda_equals_cpu reads them with Array.numpy())")
        t = torch.from_dlpack(obs)
        self.assertEqual(t.device.type, "cuda")
        self.assertEqual(t.data_ptr(), obs.ptr, "torch.from_dlpack copied")
        self.assertEqual(tuple(t.shape), (32, 12, 7, 7))
        self.assertTrue(torch.equal(t.cpu(), torch.from_numpy(obs.numpy())))
        m = torch.from_dlpack(info["action_mask"].as_uint8())
        self.assertEqual(m.data_ptr(), info["action_mask"].ptr)
        try:
            mb = torch.from_dlpack(info["action_mask"])
            bool_ok = "as torch.bool" if mb.dtype == torch.bool else "as %s" % mb.dtype
        except Exception as e:   # a torch that predates DLPack's bool
            bool_ok = "not read by this torch (%s); as_uint8() is" % str(e).splitlines()[0][:80]
        before = t.clone()
        env.step(torch.from_dlpack(env.sample()))   # actions in place: a CUDA int64 tensor
        torch.cuda.synchronize()
        self.assertFalse(torch.equal(before, t), "a step did not show through the shared tensor")
        self.assertTrue(torch.equal(t.cpu(), torch.from_numpy(obs.numpy())))
        # the tensor keeps the environment alive
        ref = sys.getrefcount(env._c)
        t2 = torch.from_dlpack(obs)
        self.assertEqual(sys.getrefcount(env._c), ref + 1, "the capsule's tensor holds no reference to the env")
        snap = t2.clone()
        del env, obs, info
        gc.collect()
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(snap, t2), "memory of a dropped environment changed under a live tensor")
        del t2
        self.say("torch %s: torch.from_dlpack(obs) shares the device memory (data_ptr == Array.ptr), a step shows "
                 "through it, a CUDA int64 tensor is read in place as actions, the mask %s, a tensor keeps the "
                 "environment alive (one reference per capsule, released by its deleter)" % (torch.__version__, bool_ok))

    def test_bad_columns_and_gil(self):
        cpu = gpuvet.Drop7Env(8, device="cpu", seed=9)
        gpu = gpuvet.Drop7Env(8, device="cuda", seed=9)
        cpu.reset()
        gpu.reset()
        msgs = []
        for a in ([0, 0, 7, 0, 0, 0, 0, 0], [0, -1, 0, 0, 0, 0, 0, 0]):
            with self.assertRaises(gpuvet.InputError) as c1:
                cpu.step(a)
            with self.assertRaises(gpuvet.InputError) as c2:
                gpu.step(a)
            self.assertEqual(str(c1.exception), str(c2.exception))
            msgs.append(str(c2.exception))
        self.assertIsNone(same_records(cpu.records(), gpu.records()), "a refused step changed a game on the device")
        big = gpuvet.Drop7Env(1 << 20, device="cuda", seed=1)
        big.reset()
        acts = big.sample().numpy()
        ticks, secs = gil_ticks(lambda: big.step(acts))
        self.assertGreater(ticks, 0, "no Python ran during a %.1f ms device step: the GIL was held" % (secs * 1e3))
        self.say("illegal columns on the device raise the CPU's InputError line (%s) and change nothing; the main "
                 "thread ran %d loop turns during one %.1f ms device step of 2^20 games (the GIL is released)"
                 % (" / ".join(msgs), ticks, secs * 1e3))


def roms():
    out = [("nes", gpuvet.demo_rom("ppu_scene.nes", os.path.join(TMP, "ppu_scene.nes"))),
           ("gb", gpuvet.demo_rom("ppu_scene.gb", os.path.join(TMP, "ppu_scene.gb")))]
    snes = os.path.join(BUILD, "roms", "snes", "ppu_scene.sfc")
    if os.path.exists(snes):
        out.append(("snes", snes))
    return out


class TestConsoleDevice(OnGpu):
    def test_device_frames_equal_native(self):
        rng = np.random.default_rng(5)
        done = []
        for con, rom in roms():
            for grey, down in ((False, 1), (True, 1), (False, 2), (True, 4)):
                n, skip = 3, 4
                nat = gpuvet.ConsoleEnv(rom, n, video="native", frameskip=skip, grey=grey, downscale=down)
                dev = gpuvet.ConsoleEnv(rom, n, video="device", frameskip=skip, grey=grey, downscale=down)
                a, b = nat.reset()[0], dev.reset()[0]
                self.assertIsInstance(b, gpuvet.Array)
                self.assertEqual(b.device, "cuda:0")
                self.assertTrue(np.array_equal(a, b.numpy()), "%s reset grey=%s down=%d" % (con, grey, down))
                for k in range(12):
                    act = rng.integers(0, 1 << len(nat.buttons), n).astype(np.uint32)
                    a, b = nat.step(act)[0], dev.step(act)[0]
                    self.assertTrue(np.array_equal(a, b.numpy()), "%s step %d grey=%s down=%d" % (con, k, grey, down))
                self.assertTrue(all(np.array_equal(x, y) for x, y in zip(nat.hashes(), dev.hashes())))
                torch = torch_cuda()
                if torch is not None:
                    t = torch.from_dlpack(b)
                    self.assertEqual(t.data_ptr(), b.ptr)
                    self.assertTrue(torch.equal(t.cpu(), torch.from_numpy(a)))
                done.append("%s %s/%d" % (con, "grey" if grey else "rgb", down))
        self.say("ConsoleEnv video='device' == video='native' (3 instances, random per-instance buttons, 13 "
                 "observations of frameskip 4 each, frame hashes equal%s): %s" %
                 (", torch.from_dlpack shares the frames" if torch_cuda() else "", ", ".join(done)))


if __name__ == "__main__":
    main(sys.modules[__name__], "python-gpu")
