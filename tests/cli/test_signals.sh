#!/usr/bin/env bash
# SIGTERM / SIGINT / SIGHUP / SIGQUIT / SIGPIPE during long external sorts (and runs, merge, gen): no temp
# files (*.tmp) in the tmp dir or beside the output, no output file, an existing output
# kept; an out-of-core job (a sort or a merge of more files than the fan-in) keeps its
# pieces (.gxsort-job.* directories, and its output so far beside the target) for
# --resume, every other command leaves nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p T O
gx gen -o big.bin --count $((25 * 1024 * 1024)) --seed 5 -q   # 200 MiB of u64
if [[ $RC != 0 ]]; then fail "gen of a 200 MiB input" "exit $RC: $(last_err)"; finish; fi
printf 'OLD CONTENT' >old.ref

# wait_nonempty PATTERN DIR...: until a file matching PATTERN has data (polled, at
# most 60 s); 1 if $PID ended first or after 60 s.
wait_nonempty() {
  local pat=$1 end=$((SECONDS + 60)); shift
  while ((SECONDS < end)); do
    [[ -n "$(find "$@" -name "$pat" ! -empty 2>/dev/null | head -1)" ]] && return 0
    kill -0 "$PID" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# interrupt NAME SIGNAL POINT OUTPUT JOB CMD...: runs CMD in the background, sends
# SIGNAL at POINT, then checks; JOB is "job" when CMD is a resumable job (its pieces
# must be kept), else "-" (nothing may be left). POINT: a temp file kind: CMD stops
# itself once its first temp file of that kind exists (GXSORT_TEST_STOP_AT, a test
# hook: lib.sh's wait_stopped) and goes on with the signal; "nonempty:PATTERN": the
# signal once a file matching PATTERN has data (a state no hook marks: polled).
interrupt() {
  local name=$1 sig=$2 point=$3 out=$4 job=$5; shift 5
  local reached
  if [[ $point == nonempty:* ]]; then
    "$@" >/dev/null 2>"$WORK/last.err" &
    PID=$!
    wait_nonempty "${point#nonempty:}" T O; reached=$?
  else
    GXSORT_TEST_STOP_AT=$point "$@" >/dev/null 2>"$WORK/last.err" &
    PID=$!
    wait_stopped "$PID"; reached=$?
  fi
  if ((reached != 0)) || ! kill -s "$sig" "$PID" 2>/dev/null; then
    wait "$PID" 2>/dev/null; RC=$?
    # Only a poll can miss its state: a command that passes it in a moment.
    if [[ $point == nonempty:* ]]; then skip "$name" "gxsort ended (exit $RC) before the poll saw ${point#nonempty:}"
    else fail "$name" "gxsort ended (exit $RC) without reaching its first $point temp file: $(last_err)"; fi
    [[ $out == */old.out ]] || rm -f "$out"  # not left for the next case to find
    return
  fi
  kill -CONT "$PID"
  wait "$PID" 2>/dev/null; RC=$?
  local want=$((128 + $(kill -l "$sig")))
  [[ $RC == "$want" ]] && pass "$name: died of SIG$sig (exit $RC)" || fail "$name: died of SIG$sig" "exit $RC, expected $want: $(last_err)"
  local l; l=$(leftover_temps T O "$WORK")
  [[ -z "$l" ]] && pass "$name: no temp files left (tmp dir, output dir)" || fail "$name: no temp files left" "$(echo $l)"
  local pieces; pieces=$(job_pieces T O "$TMPDIR")
  if [[ $job == job ]]; then
    [[ -n $(find T O "$TMPDIR" -maxdepth 1 -type d -name '.gxsort-job.*' 2>/dev/null) ]] \
      && pass "$name: the job's pieces are kept for --resume" || fail "$name: the job's pieces are kept for --resume" "no job directory"
    "$GX" clean -T T -T O -q  # the next case starts from nothing
    [[ -z "$(job_pieces T O "$TMPDIR")" ]] || fail "$name: clean removes the job's pieces" "$(job_pieces T O "$TMPDIR")"
  else
    [[ -z $pieces ]] && pass "$name: no job pieces (not a resumable job)" || fail "$name: no job pieces" "$(echo $pieces)"
  fi
  if [[ $out == */old.out ]]; then
    cmp -s "$out" old.ref && pass "$name: the existing output keeps its content" || fail "$name: the existing output keeps its content" "changed or gone"
  else
    [[ ! -e $out ]] && pass "$name: no output file" || fail "$name: no output file" "$out exists"
  fi
}

interrupt "sort (its own plan: 3 merge levels), SIGTERM at its first merge" TERM merge O/out.bin job \
  "$GX" sort big.bin -o O/out.bin --memory 1M --tmp-dir T -q
interrupt "sort, SIGTERM during run formation" TERM run O/out.bin job \
  "$GX" sort big.bin -o O/out.bin --memory 1M --ooc merge --tmp-dir T -q
interrupt "sort, SIGTERM while partitioning into buckets" TERM bucket O/out.bin job \
  "$GX" sort big.bin -o O/out.bin --memory 4M --ooc partition --device cpu --threads 1 --tmp-dir T -q
# Like GNU sort, also SIGQUIT and SIGPIPE (a closed pipe on stdout or stderr). SIGQUIT,
# like SIGINT, starts ignored in a script's background job: restored to the default.
interrupt "sort, SIGQUIT while partitioning" QUIT bucket O/out.bin job \
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGQUIT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' "$GX" sort big.bin -o O/out.bin --memory 4M --device cpu --threads 1 --tmp-dir T -q
interrupt "sort, SIGPIPE during run formation" PIPE run O/out.bin job \
  "$GX" sort big.bin -o O/out.bin --memory 1M --fan-in 4 --tmp-dir T -q
# Background jobs of a non-interactive shell start with SIGINT ignored (and gxsort keeps
# it ignored): restore the default disposition for this case.
interrupt "sort, SIGINT during run formation" INT run O/out.bin job \
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' "$GX" sort big.bin -o O/out.bin --memory 1M --ooc merge --tmp-dir T --threads 1 -q
printf 'OLD CONTENT' >O/old.out
interrupt "sort onto an existing output, SIGTERM during the merge" TERM merge O/old.out job \
  "$GX" sort big.bin -o O/old.out --memory 1M --fan-in 2 --tmp-dir T -q
interrupt "sort, SIGHUP during the merge, temp runs beside the output" HUP merge O/out.bin job \
  env -u TMPDIR "$GX" sort big.bin -o O/out.bin --memory 1M --fan-in 4 -q
interrupt "sort with two --tmp-dir, SIGTERM" TERM run O/out.bin job \
  "$GX" sort big.bin -o O/out.bin --memory 1M --ooc merge --tmp-dir T --tmp-dir O -q
# The job's output gets its first bucket once pass 1 has ended.
interrupt "sort with two --tmp-dir, SIGTERM while sorting buckets" TERM 'nonempty:.gxsort-job.*.out' O/out.bin job \
  "$GX" sort big.bin -o O/out.bin --memory 4M --ooc partition --device cpu --threads 1 --tmp-dir T --tmp-dir O -q
# In memory: only the hidden output temp beside the target exists.
interrupt "in-memory sort, SIGTERM once its output temp exists" TERM out O/out.bin - \
  "$GX" sort big.bin -o O/out.bin -q
# `runs` of a file is a job whose directory is in its output directory (its runs are
# formed there as temp files, then kept as pieces): a signal leaves the pieces for --resume.
interrupt "runs, SIGTERM" TERM run O/rd/manifest.txt - \
  "$GX" runs big.bin -o O/rd --memory 1M -q
[[ -z "$(ls O/rd 2>/dev/null)" ]] && pass "runs, SIGTERM: no run files left" || fail "runs, SIGTERM: no run files left" "$(ls O/rd | head -3 | tr '\n' ' ')"
[[ -n "$(ls -d O/rd/.gxsort-job.* 2>/dev/null)" ]] && pass "runs, SIGTERM: its runs kept for --resume" || fail "runs, SIGTERM: job kept" "$(ls -A O/rd)"
"$GX" runs big.bin -o O/rd --memory 1M --resume -q && [[ -e O/rd/manifest.txt && -z "$(ls -d O/rd/.gxsort-job.* 2>/dev/null)" ]] &&
  pass "runs, SIGTERM: --resume completes the directory" || fail "runs, SIGTERM: --resume" "$(ls -A O/rd | head -3)"
rm -rf O/rd
interrupt "gen, SIGTERM" TERM gen O/g.bin - \
  "$GX" gen -o O/g.bin --count $((100 * 1024 * 1024)) -q

# A signal ignored when gxsort starts (nohup, or a background job of a script for
# SIGINT) must stay ignored: the sort goes on and completes.
if command -v nohup >/dev/null; then
  GXSORT_TEST_STOP_AT=run nohup "$GX" sort big.bin -o O/nohup.bin --memory 1M --tmp-dir T -q >/dev/null 2>"$WORK/last.err" &
  PID=$!
  wait_stopped "$PID" || fail "nohup gxsort sort: a SIGHUP at its first run" "it ended first or never got there"
  kill -HUP "$PID" 2>/dev/null; kill -CONT "$PID" 2>/dev/null
  wait "$PID" 2>/dev/null; RC=$?
  expect_rc "nohup gxsort sort: a SIGHUP (ignored by nohup) does not stop it" 0
  "$GX" check O/nohup.bin -q 2>/dev/null && [[ $(stat -c %s O/nohup.bin 2>/dev/null) == $(stat -c %s big.bin) ]] \
    && pass "nohup gxsort sort after SIGHUP: complete sorted output" || fail "nohup gxsort sort after SIGHUP: complete sorted output" "missing or unsorted"
  rm -f O/nohup.bin
  [[ -z "$(leftover_temps T O)" ]] && pass "nohup case: no temp files left" || fail "nohup case: no temp files left" "$(leftover_temps T O)"
else
  skip "nohup gxsort sort" "no nohup here"
fi

# A merge of big sorted inputs: sort the input once (not interrupted), then merge.
gx sort big.bin -o s1.bin --memory 256M --tmp-dir T -q
if [[ $RC == 0 ]]; then
  interrupt "merge --fan-in 2, SIGTERM" TERM merge O/m.bin job \
    "$GX" merge s1.bin s1.bin s1.bin -o O/m.bin --memory 1M --fan-in 2 --tmp-dir T -q
else
  fail "sort of the 200 MiB input" "exit $RC: $(last_err)"
fi
finish
