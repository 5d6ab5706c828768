#!/usr/bin/python3
"""Time many zoo models on one GPU, each alone (no DDP), in one process: the data that scores
ddlsim's roofline on a GPU it has never seen. For each model (the torchvision or text_models.py
equivalent that ddp_runner.py builds, synthetic data, SGD with momentum) it runs --warmup steps
(cuDNN's autotuner picks its kernels there), times --steps steps, then profiles 2 steps and sorts
the GPU's kernel time by what the kernel does (its name):
  matmul_s      convolutions and GEMMs (cuDNN, cuBLAS, CUTLASS kernels)
  norm_s        batch and layer norm
  layout_s      NCHW <-> NHWC transposes
  optimizer_s   the update's multi-tensor kernels
  other_s       everything else: elementwise, reductions, pooling, copies, softmax
  gpu_busy_s    the union of the kernels' intervals: well below step_time_s, the host is the bound
  forward_s, forward_backward_s   with --phases: the forward pass alone, and forward + backward
--kernels also keeps each model's 12 longest kernels. One row per model is appended to --csv as
soon as it is measured (a model that fails, out of memory say, is reported on stderr and skipped),
in ddp_runner.py's columns plus the ones above, so `ddlsim compare CSV --scenario ONE_GPU.ini`
scores the roofline on it. --budget-s stops before a model that would start after that many
seconds. Needs a CUDA device (--device cpu: fp32, a check of the script); bad input: exit 2.

    python3 zoo_steps.py --models resnet50,efficientnet_b0 --batch 128 --precision mixed \
        --memory-format nhwc --csv zoo.csv
"""
import argparse
import gc
import os
import re
import statistics
import sys
import time

import ddp_runner
import ddlsim_dist as dd
import step_profile

TOP_KERNELS = 12
ANNOTATION = re.compile(r"^[A-Za-z_][\w.]*#[\w.]+$|^ProfilerStep")  # not a kernel's name ({lambda()#3} is)
CATEGORIES = ["matmul_s", "norm_s", "layout_s", "optimizer_s", "other_s"]
HEADER = ddp_runner.HEADER + ["gpu_busy_s", "kernels"] + CATEGORIES + ["forward_s", "forward_backward_s"]
# First match wins: cuDNN's batch-norm kernels are named cudnn::bn_..., so norms come before
# the matmul names (cuDNN's convolution kernels: xmma/implicit_gemm/fprop/dgrad/wgrad/winograd;
# cuBLAS: gemm, nvjet; CUTLASS: cutlass).
PATTERNS = [
    ("layout_s", re.compile(r"nchwToNhwc|nhwcToNchw|nchw_to_nhwc|nhwc_to_nchw", re.I)),
    ("norm_s", re.compile(r"batch_?norm|bn_fw|bn_bw|layer_?norm|group_norm|_norm_", re.I)),
    ("optimizer_s", re.compile(r"multi_tensor_apply|foreach", re.I)),
    ("other_s", re.compile(r"depthwise", re.I)),  # PyTorch's own depthwise kernels: memory-bound
    ("matmul_s", re.compile(r"gemm|xmma|cutlass|nvjet|conv|fprop|dgrad|wgrad|winograd|implicit|"
                            r"sm\d\d_|ampere_|volta_|turing_|hopper", re.I)),
]


def category(name):
    for cat, pattern in PATTERNS:
        if pattern.search(name):
            return cat
    return "other_s"


def options(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True, help="comma-separated ddlsim zoo names")
    p.add_argument("--batch", type=ddp_runner.positive, default=128)
    p.add_argument("--precision", choices=["fp32", "tf32", "mixed"], default="mixed")
    p.add_argument("--memory-format", choices=["nchw", "nhwc"], default="nhwc",
                   help="images only; language models run as they are")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                   help="cpu: fp32 only, no kernel columns (a check of the script without a GPU)")
    p.add_argument("--warmup", type=ddp_runner.positive, default=5)
    p.add_argument("--steps", type=ddp_runner.positive, default=10)
    p.add_argument("--kernels", help="also append each model's longest kernels (name, category, calls and "
                                     "seconds a step) to this CSV")
    p.add_argument("--phases", action="store_true",
                   help="also time the forward pass alone and forward + backward (forward_s, forward_backward_s)")
    p.add_argument("--budget-s", type=float, default=1e9, help="start no model after this many seconds")
    p.add_argument("--csv", required=True, help="CSV to append rows to (created with its header)")
    o = p.parse_args(argv)
    if o.device == "cpu" and o.precision != "fp32":
        dd.fail(f"--precision {o.precision}: needs --device cuda")
    o.names = [m for m in o.models.split(",") if m]
    unknown = [m for m in o.names if m not in ddp_runner.MODELS]
    if not o.names or unknown:
        dd.fail(f"--models: unknown zoo name(s) {', '.join(unknown) or '(none given)'}")
    if not os.path.isdir(os.path.dirname(os.path.abspath(o.csv))):
        dd.fail(f"--csv {o.csv}: its folder does not exist")
    if os.path.exists(o.csv) and os.path.getsize(o.csv) > 0:
        with open(o.csv) as f:
            if f.readline().strip() != ",".join(HEADER):
                dd.fail(f"{o.csv}:1: the file's header is not zoo_steps.py's")
    return o


def model_options(o, name):
    _, size, classes = ddp_runner.MODELS[name]
    text = name in ddp_runner.text_models.CONFIGS
    return argparse.Namespace(model=name, input_size=size, classes=classes, batch=o.batch, precision=o.precision,
                              memory_format="nchw" if text or name == "small_cnn" else o.memory_format)


def timed(torch, fn, steps, cuda):
    """Wall times of `steps` calls of fn, the GPU drained after each."""
    walls = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        if cuda:
            torch.cuda.synchronize()
        walls.append(time.perf_counter() - t0)
    return walls


def measure(torch, mo, device, warmup, steps, phases):
    """One model's steps: a namespace of params, walls (s), phases ((forward, forward + backward)
    medians or None) and, on a GPU, busy (s a step), kernels (a step), per_cat (s a step by
    category) and top (the longest kernels: (name, (calls, s)) a step), which stay None (top empty)
    off a GPU."""
    work = ddp_runner.Workload(mo, torch, device)
    cuda = device.type == "cuda"
    opt = work.optimizer(work.model.parameters())

    def step():
        work.forward_backward(work.model)
        work.update(opt)

    timed(torch, step, warmup, cuda)
    m = argparse.Namespace(params=work.params, walls=timed(torch, step, steps, cuda), phases=None, busy=None,
                           kernels=None, per_cat=None, top=[])
    if phases:  # the forward pass alone (its graph dropped), forward and backward (gradients accumulate)
        m.phases = tuple(statistics.median(timed(torch, fn, steps, cuda))
                         for fn in (lambda: work.forward(work.model), lambda: work.forward_backward(work.model)))
    opt.zero_grad(set_to_none=False)
    if not cuda:
        return m
    from torch.profiler import ProfilerActivity, profile
    profiled = 2
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(profiled):
            step()
        torch.cuda.synchronize()
    # The profiler also puts the optimizer's annotations (Optimizer.step#SGD.step) on the GPU's
    # timeline, spanning their kernels: not kernels (the first run, h100-zoo-steps.csv, counted them).
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
               and not ANNOTATION.match(e.name)]
    per_cat = dict.fromkeys(CATEGORIES, 0.0)
    per_name = {}
    for e in kernels:
        seconds = (e.time_range.end - e.time_range.start) * 1e-6 / profiled
        per_cat[category(e.name)] += seconds
        calls, total = per_name.get(e.name, (0, 0.0))
        per_name[e.name] = (calls + 1 / profiled, total + seconds)
    m.top = sorted(per_name.items(), key=lambda kv: -kv[1][1])[:TOP_KERNELS]
    m.busy = step_profile.busy_us([(e.time_range.start, e.time_range.end) for e in kernels]) * 1e-6 / profiled
    m.kernels, m.per_cat = len(kernels) / profiled, per_cat
    return m


def row_for(mo, torch, device, m):
    walls, busy = m.walls, m.busy
    row = {
        "model.name": mo.model, "model.input_size": mo.input_size, "model.classes": mo.classes,
        "model.precision": mo.precision, "compute.memory_format": mo.memory_format,
        "framework.optimizer_launches": ddp_runner.optimizer_launches(torch, device),
        "framework.zero_grad": "zeros",  # Workload.update: opt.zero_grad(set_to_none=False)
        "compute.attention": ddp_runner.attention(torch, mo.model), "training.framework": "pytorch_ddp",
        "training.batch_per_gpu": mo.batch, "training.sync_period": 1, "training.optimizer": "momentum",
        "comm.library": "nccl", "comm.bucket_mb": 25, "cluster.nodes": 1, "cluster.gpus_per_node": 1,
        "input.format": "synthetic", "step_time_s": f"{statistics.median(walls):.6g}",
        "step_time_p10_s": f"{dd.quantile(walls, 0.1):.6g}", "step_time_p90_s": f"{dd.quantile(walls, 0.9):.6g}",
        "step_time_min_s": f"{min(walls):.6g}", "step_time_max_s": f"{max(walls):.6g}", "steps": len(walls),
        "compute_step_s": "", "allreduce_s": "", "grad_bytes": 4 * m.params, "params": m.params, "threads": 1,
        "device": torch.cuda.get_device_name().replace(",", " ") if busy is not None else "cpu",
        "torch_version": torch.__version__,
        "gpu_busy_s": f"{busy:.6g}" if busy is not None else "",
        "kernels": f"{m.kernels:.0f}" if busy is not None else "",
    }
    row.update({k: f"{m.per_cat[k]:.6g}" if busy is not None else "" for k in CATEGORIES})
    row.update(dict(zip(["forward_s", "forward_backward_s"],
                        [f"{v:.6g}" for v in m.phases] if m.phases else ["", ""])))
    return row


def append(path, row):
    fresh = not (os.path.exists(path) and os.path.getsize(path) > 0)
    with open(path, "a") as f:  # one whole line a write: a cut run keeps every finished row
        f.write((",".join(HEADER) + "\n" if fresh else "") + ",".join(str(row[k]) for k in HEADER) + "\n")


def append_kernels(path, mo, top):
    fresh = not (os.path.exists(path) and os.path.getsize(path) > 0)
    lines = ["model,precision,memory_format,batch,category,calls,seconds,kernel\n"] if fresh else []
    for name, (calls, seconds) in top:
        short = name.replace(",", ";").replace('"', "")[:160]
        lines.append(f"{mo.model},{mo.precision},{mo.memory_format},{mo.batch},{category(name)},{calls:g},"
                     f"{seconds:.6g},{short}\n")
    with open(path, "a") as f:
        f.write("".join(lines))


def main(argv):
    o = options(argv)
    import torch
    if o.device == "cuda" and not torch.cuda.is_available():
        dd.fail("this torch sees no CUDA device (--device cpu runs fp32 on the CPU)")
    device = torch.device(o.device)
    start = time.perf_counter()
    for name in o.names:
        if time.perf_counter() - start > o.budget_s:
            sys.stderr.write(f"zoo_steps: budget spent, {name} and later models skipped\n")
            break
        mo = model_options(o, name)
        try:
            result = measure(torch, mo, device, o.warmup, o.steps, o.phases)
        except (ValueError, RuntimeError) as e:  # out of memory, a shape the model refuses
            sys.stderr.write(f"zoo_steps: {name} at {mo.input_size} batch {mo.batch}: skipped: {str(e)[:200]}\n")
            result = None
        gc.collect()
        if device.type == "cuda":
            torch.cuda.empty_cache()
        if result is None:
            continue
        row = row_for(mo, torch, device, result)
        append(o.csv, row)
        if o.kernels and device.type == "cuda":
            append_kernels(o.kernels, mo, result.top)
        sys.stderr.write(f"zoo_steps: [{time.perf_counter() - start:.0f} s] {name} {mo.precision} "
                         f"{mo.memory_format} batch {mo.batch}: step {row['step_time_s']} s, busy "
                         f"{row['gpu_busy_s'] or '-'} s, matmul {row['matmul_s'] or '-'} s, "
                         f"{row['kernels'] or '-'} kernels\n")


if __name__ == "__main__":
    main(sys.argv[1:])
