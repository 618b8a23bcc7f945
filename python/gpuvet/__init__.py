"""__init__.py: gpuvet from Python (docs/PYTHON.md): vectorised environments over the project's
C library, with the shape of Gymnasium's vector API.

  Drop7Env(n, device="cpu", mode="normal", seed=1)  n Drop7 games side by side; observations
        are the network's (12, 7, 7) input planes (the project's encoder), the legal-move
        mask is info["action_mask"]; records identical to the CLI's for the same seeds.
  ConsoleEnv(rom, n, video="native", frameskip=1)   n instances of one NES, Game Boy or SNES
        ROM, each with its own buttons; frames as RGB (or grey) uint8, save states and work
        RAM per instance; frame hashes identical to `gpuvet run`'s.
  drop7_play(seeds, player="random")                 whole games through the engine of
        `gpuvet bench drop7`, as records.

On a GPU (a package built over a GPU=cuda library): Drop7Env(n, device="cuda") steps the games
on the device and ConsoleEnv(video="device") keeps the frames there (downscale and grey done
on the device); their arrays are gpuvet.Array objects in device memory, shared with PyTorch
without a copy: torch.from_dlpack(obs). arrays="dlpack" gives the same objects over host
memory on the CPU (kDLCPU). as_dlpack(ndarray) wraps any NumPy array so.

Errors are exceptions: GpuvetError and its subclasses InputError (also a ValueError: bad
arguments, files, ROMs; the CLI exits 2), EnvError (no device, no memory, I/O; exit 3),
WrongResultError (exit 1) and InternalError (exit 4), each with the library's one-line
message. The work runs with the GIL released; one environment may be used from several
threads (its calls take turns).
"""
import numpy as np

from . import _gpuvet
from ._gpuvet import EnvError, GpuvetError, InputError, InternalError, WrongResultError

__all__ = ["Drop7Env", "ConsoleEnv", "drop7_play", "demo_rom", "hash64", "RECORD_DTYPE", "GpuvetError",
           "InputError", "EnvError", "WrongResultError", "InternalError", "Array", "as_dlpack", "GPU_BACKEND"]

# gpuvet.Array: host or GPU memory shared through DLPack (__dlpack__, __dlpack_device__; no
# copy): torch.from_dlpack(a), numpy.from_dlpack(a) (host), a.numpy() (a host copy),
# a.as_uint8() (a bool array's bytes, for consumers that predate DLPack's bool type).
Array = _gpuvet.Array
# The GPU backend of the library this package was built over: "cuda", or None (the CPU variant).
GPU_BACKEND = _gpuvet.GPU_BACKEND
_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}   # DLPack's type codes by NumPy kind


def as_dlpack(a):
    """A gpuvet.Array over a C-contiguous NumPy array (kDLCPU), without a copy; it keeps the
    array alive. Bool arrays keep DLPack's bool type (kDLBool; .as_uint8() for older readers)."""
    a = np.asarray(a)
    if a.dtype.kind not in _DL_CODES or not a.flags.c_contiguous:
        raise InputError("as_dlpack: a C-contiguous array of integers, floats or bools, not %s%s"
                         % (a.dtype, "" if a.flags.c_contiguous else " (not contiguous)"))
    return _gpuvet.wrap(a, _DL_CODES[a.dtype.kind])


def _gpu_index(what, device):
    """The GPU ordinal of "cuda", "gpu" or "cuda:N"; None for "cpu"; InputError else."""
    if device == "cpu":
        return None
    if device in ("cuda", "gpu"):
        return 0
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return int(device[5:])
    raise InputError("%s: device '%s': cpu, cuda or cuda:N" % (what, device))


def _arrays_kind(what, arrays, on_gpu):
    if arrays is None:
        return "dlpack" if on_gpu else "numpy"
    if arrays not in ("numpy", "dlpack"):
        raise InputError("%s: arrays '%s': numpy or dlpack" % (what, arrays))
    if on_gpu and arrays == "numpy":
        raise InputError("%s: arrays 'numpy' on the GPU: the arrays are device memory (gpuvet.Array; .numpy() "
                         "copies one to the host)" % what)
    return arrays


def _device_actions(what, actions, n):
    """Actions on a CUDA device (anything with __dlpack_device__ (2, i): a torch tensor, a
    gpuvet.Array) as their DLPack capsule, else as a host int64 vector."""
    dev = getattr(actions, "__dlpack_device__", None)
    if dev is not None and dev()[0] == 2:
        try:
            return actions.__dlpack__(stream=1)   # 1: the legacy default stream, where the steps run
        except TypeError:
            return actions.__dlpack__()
    return _actions(what, actions, n, np.int64)

_OFF = _gpuvet.RECORD_OFFSETS
# One game's record (drop7_record of src/drop7/drop7.h, field by field): end is 1 (every
# column full), 2 (a rising row overflowed), 3 (the move cap) or 0 (still running); board
# is the final board, [y * 7 + x] with y = 0 the top row, codes 0 empty, 1..7, 8 solid,
# 9 cracked.
RECORD_DTYPE = np.dtype({
    "names": ["seed", "moves_hash", "score", "nmoves", "level", "chain_steps", "max_chain", "exploded", "clears",
              "end", "board", "next"],
    "formats": [np.uint64, np.uint64, np.int64, np.int32, np.int32, np.int32, np.int32, np.int32, np.int32,
                np.int32, (np.uint8, (49,)), np.uint8],
    "offsets": [_OFF[k] for k in ("seed", "moves_hash", "score", "nmoves", "level", "chain_steps", "max_chain",
                                  "exploded", "clears", "end", "board", "next")],
    "itemsize": _gpuvet.RECORD_BYTES,
})

_MODES = {"normal": 0, "hardcore": 1}
_PLAYERS = {"random": 0, "greedy": 1}
_DEVICES = {"ref": 0, "cpu": 1, "cuda": 2, "gpu": 2}

hash64 = _gpuvet.hash64


def demo_rom(name, path):
    """Writes one of the ROMs built into gpuvet ("ppu_scene.nes", "ppu_scene.gb") to path."""
    _gpuvet.demo_rom(name, str(path))
    return str(path)


def _choice(what, value, table):
    if value not in table:
        raise InputError("%s '%s': one of %s" % (what, value, ", ".join(table)))
    return table[value]


def _count(what, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise InputError("%s: %r is not an integer" % (what, n))
    if n < 1:
        raise InputError("%s = %d: give 1 or more" % (what, n))
    return int(n)


def _actions(what, actions, n, dtype):
    a = actions.numpy() if isinstance(actions, _gpuvet.Array) else np.asarray(actions)
    if a.shape != (n,):
        raise InputError("%s: actions of shape %s, expected (%d,): one per environment" % (what, a.shape, n))
    if a.dtype.kind not in "iu":
        raise InputError("%s: actions of dtype %s, expected integers" % (what, a.dtype))
    return np.ascontiguousarray(a, dtype=dtype)


def drop7_play(seeds, player="random", mode="normal", device="cpu", threads=0, max_moves=_gpuvet.MAX_MOVES):
    """Plays one whole game per seed with the CLI's random or greedy player through
    drop7_sim_batch (the engine of `gpuvet bench drop7`); returns their records (RECORD_DTYPE).
    device: "cpu" (the fast game on threads), "ref" (the plain reference) or "cuda" (the
    GPU, where the library was built with one: else EnvError)."""
    s = np.ascontiguousarray(np.atleast_1d(np.asarray(seeds, dtype=np.uint64)))
    out = np.zeros(len(s), dtype=RECORD_DTYPE)
    _gpuvet.drop7_play(s, _choice("drop7_play: player", player, _PLAYERS), _choice("drop7_play: mode", mode, _MODES),
                       _choice("drop7_play: device", device, _DEVICES), int(threads), _count("max_moves", max_moves),
                       out)
    return out


class Drop7Env:
    """n Drop7 games side by side, in the shape of Gymnasium's vector API.

    reset(seed) -> obs, info;  step(actions) -> obs, reward, terminated, truncated, info.

    obs: (n, 12, 7, 7) float32, the network's input planes (src/drop7/drop7_encode.c: planes
    0..9 one-hot cell codes, 10 the next disc / 7, 11 drops until the row rises / 30).
    info["action_mask"]: (n, 7) bool, the legal columns. actions: (n,) integers 0..6, each a
    legal column (else InputError, and nothing is played). reward: the points the move made
    (float64). terminated: the game is over; truncated: it reached max_moves.

    Seeds: reset(seed=S) starts game 0 of slot i from seed S + i; slot i's k-th game plays
    seed S + i + k * n, so the first n games are those of `gpuvet bench drop7 --seed S` with
    a batch of n, whichever order the games end in.

    Autoreset (as Gymnasium 0.29's vector environments): a slot whose game ends in a step
    starts its next game within that step; obs shows the new game's first position, and
    info["final_observation"][i] the ended game's last position and info["record"][i] its
    record (RECORD_DTYPE), valid where info["_final_observation"] / info["_record"] is True.
    info["seed"]: the seed of the game each slot's move was played in.

    copy=False returns the environment's own arrays, overwritten by the next step (no
    allocation per step); copy=True (default on the CPU) returns fresh arrays.

    device="cuda" (or "cuda:N"): the games are stepped on the GPU (src/drop7/drop7_env.h, the
    same per-game code as the CPU's, so the same seeds give the same observations, rewards and
    records). Every array is a gpuvet.Array in device memory, the environment's own (rewritten
    by the next step; no copy: torch.from_dlpack(obs) shares it); actions may be a CUDA tensor
    (torch.long or torch.int32, read in place through DLPack) or a host array; info["record"]
    and info["_record"] come to the host. arrays="dlpack" on the CPU gives gpuvet.Array objects
    over the host arrays (kDLCPU) instead of NumPy arrays.
    """

    metadata = {"autoreset_mode": "same-step"}

    def __init__(self, n, device="cpu", mode="normal", seed=1, max_moves=_gpuvet.MAX_MOVES, threads=0, copy=None,
                 arrays=None):
        n = _count("Drop7Env: n", n)
        gpu = _gpu_index("Drop7Env", device)
        self._dev = gpu is not None
        self.arrays = _arrays_kind("Drop7Env", arrays, self._dev)
        if self._dev and copy:
            raise InputError("Drop7Env: copy=True on the GPU: the arrays are the environment's own device memory "
                             "(clone what you keep: torch.from_dlpack(obs).clone())")
        self.num_envs = n
        self.device = device
        self.mode = mode
        self.copy = (not self._dev) if copy is None else bool(copy)
        self.single_observation_shape = (12, 7, 7)
        self.single_action_space_n = 7
        self._seed = 1 if seed is None else int(seed)
        mode_i = _choice("Drop7Env: mode", mode, _MODES)
        if self._dev:
            self._c = _gpuvet.Drop7Dev(n, mode_i, _count("max_moves", max_moves), gpu, device)
            self._a = self._c.arrays()
            self.gpu_name = self._c.name()
            return
        self._c = _gpuvet.Drop7(n, mode_i, _count("max_moves", max_moves), int(threads))
        self._obs = np.zeros((n, 12, 7, 7), dtype=np.float32)
        self._mask = np.zeros((n, 7), dtype=np.bool_)
        self._rew = np.zeros(n, dtype=np.float64)
        self._term = np.zeros(n, dtype=np.bool_)
        self._trunc = np.zeros(n, dtype=np.bool_)
        self._rec = np.zeros(n, dtype=RECORD_DTYPE)
        self._fobs = np.zeros((n, 12, 7, 7), dtype=np.float32)
        self._seeds = np.zeros(n, dtype=np.uint64)

    def _out(self, a):
        a = a.copy() if self.copy else a
        return as_dlpack(a) if self.arrays == "dlpack" else a

    def reset(self, seed=None, options=None):
        """Starts every slot's first game; seed None: the constructor's seed (default 1)."""
        if seed is not None:
            self._seed = int(seed)
        if self._dev:
            self._c.reset(self._seed & (2**64 - 1))
            return self._a["obs"], {"action_mask": self._a["mask"], "seed": self._a["seed"]}
        self._c.reset(self._seed & (2**64 - 1), self._obs, self._mask)
        self._seeds[:] = (np.arange(self.num_envs, dtype=np.uint64) + np.uint64(self._seed & (2**64 - 1)))
        return self._out(self._obs), {"action_mask": self._out(self._mask), "seed": self._seeds.copy()}

    def step(self, actions):
        if self._dev:
            return self._step_dev(actions)
        a = _actions("Drop7Env.step", actions, self.num_envs, np.int64)
        ended = self._c.step(a, self._obs, self._mask, self._rew, self._term, self._trunc, self._rec, self._fobs,
                             self._seeds)
        done = self._term | self._trunc
        info = {"action_mask": self._out(self._mask), "seed": self._seeds.copy(), "ended": ended}
        if ended:
            info["final_observation"] = self._fobs.copy()
            info["_final_observation"] = done
            info["record"] = self._rec.copy()
            info["_record"] = done
            if self.arrays == "dlpack":
                info["final_observation"] = as_dlpack(info["final_observation"])
                info["_final_observation"] = as_dlpack(done)
        return self._out(self._obs), self._out(self._rew), self._out(self._term), self._out(self._trunc), info

    def _step_dev(self, actions):
        A = self._a
        ended = self._c.step(_device_actions("Drop7Env.step", actions, self.num_envs))
        info = {"action_mask": A["mask"], "seed": A["seed"], "ended": ended}
        if ended:
            rec = np.zeros(self.num_envs, dtype=RECORD_DTYPE)
            self._c.records(0, rec)
            info["final_observation"] = A["final_obs"]
            info["_final_observation"] = A["done"]
            info["record"] = rec
            info["_record"] = A["done"].numpy()
        return A["obs"], A["reward"], A["terminated"], A["truncated"], info

    def sample(self, player="random"):
        """The CLI's player's columns for the current positions: "random" (each game's own
        player generator, seeded as `gpuvet bench drop7` seeds it: with only these actions
        the games are the CLI's) or "greedy"."""
        if self._dev:   # on the device, into the environment's own vector (rewritten by the next sample)
            self._c.sample(_choice("Drop7Env.sample: player", player, _PLAYERS))
            return self._a["sample"]
        out = np.zeros(self.num_envs, dtype=np.int64)
        self._c.sample(_choice("Drop7Env.sample: player", player, _PLAYERS), out)
        return as_dlpack(out) if self.arrays == "dlpack" else out

    def records(self):
        """The records of the games in progress (end 0), on the host."""
        out = np.zeros(self.num_envs, dtype=RECORD_DTYPE)
        if self._dev:
            self._c.records(1, out)
        else:
            self._c.records(out)
        return out

    def close(self):
        pass


class ConsoleEnv:
    """n instances of one ROM (NES, Game Boy, SNES: the console from the file, or console=),
    each with its own controller, in the shape of Gymnasium's vector API.

    reset() -> obs, info: power-cycles every instance and runs `frameskip` frames with no
    button held.  step(actions) -> obs, reward, terminated, truncated, info: instance i holds
    the buttons actions[i] (a bit mask in the order of self.buttons; button_mask() builds one)
    for `frameskip` frames. obs: every instance's last frame, (n, height, width, 3) uint8 RGB,
    or (n, height, width) luma with grey=True ((299 R + 587 G + 114 B + 500) // 1000);
    downscale=k averages each k x k block per channel (rounded to nearest; before the luma with
    grey) and gives (n, height // k, width // k[, 3]) (k must divide the frame's sides). The
    reward is 0 and an episode never ends on its own: a game's reward and end are the
    caller's, from the work RAM (ram(), peek()).

    video: "native" (drawn inside the core) or "host" (the host renderer over the frame
    logs); both give `gpuvet run`'s frames. video="device" (a GPU build; gpu= picks the GPU)
    draws them on the GPU and keeps them there: obs is a gpuvet.Array in device memory, the
    downscale and grey done by a device kernel (frame_reduce.h, the host's code), rewritten by
    the next step (torch.from_dlpack(obs) shares it without a copy). arrays="dlpack" gives
    gpuvet.Array objects (kDLCPU) over the host frames of native or host video too. audio: "native" (the default, as `gpuvet run`),
    "host" or "none" (faster; the NES's save states then do not load back: a known limit of
    its state check). hashes() gives each instance's video and audio hash since power-on as
    `gpuvet run` prints them. keep_audio=True keeps each instance's samples of the last
    reset or step: sound() returns them (audio_rate Hz, audio_channels int16 values a sample
    frame: `gpuvet run --wav`'s samples).
    """

    def __init__(self, rom, n=1, video="native", frameskip=1, grey=False, audio="native", threads=0, console=None,
                 model=None, copy=True, downscale=1, keep_audio=False, arrays=None, gpu=0):
        n = _count("ConsoleEnv: n", n)
        self._dev = video == "device"
        self.arrays = _arrays_kind("ConsoleEnv", arrays, self._dev)
        self.frameskip = _count("ConsoleEnv: frameskip", frameskip)
        self.downscale = _count("ConsoleEnv: downscale", downscale)
        self.keep_audio = bool(keep_audio)
        if self.keep_audio and audio == "none":
            raise InputError("ConsoleEnv: keep_audio with audio='none': there are no samples to keep (native or host)")
        self._c = _gpuvet.Console(str(rom), n, video, audio, int(threads), console, model, self.keep_audio, int(gpu))
        i = self._c.info()
        if i["width"] % self.downscale or i["height"] % self.downscale:
            raise InputError("ConsoleEnv: downscale %d: give a factor that divides the %s's %dx%d frame"
                             % (self.downscale, i["console"], i["width"], i["height"]))
        self.num_envs = n
        self.console = i["console"]
        self.width, self.height = i["width"] // self.downscale, i["height"] // self.downscale
        self.audio_rate, self.audio_channels = i["audio_rate"], i["audio_channels"]
        self.buttons = i["buttons"].split()
        self.cart = i["cart"]
        self.ram_bytes = i["ram_bytes"]
        self.grey = bool(grey)
        self.copy = copy and not self._dev
        shape = (n, self.height, self.width) if self.grey else (n, self.height, self.width, 3)
        self._obs = None if self._dev else np.zeros(shape, dtype=np.uint8)   # the device keeps its own
        self._btn = np.zeros(n, dtype=np.uint32)

    def button_mask(self, *names):
        """The bit mask of the named buttons ("A", "Right"; any case)."""
        low = [b.lower() for b in self.buttons]
        m = 0
        for name in names:
            if name.lower() not in low:
                raise InputError("ConsoleEnv: '%s' is no button of the %s (%s)" % (name, self.console,
                                                                                   " ".join(self.buttons)))
            m |= 1 << low.index(name.lower())
        return m

    def _run(self, frames):
        if self._dev:
            self._c.step(self._btn, frames, None, self.grey, self.downscale)
            return self._c.obs_array(self.grey, self.downscale)
        self._c.step(self._btn, frames, self._obs, self.grey, self.downscale)
        obs = self._obs.copy() if self.copy else self._obs
        return as_dlpack(obs) if self.arrays == "dlpack" else obs

    def reset(self, seed=None, options=None):
        self._c.power()
        self._btn[:] = 0
        obs = self._run(self.frameskip)
        return obs, {"frames": self.frames}

    def step(self, actions):
        self._btn[:] = _actions("ConsoleEnv.step", actions, self.num_envs, np.uint32)
        obs = self._run(self.frameskip)
        n = self.num_envs
        return obs, np.zeros(n), np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_), {"frames": self.frames}

    @property
    def frames(self):
        """Frames instance 0 has run since power-on (a loaded state brings its own count)."""
        return self._c.info()["frames"]

    def sound(self):
        """Every instance's samples of the last reset or step (keep_audio=True): a list of n
        int16 arrays (samples, audio_channels), audio_rate per second; the lengths may differ
        between instances (a frame's samples follow its CPU cycles)."""
        if not self.keep_audio:
            raise InputError("ConsoleEnv.sound: the environment keeps no samples: create it with keep_audio=True")
        return [np.frombuffer(self._c.samples(k), dtype=np.int16).reshape(-1, self.audio_channels).copy()
                for k in range(self.num_envs)]

    def hashes(self):
        """(video, audio): (n,) uint64 each, every instance's hashes since power-on."""
        h = np.zeros((self.num_envs, 2), dtype=np.uint64)
        self._c.hashes(h)
        return h[:, 0].copy(), h[:, 1].copy()

    def save_state(self, i):
        """Instance i's save state (bytes; the format of `gpuvet run --save-state`)."""
        return self._c.save_state(int(i))

    def load_state(self, i, state):
        """Loads a save state into instance i (InputError on a bad one; the instance is
        then unchanged). Its frame shows from the next step on."""
        self._c.load_state(int(i), state)

    def ram(self, i):
        """A copy of instance i's work RAM (NES 2 KiB, Game Boy 8 or 32 KiB, SNES 128 KiB)."""
        return np.frombuffer(self._c.ram(int(i)), dtype=np.uint8).copy()

    def peek(self, offsets):
        """(n, len(offsets)) uint8: every instance's work RAM at the offsets."""
        off = np.ascontiguousarray(np.atleast_1d(np.asarray(offsets)), dtype=np.int64)
        out = np.zeros((self.num_envs, len(off)), dtype=np.uint8)
        self._c.ram_all(out, off)
        return out

    def close(self):
        pass
