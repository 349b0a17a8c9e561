#!/usr/bin/env bash
# fsync'd sorts against the disk's own write floor, measured in the same run (issue 40):
# `dd oflag=direct` of the same bytes, and cp + sync. Rows: 16 GiB of u64 out of core
# (OPTS, fsync'd and --no-fsync), 4 GiB of u64 and 4 GB of gensort in memory fsync'd.
#   tools/bench/fsync_floor.sh NEW_GXSORT [BASE_GXSORT] [OOC_GiB=16]
#   OPTS="--device cuda --device-memory 2G --memory 4G"   the out-of-core budget
#   ONLY="ooc"   rows whose name starts so (ooc, u64, gensort)
#   STATS_DIR=D  each sort's --stats-json there (phases and merge stages; an out-of-core
#                round's number in its name), and after the table a line per sort of where
#                its time went (runs formed, written back early, held; the merge's stages)
#   BASE_ENV="VAR=VALUE ..."   without BASE_GXSORT: BASE is NEW run with these variables
#                (a knob's A/B: BASE_ENV=GXSORT_SORT_HELD_RUNS=0, every run written)
#   ROUNDS=N     out-of-core rounds (default 1), alternating which binary goes first; each
#                fsync'd out-of-core sort is measured against a dd floor taken just before it
#                and one taken just after it (this disk's speed drifts by 10-20% within
#                minutes: a sort that missed its goal while both floors were fast was slow
#                itself, one whose floor after it was slow met a slower disk)
# Page cache warm for the input, `sync` (untimed) before each command and the disk left
# to settle (nothing in flight for half a second); each output is
# checked sorted (gxsort check) and removed before the next command (the 64 GiB disk of
# the GPU machine holds input, runs and output of 16 GiB, not two outputs). Prints one
# table: seconds, and each against the row's dd floor and cp + sync.
#   SMOKE=1 (CI): NEW $GXSORT, BASE none, sizes / 128, budgets of 1M, cpu without a GPU.
set -euo pipefail
source "$(dirname "$0")/common.bash"
new=${1:-$bench_gxsort}; base=${2:-}; ooc_gib=${3:-16}
opts_text=${OPTS:---device cuda --device-memory 2G --memory 4G}
[[ $bench_smoke == 1 ]] && opts_text=${OPTS:---device cuda --device-memory 1M --memory 1M}
read -r -a opts <<< "$opts_text"
for i in "${!opts[@]}"; do  # --device cuda without a GPU: cpu in the smoke mode, else skipped
  if [[ ${opts[i]} == --device && ${opts[i + 1]:-} == cuda ]]; then bench_device "$new" cuda; opts[i + 1]=$bench_dev; fi
done
dir=$(mktemp -d "${BENCH_DIR:-$bench_tmp}/gxsort-fsync.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if [[ -z $base && -n ${BASE_ENV:-} ]]; then  # NEW under BASE_ENV, as a binary of its own
  base=$dir/base-env
  printf '#!/bin/sh\nexec env %s %q "$@"\n' "$BASE_ENV" "$new" >"$base"
  chmod +x "$base"
  echo "BASE: NEW with $BASE_ENV"
fi
now() { date +%s.%N; }
wall() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
# The disk holding $dir: its /sys/class/block stat, for settle.
disk_stat=/sys/class/block/$(basename "$(findmnt -no SOURCE -T "$dir" 2>/dev/null || echo none)")/stat
settle() {  # after a sync: until the disk has nothing in flight and wrote and discarded
  # nothing for half a second (a removed output's discards, on a `discard` mount, go on
  # after rm and sync return and slowed the next command), at most 60 s
  [[ $bench_smoke == 0 && -r $disk_stat ]] || return 0  # (CI's disk is never idle)
  local before after i
  for ((i = 0; i < 120; ++i)); do
    before=$(awk '{print $7, $9, $12, $14}' "$disk_stat"); sleep 0.5; after=$(awk '{print $7, $9, $12, $14}' "$disk_stat")
    [[ $before == "$after" && $(awk '{print $9}' "$disk_stat") == 0 ]] && return 0
  done
}
timed() {  # command...: its wall seconds after an untimed sync and settle
  local t0; sync; settle; t0=$(now); "$@"; wall "$t0"
}
dd_floor() { timed dd if="$dir/in.bin" of="$dir/dd.bin" bs=64M oflag=direct status=none; rm -f "$dir/dd.bin"; sync; }
cp_sync() { timed bash -c 'cp "$1" "$2" && sync "$2"' _ "$dir/in.bin" "$dir/cp.bin"; rm -f "$dir/cp.bin"; sync; }
sorted_or_fail() {  # output: checked sorted, then removed
  "$new" check "$1" "${@:2}" -q || { echo "$bench_name: $1 is NOT sorted" >&2; exit 1; }
  rm -f "$1"; sync
}
printf '| row | binary | s | vs dd floor | vs cp + sync |\n|---|---|---|---|---|\n'
floors() {  # name: the dd floor and cp + sync of $dir/in.bin, as rows; sets dd_s and cp_s
  dd_s=$(dd_floor); cp_s=$(cp_sync)
  printf '| %s | dd oflag=direct | %s | 1.00 | %s |\n' "$1" "$dd_s" "$(bench_ratio "$dd_s" "$cp_s")"
  printf '| %s | cp + sync | %s | %s | 1.00 |\n' "$1" "$cp_s" "$(bench_ratio "$cp_s" "$dd_s")"
}
stat_lines=()
stats_line() {  # a --stats-json file: where its sort's time went, in one line
  python3 - "$1" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
ph = {p["name"]: p["seconds"] for p in j.get("phases", [])}
rs = {s["name"]: s["bytes_written"] for s in j.get("run_stages", [])}
ms = {s["name"]: s["seconds"] for s in j.get("merge_stages", [])}
merge = sum(v for k, v in ph.items() if k.startswith("merge level"))
print(f"runs {ph.get('sort runs', 0):.2f} s (written back early {rs.get('runs written back early', 0) / 1e9:.2f} GB, "
      f"held {rs.get('runs held in memory', 0) / 1e9:.2f} GB), merge {merge:.2f} s (windows written "
      f"{ms.get('write windows', 0):.2f} s busy, checkpoints {ms.get('checkpoints (journal, punching; own thread)', 0):.2f} s busy)")
EOF
}
sort_row() {  # name label binary check-options(one word) sort-options...
  local name=$1 label=$2 bin=$3 check=$4 s; shift 4
  read -r -a c <<< "$check"
  stats=(); [[ -n ${STATS_DIR:-} ]] && stats=(--stats-json "$STATS_DIR/$(tr -c 'a-zA-Z0-9\n' _ <<< "$name $label${round:+ round $round}").json")
  s=$(timed "$bin" sort "$dir/in.bin" -o "$dir/out.bin" -q -T "$dir" "$@" "${stats[@]}")
  sorted_or_fail "$dir/out.bin" "${c[@]}"
  sort_s=$s ratio=$(bench_ratio "$s" "$dd_s")
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$label" "$s" "$ratio" "$(bench_ratio "$s" "$cp_s")"
  [[ ${#stats[@]} == 2 ]] && stat_lines+=("$name, $label${round:+, round $round}: $(stats_line "${stats[1]}")")
  return 0
}
declare -A ooc_ratios=() ooc_after=()  # binary: its out-of-core fsync'd ratios to the floors before and after
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "$@"; }
wanted() { [[ -z ${ONLY:-} || $1 == "$ONLY"* ]]; }
bins=(new "$new"); [[ -n $base ]] && bins+=(base "$base")

if wanted ooc; then
  name="ooc: $(bench_size "$ooc_gib") u64 (${opts[*]})"
  "$new" gen -o "$dir/in.bin" --count $((ooc_gib * 134217728 / bench_div)) --seed 19 -q
  floors "$name"
  for ((r = 1; r <= ${ROUNDS:-1}; r++)); do  # rounds alternate which binary goes first
    order=(0 2); [[ ${#bins[@]} == 4 && $((r % 2)) == 0 ]] && order=(2 0)
    for b in "${order[@]}"; do
      [[ $b -lt ${#bins[@]} ]] || continue
      if ((r > 1 || b > 0)); then  # a fresh floor (the first is the one above)
        dd_s=$(dd_floor)
        printf '| %s | dd oflag=direct | %s | 1.00 | %s |\n' "$name" "$dd_s" "$(bench_ratio "$dd_s" "$cp_s")"
      fi
      round=$r sort_row "$name" "${bins[b]}, fsync'd" "${bins[b + 1]}" "" "${opts[@]}"
      ooc_ratios[${bins[b]}]+=" $ratio"
      after_s=$(dd_floor)
      ooc_after[${bins[b]}]+=" $(bench_ratio "$sort_s" "$after_s")"
      printf '| %s | dd oflag=direct, after it | %s | %s | %s |\n' "$name" "$after_s" "$(bench_ratio "$after_s" "$dd_s")" \
        "$(bench_ratio "$after_s" "$cp_s")"
      round=$r sort_row "$name" "${bins[b]}, --no-fsync" "${bins[b + 1]}" "" "${opts[@]}" --no-fsync
    done
  done
  rm -f "$dir/in.bin"
fi
bench_device "$new" cuda  # the in-memory rows: on the GPU (cpu in the smoke mode without one)
in_memory() {  # name gen-options format-options
  wanted "$1" || return 0
  read -r -a g <<< "$2"; read -r -a f <<< "$3"
  "$new" gen -o "$dir/in.bin" "${g[@]}" "${f[@]}" --seed 19 -q
  floors "$1 in memory"
  for ((b = 0; b < ${#bins[@]}; b += 2)); do
    sort_row "$1 in memory" "${bins[b]}, fsync'd" "${bins[b + 1]}" "$3" "${f[@]}" --device "$bench_dev"
  done
  rm -f "$dir/in.bin"
}
in_memory "u64 $(bench_size 4)" "--count $((4 * 134217728 / bench_div))" ""
in_memory "gensort $((4000 / bench_div)) MB" "--count $((40000000 / bench_div))" "--format gensort"
for l in "${stat_lines[@]}"; do echo "stats: $l"; done
ratios_line() {  # binary, which floor, ratios...: the ratios and their median (n/a in the
  local b=$1 which=$2 m; shift 2  # smoke mode, where a floor took 0.00 s)
  [[ " $* " == *" n/a "* ]] && m=n/a || m=$(median "$@")
  echo "out of core, fsync'd, $b against the floor $which it: $* (median $m)"
}
for b in "${!ooc_ratios[@]}"; do
  ratios_line "$b" before ${ooc_ratios[$b]}
  ratios_line "$b" after ${ooc_after[$b]}
done
