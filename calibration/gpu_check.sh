#!/usr/bin/env bash
# The one-GPU check behind docs/design.md "The harness on a GPU": on a GPU node, calibrate
# ResNet-50 and BERT-base with ddlsim's CUDA harness, time the same steps in PyTorch (the DDP
# runner on one rank) and profile them alone (GPU busy time, and the host's time at a tiny batch),
# writing everything into OUTDIR:
#   calibration/gpu_check.sh OUTDIR [PYTHON]      (PYTHON: an interpreter with torch + CUDA, default python3)
# then, on any machine:
#   build/ddlsim compare OUTDIR/torch.csv --scenario calibration/measured/h200-one-gpu.ini   (set your GPU)
# Needs build/ddlsim_cuda (./setup.sh build where nvcc is found). Each step has a time limit and a
# failed step does not stop the others. Bad use: exit code 2.
set -u
cd "$(dirname "$0")/.."
out=${1:-}
py=${2:-python3}
if [ -z "$out" ] || [ $# -gt 2 ]; then
  echo "usage: calibration/gpu_check.sh OUTDIR [PYTHON]" >&2
  exit 2
fi
if [ ! -x build/ddlsim_cuda ]; then
  echo "gpu_check.sh: build/ddlsim_cuda is missing: run ./setup.sh build where nvcc is found" >&2
  exit 2
fi
source calibration/gpu_common.sh
need_cuda_torch gpu_check.sh "$py"
mkdir -p "$out" || exit 2
export PYTHONUNBUFFERED=1
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start )) s] $*"; }

describe_gpu "$out" "$py"

calibrate() {  # NAME ARGS...: the harness's per-layer times and its whole-step check
  local name=$1; shift
  say "calibrate $name"
  timeout 300 build/ddlsim_cuda calibrate --device cuda:0 --check --out "$out/$name.cal" "$@" > "$out/$name.txt" 2>&1
  tail -3 "$out/$name.txt"
}
runner() {  # ARGS...: one rank of the DDP runner, a row of torch.csv
  say "ddp_runner $*"
  timeout 150 "$py" calibration/torch/ddp_runner.py --backend nccl --warmup 8 --steps 20 --nosync-steps 0 \
    --allreduce-reps 0 --csv "$out/torch.csv" --append "$@" 2>&1 | grep '^ddp_runner'
}
profile() {  # ARGS...: the model alone, its GPU busy time
  say "step_profile $*"
  timeout 120 "$py" calibration/torch/step_profile.py "$@" 2>&1 | tail -1 | tee -a "$out/profiles.txt"
}

calibrate resnet50-224-mixed --model resnet50 --precision mixed --batch 128
calibrate bert_base-128-mixed --model bert_base --input-size 128 --precision mixed --batch 32
runner --model resnet50 --batch 128 --precision mixed --memory-format nhwc
runner --model resnet50 --batch 128 --precision fp32
runner --model bert_base --input-size 128 --batch 32 --precision mixed
runner --model efficientnet_b0 --batch 128 --precision mixed --memory-format nhwc
profile --model resnet50 --batch 128 --precision mixed --memory-format nhwc
profile --model bert_base --input-size 128 --batch 32 --precision mixed
profile --model efficientnet_b0 --batch 128 --precision mixed --memory-format nhwc
# The host's time for a step: a batch so small that the GPU waits throughout (compute.host_step_ms;
# over `ddlsim profile`'s kernels, compute.host_kernel_us).
profile --model bert_base --input-size 8 --batch 1 --precision mixed
profile --model gpt2 --input-size 8 --batch 1 --precision mixed
profile --model resnet50 --input-size 64 --batch 2 --precision mixed --memory-format nhwc
# DDP's own host time a gradient tensor, on this machine: the runner (DDP on one rank) and the model
# alone at a batch so small that both steps are the host's; (runner - alone) / tensors, 161 for
# ResNet-50 and 213 for EfficientNet-B0 (earlier runs compared machines whose hosts differed).
for m in resnet50 efficientnet_b0; do
  runner --model $m --batch 2 --precision mixed --memory-format nhwc
  profile --model $m --batch 2 --precision mixed --memory-format nhwc
done
say "done: $out"
