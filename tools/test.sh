#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit tests, CLI tests, and the GPU
# tests, which skip visibly without a GPU), then installs the Python package with pip
# into a virtual environment and runs its tests. Usage: tools/test.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
bash tools/setup.sh "$build_dir"
(cd "$build_dir" && ctest --output-on-failure -j2 --timeout 1200)
bash tools/python-test.sh "$build_dir"
