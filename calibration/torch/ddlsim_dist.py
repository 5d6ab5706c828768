"""Shared start-up of the ddlsim PyTorch kit (ddp_runner.py, gloo_netbench.py).

Rank and world size come from torchrun-style variables (RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), else from Slurm (SLURM_PROCID, SLURM_NTASKS,
SLURM_LOCALID) or Open MPI's mpirun (OMPI_COMM_WORLD_RANK, ...), so the same script runs under
torchrun, srun, and mpirun (the namespace testbed starts one rank per namespace through
calibration/netns_rsh_agent.sh, as it does for MPI). Bad input exits with code 2 and says which
option or variable is wrong.
"""
import fcntl
import os
import socket
import struct
import sys
import time

_SOURCES = {  # what each variable is called by torchrun, Slurm, Open MPI
    "RANK": ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"),
    "WORLD_SIZE": ("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"),
    "LOCAL_RANK": ("LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"),
    "LOCAL_WORLD_SIZE": ("LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE", "OMPI_COMM_WORLD_LOCAL_SIZE"),
}


def fail(msg):
    """Bad input: the message on stderr and exit code 2 (the project's rule)."""
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: error: {msg}\n")
    sys.exit(2)


def _env_int(name, default):
    for var in _SOURCES[name]:
        text = os.environ.get(var)
        if text is None:
            continue
        # SLURM_NTASKS_PER_NODE may read "2(x3)": the count before the parenthesis.
        text = text.split("(")[0]
        if not text.isdigit():
            fail(f"environment variable {var} = '{text}': expected a non-negative integer")
        return int(text)
    return default


class Layout:
    """Where this process is: rank, world size, local rank, and the rendezvous address."""

    def __init__(self, master_addr=None, master_port=None):
        self.rank = _env_int("RANK", 0)
        self.world = _env_int("WORLD_SIZE", 1)
        self.local_rank = _env_int("LOCAL_RANK", 0)
        self.local_world = _env_int("LOCAL_WORLD_SIZE", 1)
        if self.world < 1 or self.rank >= self.world:
            fail(f"rank {self.rank} of world size {self.world}: expected 0 <= RANK < WORLD_SIZE")
        self.master_addr = master_addr or os.environ.get("MASTER_ADDR") or ("127.0.0.1" if self.world == 1 else None)
        if self.master_addr is None:
            fail("no rendezvous address: set MASTER_ADDR (rank 0's host) or pass --master-addr")
        port = master_port or os.environ.get("MASTER_PORT") or "29500"
        if not str(port).isdigit() or not 1 <= int(port) <= 65535:
            fail(f"MASTER_PORT / --master-port '{port}': expected a port number from 1 to 65535")
        self.master_port = int(port)
        self.nodes = max(1, self.world // max(1, self.local_world))


def _iface_addresses():
    """{interface name: IPv4 address} of the interfaces that have one (SIOCGIFADDR)."""
    out = {}
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _, name in socket.if_nameindex():
        try:
            req = struct.pack("256s", name.encode()[:15])
            out[name] = socket.inet_ntoa(fcntl.ioctl(sock.fileno(), 0x8915, req)[20:24])  # SIOCGIFADDR
        except OSError:
            pass
    sock.close()
    return out


def choose_interface(layout):
    """GLOO_SOCKET_IFNAME, unless set: the interface this host reaches MASTER_ADDR through (so that
    gloo uses the measured network, not whatever the host name resolves to)."""
    if os.environ.get("GLOO_SOCKET_IFNAME") or layout.world == 1:
        return
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.connect((layout.master_addr, layout.master_port))  # UDP: no packet is sent
        local = probe.getsockname()[0]
        probe.close()
    except OSError as e:
        fail(f"MASTER_ADDR {layout.master_addr}: no route from this host ({e})")
    for name, addr in _iface_addresses().items():
        if addr == local:
            os.environ["GLOO_SOCKET_IFNAME"] = name
            return


def pin(mode, layout):
    """--pin none|rank|local|N: bind this process to one CPU (rank, local rank or N, modulo the CPUs
    it may use). `rank` is for one machine (the namespace testbed, where every rank is local rank 0)."""
    if mode == "none":
        return None
    cpus = sorted(os.sched_getaffinity(0))
    index = layout.rank if mode == "rank" else layout.local_rank if mode == "local" else int(mode)
    cpu = cpus[index % len(cpus)]
    os.sched_setaffinity(0, {cpu})
    return cpu


def init(backend, layout, timeout_s=300):
    """torch.distributed, rendezvous at MASTER_ADDR:MASTER_PORT (env://, which under torchrun uses
    the store its agent already serves on that port)."""
    import datetime
    import torch.distributed as dist
    choose_interface(layout)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = layout.master_addr, str(layout.master_port)
    dist.init_process_group(backend, init_method="env://", rank=layout.rank, world_size=layout.world,
                            timeout=datetime.timedelta(seconds=timeout_s))
    return dist


def finish(dist):
    """The end of a run: a barrier, a pause without the GIL (gloo's worker threads drop their last
    tensors, which needs the GIL), then exit without tearing torch down: in torch 1.13 destroying a
    ProcessGroupGloo from Python joins worker threads that wait for the GIL the caller holds, a
    deadlock seen here in about one run in three (gdb: ~ProcessGroupGloo -> thread::join while the
    worker sits in PyEval_AcquireThread from ~TensorImpl)."""
    dist.barrier()
    time.sleep(0.5)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def quantile(values, q):
    """Linear interpolation between order statistics (numpy's default)."""
    v = sorted(values)
    x = q * (len(v) - 1)
    lo = int(x)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)

