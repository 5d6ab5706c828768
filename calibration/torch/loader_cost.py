#!/usr/bin/python3
"""Times, on this host's CPU and one thread, what a PyTorch DataLoader worker does per ImageNet image
with torchvision's standard training transform (PyTorch's examples/imagenet/main.py):
PIL decode (Image.open + convert('RGB')), RandomResizedCrop(224) + RandomHorizontalFlip, and
ToTensor + Normalize, each alone; then the whole through a DataLoader with one worker process
(batches of 64: collation and the hand-over to the main process included), per image. The images are synthetic JPEGs of 375 x 500 pixels at about 94 KiB, drawn
as `ddlsim calibrate-input` draws its own (or yours: --images DIR, the first --count JPEGs).
Prints one CSV row of per-image milliseconds (medians of --repeats passes over the images).

    /usr/bin/python3 calibration/torch/loader_cost.py [--images DIR] [--count 64] [--repeats 5]
"""
import argparse
import glob
import io
import os
import statistics
import sys
import time

import numpy as np
import torch
from PIL import Image
from torchvision import transforms


def synthetic_jpegs(count, seed=7, height=375, width=500):
    """375 x 500 JPEGs at quality 90, 4:2:0, drawn as calibration/input_bench.cpp draws its own
    (a sine-cosine pattern per channel, block edges, Gaussian noise of 18): about 94 KiB each.
    Another size (Tiny ImageNet's 64 x 64) draws the same pattern on that grid."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    out = []
    for _ in range(count):
        p = rng.uniform(0, 6.283, 3)
        f, g = rng.uniform(0.005, 0.05, 2)
        chans = []
        for c in range(3):
            edge = np.where((x // 37 + y // 23 + c) % 5 == 0, 40.0, 0.0)
            v = 128 + 70 * np.sin(f * x + p[c]) * np.cos(g * y - p[c]) + edge + rng.normal(0, 18, x.shape)
            chans.append(np.clip(v, 0, 255))
        buf = io.BytesIO()
        Image.fromarray(np.stack(chans, axis=2).astype(np.uint8)).save(buf, format="JPEG", quality=90, subsampling=2)
        out.append(buf.getvalue())
    return out


def jpeg_bytes(images, count, tool, height=375, width=500):
    """The first `count` JPEGs of folder `images` (exits 2 naming it when it has none), or
    synthetic ones of height x width."""
    if not images:
        return synthetic_jpegs(count, height=height, width=width)
    files = sorted(glob.glob(os.path.join(images, "*.JPEG")) + glob.glob(os.path.join(images, "*.jpg")))
    data = [open(f, "rb").read() for f in files[:count]]
    if not data:
        print(f"{tool}: --images {images}: no .JPEG or .jpg files there", file=sys.stderr)
        sys.exit(2)
    return data


# The standard transform after the decode: torchvision's ImageNet training crop and flip, then
# ToTensor and Normalize (PyTorch's examples/imagenet/main.py).
def crop_flip(size):
    return transforms.Compose([transforms.RandomResizedCrop(size), transforms.RandomHorizontalFlip()])


TO_TENSOR = transforms.Compose([transforms.ToTensor(),
                                transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])


def dataloader_ms(data, transform, repeats, batch=64):
    """Per-image time of a DataLoader with one worker over the images, cycled to 8 batches; the
    first batch (the worker's start) is not timed. Median of `repeats` passes."""
    from torch.utils.data import DataLoader, Dataset

    class Images(Dataset):
        def __len__(self):
            return 8 * batch

        def __getitem__(self, i):
            return transform(Image.open(io.BytesIO(data[i % len(data)])).convert("RGB"))

    times = []
    for _ in range(repeats):
        it = iter(DataLoader(Images(), batch_size=batch, num_workers=1))
        next(it)
        start, n = time.perf_counter(), 0
        for x in it:
            n += x.shape[0]
        times.append((time.perf_counter() - start) / n * 1e3)
    return statistics.median(times)


def median_ms(fn, items, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for x in items:
            fn(x)
        times.append((time.perf_counter() - start) / len(items) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--images", help="folder of JPEGs (default: synthetic ones)")
    p.add_argument("--count", type=int, default=64)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--jpeg-size", default="375x500", help="HxW of the synthetic JPEGs (Tiny ImageNet: 64x64)")
    a = p.parse_args()
    if a.count < 1 or a.repeats < 1 or a.size < 8:
        p.error("--count and --repeats must be at least 1, --size at least 8")
    try:
        jpeg_h, jpeg_w = (int(v) for v in a.jpeg_size.lower().split("x"))
    except ValueError:
        p.error(f"--jpeg-size {a.jpeg_size}: expected HxW, e.g. 64x64")
    torch.set_num_threads(1)
    data = jpeg_bytes(a.images, a.count, "loader_cost.py", jpeg_h, jpeg_w)
    decode = lambda b: Image.open(io.BytesIO(b)).convert("RGB")
    images = [decode(b) for b in data]
    crop = crop_flip(a.size)
    crops = [crop(i) for i in images]
    to_tensor = TO_TENSOR
    d = median_ms(decode, data, a.repeats)
    c = median_ms(crop, images, a.repeats)
    t = median_ms(to_tensor, crops, a.repeats)
    w = dataloader_ms(data, transforms.Compose([crop, to_tensor]), a.repeats)
    kib = sum(len(b) for b in data) / len(data) / 1024
    print("images,mean_kib,decode_ms,crop_flip_ms,to_tensor_normalize_ms,total_ms,dataloader_ms")
    print(f"{len(data)},{kib:.1f},{d:.3f},{c:.3f},{t:.3f},{d + c + t:.3f},{w:.3f}")


if __name__ == "__main__":
    main()
