#!/usr/bin/env bash
# ddlsim set-up on Debian 12 (run as root, or with sudo):
#   ./setup.sh run    install what is missing, build, simulate scenarios/default.ini
#   ./setup.sh test   install what is missing, build, run every test
#   ./setup.sh build  install and build only
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake ninja-build pkg-config
          libsimgrid-dev libeigen3-dev libboost-program-options-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev libcsv-dev libturbojpeg0-dev
          libopenmpi-dev openmpi-bin iproute2)  # MPI and ip/tc: network calibration (ddlsim netbench)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  # The CUDA toolkit is not a Debian package: where it is installed (nvcc on PATH or in
  # /usr/local/cuda), CMake finds it and also builds the GPU calibration harness build/ddlsim_cuda.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
  cmake --build build -j "$(nproc)"
}

case "${1:-run}" in
  run)   install_missing; build; ./build/ddlsim simulate scenarios/default.ini ;;
  test)  install_missing; build; ctest --test-dir build --output-on-failure -j "$(nproc)" ;;
  build) install_missing; build ;;
  *)     echo "usage: $0 run|test|build" >&2; exit 2 ;;
esac
