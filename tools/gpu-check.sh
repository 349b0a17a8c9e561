#!/usr/bin/env bash
# Runs on the GPU machine over a copy of the work tree with build-gpu/ carried (built
# here: cmake --preset gpu && cmake --build build-gpu -j2). Logs go to $OUT.
#   tools/gpu-check.sh tests   unit tests, GPU tests, end-to-end CPU vs GPU byte identity (and,
#                              with MPI, sort/merge --distributed on 2-3 ranks sharing GPU 0);
#                              at the end one table: suite or group, cases passed, failed,
#                              skipped, seconds. After the GPU tests, their 8 slowest cases
#                              (doctest --duration). The long cases (their full sweeps,
#                              doctest suite "long", about 2 minutes more) run with LONG=1 only;
#                              without it they count as skipped. SUITES=0, CUDA_TESTS=filter,
#                              E2E_FILTER=regex, DISTRIBUTED=0: below.
#   tools/gpu-check.sh bench   kernel and end-to-end benchmarks (tables on stdout)
#   tools/gpu-check.sh distributed   only the distributed part of tests (sort, merge --distributed)
#   tools/gpu-check.sh cli     the CLI suite (tests/cli) with the GPU binary (--device auto
#                              takes the GPU); CLI_TESTS="streams trust" runs those scripts
#                              only (each gxsort there starts the device: the whole suite
#                              takes more than the 10 minutes of one device call)
#   tools/gpu-check.sh lines   tools/bench/lines.sh on LINES_BYTES of text (default 10 GB),
#                              gen_lines from $BUILD/bench
#   tools/gpu-check.sh lines-timeline   where a sort of LINES_BYTES of text spends its time:
#                              GXSORT_TIMELINE of plain lines, -t, -k2,2n and -u, in memory
#                              and out of core (--memory a quarter), --no-fsync, warm
#   tools/gpu-check.sh python  the Python package's tests (tests/python: CuPy and torch device
#                              arrays too) and tools/bench/python_peers.py (PY_BENCH: its
#                              options), with the package carried in $PY_PKG (a folder
#                              holding gxsort/ built for the machine's python3)
set -uo pipefail
mode=${1:-tests}
b=${BUILD:-build-gpu}
g=$PWD/$b/gxsort
out=${OUT:-/tmp/gxsort-out}
mkdir -p "$out"
work=${WORK_DIR:-/tmp/gxsort-gpu-check}  # WORK_DIR: two checks at once need two
rm -rf "$work"; mkdir -p "$work"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
fail=0
step() { echo "== $*"; }
# The summary table of tests mode: one row a suite or group, name|passed|failed|skipped|seconds.
summary=$out/summary.txt; : > "$summary"
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }
doctest_row() {  # name, log, start time: the counts of doctest's last "test cases:" line
  local line; line=$(sed 's/\x1b\[[0-9;]*m//g' "$2" | grep '\[doctest\] test cases:' | tail -1)
  field() { sed -nE "s/.* ([0-9]+) $1.*/\1/p" <<< "$line"; }
  echo "$1|$(field passed)|$(field failed)|$(field skipped)|$(since "$3")" >> "$summary"
}
# End-to-end groups: `group NAME` closes the running group's row (its share of the pass,
# bad and skip counters) and starts NAME; `group ""` only closes.
pass=0; bad=0; skip=0; g_name=""
group() {
  [ -n "$g_name" ] && echo "$g_name|$((pass - g_pass))|$((bad - g_bad))|$((skip - g_skip))|$(since "$g_start")" >> "$summary"
  g_name=$1; g_start=$(date +%s.%N); g_pass=$pass; g_bad=$bad; g_skip=$skip
}
summary_table() {
  python3 - "$summary" <<'PY'
import sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
print("| suite | passed | failed | skipped | s |")
print("|---|---|---|---|---|")
tot = [0, 0, 0, 0.0]
for name, *vals in rows:  # "?": no summary line (the binary did not finish)
    vals = [v or "?" for v in vals]
    print(f"| {name} | {vals[0]} | {vals[1]} | {vals[2]} | {float(vals[3]):.1f} |")
    for i in range(3): tot[i] += int(vals[i]) if vals[i] != "?" else 0
    tot[3] += float(vals[3])
print(f"| total | {tot[0]} | {tot[1]} | {tot[2]} | {tot[3]:.1f} |")
PY
}

if [ "$mode" = cli ]; then
  step "CLI suite with the GPU binary"
  for t in tests/cli/test_*.sh; do
    name=$(basename "$t" .sh)
    if [ -n "${CLI_TESTS:-}" ] && ! [[ " $CLI_TESTS " == *" ${name#test_} "* ]]; then continue; fi
    bash "$t" "$g" > "$out/cli_$name.log" 2>&1; rc=$?
    echo "$name: $(tail -1 "$out/cli_$name.log") (exit $rc)"
    [ $rc = 0 ] || [ $rc = 77 ] || { fail=1; grep '^FAIL' "$out/cli_$name.log" | head -5; }
  done
  exit $fail
fi

if [ "$mode" = lines ]; then
  step "text lines: tools/bench/lines.sh ${LINES_BYTES:-10000000000}"
  GEN_LINES=$PWD/$b/bench/gen_lines bash tools/bench/lines.sh "$g" "${LINES_BYTES:-10000000000}" /tmp 2>&1 | tee "$out/lines.log"
  exit "${PIPESTATUS[0]}"
fi

if [ "$mode" = lines-timeline ]; then
  bytes=${LINES_BYTES:-10000000000}
  step "text lines: timelines of $bytes bytes"
  "$b/bench/gen_lines" "$work/in.txt" "$bytes" 7
  cat "$work/in.txt" > /dev/null
  for job in "" "-t, -k2,2n" "-u"; do
    for mem in "" "--memory $((bytes / 4))"; do
      echo "-- sort --lines $job $mem"
      s=$(date +%s.%N)
      GXSORT_TIMELINE=1 "$g" sort --lines $job $mem "$work/in.txt" -o "$work/out.txt" --no-fsync -q -T "$work" 2>&1 | tail -40
      echo "wall $(python3 -c "print(f'{$(date +%s.%N)-$s:.2f}')") s"
      rm -f "$work/out.txt"
    done
  done 2>&1 | tee "$out/lines-timeline.log"
  rm -rf "$work"
  exit 0
fi

if [ "$mode" = python ]; then
  export PYTHONPATH=$PWD/${PY_PKG:-.gpu-carry/py}
  step "Python package: tests/python"
  (cd tests/python && python3 -m pytest -q -p no:cacheprovider -rs . > "$out/pytest.log" 2>&1); rc=$?
  tail -15 "$out/pytest.log"; [ $rc = 0 ] || fail=1
  step "Python peers: tools/bench/python_peers.py ${PY_BENCH:-}"
  python3 tools/bench/python_peers.py ${PY_BENCH:-} 2>&1 | tee "$out/python_peers.log" | tail -30
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
  exit $fail
fi

# Formats of the checks: 24-byte records, and composite keys (--key): one 64-bit key, one
# 128-bit key, and a 29-byte key sorted by prefix and tie-break.
R24="--record-size 24 --key-offset 8"
K64="--record-size 8 --key 0:u8 --key 1:u16be:desc --key 3:f32"
K128="--record-size 24 --key 8:f64:desc --key 0:i16 --key 2:bytes:3"
KWIDE="--record-size 32 --key 0:u32 --key 4:bytes:13 --key 20:f32be:desc --key 24:i64"

# The distributed sort and merge on the GPU binary (tests mode; alone: mode distributed).
distributed_checks() {
  if command -v mpirun >/dev/null && "$g" info --json | grep -q '"mpi_built":true'; then
    step "distributed: 2 and 3 ranks sharing GPU 0 give the one-process CPU sort's bytes (sort, dedupe, merge)"
    MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
    for fmt in "--type u64" "--type f64" "--format gensort" "$R24 --key-type i64" "$KWIDE"; do
      "$g" gen -o "$work/m.in" $fmt --count 1000003 --dist bits -q
      for extra in "" "-u" "-r" "--memory 64M --device-memory 32M"; do
        "$g" sort "$work/m.in" -o "$work/m.cpu" $fmt $extra --device cpu -q
        for np in 2 3; do
          if CUDA_VISIBLE_DEVICES=0 "${MPIRUN[@]}" -np $np "$g" sort "$work/m.in" -o "$work/m.gpu" $fmt $extra --device cuda \
               --distributed -q && cmp -s "$work/m.cpu" "$work/m.gpu"; then pass=$((pass+1))
          else bad=$((bad+1)); echo "FAIL distributed -np $np $fmt $extra"; fi
          rm -f "$work/m.gpu"
        done
      done
      # merge --distributed: the sorted file merged with itself (every key tied across the inputs)
      "$g" sort "$work/m.in" -o "$work/m.s1" $fmt --device cpu -q
      "$g" merge "$work/m.s1" "$work/m.s1" -o "$work/m.want" $fmt --device cpu -q
      if CUDA_VISIBLE_DEVICES=0 "${MPIRUN[@]}" -np 2 "$g" merge "$work/m.s1" "$work/m.s1" -o "$work/m.gpu" $fmt --device cuda \
           --distributed -q && cmp -s "$work/m.want" "$work/m.gpu"; then pass=$((pass+1)); echo "ok   merge --distributed $fmt"
      else bad=$((bad+1)); echo "FAIL merge --distributed $fmt"; fi
      rm -f "$work"/m.*
    done
    # The exchange through the GPUs (distributed/device_exchange.hpp): ranks sharing GPU 0
    # with budgets from too small for the slice (the host path), through room for the
    # slice but not for what a rank receives beside it (back to MPI), to room for both.
    "$g" gen -o "$work/m.in" --count 1000003 --dist bits -q
    "$g" sort "$work/m.in" -o "$work/m.cpu" --device cpu -q
    paths=""
    for dm in 6M 8M 10M 12M 16M 24M 64M; do
      if CUDA_VISIBLE_DEVICES=0 "${MPIRUN[@]}" -np 2 "$g" sort "$work/m.in" -o "$work/m.gpu" --device cuda --device-memory $dm \
           --distributed -q --stats-json "$work/m.json" && cmp -s "$work/m.cpu" "$work/m.gpu"; then pass=$((pass+1))
      else bad=$((bad+1)); echo "FAIL distributed --device-memory $dm"; fi
      path=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["distributed"]["per_rank"][0]["local"])' "$work/m.json" 2>/dev/null)
      echo "     --device-memory $dm, 2 ranks on GPU 0: $path"; paths+="$path|"
    done
    if [[ $paths == *device-to-device* && $paths == *"exchanged through MPI"* ]]; then pass=$((pass+1)); echo "ok   the device exchange and its fallback both ran"
    else bad=$((bad+1)); echo "FAIL the device exchange or its fallback never ran"; fi
    # One rank: its slice, sorted on the device, is the output (no receiver beside it).
    for fmt in "--type u64" "--format gensort" "$KWIDE"; do
      "$g" gen -o "$work/m.one" $fmt --count 1000003 --dist few-unique -q
      "$g" sort "$work/m.one" -o "$work/m.cpu1" $fmt --device cpu -q
      if CUDA_VISIBLE_DEVICES=0 "${MPIRUN[@]}" -np 1 "$g" sort "$work/m.one" -o "$work/m.gpu" $fmt --device cuda --distributed -q \
           --stats-json "$work/m.json" && cmp -s "$work/m.cpu1" "$work/m.gpu" && grep -q 'one rank: nothing to exchange' "$work/m.json"; then
        pass=$((pass+1)); echo "ok   -np 1 on GPU 0, written from its device: $fmt"
      else bad=$((bad+1)); echo "FAIL -np 1 on GPU 0, written from its device: $fmt"; fi
      rm -f "$work/m.gpu" "$work/m.one" "$work/m.cpu1"
    done
    if "$g" plan "$work/m.in" --distributed --ranks 2 --device cuda --json | grep -q '"device_exchange":true' \
       && ! "$g" plan "$work/m.in" --distributed --ranks 2 --device cuda -u --json | grep -q '"device_exchange":true'; then
      pass=$((pass+1)); echo "ok   plan --distributed: the device exchange planned, not with -u"
    else bad=$((bad+1)); echo "FAIL plan --distributed: device_exchange"; fi
    gpus=$(nvidia-smi -L | wc -l)
    if (( gpus >= 2 )); then
      for fmt in "--type u64" "--type f32" "--format gensort" "$KWIDE"; do
        "$g" gen -o "$work/m.in" $fmt --count 3000017 --dist few-unique -q
        "$g" sort "$work/m.in" -o "$work/m.cpu" $fmt --device cpu -q
        for np in 2 $gpus; do
          if "${MPIRUN[@]}" -np $np "$g" sort "$work/m.in" -o "$work/m.gpu" $fmt --device cuda --distributed -q --stats-json "$work/m.json" \
               && cmp -s "$work/m.cpu" "$work/m.gpu" && grep -q device-to-device "$work/m.json"; then pass=$((pass+1)); echo "ok   -np $np on $np GPUs, device to device: $fmt"
          else bad=$((bad+1)); echo "FAIL -np $np on $np GPUs, device to device: $fmt"; fi
        done
      done
    else
      echo "SKIP ranks on several GPUs: this machine has $gpus"; skip=$((skip+1))
    fi
    rm -f "$work"/m.*
  else
    echo "SKIP distributed: no mpirun, or gxsort built without MPI"; skip=$((skip+1))
  fi
}

if [ "$mode" = distributed ]; then
  pass=0; bad=0
  distributed_checks
  echo "distributed: $pass passed, $bad failed"
  exit $(( bad > 0 ))
fi

if [ "$mode" = tests ]; then
  # SUITES=0 skips the two test binaries; CUDA_TESTS=filter runs the GPU test cases whose
  # names match (doctest -tc); LONG=1 runs the GPU tests' long cases too (--long);
  # E2E_FILTER=regex keeps the end-to-end cases whose names match; DISTRIBUTED=0 skips
  # the distributed checks.
  if [ "${SUITES:-1}" = 1 ]; then
  step "unit tests"
  t0=$(date +%s.%N)
  "$b/gxsort_unit_tests" > "$out/unit.log" 2>&1 || fail=1
  doctest_row "unit tests" "$out/unit.log" "$t0"
  tail -3 "$out/unit.log"
  step "GPU tests${LONG:+ (LONG=$LONG)}"
  long=""; [ "${LONG:-0}" = 1 ] && long=--long
  t0=$(date +%s.%N)
  "$b/gxsort_cuda_tests" $long --duration=true ${CUDA_TESTS:+-tc="$CUDA_TESTS"} > "$out/cuda.log" 2>&1 || fail=1
  doctest_row "GPU tests$([ "${LONG:-0}" = 1 ] && echo ", long cases too")" "$out/cuda.log" "$t0"
  grep -c SKIPPED "$out/cuda.log" | sed 's/^/skipped lines: /'
  # The slowest cases (the suite must fit 120 s: what to move behind --long first).
  sed 's/\x1b\[[0-9;]*m//g' "$out/cuda.log" | grep -E '^[0-9.]+ s: ' | sort -rn | head -8 | sed 's/^/slowest: /'
  tail -5 "$out/cuda.log"  # doctest's summary, the long cases not run, a missing GPU
  fi
  group "end to end: sort, cpu vs cuda bytes"
  step "end to end: --device cpu and --device cuda give the same bytes"
  e2e() {  # name, gen options, format options, sort-only options
    local name=$1 genopt=$2 fmt=$3 sortopt=$4
    [[ $name =~ ${E2E_FILTER:-.} ]] || return 0
    "$g" gen -o "$work/$name.in" $genopt -q
    "$g" sort "$work/$name.in" -o "$work/$name.cpu" --device cpu $fmt $sortopt -q
    if "$g" sort "$work/$name.in" -o "$work/$name.gpu" --device cuda $fmt $sortopt -q && cmp -s "$work/$name.cpu" "$work/$name.gpu" \
       && "$g" check "$work/$name.gpu" $fmt -q --device cpu; then
      pass=$((pass+1)); echo "ok   $name"
    else
      bad=$((bad+1)); echo "FAIL $name"
    fi
    rm -f "$work/$name".*
  }
  ooc="--device-memory 8M --memory 16M"
  for t in u32 u64 i32 i64 f32 f64; do
    e2e "flat-$t" "--count 3000017 --type $t --dist bits" "--type $t" ""
    e2e "flat-$t-rev-ooc" "--count 3000017 --type $t --dist few-unique" "--type $t -r" "$ooc --fan-in 4"
  done
  e2e rec24 "--count 1000003 $R24 --key-type i64" "$R24 --key-type i64" ""
  e2e rec24-ooc "--count 1000003 $R24 --key-type f64 --dist bits" "$R24 --key-type f64" "--device-memory 8M --memory 8M --fan-in 3"
  e2e rec12-ooc "--count 1000003 --record-size 12 --key-offset 4 --key-type u32 --dist bits" "--record-size 12 --key-offset 4 --key-type u32" "--device-memory 8M --memory 8M --fan-in 3"
  e2e rec32-ooc "--count 1000003 --record-size 32 --key-type u64 --dist few-unique" "--record-size 32 --key-type u64" "--device-memory 8M --memory 8M --fan-in 3"
  e2e rec7-ooc "--count 1000003 --record-size 7 --key-offset 1 --key-bytes 5 --dist few-unique" "--record-size 7 --key-offset 1 --key-bytes 5" "--device-memory 8M --memory 8M --fan-in 3"
  e2e bytes5 "--count 777777 --record-size 16 --key-offset 3 --key-bytes 5 --dist few-unique" "--record-size 16 --key-offset 3 --key-bytes 5" "--device-memory 4M --memory 8M"
  e2e gensort "--count 1000000 --format gensort" "--format gensort" ""
  e2e gensort-unique "--count 1000000 --format gensort --dist few-unique" "--format gensort" "-u"
  e2e rec24-unique "--count 1000003 $R24 --key-type i64 --dist few-unique" "$R24 --key-type i64" "-u"
  e2e gensort-ooc "--count 1000000 --format gensort --dist few-unique" "--format gensort" "--device-memory 16M --memory 32M --fan-in 2"
  e2e u64-unique-in-device "--count 3000017 --dist few-unique" "" "-u"
  e2e u64-unique-ooc "--count 3000017 --dist zipf" "" "-u $ooc"
  e2e u64-ooc-direct "--count 4000037 --dist uniform" "" "$ooc --direct-io on"
  e2e gensort-ooc-direct "--count 1000000 --format gensort" "--format gensort" "--device-memory 16M --memory 32M --direct-io on"
  # Written runs each in 3 files (Plan::run_files; the default only in a larger budget):
  # every part a merge input of its own, ties across them in input order.
  GXSORT_SORT_RUN_FILES=3 e2e u64-ooc-run-files "--count 4000037 --dist few-unique" "" "--device-memory 8M --memory 16M --threads 2"
  GXSORT_SORT_RUN_FILES=3 e2e rec24-ooc-run-files "--count 1000003 $R24 --key-type i64 --dist few-unique" "$R24 --key-type i64" "--device-memory 8M --memory 16M --threads 2"
  # The partition sort (the CPU's default out of core without --fan-in) on both backends.
  e2e u64-ooc-partition "--count 4000037 --dist zipf" "" "$ooc --ooc partition"
  e2e rec24-ooc-partition-unique "--count 1000003 $R24 --key-type f64 --dist bits" "$R24 --key-type f64" "--device-memory 8M --memory 8M --ooc partition -u"
  e2e gensort-ooc-partition "--count 1000000 --format gensort --dist few-unique" "--format gensort" "--device-memory 16M --memory 32M --ooc partition"
  for k in basic tiled circular thrust; do
    e2e "u64-ooc-$k" "--count 4000037 --dist zipf" "" "$ooc --merge-kernel $k"
    e2e "u32-ooc-$k" "--count 4000037 --type u32 --dist uniform" "--type u32" "$ooc --merge-kernel $k"
    e2e "rec16-ooc-$k" "--count 2000003 --record-size 16 --key-offset 8 --key-type i64 --dist few-unique" "--record-size 16 --key-offset 8 --key-type i64" "$ooc --merge-kernel $k"
  done
  # Composite keys (--key): one 64-bit key, one 128-bit key, and a 29-byte key sorted by
  # prefix and tie-break; descending fields, big-endian forms, bytes:N, NaNs (--dist bits);
  # zipf ranks tie the leading fields and differ in the last ones.
  for k in K64 K128 KWIDE; do
    e2e "keys-$k" "--count 1000003 ${!k} --dist bits" "${!k}" ""
    e2e "keys-$k-zipf-ooc" "--count 1000003 ${!k} --dist zipf" "${!k}" "$ooc --fan-in 4"
    e2e "keys-$k-rev-unique-ooc" "--count 1000003 ${!k} --dist few-unique" "${!k} -r" "$ooc -u"
    e2e "keys-$k-ooc-partition" "--count 1000003 ${!k} --dist bits" "${!k}" "$ooc --ooc partition"
  done
  e2e "keys-i16-flat" "--count 3000017 --type i16 --dist bits" "--type i16" ""
  group "end to end: bfs"
  step "BFS: cpu, cuda (in memory and streamed) and auto give the same levels"
  "$g" gen --graph rmat --scale 18 -o "$work/e.bin" -q && "$g" graph build "$work/e.bin" -o "$work/g.csr" --input-format bin32 --symmetrize -q
  "$g" gen --graph uniform --scale 16 -o "$work/d.bin" -q && "$g" graph build "$work/d.bin" -o "$work/d.csr" --input-format bin32 -q
  bfs_same() {  # name, graph, source, options of the GPU run
    "$g" bfs "$2" --source "$3" -o "$work/lv.cpu" --device cpu -q
    if "$g" bfs "$2" --source "$3" -o "$work/lv.gpu" $4 -q && cmp -s "$work/lv.cpu" "$work/lv.gpu"; then pass=$((pass+1)); echo "ok   bfs $1"
    else bad=$((bad+1)); echo "FAIL bfs $1"; fi
  }
  bfs_same "rmat 18 cuda" "$work/g.csr" 1 "--device cuda"
  bfs_same "rmat 18 cuda streamed" "$work/g.csr" 1 "--device cuda --device-memory 12M"
  bfs_same "rmat 18 auto" "$work/g.csr" 1 "--device auto"
  bfs_same "uniform 16 directed cuda" "$work/d.csr" 3 "--device cuda"
  "$g" bfs "$work/g.csr" --random-sources 4 --device cuda --json > "$out/bfs_random.json" && pass=$((pass+1)) || { bad=$((bad+1)); echo "FAIL bfs --random-sources"; }
  group "end to end: streams"
  step "streams: gen -o - | sort - -o - | check -, in and out of core, cpu and cuda agree"
  for mem in 8G 16M; do
    for fmt in "--type u64" "--format gensort" "--record-size 24 --key-offset 8 --key-type f64" "$K128"; do
      "$g" gen -o - --count 2000003 $fmt --dist few-unique -q | "$g" sort - -o "$work/s.cpu" $fmt --memory $mem --device cpu -q
      "$g" gen -o - --count 2000003 $fmt --dist few-unique -q | "$g" sort - -o - $fmt --memory $mem --device-memory 64M --device cuda -q > "$work/s.gpu"
      if cmp -s "$work/s.cpu" "$work/s.gpu" && "$g" check - $fmt -q < "$work/s.gpu"; then pass=$((pass+1)); echo "ok   stream $fmt --memory $mem"
      else bad=$((bad+1)); echo "FAIL stream $fmt --memory $mem"; fi
      rm -f "$work"/s.*
    done
  done
  group "end to end: check"
  step "check: cpu and cuda agree"
  "$g" gen -o "$work/c1" --count 9000001 --dist few-unique -q
  "$g" sort "$work/c1" -o "$work/c2" --device cpu -q
  "$g" gen -o "$work/c3" --count 2000000 --format gensort --dist few-unique -q
  "$g" gen -o "$work/c4" --count 2000003 $KWIDE --dist few-unique -q
  "$g" sort "$work/c4" -o "$work/c5" $KWIDE --device cpu -q
  for f in "c1" "c2" "c3 --format gensort" "c4 $KWIDE" "c5 $KWIDE"; do
    set -- $f
    file=$1; shift
    want=$("$g" check "$work/$file" "$@" --device cpu); wrc=$?
    got=$("$g" check "$work/$file" "$@" --device cuda); grc=$?
    if [ "$got" = "$want" ] && [ $grc = $wrc ]; then pass=$((pass+1)); echo "ok   check $f"; else bad=$((bad+1)); echo "FAIL check $f: $got vs $want"; fi
  done
  group "end to end: reduce"
  step "reduce: cpu and cuda agree (flat, nested, cub)"
  "$g" gen -o "$work/r.in" --count 5000011 --type f64 --dist bits -q
  "$g" gen -o "$work/s.in" --count 5000011 --type i64 -q
  for f in "r.in --type f64" "s.in --type i64"; do
    set -- $f
    for op in sum min max mean minmax count; do
      want=$("$g" reduce "$work/$1" $2 $3 --op $op --device cpu)
      for a in flat nested cub; do
        got=$("$g" reduce "$work/$1" $2 $3 --op $op --device cuda --algo $a)
        if [ "$got" = "$want" ]; then pass=$((pass+1)); else bad=$((bad+1)); echo "FAIL reduce $f $op $a: $got vs $want"; fi
      done
    done
  done
  if [ "${DISTRIBUTED:-1}" = 1 ]; then  # DISTRIBUTED=0: mode distributed ran them
    group "end to end: distributed"
    distributed_checks
  fi
  group ""
  echo "end to end: $pass passed, $bad failed"
  [ "$bad" = 0 ] || fail=1
  "$g" info
  step "summary"
  summary_table | tee "$out/summary.md"
  exit $fail
fi

# ---- benchmarks ----
# Every end-to-end row is reported three ways, each like for like or plainly not:
#   default (fsync'd output) vs cp        -- cp leaves its copy in the page cache, unsynced
#   --no-fsync vs cp                      -- neither waits for the disk
#   default vs cp + `sync FILE`           -- both on the disk when they end
# Between timed commands `sync` (untimed) lets the previous writeback finish, so no
# command pays for the one before it. BASE=path adds rows for another gxsort binary
# (before/after comparisons in one run); KERNELS=0, SORT4=0, REDUCE8=0, BIG=0 skip
# sections, CPU4=0 and CPU16=0 the CPU rows.
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2-$1:.3f}')"; }
timeit() { local s e; s=$(now); "$@" >/dev/null || echo "FAILED: $*" >&2; e=$(now); secs "$s" "$e"; }
settle() { rm -f "$@"; sync; }
rows=$out/rows.txt; : > "$rows"
row() { echo "$1|$2|$3" >> "$rows"; }  # table, label, seconds
table() {  # table title, cp time, cp+sync time
  python3 - "$rows" "$1" "$2" "$3" <<'PY'
import sys
path, title, cp, cps = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
print(f"| {title} | s | vs cp | vs cp + sync |")
print("|---|---|---|---|")
print(f"| cp (no sync) | {cp:.2f} | 1.00 | |")
print(f"| cp + sync FILE | {cps:.2f} | | 1.00 |")
for line in open(path):
    t, label, sec = line.rstrip("\n").split("|")
    if t != title: continue
    sec = float(sec)
    synced = "--no-fsync" not in label
    print(f"| {label} | {sec:.2f} | {sec/cp:.2f} | {f'{sec/cps:.2f}' if synced else '(not synced)'} |")
PY
}
# cp_times FILE: two cp and two cp + `sync FILE` of FILE; sets cp_best, cps_best and cp_note.
cp_times() {  # CP_REPS=1 measures each once
  local c1 c2 k1 k2
  c1=$(timeit cp "$1" "$work/cp"); settle "$work/cp"
  k1=$(timeit sh -c "cp '$1' '$work/cp' && sync '$work/cp'"); settle "$work/cp"
  c2=$c1; k2=$k1
  if [ "${CP_REPS:-2}" != 1 ]; then
    c2=$(timeit cp "$1" "$work/cp"); settle "$work/cp"
    k2=$(timeit sh -c "cp '$1' '$work/cp' && sync '$work/cp'"); settle "$work/cp"
  fi
  cp_best=$(python3 -c "print(min($c1,$c2))"); cps_best=$(python3 -c "print(min($k1,$k2))")
  cp_note="(cp runs $c1 $c2; cp + sync runs $k1 $k2)"
}
# sort_row table label binary args...: times one sort, checks it, removes the output.
sort_row() {
  local t=$1 label=$2 bin=$3; shift 3
  local s; s=$(timeit "$bin" sort "$@")
  "$g" check "$work/o" -q || echo "CHECK FAILED: $label"
  settle "$work/o"
  row "$t" "$label" "$s"
}
if [ "${KERNELS:-1}" = 1 ]; then
  step "merge kernels (u64 keys, 16-byte records)"
  for t in u64 pairs; do  # the same bytes: 2 x 2^27 u64, 2 x 2^26 records
    n=27; [ "$t" = pairs ] && n=26
    "$b/bench/merge_kernels_bench" --type $t --log2n $n > "$out/merge_bench_$t.log" 2>&1 || fail=1
    grep -E "^(merge_kernels_bench|kernel|circular|thrust|cub)" "$out/merge_bench_$t.log" | head -20
  done
  step "reduce kernels"
  "$b/bench/reduce_bench" > "$out/reduce_bench.log" 2>&1; grep -E "^\|" "$out/reduce_bench.log" | head -12
  step "dedupe kernels (PBBS case)"
  "$b/bench/dedupe_bench" > "$out/dedupe_bench.log" 2>&1; tail -8 "$out/dedupe_bench.log"
  step "BFS"
  WORK=/tmp bash tools/bench/bfs_bench.sh "$g" ${BFS_SCALES:-22} 2>&1 | tee "$out/bfs_bench.log" | tail -6
fi

if [ "${SORT4:-1}" = 1 ]; then
step "sort 4 GiB u64 on the GPU vs cp"
T4="4 GiB u64"
"$g" gen -o "$work/in4" --count 536870912 --seed 3 -q; sync
cp_times "$work/in4"
for i in 1 2; do
  sort_row "$T4" "gxsort sort --device cuda (run $i)" "$g" "$work/in4" -o "$work/o" --device cuda --stats-json "$out/sort4_stats_$i.json"
  sort_row "$T4" "gxsort sort --device cuda --no-fsync (run $i)" "$g" "$work/in4" -o "$work/o" --device cuda --no-fsync --stats-json "$out/sort4_nofsync_stats_$i.json"
  if [ -n "${BASE:-}" ]; then
    sort_row "$T4" "BASE gxsort sort --device cuda (run $i)" "$BASE" "$work/in4" -o "$work/o" --device cuda
    sort_row "$T4" "BASE gxsort sort --device cuda --no-fsync (run $i)" "$BASE" "$work/in4" -o "$work/o" --device cuda --no-fsync
  fi
done
sort_row "$T4" "gxsort sort --device cuda --device-memory 512M" "$g" "$work/in4" -o "$work/o" --device cuda --device-memory 512M -T "$work" --stats-json "$out/sort4_dev18_stats.json"
[ "${CPU4:-1}" = 1 ] && sort_row "$T4" "gxsort sort --device cpu (16 threads)" "$g" "$work/in4" -o "$work/o" --device cpu --stats-json "$out/sort4_cpu_stats.json"
table "$T4" "$cp_best" "$cps_best"
echo "$cp_note"
rm -f "$work/in4"
fi

if [ "${REDUCE8:-1}" = 1 ]; then
step "reduce 8 GiB vs cat"
"$g" gen -o "$work/in8" --count 1073741824 --seed 4 -q; sync
cat "$work/in8" > /dev/null
rr=()
for i in 1 2 3; do
  rr+=("$(timeit sh -c "cat '$work/in8' > /dev/null")")
  rr+=("$(timeit "$g" reduce "$work/in8" --op sum --device cuda --stats-json "$out/reduce8_stats_$i.json")")
  [ -n "${BASE:-}" ] && rr+=("$(timeit "$BASE" reduce "$work/in8" --op sum --device cuda)") || rr+=(0)
done
r2=$(timeit "$g" reduce "$work/in8" --op sum --device cpu)
python3 - "$r2" "${rr[@]}" <<'PY'
import sys
cpu = float(sys.argv[1]); v = list(map(float, sys.argv[2:])); gb = 8 * 2**30 / 1e9
print("| 8 GiB u64 in page cache | cat s | reduce s | throughput vs cat (same round) |")
print("|---|---|---|---|")
for i in range(0, len(v), 3):
    k, r, base = v[i:i+3]
    print(f"| round {i//3+1}: gxsort reduce --op sum --device cuda | {k:.2f} | {r:.2f} | {k/r:.2f} |")
    if base: print(f"| round {i//3+1}: BASE reduce --device cuda | {k:.2f} | {base:.2f} | {k/base:.2f} |")
k = min(v[0::3])
print(f"| gxsort reduce --op sum --device cpu | {k:.2f} | {cpu:.2f} | {k/cpu:.2f} |")
PY
rm -f "$work/in8"
fi

if [ "${BIG:-1}" = 1 ]; then
  step "out of core: 16 GiB u64, --device-memory 2G --memory 4G, vs two cp"
  T16="16 GiB u64, --memory 4G, vs two copies"
  "$g" gen -o "$work/in16" --count 2147483648 --seed 5 -q; sync
  cp_times "$work/in16"
  "$g" plan "$work/in16" --device cuda --device-memory 2G --memory 4G -T "$work" | tail -8
  sort_row "$T16" "gxsort sort --device cuda --device-memory 2G" "$g" "$work/in16" -o "$work/o" --device cuda --device-memory 2G --memory 4G -T "$work" --stats-json "$out/sort16_gpu_stats.json"
  sort_row "$T16" "gxsort sort --device cuda --device-memory 2G --no-fsync" "$g" "$work/in16" -o "$work/o" --device cuda --device-memory 2G --memory 4G -T "$work" --no-fsync --stats-json "$out/sort16_gpu_nofsync_stats.json"
  # The journal's cost (issue 17): the same binary without job directory or journal.
  nojournal() { GXSORT_BENCH_NO_JOURNAL=1 "$g" "$@"; }
  sort_row "$T16" "gxsort sort --device cuda --device-memory 2G --no-fsync, no journal" nojournal "$work/in16" -o "$work/o" --device cuda --device-memory 2G --memory 4G -T "$work" --no-fsync --stats-json "$out/sort16_gpu_nofsync_nojournal_stats.json"
  if [ -n "${BASE:-}" ]; then
    sort_row "$T16" "BASE gxsort sort --device cuda --device-memory 2G" "$BASE" "$work/in16" -o "$work/o" --device cuda --device-memory 2G --memory 4G -T "$work"
  fi
  [ "${CPU16:-1}" = 1 ] && sort_row "$T16" "gxsort sort --device cpu" "$g" "$work/in16" -o "$work/o" --device cpu --memory 4G -T "$work" --stats-json "$out/sort16_cpu_stats.json"
  # "two cp": twice the best copy (one copy to form runs, one to write the output).
  table "$T16" "$(python3 -c "print(2*$cp_best)")" "$(python3 -c "print(2*$cps_best)")"
  echo "$cp_note"
  rm -f "$work/in16"
fi
# Each sort's phases, and where its last merge's time went (merge_stages: the window
# pipeline's stages and wall time, a journalled merge's checkpoints, the inputs' removal).
for f in "$out"/*stats*.json; do echo "$(basename "$f"): $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['mode'], d['runs'], 'runs', round(d['seconds'],2), [(p['name'], round(p['seconds'],2)) for p in d['phases'] + d.get('merge_stages', [])])" "$f")"; done
rm -rf "$work"
