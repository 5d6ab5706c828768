#!/usr/bin/python3
"""Census of the memory-moving operations one training step of a torchvision model runs.

Runs forward and backward of torchvision MODEL on the CPU under torch.profiler and counts the
operations that copy or fill memory beside a layer's own kernels and that PyTorch runs on any
device (autograd's and ATen's device-independent code): the copy an in-place activation saves
for its gradient (clone under silu_, hardswish_, hardtanh_ ...), the copies reshape and
contiguous make of strided views, F.pad's copy, the zero-fill and copy of slice and select
gradients, concatenations and rolls. Copies ATen's CPU kernels make for themselves (clone under
mm, convolution_backward) are listed apart: a GPU does not run them. The CPU's convolutions may also
return channels-last tensors (oneDNN), which makes some permuted views contiguous and hides copies
a GPU makes (ConvNeXt's layer-norm inputs): read the counts as a lower bound where that applies.

ddlsim's roofline charges these where its zoo models have them (cost/compute.cpp); the counts it
was checked against are in tests/model_zoo_test.cpp. Needs Debian's python3-torch and
python3-torchvision (the system interpreter, /usr/bin/python3).

    /usr/bin/python3 calibration/torch/op_census.py [--batch N] [--size PIXELS] MODEL [MODEL ...]
"""
import argparse
import sys
from collections import Counter

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile

COUNTED = ("aten::slice_backward", "aten::select_backward", "aten::constant_pad_nd", "aten::cat",
           "aten::stack", "aten::roll")
CPU_ONLY_PARENTS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::convolution_backward")


def census(name, batch, size):
    model = getattr(torchvision.models, name)()
    model.train()
    x = torch.randn(batch, 3, size, size)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = model(x)
        if not torch.is_tensor(y):
            y = y[0]
        y.sum().backward()
    device, cpu = Counter(), Counter()
    for e in prof.events():
        # The profiler nests events by their timestamps; on a busy machine a copy now and then
        # gets no parent: it is counted as such rather than dropped.
        parent = e.cpu_parent.name if e.cpu_parent is not None else "(no parent)"
        if e.name == "aten::clone":
            (cpu if parent in CPU_ONLY_PARENTS else device)["clone < " + parent.replace("aten::", "")] += 1
        elif e.name in COUNTED:
            device[e.name.replace("aten::", "")] += 1
    return device, cpu


def positive(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected a positive integer")
    return n


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="torchvision.models names (resnet50, efficientnet_b0, ...)")
    ap.add_argument("--batch", type=positive, default=2, help="samples (default 2: batch norm needs 2)")
    ap.add_argument("--size", type=positive, default=224, help="input pixels a side (default 224)")
    args = ap.parse_args(argv)
    for name in args.models:
        if not hasattr(torchvision.models, name):
            print(f"op_census.py: unknown torchvision model '{name}'", file=sys.stderr)
            return 2
        try:
            device, cpu = census(name, args.batch, args.size)
        except RuntimeError as e:
            print(f"op_census.py: {name} at {args.size} x {args.size}: {e}", file=sys.stderr)
            return 2
        print(name)
        for k, v in sorted(device.items()):
            print(f"  {v:5d}  {k}")
        for k, v in sorted(cpu.items()):
            print(f"  {v:5d}  {k}  (CPU kernels only)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
