# Shared by the one-GPU checks (gpu_check.sh, zoo_check.sh); sourced, not run.

# need_cuda_torch SCRIPT PYTHON: exit 2 unless PYTHON's torch sees a CUDA device.
need_cuda_torch() {
  if ! "$2" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "$1: $2 has no torch that sees a CUDA device" >&2
    exit 2
  fi
}

# describe_gpu OUTDIR PYTHON: the GPU, its driver and clocks, torch's and cuDNN's versions in OUTDIR/gpu.txt.
describe_gpu() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$1/gpu.txt" 2>&1
  "$2" -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())' >> "$1/gpu.txt"
}
