#!/usr/bin/env bash
# The distributed sort (sort --distributed under mpirun) against the one-process sort of
# the same file in the same session, for 1, 2 and 4 ranks (or those given): wall time,
# the records the ranks exchanged, and each rank's exchange rate against MPI's own
# all-to-all rate (bench/mpi_alltoall, run in the same layout with the rounds' size and
# volume). Outputs are compared byte for byte with the one-process sort's.
#   tools/bench/mpi_sort.sh [build-dir [GiB [ranks...]]]      (default: build 1 1 2 4)
#   MEMORY=256M tools/bench/mpi_sort.sh ...   each rank's --memory (default: its share)
#   DEVICE=cuda ...                           --device for both sorts (default auto)
#   REPEAT=3 ...                              runs of each, interleaved; the fastest is shown
# Ranks are not bound to cores (--bind-to none): each takes its share of the host's cores.
#   SMOKE=1 (CI): the build of $GXSORT, 1 "GiB" of 8 MiB, ranks 1 2, REPEAT=1
# Without mpirun or an MPI build it says so and exits 0.
set -euo pipefail
source "$(dirname "$0")/common.bash"
build=${1:-build}
[[ $bench_smoke == 1 ]] && build=${1:-$(dirname "$bench_gxsort")} REPEAT=${REPEAT:-1}
gib=${2:-1}
shift $(( $# > 2 ? 2 : $# ))
ranks=("$@")
[[ ${#ranks[@]} -gt 0 ]] || ranks=(1 2 4)
[[ $bench_smoke == 1 && $# == 0 ]] && ranks=(1 2)
G=$(cd "$build" && pwd)/gxsort
A2A=$(cd "$build" && pwd)/bench/mpi_alltoall
bench_needs_mpi "$G" "$A2A"
MPIRUN=(mpirun --oversubscribe --bind-to none)
[[ $(id -u) == 0 ]] && MPIRUN+=(--allow-run-as-root)
mem=()
[[ -n ${MEMORY:-} ]] && mem=(--memory "$MEMORY")
dev=(--device "${DEVICE:-auto}")
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/gxsort-mpi.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir

count=$(( gib * 134217728 / bench_div ))  # u64 keys
"$G" gen -o "$dir/in.bin" --count "$count" -q
"$G" sort "$dir/in.bin" -o "$dir/warm.bin" -q "${dev[@]}" "${mem[@]}"  # the input in the page cache
rm -f "$dir/warm.bin"
now() { date +%s.%N; }
calc() { python3 -c "print($1)"; }
repeat=${REPEAT:-3}
# The fastest of `repeat` runs of a command line: its seconds.
best=""
timed() {
  local t0 secs
  t0=$(now)
  "$@"
  secs=$(calc "$(now) - $t0")
  best=$(calc "min($best$secs, 1e9)" 2>/dev/null || echo "$secs")
}
one=""
dist=()
for ((r = 0; r < repeat; ++r)); do  # interleaved: a machine shared with other jobs slows them alike
  best=${one:+$one,}
  timed "$G" sort "$dir/in.bin" -o "$dir/one.bin" -q "${dev[@]}" "${mem[@]}" --stats-json "$dir/one.json"
  one=$best
  for i in "${!ranks[@]}"; do
    rm -f "$dir/dist.bin"
    best=${dist[$i]:+${dist[$i]},}
    timed "${MPIRUN[@]}" -np "${ranks[$i]}" "$G" sort "$dir/in.bin" -o "$dir/dist.bin" -q --distributed "${dev[@]}" \
      "${mem[@]}" --stats-json "$dir/dist-${ranks[$i]}.json"
    dist[$i]=$best
    cmp -s "$dir/dist.bin" "$dir/one.bin" || echo "mpi_sort: -np ${ranks[$i]}: the output differs from the one-process sort's" >&2
  done
done
echo "$(date -u +%F) $(nproc) cores, $(bench_size "$gib") of u64 keys, --memory ${MEMORY:-default}, --device ${DEVICE:-auto}, best of $repeat"
printf "one process: %.2f s (%s)\n" "$one" "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["mode"] + ", " + j["backend"])' "$dir/one.json")"
printf "%-6s %8s %8s %12s %7s %10s %10s %12s %14s\n" ranks seconds "vs one" exchanged rounds imbalance "rank MB/s" "its MPI MB/s" "alltoall MB/s"
for i in "${!ranks[@]}"; do
  np=${ranks[$i]}
  # The busiest rank (its last run): the bytes it sent to others, per second of its
  # exchange and of the MPI calls in it; the rounds' size and volume for MPI alone.
  read -r exchanged rounds imb rank_rate mpi_rate round_bytes most < <(python3 - "$dir/dist-$np.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = j["distributed"]
ranks = d["per_rank"]
rs = 8
busiest = max(ranks, key=lambda r: r["sent"])
most = busiest["sent"] * rs
rounds = max(r["rounds"] for r in ranks)
rate = lambda s: "%.0f" % (most / s / 1e6) if s > 0 and most else "-"
print("%.0f" % (sum(r["sent"] for r in ranks) * rs / 1e6), rounds, "%.3f" % d["imbalance"],
      rate(busiest["exchange_seconds"]), rate(busiest["mpi_seconds"]), max(rs, most // max(rounds, 1)), max(most, rs))
PY
  )
  a2a="-"
  if (( np > 1 )); then  # the same bytes to others per call and in all, self included as the sort's are
    a2a=$("${MPIRUN[@]}" -np "$np" "$A2A" "$(( round_bytes * np / (np - 1) ))" "$(( most * np / (np - 1) ))" 8 |
          sed -n 's/.*per_rank_mb_s=\([0-9.]*\).*/\1/p')
  fi
  printf "%-6s %8.2f %7.2fx %9s MB %7s %10s %10s %12s %14s\n" "$np" "${dist[$i]}" "$(calc "${dist[$i]} / $one")" \
    "$exchanged" "$rounds" "$imb" "$rank_rate" "$mpi_rate" "$a2a"
done
