#!/usr/bin/env bash
# Safe in shared places (issue 35): what gxsort writes before its commit is private;
# temp names cannot be planted ahead; a file whose in-place rewrite was cut short is never
# read as an input; a job into a pipe keeps nothing a SIGPIPE would strand.
#   1. Temp files, job pieces and a job's output beside its target are 0600 while the
#      command runs, whatever the umask; the output gets its mode at commit (a new one
#      0666 less the umask, an existing one its old mode).
#   2. Temp names end in a random number: names another user planted for the victim's
#      pid (symlinks to a victim file, FIFOs, files) neither stop the sort nor are touched.
#   3. A kill -9 during the copy-back of an in-place rewrite (a hard-linked file): a plain
#      rerun, a --resume, a read through its other name and a write onto it are refused
#      (exit 3, one line saying how to restore), the kept copy stays; a live rewrite is
#      refused too; a kept copy another user planted is not trusted.
#   4. sort -o - | head -c 100: exit 141, no temp files and no job pieces left; --resume
#      into a pipe is refused.
# Waits are polls for a state, or a stop at a known point (GXSORT_TEST_STOP_AT, a test
# hook: lib.sh's wait_stopped), never fixed sleeps nor windows of time.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$HERE/other_user.sh"

mkdir -p O
oracle gen -o in.bin --count 500000 --seed 35 --expect exp.bin   # 4 MiB of u64
SIZE=$(stat -c %s in.bin)

# poll_until CMD...: runs CMD every 20 ms until it succeeds (0), PID ends or 60 s pass (1).
poll_until() {
  local end=$((SECONDS + 60))
  while ((SECONDS < end)); do
    "$@" && return 0
    kill -0 "$PID" 2>/dev/null || { "$@"; return; }
    sleep 0.02
  done
  return 1
}
has_file() { [[ -n "$(find "$@" -print -quit 2>/dev/null)" ]]; }
# not_private DIR...: gxsort's temp files, job directories, job outputs and the pieces,
# journal and lock in job directories there whose mode is not 600 (700 for a directory).
# (A job directory's `output` note is resume/journal.cpp's: private by its 0700 directory.)
not_private() {
  find "$@" \( -name '.gxsort*' -o -path '*/.gxsort-job.*/*' ! -name output \) \
    \( -type f ! -perm 600 -o -type d ! -perm 700 \) -printf '%m %p\n' 2>/dev/null
}
mode_of() { stat -c %a "$1"; }
expect_mode() {  # NAME FILE MODE
  [[ $(mode_of "$2") == "$3" ]] && pass "$1" || fail "$1" "mode $(mode_of "$2"), expected $3"
}

# ---- 1. private while running, the mode at commit ----
# A stream input held open: the sort has formed runs in TMPDIR and made its output's temp
# file beside the target, and waits for the rest.
for mask in 000 022; do
  rm -f O/* in.fifo; mkfifo in.fifo
  (umask $mask; exec "$GX" sort in.fifo -o O/new.bin --memory 1M -q) 2>"$WORK/last.err" &
  PID=$!
  exec 3<>in.fifo   # (read-write: never blocks; the timeouts below end a write no one reads)
  timeout 60 head -c $((SIZE / 4)) in.bin >&3
  if poll_until has_file "$TMPDIR" -name '.gxsort.*.run.*.tmp'; then
    has_file O -name '.gxsort.*.out.*.tmp' && has_file "$TMPDIR" -name '.gxsort.*.dirs.*.tmp' \
      && pass "umask $mask: the output's temp file and the dirs list are there while the sort runs" \
      || fail "umask $mask: the output's temp file and the dirs list" "$(ls -A O "$TMPDIR")"
    bad=$(not_private "$TMPDIR" O)
    [[ -z $bad ]] && pass "umask $mask: temp runs, the output's temp file and the dirs list are 0600 while it runs" \
      || fail "umask $mask: temp files 0600" "$(echo $bad)"
  else
    fail "umask $mask: temp files while it runs" "no temp run appeared"
  fi
  timeout 60 tail -c +$((SIZE / 4 + 1)) in.bin >&3
  exec 3>&-
  wait "$PID"; RC=$?
  expect_rc "umask $mask: the stream sort ends (exit 0)" 0
  same_bytes "umask $mask: its output" O/new.bin exp.bin
  expect_mode "umask $mask: a new output gets 0666 less the umask at commit" O/new.bin $(printf '%o' $((0666 & ~8#$mask)))
done
rm -f in.fifo

# A resumable job (out of core): its pieces in TMPDIR and its output beside the target.
# It stops itself after the last merge journals its first checkpoint (a test hook).
rm -f O/*
(umask 000; GXSORT_TEST_STOP_AT=journal:final exec "$GX" sort in.bin -o O/job.bin --memory 1M --ooc merge -q) 2>"$WORK/last.err" &
PID=$!
if wait_stopped "$PID"; then
  has_file O -name '.gxsort-job.*.out' && pass "umask 000, a job: its output beside the target is there" \
    || fail "umask 000, a job: its output beside the target" "none: $(ls -A O)"
  has_file "$TMPDIR" -path '*/.gxsort-job.*/*.bin' && pass "umask 000, a job: its pieces are there" \
    || fail "umask 000, a job: its pieces" "none: $(ls -A "$TMPDIR"/.gxsort-job.*)"
  bad=$(not_private "$TMPDIR" O)
  [[ -z $bad ]] && pass "umask 000, a job: its directory 0700, pieces, journal and output beside the target 0600" \
    || fail "umask 000, a job: private" "$(echo $bad)"
  go_on "$PID"
else
  fail "umask 000, a job: stopped in its last merge" "no checkpoint journalled: $(last_err)"
fi
wait "$PID"; RC=$?
expect_rc "umask 000, a job: exit 0" 0
same_bytes "umask 000, a job: its output" O/job.bin exp.bin
expect_mode "umask 000, a job: the new output is 666 at commit" O/job.bin 666

printf 'OLD' >O/old.bin; chmod 640 O/old.bin
(umask 000; exec "$GX" sort in.bin -o O/old.bin -q) 2>"$WORK/last.err"; RC=$?
expect_rc "umask 000, an existing 0640 target: exit 0" 0
expect_mode "umask 000: an existing target keeps its mode (640)" O/old.bin 640
(umask 077; exec "$GX" sort in.bin -o O/u77.bin -q) 2>"$WORK/last.err"; RC=$?
expect_mode "umask 077: a new output is 600" O/u77.bin 600
(umask 022; exec "$GX" runs in.bin -o O/rd --memory 1M -q) 2>"$WORK/last.err"; RC=$?
expect_rc "umask 022, runs: exit 0" 0
bad=$(find O/rd -type f ! -perm 644 -printf '%m %p\n')
[[ -z $bad && -e O/rd/manifest.txt ]] && pass "umask 022, runs: its run files and manifest are 644 (outputs)" || fail "runs: modes" "$(echo $bad)"
[[ -z "$(leftover_temps "$TMPDIR" O)" ]] && pass "part 1: no temp files left" || fail "part 1: no temp files left" "$(leftover_temps "$TMPDIR" O)"
rm -rf O/*

# ---- 2. temp names another user planted for the victim's pid ----
# plant_names PID KIND...: as the other user, 121 names of each kind for PID in SHARED, as
# sequential names were (.0 to .120; gxsort before issue 35 tried 100): symlinks to the
# victim file, FIFOs, files.
plant_names() {
  local pid=$1; shift
  as_other "${PY[@]}" -c '
import os, re, socket, sys
shared, pid, victim = sys.argv[1], sys.argv[2], sys.argv[3]
host = re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname().split(".")[0])[:32] or "host"
for kind in sys.argv[4:]:
    for n in range(121):
        p = os.path.join(shared, ".gxsort.%s.%s.%s.%d.tmp" % (host, pid, kind, n))
        if n % 7 == 3: os.mkfifo(p)
        elif n % 11 == 5: open(p, "w").close()
        else: os.symlink(victim, p)
' "$SHARED" "$pid" "$WORK/victim.txt" "$@"
}
# victim_runs NAME INPUT OUT WANT PLANTED: the victim ($PID, waiting on go.fifo) is let go
# and fed INPUT through in.fifo; it ends with exit 0 and OUT holding WANT, the victim
# file and every one of the PLANTED names untouched, nothing of its own left in SHARED.
victim_runs() {
  local name=$1 input=$2 out=$3 want=$4 planted=$5 left mine
  timeout 60 sh -c "echo go >go.fifo; cat '$input' >in.fifo"
  wait "$PID"; RC=$?
  expect_rc "$name with TMPDIR full of planted names for its pid: exit 0" 0
  same_bytes "$name with planted names: its output" "$out" "$want"
  [[ $(cat victim.txt) == VICTIM ]] && pass "$name: the victim file the planted links point at is untouched" ||
    fail "$name: victim file" "changed"
  left=$(find "$SHARED" -maxdepth 1 -name '.gxsort.*' -user "$OTHER_USER" | wc -l)
  [[ $left == "$planted" ]] && pass "$name: every planted name is still there (nothing removed)" ||
    fail "$name: planted names kept" "$left of $planted"
  mine=$(find "$SHARED" -mindepth 1 ! -user "$OTHER_USER")
  [[ -z $mine ]] && pass "$name: the victim left nothing in SHARED" || fail "$name: the victim left nothing in SHARED" "$(echo $mine)"
  rm -f go.fifo in.fifo "$SHARED"/.gxsort.*
}
if need_other_user; then
  printf 'VICTIM' >victim.txt; chmod 644 victim.txt
  rm -f go.fifo in.fifo; mkfifo go.fifo in.fifo
  # The victim's shell waits for the go, then execs gxsort: its pid is known before it runs.
  # Its temp files (runs, merges, the spool of -o -) go into SHARED.
  (read -r _ <go.fifo; TMPDIR=$SHARED exec "$GX" sort in.fifo -o - --memory 1M -q >O/planted.bin 2>"$WORK/last.err") &
  PID=$!
  plant_names "$PID" out run merge spool dirs bucket
  planted=$(find "$SHARED" -maxdepth 1 -name '.gxsort.*' -user "$OTHER_USER" | wc -l)
  [[ $planted == 726 ]] && pass "the other user planted 726 names for the victim's pid $PID" || fail "planted names" "$planted"
  victim_runs "sort" in.bin O/planted.bin exp.bin 726

  # The same for text lines: their runs ("lines") and the spool of -o -.
  "${PY[@]}" -c "
import random
r = random.Random(3)
open('lines.txt', 'w').write(''.join('%d line %d\\n' % (r.randrange(10 ** 9), i) for i in range(60000)))"
  LC_ALL=C sort lines.txt >lines.want
  mkfifo go.fifo in.fifo
  (read -r _ <go.fifo; TMPDIR=$SHARED exec "$GX" sort --lines in.fifo -o - --memory 1M -q >O/planted.txt 2>"$WORK/last.err") &
  PID=$!
  plant_names "$PID" out lines spool dirs
  victim_runs "sort --lines" lines.txt O/planted.txt lines.want 484
fi

# ---- 3. an in-place rewrite cut short: never read as if it were the input ----
HALF=$((SIZE / 2))
# start_in_place ARGS...: sorts O/hl.bin (hard-linked as O/hl2.bin) onto itself in the
# background, stopped (a test hook) once its first half is rewritten; 0 when it is so.
start_in_place() {
  cp in.bin O/hl.bin; ln -f O/hl.bin O/hl2.bin
  GXSORT_TEST_STOP_AT=in-place "$GX" sort O/hl.bin -o O/hl.bin -q "$@" 2>"$WORK/bg.err" &
  PID=$!
  wait_stopped "$PID" && [[ -e O/hl.bin.gxsort-sorted ]] && cmp -s -n $HALF O/hl.bin exp.bin
}
refused() {  # NAME: the last command was refused with the one line naming the kept copy, nothing changed
  expect_rc "$1: exit 3" 3
  err_mentions "$1: one line, how to restore" "O/hl.bin.gxsort-sorted" "cut short" "cp "
  cmp -s O/hl.bin half.snap && pass "$1: the file is left as it was" || fail "$1: the file is left as it was" "changed"
  same_bytes "$1: the kept copy is still there, whole" O/hl.bin.gxsort-sorted exp.bin
}
for what in "plain:" "job:--memory 1M"; do
  tag=${what%%:*}; args=(${what#*:})
  if start_in_place "${args[@]}"; then
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    cp O/hl.bin half.snap
    cmp -s half.snap exp.bin && fail "$tag, kill -9 in the copy-back: half-written" "whole" \
      || pass "$tag, kill -9 in the copy-back: the file is half-written"
    # (-q: without it, the note on what killed runs left comes first)
    gx sort O/hl.bin -o O/hl.bin "${args[@]}" -q
    refused "$tag, the same sort again"
    gx sort O/hl.bin -o O/hl.bin --memory 1M --resume -q
    refused "$tag, the same sort with --resume"
    gx sort O/hl2.bin -o O/other.bin -q
    refused "$tag, a sort of its other hard link"
    [[ ! -e O/other.bin ]] && pass "$tag: no output" || fail "$tag: no output" "O/other.bin exists"
    gx sort in.bin -o O/hl.bin -q
    refused "$tag, a sort onto it"
    gx check O/hl.bin -q
    refused "$tag, check of it"
    cp O/hl.bin.gxsort-sorted O/hl.bin && rm O/hl.bin.gxsort-sorted   # as the line says
    gx sort O/hl.bin -o O/hl.bin "${args[@]}"
    expect_rc "$tag, restored as the line says: the sort runs again (exit 0)" 0
    same_bytes "$tag, restored: the other hard link holds the sorted data" O/hl2.bin exp.bin
  else
    kill -9 "$PID" 2>/dev/null; wait "$PID"
    fail "$tag, kill -9 in the copy-back" "the rewrite never stopped half-written (exit $?): $(cat "$WORK/bg.err")"
  fi
  "$GX" clean -q
  rm -f O/* half.snap
done

# A rewrite going on now (stopped halfway): refused, and the rewrite, sent SIGTERM and
# let go on, finishes first.
if start_in_place; then
  gx sort O/hl.bin -o O/live.bin -q
  expect_rc "a sort of a file being rewritten in place now: exit 3" 3
  err_mentions "a rewrite going on: one line" "rewriting it in place now" "O/hl.bin.gxsort-sorted"
  kill -TERM "$PID"; kill -CONT "$PID"; wait "$PID"; RC=$?
  [[ $RC == 143 ]] && pass "the rewrite, SIGTERM: finished first, then exit 143" || fail "the rewrite, SIGTERM" "exit $RC"
  same_bytes "the rewrite going on was not disturbed" O/hl2.bin exp.bin
  gx sort O/hl.bin -o O/live.bin
  expect_rc "once it ended: the sort runs (exit 0)" 0
else
  kill -9 "$PID" 2>/dev/null; wait "$PID"; fail "a rewrite going on" "the rewrite never stopped half-written: $(cat "$WORK/bg.err")"
fi
rm -f O/*

# A kept copy another user planted beside the victim's file: not trusted (not the
# caller's nor the file's owner's), as a link neither.
if need_other_user; then
  cp in.bin "$SHARED/v.bin"
  as_other cp "$WORK/exp.bin" "$SHARED/v.bin.gxsort-sorted"
  as_other ln -s "$WORK/exp.bin" "$SHARED/v.bin.gxsort-sorted.1"
  gx sort "$SHARED/v.bin" -o "$SHARED/v.bin"
  expect_rc "a kept copy planted by another user is not trusted: the sort runs (exit 0)" 0
  same_bytes "planted kept copy: the file is sorted" "$SHARED/v.bin" exp.bin
  [[ $(owner_of "$SHARED/v.bin.gxsort-sorted") == "$OTHER_USER" && -L "$SHARED/v.bin.gxsort-sorted.1" ]] \
    && pass "planted kept copies: left as they were" || fail "planted kept copies" "$(ls -l "$SHARED")"
  rm -f "$SHARED"/v.bin*
fi

# ---- 4. a job into a pipe: SIGPIPE leaves nothing ----
"$GX" sort in.bin -o - --memory 1M -q 2>"$WORK/last.err" | head -c 100 >/dev/null; RC=${PIPESTATUS[0]}
[[ $RC == 141 ]] && pass "sort -o - | head -c 100 (out of core): SIGPIPE, exit 141" || fail "sort | head: exit 141" "exit $RC: $(last_err)"
[[ -z "$(leftover_temps "$TMPDIR" "$WORK")" ]] && pass "sort | head: no temp files left" || fail "sort | head: no temp files left" "$(leftover_temps "$TMPDIR" "$WORK")"
[[ -z "$(job_pieces "$TMPDIR" "$WORK")" ]] && pass "sort | head: no job pieces left" || fail "sort | head: no job pieces left" "$(job_pieces "$TMPDIR" "$WORK")"
"$GX" dedupe in.bin -o - --count --memory 1M -q 2>"$WORK/last.err" | head -c 100 >/dev/null; RC=${PIPESTATUS[0]}
[[ $RC == 141 ]] && pass "dedupe --count -o - | head -c 100: exit 141" || fail "dedupe | head: exit 141" "exit $RC: $(last_err)"
[[ -z "$(leftover_temps "$TMPDIR" "$WORK")$(job_pieces "$TMPDIR" "$WORK")" ]] && pass "dedupe | head: nothing left" \
  || fail "dedupe | head: nothing left" "$(leftover_temps "$TMPDIR" "$WORK") $(job_pieces "$TMPDIR" "$WORK")"
"$GX" sort in.bin -o - --memory 1M --resume 2>"$WORK/last.err" | cat >/dev/null; RC=${PIPESTATUS[0]}
expect_rc "sort --resume -o - into a pipe: exit 2" 2
err_mentions "sort --resume into a pipe: one line" "stdout" "--resume"
# Into a regular file by -o - (a shell's redirection) it stays a job.
"$GX" sort in.bin -o - --memory 1M -q >O/redirected.bin 2>"$WORK/last.err"; RC=$?
expect_rc "sort -o - > FILE: exit 0" 0
same_bytes "sort -o - > FILE: its output" O/redirected.bin exp.bin

finish
