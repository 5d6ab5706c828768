#!/usr/bin/python3
"""Times, on this host's CPU and one thread, the per-image cost of torchvision's automatic
augmentation policies as ImageNet training recipes run them: on the RandomResizedCrop(224) +
RandomHorizontalFlip output (a PIL image), before ToTensor (torchvision's references/classification
presets.py ClassificationPresetTrain: crop, flip, then the policy). Each policy's time is what it
adds to the standard transform that loader_cost.py times (and ddlsim's decode default covers).
The images are loader_cost.py's synthetic JPEGs (or yours: --images DIR). Prints CSV rows of
per-image milliseconds (medians of --repeats passes over --count images, a fixed seed), the
standard transform's first (crop and flip on the decoded image, ToTensor and Normalize on the crop),
timed in the same run, so that a policy's time can be put beside loader_cost.py's on another day
(ddlsim takes each policy's ratio to it, system.cpp augment_s).

    /usr/bin/python3 calibration/torch/augment_cost.py [--images DIR] [--count 256] [--repeats 5]
"""
import argparse
import io
import os
import sys

import torch
import torchvision
from PIL import Image
from torchvision import transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader_cost import TO_TENSOR, crop_flip, jpeg_bytes, median_ms  # noqa: E402

POLICIES = {
    "autoaugment": lambda: transforms.AutoAugment(transforms.AutoAugmentPolicy.IMAGENET),
    "randaugment": lambda: transforms.RandAugment(),  # num_ops 2, magnitude 9 (timm's rand-m9-n2)
    "trivialaugment": lambda: transforms.TrivialAugmentWide(),
    "augmix": lambda: transforms.AugMix(),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--images", help="folder of JPEGs (default: synthetic ones)")
    p.add_argument("--count", type=int, default=256)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--size", type=int, default=224)
    a = p.parse_args()
    if a.count < 1 or a.repeats < 1 or a.size < 8:
        p.error("--count and --repeats must be at least 1, --size at least 8")
    torch.set_num_threads(1)
    torch.manual_seed(7)
    data = jpeg_bytes(a.images, a.count, "augment_cost.py")
    crop = crop_flip(a.size)
    images = [Image.open(io.BytesIO(b)).convert("RGB") for b in data]
    crops = [crop(i) for i in images]
    to_tensor = TO_TENSOR
    print(f"# torchvision {torchvision.__version__}, torch {torch.__version__}, {len(crops)} crops of {a.size}")
    print("policy,ms_per_image")
    standard = median_ms(crop, images, a.repeats) + median_ms(to_tensor, crops, a.repeats)
    print(f"standard,{standard:.3f}")
    for name, make in POLICIES.items():
        policy = make()
        print(f"{name},{median_ms(policy, crops, a.repeats):.3f}")


if __name__ == "__main__":
    main()
