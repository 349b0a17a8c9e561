#!/usr/bin/env bash
# A killed sort of text lines resumes from the runs it kept (--resume, lib/src/lines/
# runs_job.hpp): stopped by a test hook after each journalled run (GXSORT_TEST_STOP_AT=
# journal:run) and killed (-9, or SIGTERM: the line saying what was kept) after some,
# the same command with --resume gives GNU sort's bytes (LC_ALL=C sort), reuses the runs
# kept (-v says how many) and leaves no temp file or job directory. A touched input
# starts afresh; a damaged run is discarded with a note and formed again; without
# --resume a dead job's runs are not reused; -u and a keyed order too. Streams and the
# commands that keep no job refuse --resume.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
command -v sort >/dev/null || { fail "GNU sort" "not installed (coreutils)"; finish; }
source "$HERE/lines_jobs.sh"
mkdir -p T
resume_text 7
runs_kept() { journalled run; }
stop_after() { stop_after_journalled run "$@"; }
# resumed_runs: the runs the last command reused ("resumed: N of M runs" with -v).
resumed_runs() { grep -o 'resumed: [0-9]* of [0-9]* runs' "$WORK/last.err" | awk '{print $2}'; }
nothing_left() {  # NAME: no job directory, no temp file
  local l; l="$(ls -A T)$(leftover_temps . T)"
  [[ -z $l ]] && pass "$1: nothing left" || fail "$1: nothing left" "$(echo $l)"
}

# resume_case NAME KILL_AFTER [ORDER...]: killed (-9) after KILL_AFTER runs, resumed.
resume_case() {
  local name=$1 n=$2; shift 2
  LC_ALL=C sort "$@" in.txt >ref.txt
  local SORT=(sort --lines "$@" in.txt -o out.txt --memory 1M -T T)
  rm -f out.txt
  stop_after "$n" KILL "${SORT[@]}" || return
  [[ ! -e out.txt && -n $(job_pieces T) ]] && pass "$name: killed: no output, the job's runs kept" \
    || fail "$name: killed: no output, the job's runs kept" "$(ls -A . T)"
  gx "${SORT[@]}" --resume -v
  expect_rc "$name: --resume exits 0" 0
  same_bytes "$name: --resume gives GNU sort's bytes" out.txt ref.txt
  local r; r=$(resumed_runs)
  [[ -n $r ]] && ((r >= n)) && pass "$name: reused the $r runs kept" || fail "$name: reused the runs kept" "'$r' $(last_err)"
  nothing_left "$name"
}
resume_case "whole lines" 5
resume_case "-u" 4 -u
resume_case "-t, -k2,2n" 6 -t, -k2,2n
resume_case "-u -t, -k2,2n" 3 -u -t, -k2,2n

LC_ALL=C sort in.txt >ref.txt
SORT=(sort --lines in.txt -o out.txt --memory 1M -T T)

# SIGTERM: the signal path keeps the runs and says so in one line, then --resume.
stop_after 3 TERM "${SORT[@]}"
expect_rc "SIGTERM: dies of it" 143
said=$(cat "$WORK/last.err")
[[ $(wc -l <"$WORK/last.err") == 1 && $said == *"kept for --resume"*"gxsort clean"* ]] \
  && pass "SIGTERM: says what it kept for --resume" || fail "SIGTERM: says what it kept" "$said"
[[ -z $(leftover_temps . T) && -n $(job_pieces T) ]] && pass "SIGTERM: runs kept, no temp file" \
  || fail "SIGTERM: runs kept, no temp file" "$(ls -A . T)"
gx "${SORT[@]}" --resume -v
same_bytes "SIGTERM: --resume gives GNU sort's bytes" out.txt ref.txt
r=$(resumed_runs)
[[ -n $r ]] && ((r >= 3)) && pass "SIGTERM: reused the $r runs kept" || fail "SIGTERM: reused the runs kept" "'$r' $(last_err)"
nothing_left "SIGTERM"

# plan --resume: the runs a killed run kept, in order, its directory untouched.
gx plan --lines in.txt -o out.txt --memory 1M -T T --resume
grep -q 'resume: no killed run of this job' "$WORK/last.out" && pass "plan --resume: no job yet" \
  || fail "plan --resume: no job yet" "$(cat "$WORK/last.out")"
stop_after 5 KILL "${SORT[@]}"
gx plan --lines in.txt -o out.txt --memory 1M -T T --resume
grep -q 'runs kept: 5, in the text.s order' "$WORK/last.out" && pass "plan --resume: the 5 runs kept" \
  || fail "plan --resume: the 5 runs kept" "rc $RC: $(cat "$WORK/last.out") $(last_err)"
gx plan merge --lines ref.txt -o out.txt -T T --resume
grep -q 'resume: merge of text lines keeps no job' "$WORK/last.out" && pass "plan merge --resume: keeps no job" \
  || fail "plan merge --resume: keeps no job" "$(cat "$WORK/last.out")"
gx "${SORT[@]}" -q  # the dead job goes
nothing_left "plan --resume"

# Text within the budget whose lines' index is not (200000 short lines, 1M): it goes
# through runs too, and plan --resume finds what a killed run of it kept.
"${PY[@]}" -c "
import random
r = random.Random(4)
open('short.txt', 'w').write(''.join('%d\\n' % r.randrange(1000) for _ in range(200000)))"
SHORT=(sort --lines short.txt -o out.txt --memory 1M -T T)
stop_after 2 KILL "${SHORT[@]}"
gx plan --lines short.txt -o out.txt --memory 1M -T T --resume
grep -q 'runs kept: [2-9]' "$WORK/last.out" && pass "plan --resume, short lines within the budget: the runs kept" \
  || fail "plan --resume, short lines within the budget" "rc $RC: $(cat "$WORK/last.out") $(last_err)"
gx "${SHORT[@]}" --resume -q
LC_ALL=C sort short.txt >short.ref
same_bytes "short lines within the budget: --resume gives GNU sort's bytes" out.txt short.ref
nothing_left "short lines within the budget"

# A damaged run: discarded with a note, formed again; the runs after it still reused.
stop_after 5 KILL "${SORT[@]}"
flip_byte "$(ls T/.gxsort-job.*/run-000002.bin)" 100
gx "${SORT[@]}" --resume -v
same_bytes "damaged run: --resume gives GNU sort's bytes" out.txt ref.txt
grep -q 'resume: run 2 (.*) discarded: its XXH3 is not the journal.s; formed again' "$WORK/last.err" \
  && pass "damaged run: discarded with a note" || fail "damaged run: discarded with a note" "$(last_err)"
r=$(resumed_runs)
[[ $r == 4 ]] && pass "damaged run: the other 4 reused" || fail "damaged run: the other 4 reused" "'$r' $(last_err)"
nothing_left "damaged run"

# A touched input is another job: nothing reused, the dead job's runs removed.
stop_after 4 KILL "${SORT[@]}"
touch -d '2001-01-01' in.txt
gx "${SORT[@]}" --resume -v
same_bytes "touched input: --resume gives GNU sort's bytes" out.txt ref.txt
r=$(resumed_runs)
[[ $r == 0 ]] && pass "touched input: starts afresh" || fail "touched input: starts afresh" "'$r' $(last_err)"
nothing_left "touched input"

# Without --resume a dead job's runs go first.
stop_after 4 KILL "${SORT[@]}"
gx "${SORT[@]}" -v
same_bytes "no --resume: GNU sort's bytes" out.txt ref.txt
grep -q 'resumed:' "$WORK/last.err" && fail "no --resume: nothing reused" "$(last_err)" || pass "no --resume: nothing reused"
nothing_left "no --resume"

# In memory: no job, nothing kept; streams and merge refuse --resume.
gx sort --lines in.txt -o out.txt --resume -T T
expect_rc "in memory: --resume runs" 0
same_bytes "in memory: GNU sort's bytes" out.txt ref.txt
nothing_left "in memory"
cat in.txt | "$GX" sort --lines - -o out.txt --resume --memory 1M -T T 2>"$WORK/last.err"; RC=$?
expect_rc "a stream: --resume refused" 2
err_mentions "a stream: says why" "stream cannot be read again"
gx merge --lines ref.txt -o out.txt --resume -T T
expect_rc "merge --lines: --resume refused" 2
nothing_left "refusals"
finish
