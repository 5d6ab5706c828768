#!/usr/bin/python3
"""How long one GPU kernel takes by its size: the measurement behind the roofline's per-kernel
constants (a GEMM's share of peak and its fixed cost; a memory-bound kernel's share of memory
bandwidth). Each case launches the same kernel --repeat times inside a CUDA graph, so the host's
launch time is out of it and what is timed (CUDA events around graph replays) is the GPU's own
time a kernel, the gap to the next one included. Cases:
  gemm   C = A B of M x K by K x N in fp16, tf32 or fp32 (torch.matmul; cuBLAS picks the kernel),
         square sizes and the tall shapes of convolutions and dense layers at training batches
  add    y = a + b over N elements in fp16 and fp32 (reads 2, writes 1)
Writes one CSV row a case: kind,dtype,m,n,k,flops,bytes,seconds. Needs a CUDA device; exit 2 else.

    python3 kernel_sweep.py --csv kernels.csv
"""
import argparse
import os
import sys

SQUARE = [64, 128, 256, 512, 1024, 2048, 4096, 8192]
# (M, N, K): a convolution as implicit GEMM is M = batch x output pixels, N = output channels,
# K = input channels x filter taps; a dense layer M = tokens or batch.
TALL = [(401408, 64, 64), (401408, 64, 576), (100352, 128, 1152), (25088, 256, 2304), (6272, 512, 4608),
        (401408, 256, 64), (25088, 1024, 256), (128, 1000, 2048), (128, 1280, 320), (128, 48, 1152),
        (25216, 2304, 768), (25216, 768, 3072), (25216, 3072, 768), (8192, 768, 768)]
ELEMENTS = [2 ** e for e in range(10, 30, 2)]


def fail(msg):
    sys.stderr.write(f"kernel_sweep.py: error: {msg}\n")
    sys.exit(2)


def per_kernel_s(torch, fn, repeat):
    fn()  # warm: cuBLAS picks its kernel, workspaces are allocated
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(repeat):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e-3 / repeat)
    return sorted(times)[len(times) // 2]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--csv", required=True)
    p.add_argument("--repeat", type=int, default=20, help="kernels a graph")
    o = p.parse_args(argv)
    if o.repeat < 1:
        fail("--repeat: expected a positive integer")
    if not os.path.isdir(os.path.dirname(os.path.abspath(o.csv))):
        fail(f"--csv {o.csv}: its folder does not exist")
    import torch
    if not torch.cuda.is_available():
        fail("this torch sees no CUDA device")
    rows = []
    shapes = [(n, n, n) for n in SQUARE] + TALL
    for name, dtype, tf32 in (("fp16", torch.float16, False), ("tf32", torch.float32, True),
                              ("fp32", torch.float32, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        size = 2 if dtype == torch.float16 else 4
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            c = torch.empty(m, n, device="cuda", dtype=dtype)
            s = per_kernel_s(torch, lambda: torch.matmul(a, b, out=c), o.repeat)
            rows.append(("gemm", name, m, n, k, 2 * m * n * k, size * (m * k + k * n + m * n), s))
            del a, b, c
    for name, dtype in (("fp16", torch.float16), ("fp32", torch.float32)):
        size = 2 if dtype == torch.float16 else 4
        for n in ELEMENTS:
            a = torch.randn(n, device="cuda", dtype=dtype)
            b = torch.randn(n, device="cuda", dtype=dtype)
            c = torch.empty(n, device="cuda", dtype=dtype)
            s = per_kernel_s(torch, lambda: torch.add(a, b, out=c), o.repeat)
            rows.append(("add", name, n, 1, 1, n, 3 * size * n, s))
            del a, b, c
    with open(o.csv, "w") as f:
        f.write("kind,dtype,m,n,k,flops,bytes,seconds\n")
        f.writelines(",".join(str(v) if not isinstance(v, float) else f"{v:.6g}" for v in r) + "\n" for r in rows)
    sys.stderr.write(f"kernel_sweep: {len(rows)} cases on {torch.cuda.get_device_name()} -> {o.csv}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
