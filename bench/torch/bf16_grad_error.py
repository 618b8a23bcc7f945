"""How far PyTorch's own bfloat16 gradients lie from the float64 ones of a reference file:
the yardstick for the bf16 tolerance of `gpuvet check` (a tolerance tighter than what
PyTorch itself reaches would fail a correct bf16 implementation).

For each file it rebuilds the network from the file's initial state and batch, takes the
gradients (a) with the whole network in bfloat16 (weights, activations and their gradients
rounded to bf16, as gpuvet's bf16 trainer stores them) and (b) under autocast(bfloat16)
(convolutions and linears in bf16, the rest in float32), and prints per mode the relative L2
error of the logits and of every parameter's gradient against the file, the worst first.

usage: python3 bf16_grad_error.py FILE.safetensors... [--device cuda|cpu]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drop7_reference as ref  # noqa: E402
import safetensors_io  # noqa: E402


def rel_l2(a, b):
    a, b = a.double().flatten(), b.double().flatten()
    return (torch.linalg.vector_norm(a - b) / torch.linalg.vector_norm(b)).item()


def run(t, init, channels, blocks, norm, mode, dev):
    net = ref.Drop7Net(channels, blocks, norm).double()
    net.load_state_dict(init, strict=True)
    net.train()
    x = t["input"].to(dev)
    tp, tv = t["policy_target"].to(dev), t["value_target"].to(dev)
    if mode == "bf16":
        net = net.to(dev, torch.bfloat16)
        logits, value = net(x.to(torch.bfloat16))
        loss = ref.loss_fn(logits.float(), value.float(), tp, tv.float())
    else:
        net = net.to(dev, torch.float32)
        with torch.autocast(device_type=dev, dtype=torch.bfloat16):
            logits, value = net(x.float())
            loss = ref.loss_fn(logits.float(), value.float(), tp, tv.float())
    loss.backward()
    errs = {"logits": rel_l2(logits.detach().cpu(), t["out.logits"])}
    for name, p in net.named_parameters():
        errs["grad " + name] = rel_l2(p.grad.cpu(), t["grad." + name])
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    for path in a.files:
        t, _ = safetensors_io.load(path)
        channels = t["stem.weight"].shape[0]
        blocks = len([k for k in t if k.startswith("blocks.") and k.endswith(".c1.weight")])
        norm = "batch" if "sn.running_mean" in t else "group"
        init = {k: t[k] for k in ref.Drop7Net(channels, blocks, norm).state_dict()}
        for mode in ("bf16", "autocast"):
            torch.manual_seed(0)
            try:
                errs = run(t, init, channels, blocks, norm, mode, a.device)
            except RuntimeError as e:  # older PyTorch lacks some bf16 kernels on the CPU
                print(f"{os.path.basename(path)} {mode:8s} on {a.device}: not supported here: {str(e)[:80]}")
                continue
            worst = sorted(((v, k) for k, v in errs.items() if k != "logits"), reverse=True)
            print(f"{os.path.basename(path)} {mode:8s} on {a.device}: logits rel_l2 {errs['logits']:.3e}; "
                  f"worst gradients: " + ", ".join(f"{k} {v:.3e}" for v, k in worst[:4]))


if __name__ == "__main__":
    main()
