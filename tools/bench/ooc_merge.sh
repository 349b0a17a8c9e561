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
set -euo pipefail
new=$1; base=${2:-}; gib=${3:-16}
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/gxsort-oocm.XXXXXX")
trap 'rm -rf "$dir"' EXIT
read -r -a opts <<< "${OPTS:---device cuda --device-memory 2G --memory 4G}"
now() { date +%s.%N; }
wall() { python3 -c "print(round($(now) - $1, 2))"; }
"$new" gen -o "$dir/in.bin" --count $((gib * 134217728)) --seed 19 -q
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
print(f"{label}: {s:.2f} s = {s / cp:.2f}x two cp; {j['runs']} runs; {ph}\n    stages: {st}")
PY
}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  cp_s=$(two_cp nosync); echo "round $r: two cp $cp_s s"
  [[ -n $base ]] && run base "$base" "$cp_s" --no-fsync
  run new "$new" "$cp_s" --no-fsync
  if [[ -n $base ]]; then cmp -s "$dir/base.bin" "$dir/new.bin" && echo "    NEW's output = BASE's" || echo "    DIFFERENT outputs"; fi
  rm -f "$dir/base.bin" "$dir/new.bin"
done
if [[ ${FSYNC:-0} == 1 ]]; then
  cp_s=$(two_cp sync); echo "fsync'd: two cp + sync $cp_s s"
  [[ -n $base ]] && run base "$base" "$cp_s"
  run new "$new" "$cp_s"
fi
if [[ ${COLD:-0} == 1 ]]; then
  cold=1
  cp_s=$(two_cp nosync); echo "cold: two cp $cp_s s"
  [[ -n $base ]] && run base "$base" "$cp_s" --no-fsync
  run new "$new" "$cp_s" --no-fsync
  cold=0
fi
