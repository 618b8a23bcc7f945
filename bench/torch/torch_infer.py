"""PyTorch side of the Drop7 inference benchmark (gpuvet bench infer), for side-by-side runs.

One call is what gpuvet times: the positions in (a host float32 tensor, copied to the
device), the eval-mode forward under torch.inference_mode, logits and value back on the
host. Per (mode, dtype, batch): the latency of every timed call (median, p99, min),
samples/s over the timed calls and per CPU-second of this process (as gpuvet's harness
records it), peak device memory; one JSON line each.
Modes: eager; compile (torch.compile, default mode, one compilation per batch size);
cudagraph (the eager forward captured with torch.cuda.graph on static tensors, replayed;
CUDA only). bf16 runs under autocast, as the training benchmark does.

usage: python3 torch_infer.py --device cpu|cuda [--channels 128] [--batches 1,2,4,...]
       [--modes eager,compile,cudagraph] [--dtypes fp32,bf16] [--min-time 0.2] [--repeats 3]
       [--threads N] [--norm group|batch]
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


def make_call(net, dev, mode, dtype, batch, xh):
    amp = dtype == "bf16"

    def fwd(x):
        with torch.autocast(device_type=dev, dtype=torch.bfloat16, enabled=amp):
            lo, va = net(x)
        return lo.float(), va.float()

    if mode == "eager":
        def call():
            with torch.inference_mode():
                lo, va = fwd(xh.to(dev))
                return lo.cpu(), va.cpu()
        return call
    if mode == "compile":
        cf = torch.compile(fwd, dynamic=False)

        def call():
            with torch.inference_mode():
                lo, va = cf(xh.to(dev))
                return lo.cpu(), va.cpu()
        return call
    if mode == "cudagraph":
        if dev != "cuda":
            return None
        xs = xh.to(dev)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.inference_mode():
            for _ in range(3):
                fwd(xs)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g), torch.inference_mode():
            lo_s, va_s = fwd(xs)

        def call():
            xs.copy_(xh)
            g.replay()
            return lo_s.cpu(), va_s.cpu()
        return call
    raise SystemExit(f"torch_infer.py: unknown mode {mode}")


def run(dev, c, norm, batch, dtype, mode, min_time, repeats):
    torch.manual_seed(0)
    net = ref.Drop7Net(c, norm=norm).to(dev).eval()
    gen = torch.Generator().manual_seed(1)
    xh = ref.random_positions(batch, gen).float()
    if dev == "cuda":
        xh = xh.pin_memory()
        torch.cuda.reset_peak_memory_stats()
    call = make_call(net, dev, mode, dtype, batch, xh)
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
            "peak_device_bytes": peak, "threads": torch.get_num_threads()}


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
                    r = run(a.device, c, a.norm, b, dt, mode, a.min_time, a.repeats)
                    if r is not None:
                        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
