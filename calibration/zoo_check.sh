#!/usr/bin/env bash
# Score ddlsim's roofline on a GPU it has never seen: time the zoo's families on one GPU with
# PyTorch (calibration/torch/zoo_steps.py: each model alone, synthetic data, kernel time by kind),
# writing OUTDIR/zoo.csv and OUTDIR/kernels.csv:
#   calibration/zoo_check.sh OUTDIR [PYTHON] [SECONDS]   (PYTHON: torch with CUDA, default python3;
#                                                         SECONDS: stop starting models after, default 420)
# then, on any machine, with a one-GPU scenario for that GPU (calibration/measured/h100-one-gpu.ini):
#   build/ddlsim compare OUTDIR/zoo.csv --scenario calibration/measured/h100-one-gpu.ini
# Models run in order of priority: mixed precision channels-last first, then channels-first,
# TF32, and tiny batches (the host's time a step). Bad use: exit code 2.
set -u
cd "$(dirname "$0")/.."
out=${1:-}
py=${2:-python3}
budget=${3:-420}
if [ -z "$out" ] || [ $# -gt 3 ] || ! [[ "$budget" =~ ^[0-9]+$ ]]; then
  echo "usage: calibration/zoo_check.sh OUTDIR [PYTHON] [SECONDS]" >&2
  exit 2
fi
source calibration/gpu_common.sh
need_cuda_torch zoo_check.sh "$py"
mkdir -p "$out" || exit 2
export PYTHONUNBUFFERED=1
deadline=$(( $(date +%s) + budget ))
describe_gpu "$out" "$py"

zoo() {  # MODELS ARGS...: one zoo_steps.py process over MODELS, within what is left of the budget
  local models=$1; shift
  local left=$(( deadline - $(date +%s) ))
  [ "$left" -gt 0 ] || { echo "zoo_check.sh: budget spent before $models"; return; }
  "$py" calibration/torch/zoo_steps.py --models "$models" --budget-s "$left" --csv "$out/zoo.csv" \
    --kernels "$out/kernels.csv" "$@" 2>&1 | grep -E '^zoo_steps|rror'
}
first=resnet50,efficientnet_b0,vgg16,densenet121,mobilenet_v2,convnext_tiny,vit_b_16,resnet18,resnet152
first=$first,resnext50_32x4d,wide_resnet50_2,regnet_y_3_2gf,mobilenet_v3_large,swin_t,densenet201,vgg16_bn
zoo $first,regnet_x_3_2gf,mnasnet1_0,squeezenet1_1 --precision mixed --memory-format nhwc --batch 128
zoo inception_v3,efficientnet_b3,efficientnet_v2_s --precision mixed --memory-format nhwc --batch 64
zoo resnet50,densenet121,vgg16,efficientnet_b0,convnext_tiny,mobilenet_v2 \
  --precision mixed --memory-format nchw --batch 128
zoo resnet50,vgg16,densenet121,vit_b_16,efficientnet_b0 --precision tf32 --memory-format nhwc --batch 128
zoo efficientnet_b0,resnet50,mobilenet_v2,convnext_tiny --precision mixed --memory-format nhwc --batch 2 --steps 20
echo "zoo_check.sh: done: $out"
