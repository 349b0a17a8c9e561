# The benchmark scripts (tools/bench/): every one in its smoke mode (SMOKE=1: the least
# sizes, the binary under test), so that an option renamed since a script was written
# breaks CI, not the next benchmark. A new script is run here without a line added.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
ROOT=$(cd "$HERE/../.." && pwd)
BENCH=$(dirname "$GX")/bench  # the benchmark programs of the same build

# python3 itself on the PATH, not a version manager's shim (0.1-0.2 s a start): the
# scripts start it dozens of times. A wrapper, so that a virtual environment stays one.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexec %q "$@"\n' "${PY[0]}" >"$WORK/bin/python3"
chmod +x "$WORK/bin/python3"
export PATH="$WORK/bin:$PATH" GXSORT=$GX SMOKE=1

# Words the scripts print for a wrong output or a failed command (DIFFERS, DIFFERENT,
# MISMATCH, NOT sorted, UNSORTED, FAIL, failed) or a script's own error (Traceback).
BAD='differ|mismatch|not sorted|unsorted|fail|traceback'
for script in "$ROOT"/tools/bench/*.sh "$ROOT"/tools/bench/python_peers.py; do
  name=$(basename "$script")
  run=(bash); [[ $name == *.py ]] && run=(python3)
  start=$SECONDS
  timeout 120 "${run[@]}" "$script" >"$name.txt" 2>&1
  RC=$?
  echo "# $name: $((SECONDS - start)) s"
  expect_rc "$name (SMOKE=1): exits 0" 0
  if grep -q "^${name%.*}: needs .*; skipped$" "$name.txt"; then
    skip "$name (SMOKE=1)" "$(grep -m1 'skipped$' "$name.txt")"
    continue
  fi
  [[ -s $name.txt ]] && ! grep -Eiq "$BAD" "$name.txt" && pass "$name (SMOKE=1): every output agrees, no command failed" ||
    fail "$name outputs" "$(cat "$name.txt")"
  [[ -z $(find "$TMPDIR" -mindepth 1 -print -quit) ]] && pass "$name (SMOKE=1): no file left in \$TMPDIR" ||
    { fail "$name leftovers" "$(find "$TMPDIR" -mindepth 1 | head -5)"; rm -rf "$TMPDIR" && mkdir "$TMPDIR"; }
done

# rows NAME REGEX COUNT: NAME's smoke output has COUNT lines matching REGEX (unless skipped).
rows() {
  grep -q "skipped$" "$1.txt" && return
  [[ $(grep -Ec "$2" "$1.txt") == "$3" ]] && pass "$1 (SMOKE=1): $3 lines of $2" || fail "$1 rows" "$(cat "$1.txt")"
}
rows ab_in_memory.sh '^\| (u64|gensort|16-byte records) \| [0-9.]+ [0-9.]+ \| [0-9.]+ [0-9.]+ \|' 3
rows lines.sh '^\| (lines|-t, -k2,2n|-u) \| ' 3
# bfs at its smoke scale, 14, on the CPU: its graph build runs (it once passed an option graph
# build no longer takes, and failed at once) and the CPU column has a time.
rows bfs_bench.sh '^\| 14 \| .*\| +[0-9.]+ \| +[0-9.]+ \| +([0-9.]+|n/a) \| +([0-9.]+|n/a) \|$' 2  # the row on stderr, then in the table
rows dedupe_e2e.sh '^\| [0-9]+ MiB u(64|32), .* \| [0-9.]+ \| [0-9.]+ \| [0-9.na/]+ \|$' 6
rows dedupe_strategy.sh '^\| 1e5 \| (n|2\^32) \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| .* \| [0-9]+ \|$' 2
rows direct_io.sh '^ +--direct-io (off|on) +[0-9.]+ s' 2
rows gpu_rows.sh '^\| 1 \| (u64|gensort|16-byte records|u64 fsync.d .*) \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' 4
rows mpi_sort.sh '^[12] +[0-9.]+ +[0-9.]+x' 2
rows multi_gpu.sh '^ok   -np 2: byte-identical' 3
rows ooc_merge.sh "^    NEW's output = BASE's$" 2
rows ooc_methods.sh '^\| (cp|--ooc merge .*|--ooc partition .*) \| [0-9.]+ \|' 3
rows peers.sh '^\| (cp|cp \+ sync FILE|gxsort (sort|dedupe) --device cpu.*) \| [0-9.]+ \|' 5
rows record_width.sh '^\| (8|16|32|64|100) B \| 8 MiB \| .* \| yes \|$' 5
rows resume_cost.sh '^\| --ooc (merge|partition) \| .*\((checked)\) \|' 2
# fsync_floor.sh's A/B of a knob: BASE is NEW under BASE_ENV, a row each; with
# STATS_DIR, a line per sort of where its time went.
mkdir -p fsync_stats
BASE_ENV="GXSORT_SORT_HELD_RUNS=0" ONLY=ooc STATS_DIR=fsync_stats bash "$ROOT/tools/bench/fsync_floor.sh" >fsync_env.txt 2>&1
RC=$?
expect_rc "fsync_floor.sh BASE_ENV=GXSORT_SORT_HELD_RUNS=0 (SMOKE=1): exits 0" 0
[[ $(grep -Ec "^\| ooc: .* \| base, (fsync'd|--no-fsync) \| [0-9.]+ \|" fsync_env.txt) == 2 ]] &&
  grep -q "^BASE: NEW with GXSORT_SORT_HELD_RUNS=0$" fsync_env.txt && ! grep -Eiq "$BAD" fsync_env.txt &&
  pass "fsync_floor.sh BASE_ENV: BASE's two out-of-core rows" || fail "fsync_floor.sh BASE_ENV" "$(cat fsync_env.txt)"
[[ $(grep -Ec "^stats: ooc: .*, (new|base), (fsync'd|--no-fsync), round 1: runs [0-9.]+ s \(written back early [0-9.]+ GB, held [0-9.]+ GB\), merge [0-9.]+ s" fsync_env.txt) == 4 ]] &&
  pass "fsync_floor.sh STATS_DIR: a stats line per sort" || fail "fsync_floor.sh stats lines" "$(cat fsync_env.txt)"
rows sort_vs_cp.sh '^\| (cp|cp \+ sync FILE|gxsort sort, .*) \(best of [0-9.]+\) \| [0-9.]+ \|' 6

# Without SMOKE, a script that wants a GPU the binary lacks says so and exits 0 at once.
"$GX" info --json >info.json
if [[ $(json_get info.json "len(j['gpus'])") == 0 ]]; then
  for name in ab_in_memory gpu_rows record_width dedupe_e2e ooc_merge; do
    SMOKE='' timeout 20 bash "$ROOT/tools/bench/$name.sh" "$GX" >full.txt 2>&1
    RC=$?
    expect_rc "$name.sh without a GPU: exits 0" 0
    [[ $(cat full.txt) == "$name: needs a GPU; skipped" ]] && pass "$name.sh without a GPU: says it needs one" ||
      fail "$name.sh without a GPU" "$(cat full.txt)"
  done
else
  skip "the scripts without a GPU" "$GX has one"
fi

# Out of core (a budget below the input) for one input alone: ONLY and EXTRA.
ONLY=u64 EXTRA="--memory 1M" ROUNDS=1 DEVICE=cpu bash "$ROOT/tools/bench/ab_in_memory.sh" "$GX" "$GX" 0.004 "$WORK" >ab.txt 2>&1
RC=$?
expect_rc "ab_in_memory.sh ONLY=u64 EXTRA=--memory 1M: exits 0" 0
[[ $(grep -c '^| ' ab.txt) == 2 && $(grep -c '^| u64 |' ab.txt) == 1 ]] && pass "ab_in_memory.sh ONLY=u64: the u64 row alone" ||
  fail "ab_in_memory.sh ONLY rows" "$(cat ab.txt)"
! grep -q DIFFERS ab.txt && pass "ab_in_memory.sh out of core: the output is the reference's" || fail "ab_in_memory.sh ooc outputs" "$(cat ab.txt)"

# The CPU benchmark programs CMake builds beside gxsort (tools/bench/*.cpp), at small sizes:
# each checks its own output (exit 1 when wrong). page_cache_write: every way but `procs`
# (its processes each fill a 1 GiB source, seconds even for a small file).
program() {  # NAME ARGS...
  local name=$1; shift
  if [[ ! -x $BENCH/$name ]]; then skip "bench/$name" "not built beside $GX (cmake --build BUILD --target $name)"; return; fi
  "$BENCH/$name" "$@" >"$name.txt" 2>&1
  RC=$?
  expect_rc "bench/$name $*: exits 0" 0
}
program merge_cpu_bench 4 4096 1
for dist in uniform bits24 few; do program radix_cpu_bench 100000 2 1 "$dist"; done
mkdir -p "$WORK/pcw"
program page_cache_write "$WORK/pcw" 0.01 map 2 nopop 2 popw 2 pwrite 2 files 2 sparse 2 win 1 winnp 1 range 1 rangep 1 parts 2
[[ -f $WORK/page_cache_write.txt ]] && { [[ $(grep -c '^| [a-z]* [0-9]* | [0-9.]* |' page_cache_write.txt) == 11 ]] &&
  pass "bench/page_cache_write: a row for each way" || fail "page_cache_write rows" "$(cat page_cache_write.txt)"; }
# `files`: a file already there (a killed run's, or another user's) stops it, kept as it was,
# and the program leaves none of its own.
if [[ -x $BENCH/page_cache_write ]]; then
  mkdir -p "$WORK/pcw-planted" && echo planted >"$WORK/pcw-planted/out.1"
  "$BENCH/page_cache_write" "$WORK/pcw-planted" 0.01 files 3 >pcw-planted.txt 2>&1
  RC=$?
  expect_rc "bench/page_cache_write files, out.1 planted: exits 1" 1
  [[ $(cat "$WORK/pcw-planted/out.1") == planted && $(ls "$WORK/pcw-planted") == out.1 ]] &&
    grep -q "out.1: cannot create" pcw-planted.txt && pass "bench/page_cache_write files: the planted file kept, none of its own left" ||
    fail "page_cache_write files, planted" "$(ls "$WORK/pcw-planted"; cat pcw-planted.txt)"
fi
finish
