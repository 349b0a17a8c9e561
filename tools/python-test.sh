#!/usr/bin/env bash
# Installs the Python package as a user does (`pip install .`, into a virtual environment
# in the build folder) and runs its tests (tests/python) against the installed package.
# Usage: tools/python-test.sh [build-dir]. tools/test.sh runs it after the C++ suite.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$(realpath -m "${1:-build}")
venv=$build_dir/venv
if [ -d /usr/local/cuda/bin ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check numpy pytest
# A build folder of its own, kept between runs (the wheel's build is incremental).
"$venv/bin/pip" install -q --disable-pip-version-check --config-settings=build-dir="$build_dir/python-wheel" .
# From the tests' folder, so that `import gxsort` finds the installed package, not python/.
cd tests/python
"$venv/bin/python" -m pytest -q -p no:cacheprovider .
# The Python peers benchmark's tiny mode (tools/bench/python_peers.py).
cd ../..
GXSORT_PYTHON="$venv/bin/python" bash tests/python/test_bench_peers.sh "$venv/bin/python"
