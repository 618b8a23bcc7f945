"""Joins a gpuvet run record (bench train) with the JSON lines printed by torch_drop7.py
(eager and, optionally, torch.compile) on (device, channels, batch, dtype), and prints a
Markdown table of medians and ratios plus a JSON summary.

usage: python3 bench/join_torch.py GPUVET.json TORCH_EAGER.jsonl [TORCH_COMPILE.jsonl]
           [--machine TEXT] [--json OUT.json]
"""
import argparse
import json
import sys


def load_lines(path):
    rows = []
    if not path:
        return rows
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def key(r):
    return (r["device"], int(r["channels"]), int(r["batch"]), r["dtype"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpuvet")
    ap.add_argument("eager")
    ap.add_argument("compiled", nargs="?")
    ap.add_argument("--machine", default="")
    ap.add_argument("--json")
    a = ap.parse_args()
    with open(a.gpuvet) as f:
        rec = json.load(f)
    ours = {key(r): r for r in rec.get("bench_train", [])}
    eager = {key(r): r for r in load_lines(a.eager)}
    comp = {key(r): r for r in load_lines(a.compiled)}
    rows = []
    for k in sorted(set(ours) & set(eager), key=lambda k: (k[0], k[1], k[3], k[2])):
        g, e, c = ours[k], eager[k], comp.get(k)
        row = {
            "device": k[0], "channels": k[1], "batch": k[2],
            "dtype": k[3] + ("+tf32" if e.get("tf32") else ""),
            "gpuvet_median": g["samples_per_s_median"], "gpuvet_best": g["samples_per_s_best"],
            "torch_eager_median": e["samples_per_s_median"],
            "ratio_vs_eager": g["samples_per_s_median"] / e["samples_per_s_median"],
            "gpuvet_peak_bytes": g.get("peak_device_bytes"), "torch_peak_bytes": e.get("peak_device_bytes"),
            "torch_version": e.get("torch"),
        }
        if c:
            row["torch_compile_median"] = c["samples_per_s_median"]
            row["ratio_vs_compile"] = g["samples_per_s_median"] / c["samples_per_s_median"]
        rows.append(row)
    if not rows:
        print("join_torch: no configuration is in both files", file=sys.stderr)
        return 2
    out = sys.stdout
    if a.machine:
        out.write(a.machine.rstrip() + "\n\n")
    hdr = "| device | channels | batch | dtype | gpuvet median (samples/s) | PyTorch eager | gpuvet / eager |"
    sep = "| --- | --- | --- | --- | --- | --- | --- |"
    if comp:
        hdr += " torch.compile | gpuvet / compile |"
        sep += " --- | --- |"
    hdr += " gpuvet peak MiB | PyTorch peak MiB |"
    sep += " --- | --- |"
    out.write(hdr + "\n" + sep + "\n")
    mib = lambda b: "n/a" if b is None else "%.0f" % (b / 1048576.0)
    for r in rows:
        line = "| %s | %d | %d | %s | %.0f | %.0f | %.2fx |" % (
            r["device"], r["channels"], r["batch"], r["dtype"], r["gpuvet_median"], r["torch_eager_median"],
            r["ratio_vs_eager"])
        if comp:
            if "torch_compile_median" in r:
                line += " %.0f | %.2fx |" % (r["torch_compile_median"], r["ratio_vs_compile"])
            else:
                line += " n/a | n/a |"
        line += " %s | %s |" % (mib(r["gpuvet_peak_bytes"]), mib(r["torch_peak_bytes"]))
        out.write(line + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": a.machine, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
