#!/usr/bin/env bash
# What a killed job leaves, and inputs that change under a sort: after kill -9 the temp
# files (all named .gxsort.<host>.<pid>.<kind>.<n>.tmp) are found by one glob, a later
# command notes them, and `gxsort clean` removes them (never a running job's); an input
# truncated while it is sorted (mapped in memory, partitioned, merged) fails with exit 3
# and leaves nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p T O
gx gen -o big.bin --count $((24 * 1024 * 1024)) --seed 5 -q   # 192 MiB of u64

# Each process killed, signalled or changed under here stops itself at a known point
# first (GXSORT_TEST_STOP_AT, a test hook: lib.sh's wait_stopped): a temp file of the
# kind it names exists then, whatever the speed or load of the machine.

# ---- kill -9, the glob, the note, clean ----
GXSORT_TEST_STOP_AT=run "$GX" sort big.bin -o O/out.bin --memory 2M --ooc merge --tmp-dir T -q 2>/dev/null &
PID=$!
if wait_stopped "$PID"; then  # its first run's temp file created, in its job directory
  kill -9 "$PID"; wait "$PID" 2>/dev/null
  # The job's runs are kept for --resume in its job directory; the rest are temp files.
  jobs=$(cd T && ls -d .gxsort-job.* 2>/dev/null | wc -l)
  left=$(find T O -name '.gxsort*' | wc -l)
  ((jobs == 1)) && pass "kill -9 during run formation leaves the job's directory (for --resume)" || fail "kill -9 leaves a job directory" "$jobs"
  ((left > 0)) && pass "one glob (.gxsort*) finds what it left ($left)" || fail "one glob finds them" "none"
  [[ -z "$(find T O -name '*.tmp' ! -name '.gxsort.*.tmp')" ]] && pass "every temp file has the .gxsort.*.tmp name" \
    || fail "every temp file has the .gxsort.*.tmp name" "$(find T O -name '*.tmp' ! -name '.gxsort.*.tmp')"
  # A later command in the same temp directory says so, and still works.
  gx sort big.bin -o O/small.bin --tmp-dir T --memory 64M --device cpu
  expect_rc "a sort after the kill: exit 0" 0
  grep -q "gxsort clean .*-T T" "$WORK/last.err" && grep -q "kept for --resume" "$WORK/last.err" && pass "a later sort notes the leftovers, says --resume and names gxsort clean" || fail "a later sort notes the leftovers" "$(last_err)"
  gx sort big.bin -o O/small.bin --tmp-dir T --memory 64M --device cpu -q
  [[ ! -s "$WORK/last.err" ]] && pass "-q: no note" || fail "-q: no note" "$(last_err)"
  # A running job's files are kept. The job stays stopped (at its first run) while
  # clean runs: it holds its locks and cannot end first.
  GXSORT_TEST_STOP_AT=run "$GX" sort big.bin -o O/live.bin --memory 2M --ooc merge --tmp-dir T -q 2>/dev/null &
  LIVE=$!
  if wait_stopped "$LIVE"; then
    gx clean -T T -T O -n
    grep -q "^kept T/\.gxsort-job\..*: a running job's" "$WORK/last.out" && grep -q "^kept O/\.gxsort-job\..*\.out .*: a running job's" "$WORK/last.out" \
      && pass "clean -n: the running job's directory and output are kept" || fail "clean -n: the running job's files are kept" "$(cat "$WORK/last.out")"
    grep -q "^removed" "$WORK/last.out" && fail "clean -n removes nothing" "$(grep -m1 ^removed "$WORK/last.out")" || pass "clean -n removes nothing"
    gx clean -T T -T O
    expect_rc "clean: exit 0" 0
    grep -q "^removed .*is gone" "$WORK/last.out" && pass "clean: the dead job's files are removed, with the reason" || fail "clean: removed lines" "$(head -3 "$WORK/last.out")"
    grep -q "^kept .*: a running job's" "$WORK/last.out" && pass "clean: the running job's files are kept" || fail "clean: the running job's files are kept" "$(cat "$WORK/last.out")"
    kill -CONT "$LIVE"
  else
    fail "clean while a job runs" "the job never reached its first run"
  fi
  wait "$LIVE"; RC=$?
  expect_rc "the job that ran during clean completes" 0
  "$GX" check O/live.bin -q && [[ $(stat -c %s O/live.bin) == $(stat -c %s big.bin) ]] && pass "... with a complete sorted output" || fail "... complete sorted output" "missing or unsorted"
  [[ -z "$(leftover_temps T O)" && -z "$(find T O -name '.gxsort-job.*')" ]] && pass "after clean and the job: no temp files, no job directory" \
    || fail "no temp files" "$(leftover_temps T O; find T O -name '.gxsort-job.*')"
  rm -f O/*.bin
else
  wait "$PID"; fail "kill -9 during run formation" "the sort never reached its first run (exit $?)"
fi
gx clean -T T
grep -q "0 removed" "$WORK/last.out" && pass "clean of a clean directory: 0 removed" || fail "clean of a clean directory" "$(cat "$WORK/last.out")"

# ---- debris beside the output: the note of a command writing there, and clean with
# its default directories ($TMPDIR, the current one) find it ----
mkdir -p E  # clean runs in an empty directory: it finds O only through what the killed process listed
GXSORT_TEST_STOP_AT=out "$GX" sort big.bin -o O/mem.bin -q 2>/dev/null &   # in memory: only its output temp, beside O/mem.bin
PID=$!
if wait_stopped "$PID"; then
  kill -9 "$PID"; wait "$PID" 2>/dev/null
  oracle gen -o small.bin --count 1000 --seed 2
  gx sort small.bin -o O/small.bin
  grep -q "note: in .*O.*temporary file.*gxsort clean .*-T [^ ]*O" "$WORK/last.err" \
    && pass "kill -9 of an in-memory sort: a later sort into its output directory notes its temp file" || fail "the note sees the output directory" "$(last_err)"
  (cd E && "$GX" clean >"$WORK/last.out" 2>"$WORK/last.err"); RC=$?
  grep -q "^removed .*/O/\.gxsort\..*\.out\..*\.tmp" "$WORK/last.out" && [[ -z "$(find O -name '.gxsort.*')" ]] \
    && pass "kill -9 of an in-memory sort: clean (default directories) removes its temp beside the output" || fail "clean finds the output's temp" "$(cat "$WORK/last.out"; find O -name '.gxsort*')"
else
  wait "$PID"; fail "kill -9 of an in-memory sort" "it never created its output temp file (exit $?)"
fi
GXSORT_TEST_STOP_AT=run "$GX" sort big.bin -o O/job.bin --memory 2M --ooc merge -q 2>/dev/null &   # a job: its pieces in $TMPDIR, its output in O
PID=$!
if wait_stopped "$PID"; then
  kill -9 "$PID"; wait "$PID" 2>/dev/null
  [[ -n "$(find O -name '.gxsort-job.*.out')" ]] && pass "kill -9 of a job: its output beside the target is left (for --resume)" || fail "kill -9 of a job leaves its output" "none"
  (cd E && "$GX" clean >"$WORK/last.out" 2>"$WORK/last.err"); RC=$?
  grep -q "^removed .*/O/\.gxsort-job\..*\.out" "$WORK/last.out" && [[ -z "$(find O "$TMPDIR" -name '.gxsort*')" ]] \
    && pass "kill -9 of a job: clean (default directories) removes its directory and its output beside the target" \
    || fail "clean removes the job's output too" "$(cat "$WORK/last.out"; find O "$TMPDIR" -name '.gxsort*')"
else
  wait "$PID"; fail "kill -9 of a job" "it never reached its first run (exit $?)"
fi
rm -f O/*.bin

# A temp name already taken (here by a file named like ours): never deleted.
host=$(hostname | cut -d. -f1 | tr -c 'A-Za-z0-9_\n-' '_')
sh -c 'printf precious >"O/.gxsort.$1.$$.out.0.tmp"; exec "$2" sort big.bin -o O/coll.bin --memory 64M -q' sh "$host" "$GX"
precious=$(cat O/.gxsort."$host".*.out.0.tmp 2>/dev/null)
[[ $precious == precious ]] && pass "a file with the name of our temp file is not deleted" || fail "a taken temp name" "gone"
rm -f O/.gxsort."$host".*.out.0.tmp O/coll.bin

# kill -BUS (not a fault): the temp files go and the process dies of the signal.
GXSORT_TEST_STOP_AT=run "$GX" sort big.bin -o O/out.bin --memory 2M --ooc merge --tmp-dir T -q 2>/dev/null &
PID=$!
if wait_stopped "$PID"; then
  kill -BUS "$PID"; kill -CONT "$PID"; wait "$PID" 2>/dev/null; RC=$?
  expect_rc "kill -BUS: dies of SIGBUS" 135
  [[ -z "$(leftover_temps T O)" ]] && pass "kill -BUS: no temp files left" || fail "kill -BUS: no temp files left" "$(leftover_temps T O)"
else
  wait "$PID"; fail "kill -BUS" "the sort never reached its first run (exit $?)"
fi

# ---- an input that shrinks while it is sorted ----
# shrink NAME KIND ARGS...: starts `sort` on a copy of big.bin, truncates the copy
# once its first temp file of KIND exists, and expects exit 3, no output, no temp files.
shrink() {
  local name=$1 kind=$2; shift 2
  cp big.bin victim.bin
  rm -f O/out.bin
  GXSORT_TEST_STOP_AT=$kind "$GX" sort victim.bin -o O/out.bin --tmp-dir T -q "$@" 2>"$WORK/last.err" &
  PID=$!
  if ! wait_stopped "$PID"; then
    wait "$PID"; RC=$?
    fail "$name" "the sort never created its first $kind temp file (exit $RC)"; return
  fi
  truncate -s $((64 * 1024 * 1024)) victim.bin
  kill -CONT "$PID"
  wait "$PID"; RC=$?
  expect_rc "$name: exit 3 (not SIGBUS)" 3
  err_mentions "$name: message" "victim.bin" "changed"
  [[ ! -e O/out.bin ]] && pass "$name: no output" || fail "$name: no output" "exists"
  local l; l=$(leftover_temps T O "$WORK")
  [[ -z "$l" ]] && pass "$name: no temp files left" || fail "$name: no temp files left" "$(echo $l)"
}
shrink "truncated during the mapped in-memory sort" out --device cpu --threads 1
shrink "truncated while partitioning" bucket --memory 8M --ooc partition --device cpu --threads 1
shrink "truncated during run formation" run --memory 2M --ooc merge
finish
