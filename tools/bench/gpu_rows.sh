#!/usr/bin/env bash
# Issue 20's rows in one run, each a whole process as a user runs it, page cache warm
# unless cold, `sync` (untimed) between commands:
#   in memory, --no-fsync: 4 GiB of u64 keys, 4 GB of gensort records (4x10^7 x 100 B)
#     and 4 GiB of 16-byte records (u64 key + payload): cp, the GPU sort, the CPU
#     backend's sort; the ratios GPU / cp and GPU / CPU, and the GPU sort's phases
#     ("open and start the device", read and copy in, sort on the device, copy out);
#   the u64 file fsync'd (the default) against cp + sync FILE;
#   the u64 file cold (caches dropped before each command: root, drop_caches writable)
#     against a cold cp.
# Every GPU output is compared with the CPU backend's (cmp).
#   tools/bench/gpu_rows.sh GXSORT [GiB=4] [WORKDIR=/tmp]
#   ROUNDS=2 (interleaved)   COLD=0 skips the cold row   DEVICE=cpu tries it without a GPU
#   OLD=GXSORT2 adds a column: that binary's GPU sort, in the same rounds (an A/B)
#   SMOKE=1 (CI): 1 "GiB" of 8 MiB, one round, OLD=GXSORT, COLD=0, cpu without a GPU
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
gib=${2:-4}
[[ $bench_smoke == 1 ]] && gib=${2:-1} ROUNDS=${ROUNDS:-1} COLD=${COLD:-0} OLD=${OLD-$g}
work=$(mktemp -d "${3:-$bench_tmp}/gxsort-rows.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_device "$g" "${DEVICE:-cuda}"
dev=$bench_dev
old=${OLD:-}
now() { date +%s.%N; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
ratio() { bench_ratio "$1" "$2"; }
phases() {  # the --stats-json file's phases, as "name s / name s ..."
  python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(" / ".join("%s %.2f" % (p["name"], p["seconds"]) for p in j["phases"]))' "$1"
}
drop_caches() { [[ ${1:-} == cold ]] && { sync; echo 3 > /proc/sys/vm/drop_caches; }; return 0; }
# timed [cold] COMMAND...: its seconds, after a sync (and the caches dropped when cold)
timed() {
  local cold="" t
  [[ $1 == cold ]] && { cold=cold; shift; }
  rm -f "$work/o"; sync; drop_caches "$cold"
  t=$(now); "$@" >/dev/null; since "$t"
}

# name, gen options, sort options
formats=("u64|--count $((gib * 134217728 / bench_div))|--type u64"
         "gensort|--format gensort --count $((gib * 10000000 / bench_div))|--format gensort"
         "16-byte records|--record-size 16 --key-offset 0 --key-type u64 --count $((gib * 67108864 / bench_div))|--record-size 16 --key-offset 0 --key-type u64")
for f in "${formats[@]}"; do
  IFS='|' read -r name genopt _ <<< "$f"
  # shellcheck disable=SC2086
  "$g" gen -o "$work/${name// /_}.in" $genopt --seed 7 -q
done
echo "### In memory and around it ($(date -u +%F), $( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo no GPU) | head -1), $(nproc) cores, $(bench_size "$gib"))"
echo "| round | input | cp s | GPU s${old:+ | OLD GPU s} | CPU backend s | GPU / cp | GPU / CPU | GPU phases |"
echo "|---|---|---|---|---|---|---|---|${old:+---|}"
for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  for f in "${formats[@]}"; do
    IFS='|' read -r name _ sortopt <<< "$f"
    in=$work/${name// /_}.in
    read -r -a opts <<< "$sortopt"
    c=$(timed cp "$in" "$work/o")
    cpu=$(timed "$g" sort "$in" -o "$work/o" "${opts[@]}" --device cpu --no-fsync -q)
    mv "$work/o" "$work/ref"
    oldcol=""
    if [[ -n $old ]]; then
      oldcol=" | $(timed "$old" sort "$in" -o "$work/o" "${opts[@]}" --device "$dev" --no-fsync -q)"
      cmp -s "$work/o" "$work/ref" || oldcol+=" (OUTPUT DIFFERS)"
    fi
    gpu=$(timed "$g" sort "$in" -o "$work/o" "${opts[@]}" --device "$dev" --no-fsync -q --stats-json "$work/s.json")
    cmp -s "$work/o" "$work/ref" || gpu+=" (OUTPUT DIFFERS)"
    echo "| $round | $name | $c | $gpu$oldcol | $cpu | $(ratio "${gpu%% *}" "$c") | $(ratio "${gpu%% *}" "$cpu") | $(phases "$work/s.json") |"
  done
  in=$work/u64.in
  c=$(timed sh -c "cp '$in' '$work/o' && sync '$work/o'")
  oldcol=""
  [[ -n $old ]] && oldcol=" | $(timed "$old" sort "$in" -o "$work/o" --device "$dev" -q)"
  gpu=$(timed "$g" sort "$in" -o "$work/o" --device "$dev" -q --stats-json "$work/s.json")
  echo "| $round | u64 fsync'd (against cp + sync FILE) | $c | $gpu$oldcol | | $(ratio "$gpu" "$c") | | $(phases "$work/s.json") |"
  if [[ ${COLD:-1} == 1 && -w /proc/sys/vm/drop_caches ]]; then
    c=$(timed cold cp "$in" "$work/o")
    oldcol=""
    [[ -n $old ]] && oldcol=" | $(timed cold "$old" sort "$in" -o "$work/o" --device "$dev" --no-fsync -q)"
    gpu=$(timed cold "$g" sort "$in" -o "$work/o" --device "$dev" --no-fsync -q --stats-json "$work/s.json")
    echo "| $round | u64 cold (against a cold cp) | $c | $gpu$oldcol | | $(ratio "$gpu" "$c") | | $(phases "$work/s.json") |"
  elif [[ ${COLD:-1} == 1 ]]; then
    echo "| $round | u64 cold: skipped, /proc/sys/vm/drop_caches is not writable here (root on the host) | | | | | | |"
  fi
  rm -f "$work/o" "$work/ref"
done
