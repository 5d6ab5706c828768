#!/usr/bin/python3
"""Host time of PyTorch's eager training loop, the source of ddlsim's framework defaults
(cost/framework_costs.cpp): one dispatched operator, the optimizer's cost per parameter tensor, and
the fixed per-iteration time of a one-parameter model (zero_grad, forward, backward, SGD step).
CPU tensors, one thread: the host's share only (a GPU adds its kernel launches, counted apart by
compute.kernel_overhead_us). Run with Debian's interpreter: /usr/bin/python3 eager_overhead.py.
`--device cuda` puts the tensors on the GPU: tiny kernels run faster than the host issues them, so
the times are the host's cost of each operator with its kernel launch (ddlsim's
compute.host_dispatch_us)."""
import argparse
import time

import torch

DEVICE = torch.device("cpu")


def sync():
    if DEVICE.type == "cuda":
        torch.cuda.synchronize()


def per_op_us(n=200000):
    x = torch.zeros(1, device=DEVICE)
    sync()
    start = time.perf_counter()
    for _ in range(n):
        x.add_(1.0)
    sync()
    return (time.perf_counter() - start) / n * 1e6


def optimizer_step_s(tensors, foreach):
    params = [torch.nn.Parameter(torch.zeros(1, device=DEVICE)) for _ in range(tensors)]
    for p in params:
        p.grad = torch.zeros(1, device=DEVICE)
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, foreach=foreach)
    opt.step()  # creates the momentum buffers
    reps = 200
    sync()
    start = time.perf_counter()
    for _ in range(reps):
        opt.step()
    sync()
    return (time.perf_counter() - start) / reps


def module_ops_us(blocks=200, reps=20):
    """Forward: host time a module call (one operator each, autograd recording); backward: a node."""
    layers = []
    for _ in range(blocks):
        layers += [torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.LayerNorm(4)]
    model = torch.nn.Sequential(*layers).to(DEVICE)
    x = torch.randn(2, 4, device=DEVICE)

    def best(fn):
        fn()
        times = []
        for _ in range(reps):
            sync()
            start = time.perf_counter()
            fn()
            sync()
            times.append(time.perf_counter() - start)
        return min(times)

    def step():
        model.zero_grad(set_to_none=True)
        model(x).sum().backward()

    forward = best(lambda: model(x))
    backward = best(step) - forward
    with torch.autograd.profiler.profile() as prof:
        model(x).sum().backward()
    nodes = sum(1 for e in prof.function_events if "Backward" in e.name and e.cpu_parent is None)
    return forward / (3 * blocks) * 1e6, backward / max(nodes, 1) * 1e6


def loop_us(reps=5000):
    model = torch.nn.Linear(1, 1).to(DEVICE)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.zeros(1, 1, device=DEVICE)

    def one():
        opt.zero_grad(set_to_none=True)
        model(x).sum().backward()
        opt.step()

    for _ in range(100):
        one()
    sync()
    start = time.perf_counter()
    for _ in range(reps):
        one()
    sync()
    return (time.perf_counter() - start) / reps * 1e6


def main():
    global DEVICE
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where the tensors live")
    o = p.parse_args()
    if o.device == "cuda" and not torch.cuda.is_available():
        p.exit(2, "eager_overhead.py: error: --device cuda: this torch sees no CUDA device\n")
    DEVICE = torch.device(o.device)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name() if o.device == 'cuda' else 'cpu'}")
    print(f"operator dispatch: {min(per_op_us() for _ in range(3)):.2f} us")
    for foreach in (False, True):
        per_tensor = (optimizer_step_s(1010, foreach) - optimizer_step_s(10, foreach)) / 1000 * 1e6
        print(f"SGD momentum per parameter tensor (foreach={foreach}): {per_tensor:.2f} us")
    print(f"training loop per iteration, one-parameter model: {loop_us():.1f} us")
    forward, backward = module_ops_us()
    print(f"module call forward (autograd recording): {forward:.2f} us; backward node: {backward:.2f} us")


if __name__ == "__main__":
    main()
