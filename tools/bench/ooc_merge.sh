#!/usr/bin/env bash
# The out-of-core sort's merge level against two cp of the same file, with the device
# merge's stages (issue 20): rounds interleaved (two cp, BASE, NEW), page cache warm,
# `sync` between commands (untimed); NEW's output compared with BASE's.
#   tools/bench/ooc_merge.sh NEW_GXSORT [BASE_GXSORT] [GiB=16]
#   OPTS="--device cuda --device-memory 2G --memory 4G"   the budget (default as shown)
#   FSYNC=1   adds one round fsync'd, against two cp + sync FILE; ROUNDS=2
#   COLD=1    adds one round with the caches dropped before each command (root), against
#             two cp after the same drop (the first reads the disk, as the runs do)
# Prints per run: wall s, ratio to the round's two cp, runs, phases and merge stages.
# NEW's output is compared with BASE's by `gxsort check`'s xxh3 (and found sorted): BASE's
# is removed before NEW runs, so that the disk holds one output (16 GiB: input, runs and
# output fill 48 GiB of a 64 GiB disk).
#   SMOKE=1 (CI): NEW $GXSORT, BASE = NEW, 2 "GiB" of 8 MiB, budgets of 1M, one round,
#   FSYNC=1; --device cpu without a GPU
set -euo pipefail
source "$(dirname "$0")/common.bash"
new=${1:-$bench_gxsort}; base=${2:-}; gib=${3:-16}
if [[ $bench_smoke == 1 ]]; then
  base=${2:-$new} gib=${3:-2} ROUNDS=${ROUNDS:-1} FSYNC=${FSYNC:-1} BENCH_DIR=${BENCH_DIR:-$bench_tmp}
  OPTS=${OPTS:---device cuda --device-memory 1M --memory 1M}
fi
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/gxsort-oocm.XXXXXX")
trap 'rm -rf "$dir"' EXIT
read -r -a opts <<< "${OPTS:---device cuda --device-memory 2G --memory 4G}"
for i in "${!opts[@]}"; do  # --device cuda without a GPU: cpu in the smoke mode, else skipped
  if [[ ${opts[i]} == --device && ${opts[i + 1]:-} == cuda ]]; then bench_device "$new" cuda; opts[i + 1]=$bench_dev; fi
done
now() { date +%s.%N; }
wall() { python3 -c "print(round($(now) - $1, 2))"; }
"$new" gen -o "$dir/in.bin" --count $((gib * 134217728 / bench_div)) --seed 19 -q
cold=0
drop_caches() { if [[ $cold == 1 ]]; then echo 3 > /proc/sys/vm/drop_caches; fi; }
two_cp() {  # two cp of the input (each synced to disk when $1 = sync); prints seconds
  local t0; sync; drop_caches; t0=$(now)
  for _ in 1 2; do cp "$dir/in.bin" "$dir/cp.bin"; [[ $1 == sync ]] && sync "$dir/cp.bin"; rm -f "$dir/cp.bin"; done
  wall "$t0"
}
run() {  # label binary cp_seconds extra-options...
  local label=$1 bin=$2 cp=$3 t0 s; shift 3
  sync; drop_caches; t0=$(now)
  "$bin" sort "$dir/in.bin" -o "$dir/$label.bin" -q "${opts[@]}" -T "$dir" --stats-json "$dir/s.json" "$@"
  s=$(wall "$t0")
  python3 - "$dir/s.json" "$label" "$s" "$cp" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); label, s, cp = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
ph = ", ".join(f"{p['name']} {p['seconds']:.2f}" for p in j["phases"])
st = ", ".join(f"{p['name']} {p['seconds']:.2f}" for p in j["merge_stages"])
print(f"{label}: {s:.2f} s = {s / max(cp, 0.01):.2f}x two cp; {j['runs']} runs; {ph}\n    stages: {st}")
PY
}
digest() {  # label: the output's xxh3 when it is sorted (else "unsorted"), then the output removed
  local j
  j=$("$new" check "$dir/$1.bin" --json || true)
  rm -f "$dir/$1.bin"
  python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["xxh3"] if j["sorted"] else "unsorted")' "$j"
}
pair() {  # cp_seconds extra-options...: BASE, then NEW, their outputs compared and removed
  local cp=$1 b="" n; shift
  if [[ -n $base ]]; then run base "$base" "$cp" "$@"; b=$(digest base); fi
  run new "$new" "$cp" "$@"
  n=$(digest new)
  [[ $n == unsorted ]] && echo "    NEW's output is NOT sorted"
  if [[ -n $base ]]; then [[ $n == "$b" ]] && echo "    NEW's output = BASE's" || echo "    DIFFERENT outputs"; fi
}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  cp_s=$(two_cp nosync); echo "round $r: two cp $cp_s s"
  pair "$cp_s" --no-fsync
done
if [[ ${FSYNC:-0} == 1 ]]; then
  cp_s=$(two_cp sync); echo "fsync'd: two cp + sync $cp_s s"
  pair "$cp_s"
fi
if [[ ${COLD:-0} == 1 ]]; then
  cold=1
  cp_s=$(two_cp nosync); echo "cold: two cp $cp_s s"
  pair "$cp_s" --no-fsync
  cold=0
fi
