#!/usr/bin/python3
"""The gloo half of `ddlsim netbench --library gloo`: the tests of calibration/mpi/netbench_main.cpp
through torch.distributed's gloo backend (CPU tensors), one process per rank (torchrun, srun or
mpirun start it; ddlsim_dist.py reads rank and world size), with the same CSV
(test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps), so that `ddlsim netfit`
fits it unchanged:
  pingpong   ranks 0 and 1, half a round trip (send / recv)
  bw         rank 0 -> rank 1, a window of isend, then a one-byte acknowledgement
  bibw       ranks 0 <-> 1 both ways at once; bandwidth counts both directions
  exchange   ranks 0 and 1 swap n bytes at once (isend + irecv)
  shift      p >= 3: every rank sends n bytes to the next and receives n from the previous
  ring       dist.all_reduce of n bytes of float32: gloo's own allreduce, a ring (reduce-scatter,
             allgather; gloo/allreduce.cc, the default algorithm torch 1.13's ProcessGroupGloo uses)
  allreduce  the same call (kept so that netbench's test list reads the same for both libraries)
Times: the slowest rank's, the fastest of --iters repetitions after one warm-up, the spread columns
those repetitions' percentiles; pingpong: --reps round trips per size (fewer above 64 KiB, as in
netbench_main.cpp's reps_for), each timed by rank 0, time_s their median half round trip. Sizes
arrive in bytes (ddlsim netbench checks and expands them). Bad input: exit code 2.
"""
import argparse
import sys
import time

import ddlsim_dist as dd

TESTS = ("pingpong", "bw", "bibw", "exchange", "shift", "ring", "allreduce")


def sizes(text):
    out = [int(x) for x in text.split(",") if x.isdigit()]
    if len(out) != len(text.split(",")) or not all(1 <= n <= 1 << 30 for n in out):
        raise argparse.ArgumentTypeError(f"'{text}': expected byte counts from 1 to 2^30, comma-separated")
    return out


def positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected a positive integer")
    return int(text)


def tests(text):
    out = text.split(",")
    bad = [t for t in out if t not in TESTS]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown test '{bad[0]}' (expected some of {', '.join(TESTS)})")
    return out


def options(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=sizes, default=[65536, 1 << 20, 4 << 20])
    p.add_argument("--lat-sizes", type=sizes, default=[8, 1024, 16384])
    p.add_argument("--iters", type=positive, default=3)
    p.add_argument("--reps", type=positive, default=1000)
    p.add_argument("--window", type=positive, default=4)
    p.add_argument("--tests", type=tests, default=list(TESTS))
    p.add_argument("--csv", default="")
    p.add_argument("--master-addr")
    p.add_argument("--master-port")
    return p.parse_args(argv)


def spread(times):
    """(min, p10, p50, p90, count) of the repetitions; p50 is the upper median (netbench_main.cpp's spread_of)."""
    t = sorted(times)
    at = lambda q: t[int(q * (len(t) - 1) + 0.5)]
    return (t[0], at(0.1), at(0.5), at(0.9), len(t))


def reps_for(n, reps):
    """Ping-pong round trips for an n-byte message (netbench_main.cpp's reps_for)."""
    return max(min(reps, 20), min(reps, reps * 65536 // n))


class Bench:
    def __init__(self, torch, dist, rank, p):
        self.torch, self.dist, self.rank, self.p = torch, dist, rank, p
        self.rows = []

    def timed(self, fn, iters):
        """The slowest rank's time of each of `iters` runs of fn after a warm-up, as a spread."""
        fn()
        worst = []
        for _ in range(iters):
            self.dist.barrier()
            t0 = time.perf_counter()
            fn()
            t = self.torch.tensor([time.perf_counter() - t0], dtype=self.torch.float64)
            self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
            worst.append(t.item())
        return spread(worst)

    def pingpong_spread(self, a, reps):
        """Half round trips of `reps` ping-pongs, each timed by rank 0, after reps / 10 warm-ups."""
        for _ in range(max(1, reps // 10)):
            self.pingpong(a)
        self.dist.barrier()
        half = []
        for _ in range(reps):
            t0 = time.perf_counter()
            self.pingpong(a)
            half.append((time.perf_counter() - t0) / 2)
        s = self.torch.tensor(list(spread(half)), dtype=self.torch.float64)
        self.dist.broadcast(s, 0)
        return tuple(s.tolist()[:4]) + (int(s[4].item()),)

    def buf(self, n):
        return self.torch.ones(n, dtype=self.torch.uint8)

    def pingpong(self, a):
        if self.rank == 0:
            self.dist.send(a, 1)
            self.dist.recv(a, 1)
        elif self.rank == 1:
            self.dist.recv(a, 0)
            self.dist.send(a, 0)

    def window(self, sends, recvs, both):
        if self.rank > 1:
            return
        peer = 1 - self.rank
        works = []
        for tag, (s, r) in enumerate(zip(sends, recvs)):
            if both or self.rank == 1:
                works.append(self.dist.irecv(r, peer, tag=tag))
            if both or self.rank == 0:
                works.append(self.dist.isend(s, peer, tag=tag))
        for w in works:
            w.wait()
        if not both:
            ack = self.buf(1)
            (self.dist.send if self.rank == 1 else self.dist.recv)(ack, peer)

    def swap(self, a, b, to, frm):
        works = [self.dist.irecv(b, frm), self.dist.isend(a, to)]
        for w in works:
            w.wait()

    def add(self, test, ranks, n, s, bus=1.0, algbytes=None, per=1, median=False):
        """A row from spread s (scaled by 1 / per); time_s is its fastest, or its median for pingpong."""
        s = tuple(x / per for x in s[:4]) + (s[4],)
        t = s[2] if median else s[0]
        alg = (algbytes or n) / t
        self.rows.append((test, ranks, n, t, alg, bus * alg) + s)


def run(o, b):
    """Every requested test over its sizes, in netbench_main.cpp's order."""
    p, rank = b.p, b.rank
    want = set(o.tests)
    if "pingpong" in want:
        for n in o.lat_sizes:
            a = b.buf(n)
            b.add("pingpong", 2, n, b.pingpong_spread(a, reps_for(n, o.reps)), median=True)
    for test, both in (("bw", False), ("bibw", True)):
        if test in want:
            for n in o.sizes:
                s, r = [b.buf(n) for _ in range(o.window)], [b.buf(n) for _ in range(o.window)]
                t = b.timed(lambda: b.window(s, r, both), o.iters)
                b.add(test, 2, n, t, algbytes=(2 if both else 1) * n, per=o.window)
    if "exchange" in want:
        for n in o.sizes:
            x, y = b.buf(n), b.buf(n)
            b.add("exchange", 2, n, b.timed(lambda: rank < 2 and b.swap(x, y, 1 - rank, 1 - rank), o.iters))
    if "shift" in want and p >= 3:
        for n in o.sizes:
            x, y = b.buf(n), b.buf(n)
            b.add("shift", p, n, b.timed(lambda: b.swap(x, y, (rank + 1) % p, (rank + p - 1) % p), o.iters))
    for test in ("ring", "allreduce"):
        if test in want:
            for n in o.sizes:
                v = b.torch.ones(max(1, n // 4), dtype=b.torch.float32)
                b.add(test, p, n, b.timed(lambda: b.dist.all_reduce(v), o.iters), bus=2.0 * (p - 1) / p)


def report(o, b, p):
    print(f"# ddlsim netbench (gloo): {p} ranks; times are the slowest rank's, fastest of {o.iters} after a warm-up; "
          f"pingpong: median half round trip of up to {o.reps}, p10 and p90 beside it")
    print(f"{'test':<10} {'ranks':>6} {'size(B)':>12} {'time(us)':>12} {'algbw(GB/s)':>10} {'busbw(GB/s)':>10} "
          f"{'p10(us)':>10} {'p90(us)':>10} {'reps':>8}")
    for t, r, n, s, alg, bus, _, p10, _, p90, reps in b.rows:
        print(f"{t:<10} {r:>6} {n:>12} {s * 1e6:>12.2f} {alg / 1e9:>10.4f} {bus / 1e9:>10.4f} "
              f"{p10 * 1e6:>10.2f} {p90 * 1e6:>10.2f} {reps:>8}")
    if o.csv:
        with open(o.csv, "w") as f:
            f.write("test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps\n")
            for t, r, n, s, alg, bus, lo, p10, p50, p90, reps in b.rows:
                f.write(f"{t},{r},{n},{s:.9g},{alg:.9g},{bus:.9g},{lo:.9g},{p10:.9g},{p50:.9g},{p90:.9g},{reps}\n")


def main(argv):
    o = options(argv)
    layout = dd.Layout(o.master_addr, o.master_port)
    if layout.world < 2:
        dd.fail(f"world size {layout.world}: every test needs at least 2 ranks")
    import torch
    torch.set_num_threads(1)
    dist = dd.init("gloo", layout)
    b = Bench(torch, dist, layout.rank, layout.world)
    run(o, b)
    if layout.rank == 0:
        try:
            report(o, b, layout.world)
        except OSError as e:
            dd.fail(f"--csv {o.csv}: cannot write ({e.strerror})")
    dd.finish(dist)


if __name__ == "__main__":
    main(sys.argv[1:])
