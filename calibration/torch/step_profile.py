#!/usr/bin/python3
"""Is a training step bound by the GPU or by the host issuing its kernels? Trains a zoo model (the
torchvision or text_models.py equivalent, as ddp_runner.py builds it) on one GPU, synthetic data,
SGD with momentum, and prints per step: the wall time, the GPU's busy time (the union of its
kernels' intervals, from torch.profiler), the kernels launched and the host operators dispatched.
A busy time well below the wall time means the GPU waits for the host: at a tiny batch the
step's time is the host's (ddlsim's compute.host_step_ms; over `ddlsim profile`'s kernels,
compute.host_kernel_us). Needs a CUDA device; bad input: exit code 2.

    python3 step_profile.py --model resnet50 --batch 128 --precision mixed --memory-format nhwc
"""
import argparse
import statistics
import sys
import time

import ddp_runner


def options(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, choices=sorted(ddp_runner.MODELS), help="ddlsim zoo name")
    p.add_argument("--input-size", type=ddp_runner.positive, help="pixels (images) or tokens (language models)")
    p.add_argument("--batch", type=ddp_runner.positive, default=32)
    p.add_argument("--precision", choices=["fp32", "tf32", "mixed"], default="fp32")
    p.add_argument("--memory-format", choices=["nchw", "nhwc"], default="nchw")
    p.add_argument("--steps", type=ddp_runner.positive, default=20, help="timed steps (3 more are profiled)")
    o = p.parse_args(argv)
    _, size, o.classes = ddp_runner.MODELS[o.model]
    o.input_size = o.input_size or size
    return o


def busy_us(intervals):
    """Length of the union of (start, end) intervals."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def main(argv):
    o = options(argv)
    import torch
    if not torch.cuda.is_available():
        sys.stderr.write("step_profile.py: error: this torch sees no CUDA device\n")
        sys.exit(2)
    work = ddp_runner.Workload(o, torch, torch.device("cuda"))
    opt = work.optimizer(work.model.parameters())

    def step():
        work.forward_backward(work.model)
        work.update(opt)

    try:
        step()  # a shape the model cannot train (BatchNorm over one value) or a batch too large
    except (ValueError, RuntimeError) as e:
        sys.stderr.write(f"step_profile.py: error: {o.model} at {o.input_size} batch {o.batch}: {e}\n")
        sys.exit(2)
    for _ in range(7):
        step()
    torch.cuda.synchronize()
    walls = []
    for _ in range(o.steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        walls.append(time.perf_counter() - t0)
    from torch.profiler import ProfilerActivity, profile
    profiled = 3
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(profiled):
            step()
        torch.cuda.synchronize()
    events = prof.events()
    kernels = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
    host_ops = [e for e in events if e.device_type == torch.autograd.DeviceType.CPU and e.cpu_parent is None
                and e.name.startswith("aten::")]
    busy = busy_us([(e.time_range.start, e.time_range.end) for e in kernels]) / profiled * 1e-6
    if not kernels:  # a profiler that reports kernels only as their operators' device time
        busy = sum(getattr(e, "self_device_time_total", 0) or 0 for e in events) / profiled * 1e-6
    wall = statistics.median(walls)
    print(f"{o.model} {o.input_size} batch {o.batch} {o.precision} {o.memory_format} on "
          f"{torch.cuda.get_device_name()} (torch {torch.__version__}): step {wall:.6f} s, GPU busy {busy:.6f} s "
          f"({100 * busy / wall:.0f} %), {len(kernels) / profiled:.0f} kernels and {len(host_ops) / profiled:.0f} "
          f"host operators a step")


if __name__ == "__main__":
    main(sys.argv[1:])
