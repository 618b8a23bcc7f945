"""Writes a Drop7 reference file (docs/NN.md, "Reference files") with PyTorch in float64.

The file holds the batch (input, policy_target, value_target), the initial state_dict,
the training-mode forward (out.logits, out.value, out.loss), every gradient (grad.<name>),
the state after 1 and 10 AdamW steps on the same batch (step1.<name>, step10.<name>), the
loss before each step (loss.steps) and the eval-mode forward after the 10 steps
(eval.logits, eval.value). gpuvet's tests and `gpuvet check --reference` read it.

With --init CKPT the initial state is a checkpoint (for example one written by
`gpuvet soak --save`), loaded with load_state_dict(strict=True); channels, blocks and norm
then come from it. `gpuvet check --reference` on the result compares gpuvet with PyTorch
on that checkpoint.

usage: python3 make_reference.py --out FILE [--channels 32] [--blocks 6] [--norm group|batch]
       [--batch 8] [--seed 1] [--init CKPT]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drop7_reference as ref  # noqa: E402
import safetensors_io  # noqa: E402


def state(net, prefix):
    return {prefix + k: v.detach().clone() for k, v in net.state_dict().items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--norm", choices=["group", "batch"], default="group")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", help="initial state: a safetensors checkpoint with state_dict names")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    init = None
    if a.init:
        init, _ = safetensors_io.load(a.init)
        a.channels = init["stem.weight"].shape[0]
        a.blocks = len([k for k in init if k.startswith("blocks.") and k.endswith(".c1.weight")])
        a.norm = "batch" if "sn.running_mean" in init else "group"
    net = ref.Drop7Net(a.channels, a.blocks, a.norm).double()
    if init is not None:
        net.load_state_dict(init, strict=True)
        print(f"loaded {a.init} with load_state_dict(strict=True): channels {a.channels}, blocks {a.blocks}, "
              f"{a.norm} norm, {len(init)} tensors")
    net.train()
    gen = torch.Generator().manual_seed(a.seed)
    x = ref.random_positions(a.batch, gen)
    tp = torch.randint(0, 7, (a.batch,), generator=gen)
    tv = torch.randn(a.batch, generator=gen, dtype=torch.float64)
    t = {"input": x, "policy_target": tp, "value_target": tv}
    t.update(state(net, ""))
    opt = ref.make_optimizer(net)
    losses = []
    logits, value = net(x)
    loss = ref.loss_fn(logits, value, tp, tv)
    loss.backward()
    t["out.logits"], t["out.value"], t["out.loss"] = logits.detach(), value.detach(), loss.detach()
    for name, p in net.named_parameters():
        t["grad." + name] = p.grad.detach().clone()
    losses.append(loss.item())
    opt.step()
    t.update(state(net, "step1."))
    for _ in range(9):
        opt.zero_grad()
        logits, value = net(x)
        loss = ref.loss_fn(logits, value, tp, tv)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    t.update(state(net, "step10."))
    t["loss.steps"] = torch.tensor(losses, dtype=torch.float64)
    net.eval()
    with torch.no_grad():
        logits, value = net(x)
    t["eval.logits"], t["eval.value"] = logits, value
    meta = {"channels": a.channels, "blocks": a.blocks, "batch": a.batch, "norm": a.norm, "groups": ref.GROUPS,
            "seed": a.seed, "torch": torch.__version__,
            "optimizer": "AdamW lr=1e-3 betas=(0.9,0.999) eps=1e-8 weight_decay=1e-4"}
    tmp = a.out + ".tmp"
    safetensors_io.save(tmp, t, meta)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
