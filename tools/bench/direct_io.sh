#!/usr/bin/env bash
# Out-of-core sort of a u64 file with the temp runs through the page cache
# (--direct-io off) and around it (--direct-io on), interleaved, against cp of the same
# file in the same run. Prints each run's time and phases.
# Usage: tools/bench/direct_io.sh [gxsort-binary] [GiB] [ROUNDS] [extra sort options...]
# e.g.   tools/bench/direct_io.sh build/gxsort 2 2 --device cpu --memory 256M
# SMOKE=1 (CI): 2 "GiB" of 8 MiB, one round, --memory 1M unless options are given
set -euo pipefail
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
gib=${2:-2}
rounds=${3:-2}
[[ $bench_smoke == 1 ]] && rounds=${3:-1}
shift $(( $# >= 3 ? 3 : $# ))
extra=("$@")
[[ $bench_smoke == 1 && ${#extra[@]} == 0 ]] && extra=(--memory 1M)
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gxsort-dio.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$g" gen -o "$work/in.bin" --count $(( gib * 134217728 / bench_div )) --dist uniform --seed 5 -q
sync
now() { date +%s.%N; }
for ((r = 1; r <= rounds; ++r)); do
  s=$(now); cp "$work/in.bin" "$work/cp.bin"; e=$(now)
  python3 -c "print(f'round $r  cp                {$e-$s:6.2f} s')"
  rm -f "$work/cp.bin"; sync
  for mode in off on; do
    s=$(now)
    "$g" sort "$work/in.bin" -o "$work/out.bin" -T "$work" --direct-io "$mode" --stats-json "$work/s.json" -q "${extra[@]}"
    e=$(now)
    "$g" check "$work/out.bin" -q
    python3 - "$mode" "$s" "$e" "$work/s.json" <<'PY'
import json, sys
mode, s, e, stats = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), json.load(open(sys.argv[4]))
phases = ", ".join(f"{p['name']} {p['seconds']:.2f}" for p in stats["phases"] if p["seconds"] >= 0.01)
print(f"        --direct-io {mode:3}  {e - s:6.2f} s  ({phases})")
PY
    rm -f "$work/out.bin"; sync
  done
done
