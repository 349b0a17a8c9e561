#!/usr/bin/env bash
# A signal cancels the command (app/signals.hpp): its handler sets the command's
# CancelToken, the command unwinds at its next chunk, run or window (no output replaced,
# no temp file left, the job's journalled pieces kept for --resume) and the process dies
# of the signal. GXSORT_TEST_SIGNAL_GRACE_MS (a test hook) sets how long the first signal
# leaves it to unwind: 600000 makes the unwinding the only way out (a broken token would
# let the sort finish and replace the output), 0 ends it the old way at once (every temp
# file removed, then dead of the signal). A command blocked where nothing polls (a read
# from a FIFO that never gets data) dies after the standard grace (2 s), or at a second
# signal, the old way.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p T O
gx gen -o in.bin --count $((8 * 1024 * 1024)) --seed 7 -q   # 64 MiB of u64
[[ $RC == 0 ]] || { fail "gen of the input" "exit $RC: $(last_err)"; finish; }
gx sort in.bin -o ref.bin -q
printf 'OLD CONTENT' >old.ref
SORT=(sort in.bin -o O/old.out --memory 1M --ooc merge -T T --threads 1)   # 256 runs

# Background jobs of a non-interactive shell start with SIGINT ignored, and gxsort keeps
# a signal ignored at start ignored: this restores the default before it runs CMD.
# (A command, not a function: the background job's pid must be gxsort's.)
SIGINT_DEFAULT=("${PY[@]}" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])')
journal() { cat T/.gxsort-job.*/journal 2>/dev/null; }

# cancel_case NAME SIGNAL GRACE_MS: the sort stops itself after each journalled run
# (GXSORT_TEST_STOP_AT=journal:run, a test hook); after the fifth it gets SIGNAL and is
# let go on. Then: the exit status of that signal, no temp file, the old output kept,
# the job's pieces kept, and --resume reuses them and gives the bytes of a plain sort.
cancel_case() {
  local name=$1 sig=$2 grace=$3 quiet=${4:-}
  printf 'OLD CONTENT' >O/old.out
  GXSORT_TEST_SIGNAL_GRACE_MS=$grace GXSORT_TEST_STOP_AT=journal:run "${SIGINT_DEFAULT[@]}" "$GX" "${SORT[@]}" $quiet \
    2>"$WORK/last.err" &
  PID=$!
  if ! stopped_when "$PID" '(($(journal | grep -c "^run ") >= 5))'; then
    wait "$PID"; fail "$name" "the sort ended (exit $?) before it journalled 5 runs: $(last_err)"; return
  fi
  kill -s "$sig" "$PID"
  go_on "$PID"
  wait "$PID"; RC=$?
  expect_rc "$name: died of SIG$sig" $((128 + $(kill -l "$sig")))
  local l; l=$(leftover_temps T O "$WORK")
  [[ -z $l ]] && pass "$name: no temp file left" || fail "$name: no temp file left" "$(echo $l)"
  cmp -s O/old.out old.ref && pass "$name: the existing output is untouched" || fail "$name: the existing output is untouched" "replaced"
  [[ -n $(job_pieces T) ]] && pass "$name: the job's directory is kept" || fail "$name: the job's directory is kept" "none"
  if [[ -z $quiet ]]; then  # one line as it dies: what it kept, where, how much, and the ways on
    local said; said=$(cat "$WORK/last.err")
    [[ $(wc -l <"$WORK/last.err") == 1 && $said == "gxsort: "*": in "*"T: "*"kept for --resume ("*"B;"*"--resume continues"*"\`gxsort clean "*"-T T\` removes them" ]] \
      && pass "$name: says what it kept for --resume" || fail "$name: says what it kept for --resume" "$said"
  else
    [[ ! -s "$WORK/last.err" ]] && pass "$name: -q: nothing said" || fail "$name: -q: nothing said" "$(last_err)"
  fi
  gx "${SORT[@]}" --resume -v
  expect_rc "$name: --resume exits 0" 0
  same_bytes "$name: --resume gives the bytes of a plain sort" O/old.out ref.bin
  local r; r=$(grep -o 'resumed: [0-9]* of [0-9]* runs' "$WORK/last.err")
  [[ $r =~ resumed:\ ([0-9]+)\ of && ${BASH_REMATCH[1]} -ge 5 ]] && pass "$name: --resume reuses the runs kept ($r)" \
    || fail "$name: --resume reuses the runs kept" "'$r' $(last_err)"
  [[ -z "$(job_pieces T O)$(leftover_temps T O)" ]] && pass "$name: nothing left after the resume" \
    || fail "$name: nothing left after the resume" "$(job_pieces T O) $(leftover_temps T O)"
}
cancel_case "SIGINT during run formation, unwound" INT 600000
cancel_case "SIGTERM during run formation, ended at once (grace 0)" TERM 0 -q

# ---- a command blocked where nothing polls: a read from a FIFO without data ----
mkfifo in.fifo
exec 7<>in.fifo   # a writer that never writes: gxsort's read blocks
now_ms() { date +%s%3N; }
# blocked PID: until PID has opened the FIFO, made its output's temp file (before its
# first read) and sleeps (polled, 60 s at most); 1 if it ended first or did not get there.
blocked() {
  local end=$((SECONDS + 60)) fd st
  while ((SECONDS < end)); do
    [[ -e /proc/$1 ]] || return 1
    for fd in /proc/"$1"/fd/*; do
      [[ $(readlink "$fd" 2>/dev/null) == "$WORK/in.fifo" ]] || continue
      read -r st 2>/dev/null </proc/"$1"/stat; st=${st##*) }
      [[ ${st:0:1} == S && -n "$(leftover_temps O)" ]] && return 0
    done
    sleep 0.02
  done
  return 1
}
# no_pending PID: until PID's handler has taken the signals sent (none pending: polled,
# 60 s at most), so that a second one is not merged with the first.
no_pending() {
  local end=$((SECONDS + 60)) t
  while ((SECONDS < end)); do
    t=$(grep -h '^ShdPnd:\|^SigPnd:' /proc/"$1"/status /proc/"$1"/task/*/status 2>/dev/null | grep -vc ':\s*0*$')
    [[ $t == 0 ]] && return 0
    sleep 0.02
  done
  return 1
}
# fifo_case NAME GRACE_MS SIGNALS: sorts the FIFO into O/fifo.out; once blocked, sends
# SIGTERM SIGNALS times (each taken before the next); it must die of it within 10 s
# (the standard grace is 2 s) with no temp file left.
fifo_case() {
  local name=$1 grace=$2 times=$3 i t0
  rm -f O/fifo.out
  if [[ -z $grace ]]; then "$GX" sort in.fifo -o O/fifo.out -T T -q 2>"$WORK/last.err" &
  else GXSORT_TEST_SIGNAL_GRACE_MS=$grace "$GX" sort in.fifo -o O/fifo.out -T T -q 2>"$WORK/last.err" & fi
  PID=$!
  if ! blocked "$PID"; then
    kill -9 "$PID" 2>/dev/null; wait "$PID"; fail "$name" "it never blocked reading the FIFO (exit $?): $(last_err)"; return
  fi
  t0=$(now_ms)
  for ((i = 1; i <= times; i++)); do
    ((i > 1)) && ! no_pending "$PID" && { fail "$name" "the first signal was never taken"; break; }
    kill -TERM "$PID"
  done
  local end=$((SECONDS + 60))
  while kill -0 "$PID" 2>/dev/null && ((SECONDS < end)); do sleep 0.02; done
  local took=$(($(now_ms) - t0))
  kill -9 "$PID" 2>/dev/null
  wait "$PID"; RC=$?
  expect_rc "$name: died of SIGTERM" 143
  ((took < 10000)) && pass "$name: within 10 s (${took} ms)" || fail "$name: within 10 s" "${took} ms"
  [[ -z "$(leftover_temps T O "$WORK")" ]] && pass "$name: no temp file left" || fail "$name: no temp file left" "$(leftover_temps T O "$WORK")"
  [[ ! -e O/fifo.out ]] && pass "$name: no output" || fail "$name: no output" "O/fifo.out exists"
}
fifo_case "a sort blocked reading a FIFO, SIGTERM: ended after the grace" "" 1
fifo_case "a sort blocked reading a FIFO, grace 600 s, a second SIGTERM: ended at once" 600000 2
exec 7>&-
finish
