#!/usr/bin/env bash
# A killed job resumes where it stopped (--resume): kill -9 during run formation, between
# merge levels and during the last merge (stopped by a test hook after each journal line, killed at the one it waits for), then the
# same command with --resume gives the bytes of a plain sort and reuses what was kept.
# A touched input starts afresh; a damaged piece is formed again; without --resume a
# dead job's directory is removed first; success removes the job directory.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p T
gx gen -o in.bin --count $((24 * 1024 * 1024)) --seed 11 --dist few-unique -q   # 192 MiB
gx sort in.bin -o ref.bin --memory 4G -q
SORT=(sort in.bin -o out.bin --memory 6M --ooc merge -T T)   # ~100 runs, fan-in 64: two merge levels
gx plan in.bin --memory 6M --ooc merge -T T --json
levels=$(json_get "$WORK/last.out" 'len(j["levels"])')
[[ $levels == 2 ]] && pass "the job has two merge levels" || fail "two merge levels" "got $levels"

journal() { cat T/.gxsort-job.*/journal 2>/dev/null; }
# kill_when NAME PATTERN MIN: starts the sort, kills it (-9) once the journal holds MIN
# lines matching PATTERN; 0 when it was killed there. The sort stops itself after each
# journal line of the pattern's kind (GXSORT_TEST_STOP_AT=journal:KIND, a test hook),
# and is killed there or let go on: the kill lands right after that line, however fast
# the merge (a GPU's takes milliseconds) or slow the machine.
kill_when() {
  rm -f out.bin
  local kind=${2#^}
  GXSORT_TEST_STOP_AT=journal:${kind%% *} "$GX" "${SORT[@]}" -q 2>/dev/null &
  local pid=$!
  while wait_stopped $pid 300; do
    if (($(journal | grep -c "$2") >= $3)); then kill -9 $pid; wait $pid 2>/dev/null; return 0; fi
    kill -CONT $pid
  done
  wait $pid 2>/dev/null
  fail "$1" "the sort ended (exit $?) before the journal held $3 '$2' entries"
  return 1
}
resume_case() {  # NAME PATTERN MIN
  local name=$1
  kill_when "$@" || return
  [[ ! -e out.bin ]] && pass "$name: killed, no output yet" || fail "$name: no output after kill -9" "out.bin exists"
  gx "${SORT[@]}" --resume -v
  expect_rc "$name: --resume exits 0" 0
  same_bytes "$name: --resume gives the bytes of a plain sort" out.bin ref.bin
  local r; r=$(grep -o 'resumed: [0-9]* of [0-9]* runs, [0-9]* of [0-9]* merge outputs' "$WORK/last.err")
  if [[ $r =~ resumed:\ ([0-9]+)\ of\ [0-9]+\ runs,\ ([0-9]+)\ of ]] && ((BASH_REMATCH[1] + BASH_REMATCH[2] > 0)); then
    pass "$name: reused what was kept ($r)"
  else fail "$name: reused what was kept" "'$r' $(last_err)"; fi
  [[ -z "$(ls -A T)" ]] && pass "$name: success removes the job directory" || fail "$name: job directory removed" "$(ls -A T)"
}
resume_case "killed during run formation" '^run ' 20
resume_case "killed during the first merge level" '^level 1 0 ' 1
resume_case "killed during the last merge" '^level 1 1 ' 1

# The last merge keeps checkpoints (the output whole up to here, its inputs consumed up
# to there) and punches its pieces only behind them: killed after a few, a resume
# verifies them and merges on from the last.
final_case() {  # NAME MIN [sort options]: kill after MIN checkpoints, resume, compare with ref
  local name=$1 min=$2
  kill_when "$name" '^final ' "$min" || return
  [[ -n "$(ls -a . | grep '^\.gxsort-job\..*\.out$')" ]] && pass "$name: the job's output kept beside the target" || fail "$name: job output kept" "$(ls -a)"
  gx "${SORT[@]}" --resume -v
  expect_rc "$name: --resume exits 0" 0
  same_bytes "$name: --resume gives the bytes of a plain sort" out.bin "$REF"
  local r; r=$(grep -o 'the last merge from [0-9]*%' "$WORK/last.err")
  [[ $r =~ from\ ([0-9]+)% ]] && ((BASH_REMATCH[1] > 0)) && pass "$name: merged on from a checkpoint ($r)" || fail "$name: resumed from a checkpoint" "$(last_err)"
  # Nothing was damaged: no piece discarded (a run held in memory, journalled without a
  # file, is formed again without a note).
  grep -q 'discarded' "$WORK/last.err" && fail "$name: nothing discarded" "$(last_err)" || pass "$name: nothing discarded"
  [[ -z "$(ls -A T)" && -z "$(ls -a . | grep '^\.gxsort')" ]] && pass "$name: success leaves nothing" || fail "$name: leftovers" "$(ls -A T; ls -a . | grep gxsort)"
}
REF=ref.bin
for n in 1 4 9; do final_case "two levels, killed after $n checkpoints of the last merge" $n; done

# --no-fsync: the journal is not fsync'd either (its pieces never are); a kill -9 still
# loses nothing it lists.
SORT+=(--no-fsync)
final_case "--no-fsync, killed after 4 checkpoints of the last merge" 4
resume_case "--no-fsync, killed during the first merge level" '^level 1 0 ' 1
if command -v strace >/dev/null; then
  strace -f -e trace=fsync,fdatasync -o fsyncs.txt "$GX" "${SORT[@]}" -q
  [[ $(grep -c 'fsync' fsyncs.txt) == 0 ]] && pass "--no-fsync: a journalled job makes no fsync call" ||
    fail "--no-fsync: no fsync" "$(grep fsync fsyncs.txt | head -3)"
  rm -f fsyncs.txt out.bin
else
  skip "--no-fsync: a journalled job makes no fsync call" "strace is not installed"
fi
unset 'SORT[-1]'

# plan --resume: what a resume would find, read without touching the job.
gx plan "${SORT[@]:1}" --resume
grep -q 'resume: no killed run of this job' "$WORK/last.out" && pass "plan --resume without a killed run: starts from the beginning" || fail "plan --resume, no job" "$(cat "$WORK/last.out")"
if kill_when "plan --resume" '^final ' 4; then
  gx plan "${SORT[@]:1}" --resume
  grep -q 'kept: 0 of [0-9]* runs, 2 of 2 merge outputs, the last merge [1-9][0-9]*% done' "$WORK/last.out" &&
    grep -q 'left: form 0 runs, 0 merges, then the last merge from' "$WORK/last.out" &&
    pass "plan --resume shows the kept pieces and what is left" || fail "plan --resume text" "$(tail -4 "$WORK/last.out")"
  gx plan "${SORT[@]:1}" --resume --json
  [[ $(json_get "$WORK/last.out" '(j["resume"]["merges_kept"], j["resume"]["runs_to_form"], j["resume"]["last_merge_from"] > 0, j["resume"]["running"])') == "(2, 0, True, False)" ]] &&
    pass "plan --resume --json: merges_kept, runs_to_form, last_merge_from" || fail "plan --resume json" "$(cat "$WORK/last.out")"
  gx "${SORT[@]}" --resume -q
  same_bytes "after plan --resume, the resume gives the bytes of a plain sort" out.bin ref.bin
fi
gx plan in.bin --memory 6M --resume
expect_rc "plan --resume without -o: exit 2" 2
SORT=(sort in.bin -o out.bin --memory 24M --ooc merge -T T)   # ~25 runs: one merge, of the runs (the last held in memory)
final_case "one level, killed after 5 checkpoints" 5
# --unique: a group of equal keys may straddle a checkpoint; the resume drops its rest.
gx gen -o uin.bin --count $((24 * 1024 * 1024)) --seed 12 --dist zipf -q
gx sort uin.bin -o uref.bin -u --memory 4G -q
SORT=(sort uin.bin -o out.bin -u --memory 6M --ooc merge -T T)
REF=uref.bin
final_case "-u, killed after 2 checkpoints" 2
# A damaged output segment: the checkpoints from it on are not trusted, and the pieces
# the merge punched behind them are formed again (the same bytes).
SORT=(sort in.bin -o out.bin --memory 24M --ooc merge -T T)
REF=ref.bin
if kill_when "damaged output" '^final ' 6; then
  flip_byte "$(ls -a | grep '^\.gxsort-job\..*\.out$')" $((20 * 1024 * 1024))
  gx "${SORT[@]}" --resume -v
  same_bytes "a flipped byte in the kept output: --resume gives the bytes of a plain sort" out.bin ref.bin
  # The byte is at 20 MiB of 192: no checkpoint past it is trusted (they are 16 MiB apart).
  r=$(grep -o 'the last merge from [0-9]*%' "$WORK/last.err" | grep -o '[0-9]*')
  (( ${r:-0} * 192 <= 20 * 100 )) && pass "a damaged output segment: resumed before it (${r:-0}%)" || fail "damaged segment not trusted" "from $r%"
  grep -q "gxsort: note: resume: checkpoint [0-9]* of the last merge (bytes [0-9]*\.\.[0-9]* of .*) discarded: its XXH3 is not the journal.s; the last merge" "$WORK/last.err" &&
    pass "a damaged output segment: its checkpoint discarded with a note" || fail "checkpoint note" "$(last_err)"
fi
# The last runs this plan keeps in memory for its merge (Plan::held_runs): journalled
# without a file (their records alone), so a resume forms them again unless the last
# merge's checkpoint covers them whole (the case after the next).
gx plan "${SORT[@]:1}" --json
held=$(json_get "$WORK/last.out" 'j["held_runs"]')
[[ ${held:-0} -ge 1 ]] && pass "one level: the plan keeps its last $held runs in memory" || fail "one level: runs kept in memory" "got '$held'"
# A kept piece damaged beyond its checkpoint's cut: formed again, the checkpoint still used.
if kill_when "damaged piece under the last merge" '^final ' 3; then
  piece=$(ls T/.gxsort-job.*/run-000002.bin)
  flip_byte "$piece" $(( $(stat -c %s "$piece") - 100 ))
  gx "${SORT[@]}" --resume -v
  same_bytes "a flipped byte in a run under the last merge: --resume gives the bytes of a plain sort" out.bin ref.bin
  # Every run but the damaged one reused (the run count is the backend's: 32 on the CPU, 24 on a GPU).
  # A GPU's last merge can end before the poll sees its third checkpoint, and its inputs
  # then go from the first: those its last checkpoint covers whole are reused without
  # their files (the case below); one it does not, formed again, says its file is missing.
  r=$(grep -o 'resumed: [0-9]* of [0-9]* runs' "$WORK/last.err")
  gone=$(grep -c 'discarded: its file is missing' "$WORK/last.err")
  [[ $r =~ resumed:\ ([0-9]+)\ of\ ([0-9]+) ]] && ((BASH_REMATCH[1] + 1 + gone + held == BASH_REMATCH[2])) &&
    grep -q 'resume: run 2 (.*) discarded: the XXH3 of its bytes' "$WORK/last.err" &&
    pass "the damaged run formed again, the others reused ($r, $gone removed before the kill, $held held in memory)" ||
    fail "the damaged run formed again" "'$r' $(last_err)"
  grep -q 'the last merge from [1-9]' "$WORK/last.err" && pass "the checkpoint still used" || fail "checkpoint used" "$(last_err)"
fi

# Killed after the last merge ended (its last checkpoint covers every input) and removed
# its inputs, before the commit (the output's fsync is a wide window): the resume forms
# no run again, not even those that were held in memory (their journal lines give their
# records, which the checkpoint covers), reads nothing of the input, and commits the
# output the checkpoints vouch for.
total=$((24 * 1024 * 1024))
if kill_when "killed after the last merge" "^final [0-9]* 0 $total " 1; then
  left=$(ls T/.gxsort-job.*/ | grep -c '\.bin$')
  rm -f T/.gxsort-job.*/*.bin   # what the finished merge removes, where the kill came first
  gx "${SORT[@]}" --resume -v --stats-json st.json
  expect_rc "killed after the last merge ($left of its inputs' files left): --resume exits 0" 0
  same_bytes "killed after the last merge: --resume gives the bytes of a plain sort" out.bin ref.bin
  r=$(grep -o 'resumed: [0-9]* of [0-9]* runs, [0-9]* of [0-9]* merge outputs, the last merge from [0-9]*%' "$WORK/last.err")
  [[ $r =~ resumed:\ ([0-9]+)\ of\ ([0-9]+)\ runs,\ ([0-9]+)\ of\ ([0-9]+)\ merge\ outputs,\ the\ last\ merge\ from\ 100% ]] &&
    ((BASH_REMATCH[1] == BASH_REMATCH[2] && BASH_REMATCH[3] == BASH_REMATCH[4])) && ! grep -q 'discarded' "$WORK/last.err" &&
    pass "killed after the last merge: every input reused without its file ($held held in memory), none discarded ($r)" ||
    fail "killed after the last merge: nothing formed again" "'$r' $(last_err)"
  # Run formation's stages: no chunk read, none held (a run formed again is one or the other).
  formed=$(json_get st.json '[(s["name"], s["seconds"], s["bytes_written"]) for s in j["run_stages"] if s["name"] in ("read", "runs held in memory") and (s["seconds"] or s["bytes_written"])]')
  [[ $formed == "[]" ]] && pass "killed after the last merge: no run formed again (--stats-json run_stages)" ||
    fail "killed after the last merge: no run formed again" "$formed"
  [[ -z "$(ls -A T)" && -z "$(ls -a . | grep '^\.gxsort')" ]] && pass "killed after the last merge: success leaves nothing" ||
    fail "killed after the last merge: leftovers" "$(ls -A T; ls -a . | grep gxsort)"
  rm -f st.json
fi

# A merge of more sorted files than its fan-in: the intermediate merges are pieces, the
# last merge keeps checkpoints; the inputs are the user's (never punched).
mkdir -p parts
split -b 2M -d -a 3 in.bin parts/p   # 96 files
for f in parts/p*; do "$GX" sort "$f" -o "$f" -q; done
SORT=(merge parts/p* -o out.bin --memory 2M -T T)
gx "${SORT[@]}"
same_bytes "merge of 96 files with --memory 2M: the bytes of the sort" out.bin ref.bin
final_case "merge of 96 files, killed after 3 checkpoints" 3
SORT=(sort in.bin -o out.bin --memory 6M --ooc merge -T T)

# The journal's last line cut short (a kill while writing it): ignored, the rest reused.
if kill_when "journal cut short" '^run ' 30; then
  printf 'run 99 0 12' >>T/.gxsort-job.*/journal
  gx "${SORT[@]}" --resume -v
  same_bytes "a journal line cut short is ignored: the bytes of a plain sort" out.bin ref.bin
fi

# A damaged piece is formed again; the others are reused.
if kill_when "damaged piece" '^run ' 30; then
  kept=$(journal | grep -c '^run ')
  piece=$(ls T/.gxsort-job.*/run-000003.bin)
  flip_byte "$piece" 100
  gx "${SORT[@]}" --resume -v
  same_bytes "a flipped byte in a kept run: formed again, the bytes of a plain sort" out.bin ref.bin
  r=$(grep -o 'resumed: [0-9]* of' "$WORK/last.err" | grep -o '[0-9]*' | head -1)
  (( r >= 1 && r < kept )) && pass "the damaged run was not reused ($r reused of the $kept journalled)" || fail "damaged run" "reused $r of $kept"
  grep -q "gxsort: note: resume: run 3 (.*run-000003.bin) discarded: the XXH3 of its bytes 0\.\.[0-9]* is not the journal.s; formed again" "$WORK/last.err" &&
    pass "the damaged run: discarded with a note naming it and why" || fail "run note" "$(last_err)"
  grep -q 'resumed: .*, 1 discarded (failed verification)' "$WORK/last.err" && pass "-v counts the discarded run" || fail "-v discarded" "$(last_err)"
fi

# A damaged merge-level output: discarded with a note, merged again from its runs.
SORT=(sort in.bin -o out.bin --memory 6M --ooc merge -T T)
if kill_when "damaged level output" '^level 1 0 ' 1; then
  flip_byte "$(ls T/.gxsort-job.*/level-01-000000.bin)" 4096
  gx "${SORT[@]}" --resume -v --stats-json st.json
  same_bytes "a flipped byte in a level output: --resume gives the bytes of a plain sort" out.bin ref.bin
  grep -q "gxsort: note: resume: merge output 0 of level 1 (.*level-01-000000.bin) discarded: the XXH3 of its bytes 0\.\.[0-9]* is not the journal.s; formed again" "$WORK/last.err" &&
    pass "a damaged level output: discarded with a note" || fail "level note" "$(last_err)"
  (( $(json_get st.json 'j["discarded"]') >= 1 )) && pass "--stats-json counts the discarded level output" || fail "stats discarded" "$(cat st.json)"
fi

# Without --resume, a dead job's directory is removed first and the job starts afresh.
if kill_when "fresh start" '^run ' 10; then
  gx "${SORT[@]}" -v
  same_bytes "without --resume: a fresh sort" out.bin ref.bin
  grep -q 'resumed' "$WORK/last.err" && fail "without --resume nothing is reused" "$(last_err)" || pass "without --resume nothing is reused"
  [[ -z "$(ls -A T)" ]] && pass "without --resume: the dead job's directory is gone" || fail "dead job directory" "$(ls -A T)"
fi

# A touched input is another job: nothing reused, and the old job's directory goes.
if kill_when "touched input" '^run ' 10; then
  touch in.bin
  gx "${SORT[@]}" --resume -v
  same_bytes "a touched input: a fresh sort" out.bin ref.bin
  grep -q 'resumed: 0 of' "$WORK/last.err" && pass "a touched input reuses nothing" || fail "touched input reuses nothing" "$(last_err)"
  [[ -z "$(ls -A T)" ]] && pass "a touched input: the old job's directory is removed" || fail "old job dir" "$(ls -A T)"
fi

# Another --memory is another plan: nothing reused either.
if kill_when "another plan" '^run ' 10; then
  gx sort in.bin -o out.bin --memory 7M --ooc merge -T T --resume -v
  same_bytes "another --memory: a fresh, right sort" out.bin ref.bin
fi
gx clean -T T -T . -q
[[ -z "$(ls -A T)" && -z "$(ls -a . | grep '^\.gxsort')" ]] && pass "clean removes the dead jobs' directories and output temps" || fail "clean of job dirs" "$(ls -A T; ls -a . | grep gxsort)"

# The partition sort: the buckets of pass 1 and the buckets written into the output are
# pieces; killed in pass 2, a resume sorts only the buckets not yet written.
SORT=(sort in.bin -o out.bin --memory 12M --ooc partition --device cpu --threads 2 -T T)
if kill_when "partition, killed in pass 2" '^out ' 3; then
  [[ -n "$(ls -a . | grep '^\.gxsort-job\..*\.out$')" ]] && pass "partition: the job's output kept beside the target" || fail "partition job output" "$(ls -a)"
  gx "${SORT[@]}" --resume -v
  same_bytes "partition, killed in pass 2: --resume gives the bytes of a plain sort" out.bin ref.bin
  grep -q 'resumed: [0-9]* of [0-9]* buckets, [1-9][0-9]* of them already in the output' "$WORK/last.err" \
    && pass "partition: the written buckets and the kept ones reused ($(grep -o 'resumed: .*' "$WORK/last.err"))" \
    || fail "partition reuse" "$(last_err)"
  [[ -z "$(ls -A T)" && -z "$(ls -a . | grep '^\.gxsort')" ]] && pass "partition: success leaves nothing" || fail "partition leftovers" "$(ls -A T; ls -a . | grep gxsort)"
fi
if kill_when "partition, plan --resume" '^out ' 3; then
  gx plan "${SORT[@]:1}" --resume
  grep -q 'kept: \([3-9]\|[1-9][0-9][0-9]*\) of [0-9]* buckets written into the output, \([0-9]*\) of the other \2 as bucket files' "$WORK/last.out" &&
    grep -q 'left: sort [0-9]* buckets into the output' "$WORK/last.out" &&
    pass "plan --resume of a partition job: the buckets kept and written" || fail "plan --resume partition" "$(tail -4 "$WORK/last.out")"
  gx "${SORT[@]}" --resume -q
  same_bytes "partition, after plan --resume: the bytes of a plain sort" out.bin ref.bin
fi
# Killed while a bucket was being written (its file is dropped before its output is
# written, for speed): that bucket alone is formed again from the input.
if kill_when "partition, a bucket lost" '^out ' 2; then
  written=$(journal | grep -c '^out ')
  rm -f T/.gxsort-job.*/"$(printf 'bucket-%06d.bin' "$written")"
  gx "${SORT[@]}" --resume -v
  same_bytes "partition, the bucket being written lost: --resume gives the bytes of a plain sort" out.bin ref.bin
  grep -q "bucket $written formed again" "$WORK/last.err" && pass "partition: only the lost bucket formed again" || fail "lost bucket" "$(last_err)"
fi
# A damaged bucket not yet written: discarded with a note, pass 1 formed it again.
if kill_when "partition, damaged bucket" '^out ' 2; then
  big=$(ls -S T/.gxsort-job.*/bucket-*.bin | head -1)   # not in the output yet (those go)
  b=$((10#$(basename "$big" .bin | cut -d- -f2)))
  flip_byte "$big" 64
  gx "${SORT[@]}" --resume -v
  same_bytes "partition, a damaged bucket: --resume gives the bytes of a plain sort" out.bin ref.bin
  grep -q "gxsort: note: resume: bucket $b (.*) discarded: its XXH3 is not the journal.s; formed again" "$WORK/last.err" &&
    pass "partition: a damaged bucket discarded with a note" || fail "bucket note" "$(last_err)"
fi
if kill_when "partition, killed in pass 1" '^bucket ' 1; then
  gx "${SORT[@]}" --resume -v
  same_bytes "partition, killed as pass 1 ended: --resume gives the bytes of a plain sort" out.bin ref.bin
fi

# Runs in several files (Plan::run_files, GXSORT_SORT_RUN_FILES here): each part is a
# piece of its own ("run I PART" in the journal, run-NNNNNN-PART.bin beside run-NNNNNN.bin).
# Killed while the runs form, a resume reuses the runs whose parts were all kept and forms
# again the others; a damaged part is discarded with a note and its run formed again;
# killed in the last merge, it merges on from the checkpoint.
export GXSORT_SORT_RUN_FILES=2
SORT=(sort in.bin -o out.bin --memory 24M --ooc merge -T T --threads 2)   # one level, 24-32 runs: 2 files each fit its fan-in
REF=ref.bin
gx plan "${SORT[@]:1}" --json
runs=$(json_get "$WORK/last.out" 'j["runs"]')
[[ $(json_get "$WORK/last.out" '(len(j["levels"]), j["run_files"])') == "(1, 2)" ]] && pass "runs in 2 files: the plan cuts each written run in two" ||
  fail "runs in 2 files: plan" "$(cat "$WORK/last.out")"
if kill_when "runs in 2 files, killed during run formation" '^run ' 12; then
  # 3 chunks in flight at most: with 12 parts journalled, runs 0-2 are whole.
  ls T/.gxsort-job.*/ | grep -q '^run-000001-1\.bin$' && journal | grep -q '^run 1 1 ' &&
    pass "runs in 2 files: a run's second part is a piece of its own (run-000001-1.bin, 'run 1 1')" ||
    fail "runs in 2 files: part pieces" "$(ls T/.gxsort-job.*/; journal | head -4)"
  gx plan "${SORT[@]:1}" --resume --json   # whole runs kept: those with every part
  kept=$(json_get "$WORK/last.out" '(j["resume"]["runs_kept"], j["resume"]["runs_kept"] + j["resume"]["runs_to_form"] == j["runs"])')
  [[ $kept =~ ^\(([0-9]+),\ True\)$ ]] && ((BASH_REMATCH[1] >= 3 && BASH_REMATCH[1] <= 6)) &&
    pass "runs in 2 files: plan --resume counts the runs whose parts were all kept ($kept)" || fail "runs in 2 files: plan --resume" "$kept $(cat "$WORK/last.out")"
  flip_byte "$(ls T/.gxsort-job.*/run-000001-1.bin)" 100
  gx "${SORT[@]}" --resume -v
  expect_rc "runs in 2 files, killed during run formation: --resume exits 0" 0
  same_bytes "runs in 2 files, killed during run formation: --resume gives the bytes of a plain sort" out.bin ref.bin
  grep -q "resume: run 1, part 1 (.*run-000001-1.bin) discarded: the XXH3 of its bytes" "$WORK/last.err" &&
    pass "runs in 2 files: the damaged part discarded with a note naming it" || fail "runs in 2 files: damaged part note" "$(last_err)"
  r=$(grep -o 'resumed: [0-9]* of [0-9]* runs' "$WORK/last.err")
  [[ $r =~ resumed:\ ([0-9]+)\ of\ $runs\ runs ]] && ((BASH_REMATCH[1] >= 2 && BASH_REMATCH[1] <= 5)) &&
    pass "runs in 2 files: the whole runs kept reused, the others formed again ($r)" || fail "runs in 2 files: reuse" "'$r' $(last_err)"
  [[ -z "$(ls -A T)" ]] && pass "runs in 2 files: success removes the job directory" || fail "runs in 2 files: job directory removed" "$(ls -A T)"
fi
final_case "runs in 2 files, killed after 3 checkpoints of the last merge" 3
# Resumed with another count of files (--no-fsync, or the knob): another job, nothing of
# the old one taken for a whole run.
if kill_when "runs in 2 files, resumed with one" '^run ' 12; then
  GXSORT_SORT_RUN_FILES=1 gx "${SORT[@]}" --resume -v
  same_bytes "runs in 2 files, resumed with one file a run: a fresh, right sort" out.bin ref.bin
  grep -q 'resumed: 0 of' "$WORK/last.err" && pass "runs in 2 files, resumed with one: nothing reused" || fail "resumed with one file a run" "$(last_err)"
  [[ -z "$(ls -A T)" ]] && pass "runs in 2 files, resumed with one: the old job's directory is removed" || fail "old job dir" "$(ls -A T)"
fi
unset GXSORT_SORT_RUN_FILES

# --resume on a stream: refused.
cat in.bin | "$GX" sort - -o o.bin --memory 6M --resume -T T -q 2>"$WORK/last.err"; RC=$?
expect_rc "--resume of a stream: exit 2" 2
finish
