#!/usr/bin/env bash
# A sort of text lines killed during its last merge resumes part way through it
# (lib/src/lines/runs_job_merge.cpp): the merge, split over the threads, journals its
# split and each part once its bytes are in the job's output (kept beside the target);
# stopped by a test hook after some parts (GXSORT_TEST_STOP_AT=journal:part) and killed
# (-9, or SIGTERM), the same command with --resume gives GNU sort's bytes (LC_ALL=C
# sort), keeps the parts journalled (-v says how many) and leaves no temp file, job
# directory or kept output. A kept part whose bytes were changed is merged again with
# a note; a kept output that is gone merges every part; plan --resume says what is kept;
# a resume on one thread (a merge that is not split) starts the last merge over.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
command -v sort >/dev/null || { fail "GNU sort" "not installed (coreutils)"; finish; }
source "$HERE/lines_jobs.sh"
mkdir -p T
resume_text 11
parts_kept() { journalled part; }
stop_after() { stop_after_journalled part "$@"; }
# resumed_parts: "K of P" parts of the last merge the last command kept (-v).
resumed_parts() { grep -o '[0-9]* of [0-9]* parts of the last merge' "$WORK/last.err" | awk '{print $1, $3}'; }
nothing_left() {  # NAME: no job directory, kept output or temp file
  local l; l="$(ls -A T)$(job_pieces .)$(leftover_temps . T)"
  [[ -z $l ]] && pass "$1: nothing left" || fail "$1: nothing left" "$(echo $l)"
}

# resume_case NAME KILL_AFTER [ORDER...]: killed (-9) after KILL_AFTER parts, resumed.
resume_case() {
  local name=$1 n=$2; shift 2
  local order=() a
  for a in "$@"; do [[ $a == --threads* ]] || order+=("$a"); done
  LC_ALL=C sort "${order[@]}" in.txt >ref.txt
  local SORT=(sort --lines "$@" in.txt -o out.txt --memory 1M -T T)
  rm -f out.txt
  stop_after "$n" KILL "${SORT[@]}" || return
  [[ ! -e out.txt && -n $(job_pieces .) ]] && pass "$name: killed in the last merge: no output, the job's output kept" \
    || fail "$name: killed in the last merge: no output, the job's output kept" "$(ls -A . T)"
  gx "${SORT[@]}" --resume -v
  expect_rc "$name: --resume exits 0" 0
  same_bytes "$name: --resume gives GNU sort's bytes" out.txt ref.txt
  local r; r=$(resumed_parts)
  [[ -n $r && ${r% *} == "$KEPT" ]] && pass "$name: kept the $KEPT parts journalled (of ${r#* })" \
    || fail "$name: kept the $KEPT parts journalled" "'$r' $(last_err)"
  nothing_left "$name"
}
resume_case "whole lines" 3
resume_case "-t, -k2,2n" 4 -t, -k2,2n
resume_case "-s -t, -k2,2n" 4 -s -t, -k2,2n
resume_case "-r -k3" 2 -r -k3
# -u splits its last merge from 4 threads (lib/src/lines/merge.cpp: merge_runs).
resume_case "-u" 6 -u --threads=4
resume_case "-u -t, -k2,2n" 5 -u -t, -k2,2n --threads=4

LC_ALL=C sort in.txt >ref.txt
SORT=(sort --lines in.txt -o out.txt --memory 1M -T T)

# plan --resume: the parts kept, the job left as it is.
stop_after 3 KILL "${SORT[@]}"
gx plan --lines in.txt -o out.txt --memory 1M -T T --resume
grep -q "the last merge: $KEPT of its [0-9]* parts kept" "$WORK/last.out" && pass "plan --resume: the $KEPT parts kept" \
  || fail "plan --resume: the parts kept" "rc $RC: $(cat "$WORK/last.out") $(last_err)"
gx plan --lines in.txt -o out.txt --memory 1M -T T --resume --json
[[ $(json_get "$WORK/last.out" 'j["resume"]["parts_kept"]') == "$KEPT" ]] && pass "plan --resume --json: parts_kept" \
  || fail "plan --resume --json: parts_kept" "$(cat "$WORK/last.out")"

# A kept part whose bytes changed: merged again with a note; the others kept.
part=$(journal | awk '$1 == "part" && $5 > 0 {print $2, $9, $5; exit}')
read -r p at bytes <<<"$part"
flip_byte "$(job_pieces . | grep '\.out$')" $((at + bytes / 2))
gx "${SORT[@]}" --resume -v
same_bytes "changed part: --resume gives GNU sort's bytes" out.txt ref.txt
grep -q "resume: part $p of the last merge (bytes $at..$((at + bytes)) of .*) discarded: its XXH3 is not the journal.s; merged again" \
  "$WORK/last.err" && pass "changed part: merged again, with a note" || fail "changed part: merged again, with a note" "$(last_err)"
r=$(resumed_parts)
[[ ${r% *} == $((KEPT - 1)) ]] && pass "changed part: the other $((KEPT - 1)) kept" \
  || fail "changed part: the others kept" "'$r' (of $KEPT) $(last_err)"
nothing_left "changed part"

# SIGTERM in the last merge: the job and its output kept, one line; then --resume.
stop_after 2 TERM "${SORT[@]}"
expect_rc "SIGTERM: dies of it" 143
[[ $(wc -l <"$WORK/last.err") == 1 && -n $(job_pieces .) && -z $(leftover_temps . T) ]] \
  && pass "SIGTERM: the job's output kept, one line" || fail "SIGTERM: the job's output kept" "$(last_err) $(ls -A . T)"
gx "${SORT[@]}" --resume -v
same_bytes "SIGTERM: --resume gives GNU sort's bytes" out.txt ref.txt
r=$(resumed_parts)
[[ ${r% *} == "$KEPT" ]] && pass "SIGTERM: kept the $KEPT parts" || fail "SIGTERM: kept the parts" "'$r' $(last_err)"
nothing_left "SIGTERM"

# The kept output gone: every part merged, with a note.
stop_after 3 KILL "${SORT[@]}"
rm -f "$(job_pieces . | grep '\.out$')"
gx "${SORT[@]}" --resume -v
same_bytes "output gone: --resume gives GNU sort's bytes" out.txt ref.txt
grep -q "resume: the job's output beside the target is gone" "$WORK/last.err" && pass "output gone: says so" \
  || fail "output gone: says so" "$(last_err)"
r=$(resumed_parts)
[[ ${r% *} == 0 ]] && pass "output gone: no part kept" || fail "output gone: no part kept" "'$r' $(last_err)"
nothing_left "output gone"

# Resumed on one thread: the last merge is not split, it starts over (into the kept output).
stop_after 3 KILL "${SORT[@]}"
gx "${SORT[@]}" --resume -v --threads 1
same_bytes "one thread: --resume gives GNU sort's bytes" out.txt ref.txt
grep -q "resumed: [0-9]* of [0-9]* runs (the last merge starts over)" "$WORK/last.err" \
  && pass "one thread: the last merge starts over" || fail "one thread: the last merge starts over" "$(last_err)"
nothing_left "one thread"
finish
