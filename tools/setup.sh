#!/usr/bin/env bash
# Installs what gxsort needs from Debian/Ubuntu packages (only what is missing), then
# configures and builds it. Idempotent. Usage: tools/setup.sh [build-dir]
#   GXSORT_INSTALL_CUDA=1  also install Debian's nvidia-cuda-toolkit when no nvcc is found
#   GXSORT_CUDA=ON|OFF|AUTO  build the CUDA backend (default AUTO: when nvcc is found)
#   GXSORT_MPI=ON|OFF|AUTO   build the distributed sort over MPI (default AUTO: when Open MPI is found)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}

packages=(g++ cmake ninja-build libboost-program-options-dev libboost-filesystem-dev doctest-dev libxxhash-dev nlohmann-json3-dev zlib1g-dev python3
          python3-dev python3-venv
          openmpi-bin libopenmpi-dev
          man-db zsh)  # the install test: man -l of the man page, zsh -n of the completion
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ -d /usr/local/cuda/bin ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
if ! command -v nvcc >/dev/null && [ "${GXSORT_INSTALL_CUDA:-0}" = 1 ]; then missing+=(nvidia-cuda-toolkit); fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda=${GXSORT_CUDA:-AUTO}
if [ "$cuda" = AUTO ] && ! command -v nvcc >/dev/null; then
  echo "setup: no nvcc found: building the CPU backend only (GXSORT_INSTALL_CUDA=1 installs Debian's CUDA toolkit)"
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGXSORT_CUDA="$cuda" -DGXSORT_MPI="${GXSORT_MPI:-AUTO}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
echo "setup: built $build_dir/gxsort"
