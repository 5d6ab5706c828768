#!/usr/bin/env bash
# ddlsim set-up on Debian 12 (run as root, or with sudo):
#   ./setup.sh run    install what is missing, build, simulate scenarios/default.ini
#   ./setup.sh test   install what is missing, build the program and its test suite, run the suite
#                     (ctest label `quick`: every test but those that time real work; minutes)
#   ./setup.sh check  the long checks: build everything (the GPU harness where nvcc is found, the
#                     benchmarks), run the tests that time real work (label `long`: Open MPI and the
#                     DDP closed loop on network namespaces, the report in chromium), the Slurm array
#                     sweep on a one-node Slurm (tests/slurm/check.sh), then every test
#                     again under AddressSanitizer + UBSan (clang, build-check/) and each fuzz harness
#                     for FUZZ_SECONDS (default 60). CI (.ci/run) runs `test`, then `check`.
#   ./setup.sh build  install and build only
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake ninja-build pkg-config
          libsimgrid-dev libeigen3-dev libboost-program-options-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev libcsv-dev libturbojpeg0-dev libgsl-dev libexpat1-dev
          libopenmpi-dev openmpi-bin iproute2   # MPI and ip/tc: network calibration (ddlsim netbench)
          gnuplot-nox chromium                  # ddlsim report draws with gnuplot; its test renders the page
          python3-torch python3-torchvision     # the PyTorch DDP measurement kit and netbench --library gloo
          clang libclang-rt-14-dev)             # the sanitizer and fuzzing checks of `setup.sh check`

# Only for `setup.sh check`: a one-node Slurm on which scripts/slurm_sweep.sh is checked (tests/slurm).
CHECK_PACKAGES=(slurmctld slurmd slurm-client munge)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure() {
  # The CUDA toolkit is not a Debian package: where it is installed (nvcc on PATH or in
  # /usr/local/cuda), CMake finds it and also builds the GPU calibration harness build/ddlsim_cuda.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
}

build() {
  configure
  cmake --build build -j "$(nproc)"
}

# The quick suite: the program, the test binary and the MPI benchmark some of its tests start.
quick_tests() {
  configure
  local targets=(ddlsim ddlsim_tests)
  if ninja -C build -t targets all | grep -q '^ddlsim_netbench:'; then targets+=(ddlsim_netbench); fi
  cmake --build build -j "$(nproc)" --target "${targets[@]}"
  ctest --test-dir build --output-on-failure -j "$(nproc)" -L '^quick$'
}

# The long checks. Open MPI's allreduce matrix on the namespaces runs once, in the release build:
# under the sanitizers it would measure the same network again.
long_checks() {
  build
  ctest --test-dir build --output-on-failure -L '^long$'
  tests/slurm/check.sh build
  cmake -S . -B build-check -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
        -DCMAKE_CXX_COMPILER=clang++ -DDDLSIM_SANITIZE=ON -DDDLSIM_FUZZ=ON -DDDLSIM_CUDA=OFF
  cmake --build build-check -j "$(nproc)"
  ASAN_OPTIONS=detect_stack_use_after_return=0:abort_on_error=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-check --output-on-failure -j "$(nproc)" -E '^OpenMpiAllreduceNetns\.'
  tests/fuzz/run.sh build-check "${FUZZ_SECONDS:-60}"
}

case "${1:-run}" in
  run)   install_missing; build; ./build/ddlsim simulate scenarios/default.ini ;;
  test)  install_missing; quick_tests ;;
  check) install_missing "${CHECK_PACKAGES[@]}"; long_checks ;;
  build) install_missing; build ;;
  *)     echo "usage: $0 run|test|check|build" >&2; exit 2 ;;
esac
