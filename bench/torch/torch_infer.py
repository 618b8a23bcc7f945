"""PyTorch side of the Drop7 inference benchmark (gpuvet bench infer), for side-by-side runs.

One call is what gpuvet times: the positions in (host tensors, pinned on CUDA, copied to
the device), the eval-mode forward under torch.inference_mode, logits and value back on the
host. --positions planes (default): a float32 (n, 12, 7, 7) tensor; cells: gpuvet's compact
form (n, 49) uint8 plane indices and (n, 2) float32 constants, expanded into the planes on
the device inside the timed forward (compiled and captured with it). Per (mode, dtype, batch): the latency of every timed call (median, p99, min),
samples/s over the timed calls and per CPU-second of this process (as gpuvet's harness
records it), peak device memory; one JSON line each.
Modes: eager; compile (torch.compile, default mode, one compilation per batch size);
cudagraph (the eager forward captured with torch.cuda.graph on static tensors, replayed;
CUDA only). bf16 runs under autocast, as the training benchmark does.

usage: python3 torch_infer.py --device cpu|cuda [--channels 128] [--batches 1,2,4,...]
       [--modes eager,compile,cudagraph] [--dtypes fp32,bf16] [--min-time 0.2] [--repeats 3]
       [--threads N] [--norm group|batch] [--positions planes|cells]
"""
import argparse, importlib, json, os, statistics, sys, time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ref"))
import drop7_reference as ref  # noqa: E402


def sync(dev):
    if dev == "cuda":
        torch.cuda.synchronize()


def quantile(xs, q):
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def cells_of(x):
    """Planes (n, 12, 7, 7) as gpuvet's cells form: the plane of 0..9 holding 1 per cell
    (n, 49) uint8 and the values of planes 10 and 11 (n, 2) float32."""
    n = x.shape[0]
    cells = x[:, :10].reshape(n, 10, 49).argmax(1).to(torch.uint8)
    return cells, x[:, 10:12, 0, 0].float().contiguous()


def planes_of(cells, consts):
    """The inverse on the device: the 12 float32 planes of a cells batch."""
    n = cells.shape[0]
    one = torch.nn.functional.one_hot(cells.long(), 10).permute(0, 2, 1).reshape(n, 10, 7, 7).float()
    return torch.cat([one, consts.view(n, 2, 1, 1).expand(n, 2, 7, 7)], 1)


def make_call(net, dev, mode, dtype, hin, to_x):
    """hin: the host inputs of a call (copied to the device each call); to_x: the device
    inputs -> the network's (n, 12, 7, 7) input, inside the timed (and compiled or captured)
    forward."""
    amp = dtype == "bf16"

    def fwd(*xs):
        with torch.autocast(device_type=dev, dtype=torch.bfloat16, enabled=amp):
            lo, va = net(to_x(*xs))
        return lo.float(), va.float()

    if mode == "eager":
        def call():
            with torch.inference_mode():
                lo, va = fwd(*(h.to(dev) for h in hin))
                return lo.cpu(), va.cpu()
        return call
    if mode == "compile":
        cf = torch.compile(fwd, dynamic=False)

        def call():
            with torch.inference_mode():
                lo, va = cf(*(h.to(dev) for h in hin))
                return lo.cpu(), va.cpu()
        return call
    if mode == "cudagraph":
        if dev != "cuda":
            return None
        xs = [h.to(dev) for h in hin]
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.inference_mode():
            for _ in range(3):
                fwd(*xs)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g), torch.inference_mode():
            lo_s, va_s = fwd(*xs)

        def call():
            for d, h in zip(xs, hin):
                d.copy_(h)
            g.replay()
            return lo_s.cpu(), va_s.cpu()
        return call
    raise SystemExit(f"torch_infer.py: unknown mode {mode}")


def run(dev, c, norm, batch, dtype, mode, min_time, repeats, positions):
    torch.manual_seed(0)
    net = ref.Drop7Net(c, norm=norm).to(dev).eval()
    gen = torch.Generator().manual_seed(1)
    xh = ref.random_positions(batch, gen).float()
    if positions == "cells":
        hin = list(cells_of(xh))
        if not torch.equal(planes_of(*hin), xh):
            raise SystemExit("torch_infer.py: the cells form does not give back the planes")
        to_x = planes_of
    else:
        hin, to_x = [xh], (lambda x: x)
    if dev == "cuda":
        hin = [h.pin_memory() for h in hin]
        torch.cuda.reset_peak_memory_stats()
    call = make_call(net, dev, mode, dtype, hin, to_x)
    if call is None:
        return None
    for _ in range(3):
        call()
    sync(dev)
    t0 = time.perf_counter()
    call()
    per = time.perf_counter() - t0
    calls = max(1, min(100000, int(min_time / per + 0.999))) if per > 0 else 1
    lat, rates, cpu_rates = [], [], []
    for _ in range(repeats):
        r0, c0 = time.perf_counter(), time.process_time()
        for _ in range(calls):
            t = time.perf_counter()
            call()  # .cpu() of the outputs synchronises
            lat.append(time.perf_counter() - t)
        rates.append(batch * calls / (time.perf_counter() - r0))
        dc = time.process_time() - c0
        cpu_rates.append(batch * calls / dc if dc > 0 else 0.0)
    peak = torch.cuda.max_memory_allocated() if dev == "cuda" else None
    return {"impl": "pytorch-" + mode, "torch": torch.__version__, "device": dev, "channels": c, "norm": norm,
            "batch": batch, "dtype": dtype, "calls": calls, "latency_samples": len(lat),
            "latency_ms_median": 1000 * statistics.median(lat), "latency_ms_p99": 1000 * quantile(lat, 0.99),
            "latency_ms_min": 1000 * min(lat), "samples_per_s_median": statistics.median(rates),
            "samples_per_s_per_cpu_second_median": statistics.median(cpu_rates),
            "peak_device_bytes": peak, "threads": torch.get_num_threads(), "positions": positions}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--channels", default="128")
    ap.add_argument("--norm", default="group", choices=["group", "batch"])
    ap.add_argument("--batches", default=",".join(str(1 << i) for i in range(13)))
    ap.add_argument("--dtypes", default="fp32")
    ap.add_argument("--modes", default="eager")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--positions", default="planes", choices=["planes", "cells"])
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    if "compile" in a.modes:  # one compilation per batch size: let all of them stay cached
        importlib.import_module("torch._dynamo").config.cache_size_limit = 64
    for mode in a.modes.split(","):
        for c in map(int, a.channels.split(",")):
            for dt in a.dtypes.split(","):
                for b in map(int, a.batches.split(",")):
                    r = run(a.device, c, a.norm, b, dt, mode, a.min_time, a.repeats, a.positions)
                    if r is not None:
                        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
