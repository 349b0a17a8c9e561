#!/usr/bin/env bash
# The distributed sort on several GPUs of one host (issue 19): one rank per GPU,
# `mpirun -np G gxsort sort --distributed --device cuda`, against the one-process GPU
# sort of the same file in the same run; every output compared byte for byte with the
# one-process sort's. Inputs are generated here and held in the page cache.
#   tools/bench/multi_gpu.sh [build-dir [G...]]          (default: build, 1 2 4 up to the GPUs)
#   GIB=16 GB_GENSORT=16   input sizes (GiB of u64 keys, GB of 100-byte gensort records)
#   OOC="--memory 4G --device-memory 2G"   the out-of-core rows' per-process budgets ("" skips)
#   SYNC=0                 --no-fsync everywhere (default: the rows are fsync'd output)
#   REPEAT=1               runs of each, interleaved; the fastest is shown
#   DIST_OPTS="--exchange mpi"   options of the distributed runs only
# Prints one table per input: seconds, ratio to the one-process sort and to -np 1, the
# bytes the ranks exchanged, the exchange rounds, the imbalance (largest range / average)
# the slowest rank's seconds of each step, and the busiest rank's exchange rate beside
# MPI's own all-to-all rate (bench/mpi_alltoall) measured in the same run, and the
# page-cache floor of G ranks (bench/mpi_page_cache: each reads its share of the input and
# writes as many bytes to its range of an output, no sort): the one-process sort's time
# over that floor is the most G ranks can gain on this host, and over the floor plus
# `mpirun -np G true` (timed first) the most a job that mpirun starts can gain (out of
# core the floor counts twice: runs, then the output).
#   STATS_DIR=DIR          keeps each run's --stats-json there
#   SMOKE=1 (CI): the build of $GXSORT, 1 "GiB" (and GB) of 8 MiB, --memory 1M --device-memory 1M
#                 out of core, ranks 2 on any GPUs (-np 1 alone would skip MPI's all-to-all), cpu without a GPU
# Without mpirun or an MPI build it says so and exits 0, and without a GPU (DEVICE=cuda) too.
set -euo pipefail
source "$(dirname "$0")/common.bash"
build=${1:-build}
[[ $bench_smoke == 1 ]] && build=${1:-$(dirname "$bench_gxsort")} GIB=${GIB:-1} GB_GENSORT=${GB_GENSORT:-1} \
  OOC=${OOC-"--memory 1M --device-memory 1M"}
shift $(( $# > 0 ? 1 : 0 ))
G=$(cd "$build" && pwd)/gxsort
A2A=$(cd "$build" && pwd)/bench/mpi_alltoall
FLOOR=$(cd "$build" && pwd)/bench/mpi_page_cache
bench_needs_mpi "$G"
gpus=$( (nvidia-smi -L 2>/dev/null || true) | wc -l)
bench_device "$G" "${DEVICE:-cuda}"
dev=$bench_dev   # DEVICE=cpu tries the script on a machine without a GPU
ranks=("$@")
# The smoke run: 2 ranks whatever the GPUs (ranks may share one), so MPI's all-to-all runs.
[[ $bench_smoke == 1 && ${#ranks[@]} == 0 ]] && ranks=(2)
if [[ ${#ranks[@]} == 0 ]]; then for g in 1 2 4 8; do (( g <= gpus )) && ranks+=("$g"); done; fi
MPIRUN=(mpirun --oversubscribe --bind-to none)
[[ $(id -u) == 0 ]] && MPIRUN+=(--allow-run-as-root)
sync_opt=(); [[ ${SYNC:-1} == 0 ]] && sync_opt=(--no-fsync)
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/gxsort-mgpu.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir
now() { date +%s.%N; }
calc() { python3 -c "print($1)"; }
repeat=${REPEAT:-1}
declare -A floors  # bench/mpi_page_cache's line for input/G
declare -A launch  # seconds of `mpirun -np G true`, by G

# table TITLE INPUT RECORD_SIZE FORMAT_AND_BUDGET_OPTIONS...
table() {
  local title=$1 in=$2 rs=$3; shift 3
  local one="" t0 s i np
  local -a dist=()
  for ((r = 0; r < repeat; ++r)); do
    sync; t0=$(now)
    "$G" sort "$in" -o "$dir/one.bin" -q --device "$dev" "${sync_opt[@]}" "$@" --stats-json "$dir/one.json"
    s=$(calc "$(now) - $t0"); one=$(calc "min(${one:-1e9}, $s)")
    for i in "${!ranks[@]}"; do
      np=${ranks[$i]}
      rm -f "$dir/dist.bin"; sync; t0=$(now)
      "${MPIRUN[@]}" -np "$np" "$G" sort "$in" -o "$dir/dist.bin" -q --distributed --device "$dev" "${sync_opt[@]}" "$@" ${DIST_OPTS:-} \
        --stats-json "$dir/dist-$np.json"
      s=$(calc "$(now) - $t0"); dist[$i]=$(calc "min(${dist[$i]:-1e9}, $s)")
      cmp -s "$dir/dist.bin" "$dir/one.bin" && echo "ok   -np $np: byte-identical to the one-GPU sort" \
        || echo "FAIL -np $np: the output differs from the one-GPU sort's"
    done
  done
  echo "### $title ($(date -u +%F), $gpus GPUs: $( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true) | head -1), options: $* ${sync_opt[*]})"
  printf "one process, one GPU: %.2f s (%s)\n" "$one" "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["mode"], j["runs"], "runs,", "%.2f s in the process" % j["seconds"])' "$dir/one.json")"
  if [[ -n ${STATS_DIR:-} ]]; then
    local slug=${title//[^A-Za-z0-9]/_}
    mkdir -p "$STATS_DIR"; cp "$dir/one.json" "$STATS_DIR/$slug-one.json"
    for np in "${ranks[@]}"; do cp "$dir/dist-$np.json" "$STATS_DIR/$slug-np$np.json"; done
  fi
  echo "| GPUs (ranks) | s | speedup vs one process | vs -np 1 | exchanged GB | rounds | imbalance | slowest rank's sort / exchange / merge s (in the job, from its start) | busiest rank's exchange MB/s (in MPI) | MPI alltoall MB/s | page-cache floor s (read / write): most speedup; with mpirun's launch | ranks' local sorts, backends |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for i in "${!ranks[@]}"; do
    np=${ranks[$i]}
    # The busiest rank's bytes to others per second of its exchange (and of its MPI calls),
    # beside MPI's own all-to-all (bench/mpi_alltoall) moving the same bytes a call and in
    # all, in the same layout, now: the exchange's floor in this run.
    read -r row round_bytes most < <(python3 - "$dir/dist-$np.json" "$rs" "$np" "${dist[$i]}" "$one" "${dist[0]}" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); rs = int(sys.argv[2]); np_ = sys.argv[3]
t, one, first = map(float, sys.argv[4:7])
d = j["distributed"]; per = d["per_rank"]
sent = sum(r["sent"] for r in per) * rs / 1e9
slow = lambda k: max(r[k] for r in per)
modes = ",".join(sorted({r["local"] for r in per} | {r["backend"] for r in per}))
busiest = max(per, key=lambda r: r["sent"]); most = busiest["sent"] * rs
rounds = max(r["rounds"] for r in per)
rate = lambda s: "%.0f" % (most / s / 1e6) if s > 0 and most else "-"
row = (f"| {np_} | {t:.2f} | {one/t:.2f}x | {first/t:.2f}x | {sent:.2f} | {rounds} | {d['imbalance']:.3f} | "
       f"{slow('sort_seconds'):.2f} / {slow('exchange_seconds'):.2f} / {slow('merge_seconds'):.2f} ({slow('seconds'):.2f}) | "
       f"{rate(busiest['exchange_seconds'])} ({rate(busiest['mpi_seconds'])}) | A2A | FLOOR | {modes} |")
print(row.replace(" ", "\x01"), max(rs, most // max(rounds, 1)), max(most, rs))
PY
    )
    a2a="-"
    if (( np > 1 )) && [[ -x $A2A ]]; then
      a2a=$("${MPIRUN[@]}" -np "$np" "$A2A" "$(( round_bytes * np / (np - 1) ))" "$(( most * np / (np - 1) ))" "$rs" |
            sed -n 's/.*per_rank_mb_s=\([0-9.]*\).*/\1/p')
    fi
    floor="-"
    if [[ -x $FLOOR ]]; then
      # Once per input and G (the out-of-core table reads the in-memory table's input).
      if [[ -z ${floors["$in/$np"]:-} ]]; then
        rm -f "$dir/floor.bin"; sync
        floors["$in/$np"]=$("${MPIRUN[@]}" -np "$np" "$FLOOR" "$in" "$dir/floor.bin")
      fi
      floor=$(python3 -c '
import re, sys
v = {k: float(x) for k, x in re.findall(r"(\w+)=([0-9.]+)", sys.argv[2])}
t, r, w = v["total_s"], v["read_s"], v["write_s"]
one, start, passes = float(sys.argv[1]), float(sys.argv[3]), int(sys.argv[4])
t *= passes
print(f"{t:.2f} ({passes} x ({r:.2f} / {w:.2f})): {one / t:.2f}x; {one / (t + start):.2f}x")' "$one" "${floors["$in/$np"]}" "${launch[$np]:-0}" "${PASSES:-1}")
    fi
    row=${row//$'\x01'/ }
    row=${row/A2A/${a2a:--}}
    echo "${row/FLOOR/$floor}"
  done
  rm -f "$dir/one.bin" "$dir/dist.bin"
}

# What a job pays whatever its size: mpirun's launch alone, then a whole sort of 1 MiB
# (process and device start, MPI's start and end, the exit), against one process's.
fixed_costs() {
  local t0 np
  "$G" gen -o "$dir/small.bin" --count 131072 --seed 19 -q
  echo "### Fixed costs: 1 MiB of u64 ($(date -u +%F))"
  t0=$(now); "$G" sort "$dir/small.bin" -o "$dir/small.out" -q --device "$dev" --no-fsync
  echo "one process: $(calc "round($(now) - $t0, 2)") s"
  for np in "${ranks[@]}"; do
    rm -f "$dir/small.out"
    t0=$(now); "${MPIRUN[@]}" -np "$np" true
    launch[$np]=$(calc "round($(now) - $t0, 2)")
    t0=$(now); "${MPIRUN[@]}" -np "$np" "$G" sort "$dir/small.bin" -o "$dir/small.out" -q --distributed --device "$dev" --no-fsync
    local sort_s; sort_s=$(calc "round($(now) - $t0, 2)")
    # MPI's shared-memory transports only (no UCX or network probing at MPI_Init).
    rm -f "$dir/small.out"
    t0=$(now); "${MPIRUN[@]}" --mca pml ob1 --mca btl self,vader -np "$np" "$G" sort "$dir/small.bin" -o "$dir/small.out" \
      -q --distributed --device "$dev" --no-fsync || echo "(failed: --mca pml ob1 --mca btl self,vader)"
    echo "-np $np: mpirun of true ${launch[$np]} s, the sort $sort_s s, with --mca pml ob1 --mca btl self,vader $(calc "round($(now) - $t0, 2)") s"
  done
  rm -f "$dir/small.bin" "$dir/small.out"
}
fixed_costs

gib=${GIB:-16}
"$G" gen -o "$dir/u64.bin" --count $(( gib * 134217728 / bench_div )) --seed 19 -q
table "$(bench_size "$gib") u64 in the page cache" "$dir/u64.bin" 8
ooc=${OOC-"--memory 4G --device-memory 2G"}
if [[ -n $ooc ]]; then
  read -r -a ooc_opts <<< "$ooc"
  # Out of core every byte goes through the page cache twice (runs, then the output).
  PASSES=2 table "$(bench_size "$gib") u64 out of core (each process: $ooc)" "$dir/u64.bin" 8 "${ooc_opts[@]}" -T "$dir"
fi
rm -f "$dir/u64.bin"
gb=${GB_GENSORT:-16}
if (( gb > 0 )); then
  "$G" gen -o "$dir/gs.bin" --count $(( gb * 10000000 / bench_div )) --format gensort --seed 19 -q
  table "$(bench_size "$gb" | sed "s/iB/B/") gensort (100-byte records) in the page cache" "$dir/gs.bin" 100 --format gensort
fi
