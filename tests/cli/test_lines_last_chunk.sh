#!/usr/bin/env bash
# The out-of-core sort of lines keeps its text's last chunk in memory (sorted, not
# written as a run) and merges it with the runs (lib/src/lines/sort_lines.cpp,
# keeps_last). With --memory 1M a chunk holds 2048 lines of 128 bytes: texts of 6143,
# 6145 and 6144 such lines end with a chunk of 2047 lines, of one line, and of none
# (the third run fills its buffer: all runs on disk). Each order gives GNU sort's
# bytes (LC_ALL=C sort), on 2 and 4 threads (-u's merge split over the threads from 4),
# with the chunk kept (GXSORT_TIMELINE says so) and, GXSORT_LINES_KEEP_LAST=0, written;
# a stream's last chunk too; a sort killed in its last merge (every run journalled, the
# last chunk in memory) resumes (--resume) from its runs; no temp file is left.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
command -v sort >/dev/null || { fail "GNU sort" "not installed (coreutils)"; finish; }
mkdir -p T
"${PY[@]}" -c '
import random
r = random.Random(5)
def line():
    w = "".join(r.choice("abcde") for _ in range(r.randint(1, 6)))
    s = "%s,%d," % (w, r.randint(-50, 50))
    return s + "x" * (127 - len(s)) + "\n"
for n in (6143, 6144, 6145):
    open("t%d.txt" % n, "w").write("".join(line() for _ in range(n)))
'
SMALL=(--memory 1M -T T)
kept_said() { grep -q 'lines: last chunk kept in memory' "$WORK/last.err"; }

# case N OPTS THREADS: the sort of tN.txt equals GNU's; the last chunk kept unless N is 6144.
case_of() {
  local n=$1 opts=$2 threads=$3
  LC_ALL=C sort $opts "t$n.txt" >want
  rm -f got
  GXSORT_TIMELINE=1 gx sort --lines $opts "t$n.txt" -o got --parallel "$threads" "${SMALL[@]}"
  same_bytes "$n lines, '$opts', $threads threads: GNU's bytes" got want
  if [[ $n == 6144 ]]; then
    kept_said && fail "$n lines, '$opts': no last chunk to keep" "$(last_err)" || pass "$n lines, '$opts': all runs on disk"
  else
    kept_said && pass "$n lines, '$opts': the last chunk kept in memory" || fail "$n lines, '$opts': kept" "$(last_err)"
  fi
}
for n in 6143 6145 6144; do
  for opts in "" "-u" "-s -t, -k1,1" "-t, -k2,2n" "-t, -k2,2n -u" "-r -t, -k1,1"; do
    for threads in 2 4; do case_of "$n" "$opts" "$threads"; done
  done
done
[[ -z $(ls -A T) ]] && pass "no temp file left" || fail "no temp file left" "$(ls -A T)"

# The knob off: written as a run, the same bytes.
LC_ALL=C sort -u t6145.txt >want
GXSORT_LINES_KEEP_LAST=0 GXSORT_TIMELINE=1 gx sort --lines -u t6145.txt -o got "${SMALL[@]}"
same_bytes "GXSORT_LINES_KEEP_LAST=0: GNU's bytes" got want
kept_said && fail "GXSORT_LINES_KEEP_LAST=0: written as a run" "$(last_err)" || pass "GXSORT_LINES_KEEP_LAST=0: written as a run"

# A stream (one chunk slot: its last chunk kept too).
LC_ALL=C sort -t, -k2,2n t6143.txt >want
GXSORT_TIMELINE=1 gx sort -t, -k2,2n - -o got "${SMALL[@]}" <t6143.txt
same_bytes "standard input: GNU's bytes" got want
kept_said && pass "standard input: the last chunk kept" || fail "standard input: kept" "$(last_err)"

# Killed in its last merge: every run journalled (2), the last chunk in memory. --resume
# reuses both runs and sorts the last chunk again.
journal() { cat T/.gxsort-job.*/journal 2>/dev/null; }
for opts in "" "-u -t, -k2,2n"; do
  LC_ALL=C sort $opts t6143.txt >want
  rm -f got
  GXSORT_TEST_STOP_AT=journal:run "$GX" sort --lines $opts t6143.txt -o got "${SMALL[@]}" 2>"$WORK/last.err" &
  pid=$!
  if stopped_when "$pid" '(($(journal | grep -c "^run ") >= 2))'; then
    kill -KILL "$pid"; wait "$pid" 2>/dev/null
    find . -name ".gxsort.*.$pid.*.tmp" -delete  # the dead process's output temp file: gxsort clean's
    gx sort --lines $opts t6143.txt -o got "${SMALL[@]}" --resume -v
    expect_rc "killed in its last merge, '$opts': --resume exits 0" 0
    same_bytes "killed in its last merge, '$opts': --resume gives GNU's bytes" got want
    grep -q 'resumed: 2 of 3 runs' "$WORK/last.err" && pass "'$opts': the 2 runs on disk reused" \
      || fail "'$opts': the 2 runs on disk reused" "$(last_err)"
  else
    wait "$pid"; fail "'$opts': stopped after its 2 runs" "it ended first: $(last_err)"
  fi
  l="$(ls -A T)$(leftover_temps . T)"
  [[ -z $l ]] && pass "'$opts': after --resume nothing left" || fail "'$opts': after --resume nothing left" "$l"
done
finish
