# Sourced by the benchmark scripts of tools/bench (not one itself: no .sh): their smoke
# mode and their GPU and MPI checks.
#   SMOKE=1 tools/bench/NAME.sh   (CI: tests/cli/test_bench_scripts.sh runs every script so)
# runs a script at the least size that still builds each of its rows and gxsort command
# lines, in seconds; a binary not given is $GXSORT, else build/gxsort of this tree, and
# the work directory $TMPDIR. A renamed option then breaks CI, not the next benchmark.
bench_name=$(basename "$0" .sh)
bench_smoke=${SMOKE:-0}
# The scripts' sizes in GiB (or GB) are divided by this: 1, or 128 in the smoke mode (a
# "GiB" of 8 MiB, where --memory at 1/8 of the input is still gxsort's 1 MiB minimum).
bench_div=1
bench_tmp=/tmp
if [[ $bench_smoke == 1 ]]; then bench_div=128 bench_tmp=${TMPDIR:-/tmp}; fi
bench_gxsort=${GXSORT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/gxsort}

# bench_info BINARY KEY_EXPRESSION: a Python expression of `BINARY info --json` (j).
bench_info() {
  "$1" info --json | python3 -c "import json, sys; j = json.load(sys.stdin); print($2)"
}

# bench_device BINARY DEVICE: sets bench_dev to DEVICE; when that is cuda and BINARY has no
# GPU (a CPU build, or no GPU here), the smoke mode takes cpu instead (said on stderr), and
# a full run prints "NAME: needs a GPU; skipped" and exits 0.
bench_device() {
  bench_dev=$2
  [[ $bench_dev == cuda && $(bench_info "$1" "len(j['gpus'])") == 0 ]] || return 0
  if [[ $bench_smoke == 1 ]]; then
    bench_dev=cpu
    echo "$bench_name: no GPU: --device cpu for the smoke run" >&2
  else
    echo "$bench_name: needs a GPU; skipped"
    exit 0
  fi
}

# bench_needs_mpi BINARY PROGRAM...: prints "NAME: needs ...; skipped" and exits 0 unless
# mpirun is on the PATH, BINARY was built with MPI and each PROGRAM (build/bench/...) is.
bench_needs_mpi() {
  local why="" p
  command -v mpirun >/dev/null || why="mpirun"
  [[ -z $why && $(bench_info "$1" "j['mpi_built']") != True ]] && why="a gxsort built with MPI"
  shift
  for p in "$@"; do [[ -n $why || -x $p ]] || why="$p (configure with GXSORT_MPI=ON)"; done
  [[ -z $why ]] && return 0
  echo "$bench_name: needs $why; skipped"
  exit 0
}

# bench_ratio A B: A / B to two decimals, or n/a when B is 0 (a smoke run's 0.00 s).
bench_ratio() {
  python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / b:.2f}' if b else 'n/a')" "$1" "$2"
}

# bench_size GIB: "GIB GiB", or in the smoke mode what that is there ("8 MiB" for 1).
bench_size() {
  if [[ $bench_div == 1 ]]; then echo "$1 GiB"; else echo "$(($1 * 1024 / bench_div)) MiB"; fi
}
