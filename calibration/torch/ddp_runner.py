#!/usr/bin/python3
"""ddlsim's PyTorch DDP runner: trains the torchvision (or text_models.py) equivalent of a ddlsim zoo
model on synthetic data and writes the measured CSV that `ddlsim compare` reads (one row per run).

One process per rank, started by torchrun, srun or mpirun (see ddlsim_dist.py for the variables);
gloo on CPUs, nccl on GPUs (--backend). Per run it measures, after --warmup iterations (DDP
rebuilds its buckets after the first):
  step_time_s     median over --steps iterations of (iteration time / sync period), the slowest
                  rank's time per iteration; one iteration = sync-period micro-batches, all but the
                  last under DDP's no_sync() (gradient accumulation), then the optimizer step
  step_time_p10_s, _p90_s, _min_s, _max_s   the spread of those per-iteration figures
  compute_step_s  median forward + backward of one micro-batch under no_sync() (no allreduce)
  allreduce_s     median dist.all_reduce of one flat float32 tensor of the gradient's size
Columns named after scenario keys (model.name, training.batch_per_gpu, cluster.nodes, ...) set
those keys in `ddlsim compare`; the others are kept for the reader. Bad input: exit code 2.
"""
import argparse
import contextlib
import os
import sys
import time

import ddlsim_dist as dd
import text_models

# ddlsim zoo name -> (torchvision constructor, default input size, default classes): the zoo's
# defaults (sim/model/zoo.cpp). small_cnn is not in torchvision: the Keras CIFAR-10 example CNN
# that sim/model/zoo_small.cpp describes, built below. alexnet: torchvision's single-tower
# variant (64-192-384-256-256, 61.1 M parameters), not the zoo's tf_cnn_benchmarks one (61.8 M).
MODELS = {
    "resnet18": ("resnet18", 224, 1000), "resnet34": ("resnet34", 224, 1000),
    "resnet50": ("resnet50", 224, 1000), "resnet101": ("resnet101", 224, 1000),
    "resnet152": ("resnet152", 224, 1000), "efficientnet_b0": ("efficientnet_b0", 224, 1000),
    "mobilenet_v2": ("mobilenet_v2", 224, 1000), "inception_v3": ("inception_v3", 299, 1000),
    "vgg16": ("vgg16", 224, 1000), "alexnet": ("alexnet", 227, 1000), "small_cnn": (None, 32, 10),
}
# EfficientNet-B1..B7 at the zoo's (Keras') default sizes; torchvision 0.14's parameters equal the
# zoo's trainable totals (checked for B0-B7; Keras adds the input Normalization's statistics).
MODELS.update({f"efficientnet_b{i}": (f"efficientnet_b{i}", size, 1000)
               for i, size in zip(range(1, 8), (240, 260, 300, 380, 456, 528, 600))})
# VGG-11/13/19, DenseNet-121/169/201, MobileNetV3-Large, Wide ResNet-50-2: torchvision's parameters
# equal the zoo's trainable totals.
MODELS.update({name: (name, 224, 1000)
               for name in ("vgg11", "vgg13", "vgg19", "densenet121", "densenet169", "densenet201",
                            "mobilenet_v3_large", "wide_resnet50_2")})
# Vision Transformers: torchvision's layout is the zoo's (sim/model/zoo_vit.cpp); the input size is
# passed on (a multiple of the patch). ViT-S/16 and ViT-Ti/16 are not in torchvision: not here.
MODELS.update({name: (name, 224, 1000) for name in ("vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32")})
# ConvNeXt: torchvision's layout is the zoo's (sim/model/zoo_convnext.cpp).
MODELS.update({f"convnext_{size}": (f"convnext_{size}", 224, 1000) for size in ("tiny", "small", "base", "large")})
# EfficientNetV2 at the zoo's (torchvision's weights') sizes (sim/model/zoo_efficientnet_v2.cpp).
MODELS.update({f"efficientnet_v2_{size}": (f"efficientnet_v2_{size}", res, 1000)
               for size, res in (("s", 384), ("m", 480), ("l", 480))})
# ResNeXt: torchvision's grouped bottlenecks (sim/model/zoo_resnet.cpp).
MODELS.update({name: (name, 224, 1000) for name in ("resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d")})
# NVIDIA DeepLearningExamples' ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d (PyTorch ConvNets
# models/resnet.py; sim/model/zoo_resnet.cpp): torchvision's ResNet with groups 32 and width 4, the
# SE variant with NVIDIA's squeeze-excite of 16 channels on the third batch norm's output, applied
# with the residual add in one addcmul as NVIDIA does. Built below.
MODELS.update({name: ("dle_resnext", 224, 1000) for name in ("resnext101_32x4d", "se_resnext101_32x4d")})
# NVIDIA DeepLearningExamples' EfficientNet-WideSE-B0 and -B4 (models/efficientnet.py widese_mbconv;
# sim/model/zoo_efficientnet.cpp): torchvision's EfficientNet with each squeeze-excitation reduced to
# a quarter of the block's expanded channels instead of its input channels. Built below.
MODELS.update({"efficientnet_widese_b0": ("dle_widese", 224, 1000),
               "efficientnet_widese_b4": ("dle_widese", 380, 1000)})
# RegNets, Swin, MobileNetV3-Small, MNASNet, SqueezeNet, DenseNet-161, Wide ResNet-101-2, the
# batch-normed VGGs and ViT-H/14: torchvision's layouts are the zoo's (sim/model/zoo_regnet.cpp,
# zoo_swin.cpp, ...); RegNetY-128GF at its weights' 384. Swin pads other sizes to whole windows, as
# the zoo does.
MODELS.update({f"regnet_{kind}_{size}": (f"regnet_{kind}_{size}", 224, 1000)
               for kind, sizes in (("x", ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")),
                                   ("y", ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")))
               for size in sizes})
MODELS["regnet_y_128gf"] = ("regnet_y_128gf", 384, 1000)
MODELS.update({name: (name, 224, 1000)
               for name in ("swin_t", "swin_s", "swin_b", "mobilenet_v3_small", "mnasnet0_5", "mnasnet0_75",
                            "mnasnet1_0", "mnasnet1_3", "squeezenet1_0", "squeezenet1_1", "densenet161",
                            "wide_resnet101_2", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn", "vit_h_14")})
# Language models: Hugging Face's layouts in plain torch (text_models.py; their parameters equal the
# zoo's); the input size is the sequence length, the classes the vocabulary.
MODELS.update({name: ("text", c[6], c[5]) for name, c in text_models.CONFIGS.items()})
HEADER = ["model.name", "model.input_size", "model.classes", "model.precision", "compute.memory_format",
          "framework.optimizer_launches", "framework.zero_grad", "compute.attention", "training.framework", "training.batch_per_gpu",
          "training.sync_period", "training.optimizer", "comm.library", "comm.bucket_mb", "cluster.nodes",
          "cluster.gpus_per_node", "input.format", "step_time_s", "step_time_p10_s", "step_time_p90_s",
          "step_time_min_s", "step_time_max_s", "steps", "compute_step_s", "allreduce_s", "grad_bytes", "params",
          "threads", "device", "torch_version"]


def small_cnn(classes, size):
    import torch.nn as nn
    flat = 64 * (((size - 2) // 2 - 2) // 2) ** 2
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25),
        nn.Flatten(), nn.Linear(flat, 512), nn.ReLU(), nn.Dropout(0.5), nn.Linear(512, classes))


def dle_resnext(se, classes):
    import torch
    import torch.nn as nn
    from torchvision.models.resnet import Bottleneck, ResNet

    class SEBottleneck(Bottleneck):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            c = self.bn3.num_features
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, 16, 1), nn.ReLU(inplace=True),
                                    nn.Conv2d(16, c, 1), nn.Sigmoid())

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            residual = x if self.downsample is None else self.downsample(x)
            return self.relu(torch.addcmul(residual, out, self.se(out)))

    return ResNet(SEBottleneck if se else Bottleneck, [3, 4, 23, 3], num_classes=classes, groups=32,
                  width_per_group=4)


def dle_widese(name, classes):
    import torchvision
    from torchvision.models import efficientnet
    from torchvision.ops import SqueezeExcitation

    class WideSeMBConv(efficientnet.MBConv):
        def __init__(self, cnf, stochastic_depth_prob, norm_layer):
            def wide_se(expanded, _squeeze, activation):  # MBConv passes the expanded channels first
                return SqueezeExcitation(expanded, max(1, expanded // 4), activation=activation)
            super().__init__(cnf, stochastic_depth_prob, norm_layer, se_layer=wide_se)

    width, depth = {"efficientnet_widese_b0": (1.0, 1.0), "efficientnet_widese_b4": (1.4, 1.8)}[name]
    settings, last = efficientnet._efficientnet_conf("efficientnet_b0", width_mult=width, depth_mult=depth)
    for s in settings:
        s.block = WideSeMBConv
    return torchvision.models.EfficientNet(settings, 0.2, last_channel=last, num_classes=classes)


def build_model(name, classes, size):
    import torchvision
    ctor = MODELS[name][0]
    if ctor is None:
        return small_cnn(classes, size)
    if ctor == "dle_resnext":
        return dle_resnext(name.startswith("se_"), classes)
    if ctor == "dle_widese":
        return dle_widese(name, classes)
    if ctor == "text":
        return text_models.build(name, classes, size)
    extra = {"aux_logits": False, "init_weights": False} if name == "inception_v3" else {}
    if name.startswith("vit_"):
        extra = {"image_size": size}
    return getattr(torchvision.models, ctor)(num_classes=classes, **extra)


def positive(text):
    v = int(text) if text.isdigit() else 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected a positive integer")
    return v


def count(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}': expected an integer >= 0")
    return int(text)


def pin_mode(text):
    if text in ("none", "rank", "local") or text.isdigit():
        return text
    raise argparse.ArgumentTypeError(f"'{text}': expected none, rank, local or a CPU number")


def megabytes(text):
    try:
        v = float(text)
    except ValueError:
        v = -1
    if not 0 < v <= 65536:
        raise argparse.ArgumentTypeError(f"'{text}': expected MiB from (0, 65536]")
    return v


def options(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, choices=sorted(MODELS), help="ddlsim zoo name")
    p.add_argument("--input-size", type=positive,
                   help="input height = width; a language model's sequence length (default: the model's)")
    p.add_argument("--classes", type=positive, help="output classes (default: the model's)")
    p.add_argument("--batch", type=positive, default=32, help="samples per rank per micro-batch")
    p.add_argument("--bucket-mb", type=megabytes, default=25.0, help="DDP bucket_cap_mb (DDP's default 25)")
    p.add_argument("--sync-period", type=positive, default=1, help="micro-batches per allreduce (no_sync)")
    p.add_argument("--backend", choices=["gloo", "nccl"], default="gloo", help="gloo (CPU) or nccl (GPU)")
    p.add_argument("--precision", choices=["fp32", "tf32", "mixed"], default="fp32",
                   help="ddlsim's model.precision: fp32 (TF32 off for convolutions and GEMMs), tf32 (on for both), "
                        "mixed (autocast to FP16 with a GradScaler, FP32 weights); tf32 and mixed need nccl (a GPU)")
    p.add_argument("--memory-format", choices=["nchw", "nhwc"], default="nchw",
                   help="ddlsim's compute.memory_format: nchw (PyTorch's default) or nhwc (channels_last); images only")
    p.add_argument("--warmup", type=count, default=3, help="untimed iterations first")
    p.add_argument("--steps", type=positive, default=10, help="timed iterations")
    p.add_argument("--nosync-steps", type=count, default=5, help="timed no_sync micro-batches (0: skip)")
    p.add_argument("--allreduce-reps", type=count, default=3, help="timed gradient-size allreduces (0: skip)")
    p.add_argument("--threads", type=positive, default=1, help="torch threads per rank (intra- and inter-op)")
    p.add_argument("--pin", type=pin_mode, default="none",
                   help="bind each rank to one CPU: rank (one machine, e.g. the namespace testbed), local (local "
                        "rank), or a CPU number")
    p.add_argument("--master-addr", help="rank 0's address (default: MASTER_ADDR)")
    p.add_argument("--master-port", help="rendezvous port (default: MASTER_PORT, else 29500)")
    p.add_argument("--csv", required=True, help="measured CSV to write (rank 0), '-' for stdout")
    p.add_argument("--append", action="store_true", help="add the row to an existing CSV with the same header")
    o = p.parse_args(argv)
    _, size, classes = MODELS[o.model]
    o.input_size = o.input_size or size
    o.classes = o.classes or classes
    if o.model == "inception_v3" and o.input_size < 75:
        dd.fail(f"--input-size {o.input_size}: inception_v3 needs at least 75 pixels")
    if o.model == "small_cnn" and o.input_size < 10:
        dd.fail(f"--input-size {o.input_size}: small_cnn needs at least 10 pixels")
    if o.precision != "fp32" and o.backend != "nccl":
        dd.fail(f"--precision {o.precision}: needs a GPU (--backend nccl); CPU ranks train in fp32")
    if o.memory_format == "nhwc" and (o.model in text_models.CONFIGS or o.model == "small_cnn"):
        dd.fail(f"--memory-format nhwc: {o.model} is not a torchvision image model")
    if o.model in text_models.CONFIGS and o.input_size > text_models.CONFIGS[o.model][4]:
        dd.fail(f"--input-size {o.input_size}: {o.model}'s sequence holds at most {text_models.CONFIGS[o.model][4]} tokens")
    return o


def check_csv_header(path, header):
    with open(path) as f:
        first = f.readline().strip()
    if first and first != ",".join(header):
        dd.fail(f"{path}:1: --append: the file's header is not this runner's ({','.join(header[:3])},...)")


def write_row(o, row, header=HEADER):
    """One row under `header` (a runner's columns; this one's by default) to o.csv, or stdout."""
    line = ",".join(str(row[k]) for k in header) + "\n"
    if o.csv == "-":
        sys.stdout.write(",".join(header) + "\n" + line)
        return
    fresh = not (o.append and os.path.exists(o.csv) and os.path.getsize(o.csv) > 0)
    if not fresh:
        check_csv_header(o.csv, header)
    tmp = f"{o.csv}.partial-{os.getpid()}"
    old = "" if fresh else open(o.csv).read()
    with open(tmp, "w") as f:
        f.write((",".join(header) + "\n" if fresh else old) + line)
    os.replace(tmp, o.csv)  # all or nothing


class Workload:
    """One zoo model on `device` with one synthetic batch, trained as ddlsim's scenario says:
    SGD with momentum 0.9 (ddlsim's default optimizer), o.precision (AMP with a GradScaler for
    mixed; TF32 only for tf32), o.memory_format; on a GPU cuDNN's autotuner, as NVIDIA's examples
    and tf_cnn_benchmarks run (ddlsim's roofline assumes it: Winograd for 3x3 convolutions). The
    DDP runner wraps `model` in DDP; step_profile.py trains it alone."""

    def __init__(self, o, torch, device):
        self.torch = torch
        if device.type == "cuda":
            torch.backends.cudnn.benchmark = True
            torch.backends.cudnn.allow_tf32 = o.precision == "tf32"
            torch.backends.cuda.matmul.allow_tf32 = o.precision == "tf32"
        fmt = torch.channels_last if o.memory_format == "nhwc" else torch.contiguous_format
        self.model = build_model(o.model, o.classes, o.input_size).to(device, memory_format=fmt)
        self.params = sum(p.numel() for p in self.model.parameters() if p.requires_grad)
        self.text = o.model in text_models.CONFIGS
        if self.text:  # token ids; the model returns its own loss
            self.x = torch.randint(0, o.classes, (o.batch, o.input_size), device=device)
        else:
            self.x = torch.randn(o.batch, 3, o.input_size, o.input_size, device=device).to(memory_format=fmt)
            self.y = torch.randint(0, o.classes, (o.batch,), device=device)
            self.loss = torch.nn.CrossEntropyLoss()
        self.mixed = o.precision == "mixed"
        self.scaler = (torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler")
                       else torch.cuda.amp.GradScaler()) if self.mixed else None

    def optimizer(self, params):
        return self.torch.optim.SGD(params, lr=1e-3, momentum=0.9)

    def forward(self, model):
        """The micro-batch's loss through `model` (this workload's, or DDP around it)."""
        with self.torch.autocast("cuda", dtype=self.torch.float16) if self.mixed else contextlib.nullcontext():
            return model(self.x) if self.text else self.loss(model(self.x), self.y)

    def forward_backward(self, model):
        """One micro-batch through `model`, forward and backward."""
        loss = self.forward(model)
        (self.scaler.scale(loss) if self.mixed else loss).backward()

    def update(self, opt):
        if self.mixed:
            self.scaler.step(opt)
            self.scaler.update()
        else:
            opt.step()
        opt.zero_grad(set_to_none=False)


class Trainer:
    """The Workload in DDP on the rank's device, with the DDP model's optimizer."""

    def __init__(self, o, layout, torch, dist):
        from torch.nn.parallel import DistributedDataParallel as DDP
        self.torch, self.dist, self.o = torch, dist, o
        cuda = o.backend == "nccl"
        self.device = torch.device(f"cuda:{layout.local_rank % max(1, torch.cuda.device_count())}" if cuda else "cpu")
        if cuda:
            torch.cuda.set_device(self.device)
        torch.manual_seed(1234 + layout.rank)
        self.work = Workload(o, torch, self.device)
        self.params = self.work.params
        self.ddp = DDP(self.work.model, device_ids=[self.device] if cuda else None, bucket_cap_mb=o.bucket_mb)
        self.opt = self.work.optimizer(self.ddp.parameters())

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def micro_batch(self):
        self.work.forward_backward(self.ddp)

    def iteration(self):
        """sync-period micro-batches (all but the last without allreduce), then the update."""
        for _ in range(self.o.sync_period - 1):
            with self.ddp.no_sync():
                self.micro_batch()
        self.micro_batch()
        self.work.update(self.opt)

    def timed(self, fn):
        self.sync()
        t0 = time.perf_counter()
        fn()
        self.sync()
        return time.perf_counter() - t0

    def slowest(self, times):
        """Each entry's maximum over the ranks."""
        t = self.torch.tensor(times, dtype=self.torch.float64)
        if self.device.type == "cuda":
            t = t.to(self.device)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return t.cpu().tolist()

    def nosync_compute(self, n):
        def step():
            with self.ddp.no_sync():
                self.micro_batch()
        times = [self.timed(step) for _ in range(n)]
        self.opt.zero_grad(set_to_none=False)
        return self.slowest(times)

    def allreduce(self, reps):
        flat = self.torch.ones(self.params, dtype=self.torch.float32, device=self.device)
        self.dist.all_reduce(flat)  # warm-up
        times = []
        for _ in range(reps):
            self.dist.barrier()
            times.append(self.timed(lambda: self.dist.all_reduce(flat)))
        return self.slowest(times)


def optimizer_launches(torch, device):
    """How torch.optim.SGD with foreach unset ran the update: PyTorch 2 picks foreach on CUDA
    (torch.optim's _default_to_fused_or_foreach), PyTorch 1.x a loop over the tensors."""
    major = int(torch.__version__.split(".")[0])
    return "foreach" if major >= 2 and device.type == "cuda" else "per_tensor"


def attention(torch, model):
    """text_models.py computes attention as Hugging Face's eager path does (math); torchvision's
    nn.MultiheadAttention calls scaled_dot_product_attention from PyTorch 2 on (fused)."""
    if model in text_models.CONFIGS or int(torch.__version__.split(".")[0]) < 2:
        return "math"
    return "fused"


def measure(o, layout):
    import torch
    torch.set_num_threads(o.threads)
    torch.set_num_interop_threads(o.threads)
    if o.backend == "nccl" and not torch.cuda.is_available():
        dd.fail("--backend nccl: this torch sees no CUDA device (use --backend gloo on CPUs)")
    dist = dd.init(o.backend, layout)
    t = Trainer(o, layout, torch, dist)
    for _ in range(o.warmup):
        t.iteration()
    steps = t.slowest([t.timed(t.iteration) / o.sync_period for _ in range(o.steps)])
    nosync = t.nosync_compute(o.nosync_steps) if o.nosync_steps else []
    allreduce = t.allreduce(o.allreduce_reps) if o.allreduce_reps and layout.world > 1 else []
    row = {
        "model.name": o.model, "model.input_size": o.input_size, "model.classes": o.classes,
        "model.precision": o.precision, "compute.memory_format": o.memory_format,
        "framework.optimizer_launches": optimizer_launches(torch, t.device),
        "framework.zero_grad": "zeros",  # Workload.update: opt.zero_grad(set_to_none=False)
        "compute.attention": attention(torch, o.model),
        "training.framework": "pytorch_ddp", "training.batch_per_gpu": o.batch, "training.sync_period": o.sync_period,
        "training.optimizer": "momentum", "comm.library": o.backend, "comm.bucket_mb": f"{o.bucket_mb:g}",
        "cluster.nodes": layout.nodes, "cluster.gpus_per_node": layout.world // layout.nodes,
        "input.format": "synthetic", "step_time_s": f"{dd.median(steps):.6g}",
        "step_time_p10_s": f"{dd.quantile(steps, 0.1):.6g}", "step_time_p90_s": f"{dd.quantile(steps, 0.9):.6g}",
        "step_time_min_s": f"{min(steps):.6g}", "step_time_max_s": f"{max(steps):.6g}", "steps": o.steps,
        "compute_step_s": f"{dd.median(nosync):.6g}" if nosync else "",
        "allreduce_s": f"{dd.median(allreduce):.6g}" if allreduce else "",
        "grad_bytes": 4 * t.params, "params": t.params, "threads": o.threads, "device": t.device.type,
        "torch_version": torch.__version__,
    }
    return row, dist, t  # t (the DDP model) stays alive until the exit: see ddlsim_dist.finish


def main(argv):
    o = options(argv)
    layout = dd.Layout(o.master_addr, o.master_port)
    cpu = dd.pin(o.pin, layout)
    if o.csv != "-" and layout.rank == 0 and not os.path.isdir(os.path.dirname(os.path.abspath(o.csv))):
        dd.fail(f"--csv {o.csv}: its folder does not exist")
    if o.append and layout.rank == 0 and o.csv != "-" and os.path.exists(o.csv):
        check_csv_header(o.csv, HEADER)
    try:
        row, dist, _trainer = measure(o, layout)
    except (ValueError, RuntimeError) as e:  # torch refusing the shape (BatchNorm over one value), out of memory
        dd.fail(f"{o.model} at {o.input_size} batch {o.batch}: {e}")
    dist.barrier()
    if layout.rank == 0:
        write_row(o, row)
        where = f", rank 0 on CPU {cpu}" if cpu is not None else ""
        sys.stderr.write(f"ddp_runner: {o.model} {o.input_size}px batch {o.batch} x {layout.world} ranks ({o.backend}"
                         f"{where}): step {row['step_time_s']} s [p10 {row['step_time_p10_s']}, p90 "
                         f"{row['step_time_p90_s']}], compute {row['compute_step_s'] or '-'} s, allreduce of "
                         f"{row['grad_bytes']} B {row['allreduce_s'] or '-'} s\n")
    dd.finish(dist)


if __name__ == "__main__":
    main(sys.argv[1:])
