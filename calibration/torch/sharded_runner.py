#!/usr/bin/python3
"""ddlsim's sharded data-parallel runner (ZeRO-3 / FSDP FULL_SHARD, written out on gloo): trains a
zoo model as ddp_runner.py does, but with the parameters, gradients and optimizer state sharded over
the ranks, and writes the same measured CSV with `training.sharding = zero3` (and `comm.prefetch`).

Why by hand: Debian's PyTorch 1.13 runs FSDP on GPUs only (its FullyShardedDataParallel raises "FSDP
does not support CPU only execution"; under Python 3.11 it does not even import), and its gloo has
no reduce-scatter. So, per unit (consecutive parameterised modules from the last, closed once they
hold --bucket-mb of FP32 parameters: ddlsim's units, comm.bucket_mb):
  forward   the unit's parameters all-gathered (every rank's shard) before its first module runs;
            the next unit's gather issued then (one unit prefetched)
  backward  gathered again when the gradient reaches the unit's output, the next unit's issued then;
            once every parameter of the unit has its gradient, the flat gradient is reduce-scattered
            as an all-to-all (each rank receives every rank's piece of its own shard: the bytes of a
            ring reduce-scatter) and summed
Both exchanges are point-to-point operations posted at once, every receive before any send (see
`exchange`): the bytes each rank's link carries are a ring's.
  update    SGD with momentum 0.9 on the shard (the averaged gradient), as ddlsim's default optimizer
Parameters stay allocated whole (memory is not what this measures); a gather overwrites them with
the gathered values through `.data`, so autograd's saved tensors are untouched. The modules are taken
in registration order, which is their execution order for the models this runs (torchvision's
sequential stacks, e.g. mobilenet_v2). One rank runs the same code with nothing to exchange: the
1-rank row is the compute calibration. Bad input: exit code 2.
"""
import sys
import time

import ddlsim_dist as dd
import ddp_runner as dr

HEADER = dr.HEADER + ["training.sharding", "comm.prefetch"]


class Posted:
    """Point-to-point operations posted together; wait() waits for every one."""

    def __init__(self, works):
        self.works = works

    def wait(self):
        for w in self.works:
            w.wait()


def exchange(dist, recvs, sends, tag):
    """Posts every receive, then every send ((peer, tensor) pairs). gloo's TCP pair writes a send's
    payload only once the peer's NOTIFY_RECV_READY has arrived, and that notification travels on the
    same socket as the peer's own payloads (gloo/transport/tcp/pair.cc, Pair::send and
    handleRemotePendingRecv): two ranks that each post a send before their receive, as gloo's
    all_gather and all_to_all do, race, and the loser's receive notice waits behind its whole payload,
    so the two directions run one after the other. Measured on the namespace testbed (2 ranks, 100
    Mbit/s, 4.45 MB each way, 16 tries each): send first 373-457 ms or 735-740 ms (6 of 16), receive
    first 375-392 ms every time (docs/design.md)."""
    works = [dist.irecv(t, src=peer, tag=tag) for peer, t in recvs]
    works += [dist.isend(t, dst=peer, tag=tag) for peer, t in sends]
    return Posted(works)


class Unit:
    """Consecutive modules whose parameters one flat shard holds."""

    def __init__(self, torch, modules, world, rank):
        self.modules = modules
        self.params = [p for m in modules for p in m.parameters(recurse=False) if p.requires_grad]
        n = sum(p.numel() for p in self.params)
        self.per_rank = -(-n // world)
        self.numel = n
        self.full = torch.zeros(self.per_rank * world)
        offset = 0
        for p in self.params:
            self.full[offset:offset + p.numel()].copy_(p.data.flatten())
            offset += p.numel()
        self.shard = torch.nn.Parameter(self.full[rank * self.per_rank:(rank + 1) * self.per_rank].clone())
        self.recv = torch.empty_like(self.full)
        self.gather_work = None
        self.reduce_work = None
        self.grads = {}  # parameter index -> its gradient this iteration


class ShardedTrainer:
    def __init__(self, o, layout, torch, dist):
        self.torch, self.dist, self.o = torch, dist, o
        self.world, self.rank = layout.world, layout.rank
        self.device = torch.device("cpu")
        torch.manual_seed(1234)  # every rank builds the same model, so no broadcast is needed
        self.work = dr.Workload(o, torch, self.device)
        self.params = self.work.params
        model = self.work.model
        leaves = [m for m in model.modules()
                  if not list(m.children()) and any(p.requires_grad for p in m.parameters(recurse=False))]
        cap = o.bucket_mb * 1024 * 1024
        groups, open_group, size = [], [], 0
        for m in reversed(leaves):
            open_group.insert(0, m)
            size += 4 * sum(p.numel() for p in m.parameters(recurse=False) if p.requires_grad)
            if size >= cap:
                groups.insert(0, open_group)
                open_group, size = [], 0
        if open_group:
            groups.insert(0, open_group)
        self.units = [Unit(torch, g, self.world, self.rank) for g in groups]  # in forward order
        for i, u in enumerate(self.units):
            u.modules[0].register_forward_pre_hook(lambda _m, _x, i=i: self.before_forward(i))
            u.modules[-1].register_forward_hook(lambda _m, _x, out, i=i: self.after_forward(i, out))
            for k, p in enumerate(u.params):
                p.register_hook(lambda g, i=i, k=k: self.grad_ready(i, k, g))
        self.opt = torch.optim.SGD([u.shard for u in self.units], lr=1e-3, momentum=0.9)

    # --- exchanges -----------------------------------------------------------------------------
    def gather(self, i):
        u = self.units[i]
        if self.world == 1 or u.gather_work is not None:
            return
        pieces = list(u.recv.chunk(self.world))
        pieces[self.rank].copy_(u.shard.data)
        peers = [r for r in range(self.world) if r != self.rank]
        u.gather_work = exchange(self.dist, [(r, pieces[r]) for r in peers], [(r, u.shard.data) for r in peers], 2 * i)

    def wait_gather(self, i):
        u = self.units[i]
        if self.world == 1:
            u.recv.copy_(u.shard.data)  # one rank holds the whole: a local gather, the same copies
        else:
            self.gather(i)
            u.gather_work.wait()
            u.gather_work = None
        u.full.copy_(u.recv)
        offset = 0
        for p in u.params:
            p.data.copy_(u.full[offset:offset + p.numel()].view_as(p))
            offset += p.numel()

    def reduce(self, i):
        """Unit i's gradients, all in: the flat gradient reduce-scattered (an all-to-all, summed)."""
        u = self.units[i]
        flat = self.torch.zeros_like(u.full)
        offset = 0
        for k, p in enumerate(u.params):
            flat[offset:offset + p.numel()].copy_(u.grads[k].flatten())
            offset += p.numel()
        u.grads = {}
        if self.world == 1:
            u.shard.grad = flat[:u.per_rank].clone()
            return
        out = self.torch.empty_like(flat)
        mine, theirs = list(out.chunk(self.world)), list(flat.chunk(self.world))
        mine[self.rank].copy_(theirs[self.rank])
        peers = [r for r in range(self.world) if r != self.rank]
        u.reduce_work = (exchange(self.dist, [(r, mine[r]) for r in peers], [(r, theirs[r]) for r in peers], 2 * i + 1), out)

    def finish_reduce(self, i):
        u = self.units[i]
        if u.reduce_work is None:
            return
        work, out = u.reduce_work
        work.wait()
        u.shard.grad = out.view(self.world, u.per_rank).sum(0) / self.world
        u.reduce_work = None

    # --- hooks ---------------------------------------------------------------------------------
    def before_forward(self, i):
        if not self.torch.is_grad_enabled():
            return
        self.wait_gather(i)
        if self.o.prefetch != "none" and self.o.prefetch != "backward" and i + 1 < len(self.units):
            self.gather(i + 1)

    def after_forward(self, i, out):
        if self.torch.is_tensor(out) and out.requires_grad:
            out.register_hook(lambda g, i=i: self.before_backward(i))

    def before_backward(self, i):
        u = self.units[i]
        if u.backward_started:  # the unit's output reached again: gathered already
            return
        u.backward_started = True
        self.wait_gather(i)
        if self.o.prefetch != "none" and i > 0:
            self.gather(i - 1)

    def grad_ready(self, i, k, g):
        u = self.units[i]
        u.grads[k] = g.detach()
        if len(u.grads) == len(u.params):
            self.reduce(i)
        return None  # the shard's optimizer reads the exchanged gradient, not p.grad

    # --- one iteration -------------------------------------------------------------------------
    def iteration(self):
        for u in self.units:
            u.backward_started = False
        self.gather(0)
        loss = self.work.forward(self.work.model)
        loss.backward()
        for i in range(len(self.units)):
            self.finish_reduce(i)
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)

    def timed(self, fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    def slowest(self, times):
        t = self.torch.tensor(times, dtype=self.torch.float64)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return t.tolist()


def measure(o, layout):
    import torch
    torch.set_num_threads(o.threads)
    torch.set_num_interop_threads(o.threads)
    dist = dd.init("gloo", layout)
    t = ShardedTrainer(o, layout, torch, dist)
    for _ in range(o.warmup):
        t.iteration()
    steps = t.slowest([t.timed(t.iteration) for _ in range(o.steps)])
    row = {k: "" for k in HEADER}
    row.update({
        "model.name": o.model, "model.input_size": o.input_size, "model.classes": o.classes,
        "model.precision": "fp32", "compute.memory_format": o.memory_format,
        "framework.optimizer_launches": dr.optimizer_launches(torch, t.device),
        "framework.zero_grad": "none",  # opt.zero_grad(set_to_none=True); FSDP keeps its gradient shards
        "compute.attention": dr.attention(torch, o.model), "training.framework": "pytorch_ddp",
        "training.batch_per_gpu": o.batch, "training.sync_period": 1, "training.optimizer": "momentum",
        "comm.library": "gloo", "comm.bucket_mb": f"{o.bucket_mb:g}", "cluster.nodes": layout.nodes,
        "cluster.gpus_per_node": layout.world // layout.nodes, "input.format": "synthetic",
        "step_time_s": f"{dd.median(steps):.6g}", "step_time_p10_s": f"{dd.quantile(steps, 0.1):.6g}",
        "step_time_p90_s": f"{dd.quantile(steps, 0.9):.6g}", "step_time_min_s": f"{min(steps):.6g}",
        "step_time_max_s": f"{max(steps):.6g}", "steps": o.steps, "grad_bytes": 4 * t.params, "params": t.params,
        "threads": o.threads, "device": "cpu", "torch_version": torch.__version__,
        "training.sharding": "zero3", "comm.prefetch": o.prefetch,
    })
    return row, dist, t


def main(argv):
    prefetch = "forward+backward"
    if "--prefetch" in argv:
        at = argv.index("--prefetch")
        if at + 1 >= len(argv) or argv[at + 1] not in ("forward+backward", "backward", "none"):
            dd.fail("--prefetch: expected forward+backward, backward or none")
        prefetch = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    o = dr.options(argv)
    o.prefetch = prefetch
    if o.backend != "gloo" or o.precision != "fp32" or o.sync_period != 1:
        dd.fail("sharded_runner: CPU ranks on gloo, fp32, --sync-period 1 only")
    layout = dd.Layout(o.master_addr, o.master_port)
    cpu = dd.pin(o.pin, layout)
    try:
        row, dist, _trainer = measure(o, layout)
    except (ValueError, RuntimeError) as e:
        dd.fail(f"{o.model} at {o.input_size} batch {o.batch}: {e}")
    dist.barrier()
    if layout.rank == 0:
        dr.write_row(o, row, HEADER)
        where = f", rank 0 on CPU {cpu}" if cpu is not None else ""
        sys.stderr.write(f"sharded_runner: {o.model} {o.input_size}px batch {o.batch} x {layout.world} ranks (zero3, "
                         f"{len(_trainer.units)} units{where}): step {row['step_time_s']} s [p10 "
                         f"{row['step_time_p10_s']}, p90 {row['step_time_p90_s']}]\n")
    dd.finish(dist)


if __name__ == "__main__":
    main(sys.argv[1:])
