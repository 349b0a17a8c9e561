#!/usr/bin/env bash
# A killed job resumes where it stopped (issue 17) for the commands besides sort: runs,
# dedupe --count / --keep last, graph build, merge of more files than the fan-in. Each is
# killed (-9) once a journal holds enough entries (stopped by a test hook after each journal line), then the same
# command with --resume must give the bytes of a fresh run and reuse what was kept. A
# touched input starts afresh and leaves no debris; a damaged piece or stage is redone
# with a note (stderr, -v, --stats-json "discarded").
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p T
gx gen -o in.bin --count $((24 * 1024 * 1024)) --seed 11 --dist few-unique -q   # 192 MiB

# kill_when NAME JOURNALS PATTERN MIN CMD...: runs CMD in the background and kills it
# (-9) once the journals (a glob) hold MIN lines matching PATTERN; 0 when killed there.
# CMD stops itself after each journal line of the pattern's kind (GXSORT_TEST_STOP_AT=
# journal:KIND, a test hook), and is killed there or let go on.
kill_when() {
  local name=$1 glob=$2 pattern=$3 min=$4 kind=${3#^}
  shift 4
  GXSORT_TEST_STOP_AT=journal:${kind%% *} "$GX" "$@" -q 2>/dev/null &
  local pid=$!
  while wait_stopped $pid 300; do
    # shellcheck disable=SC2086  # the glob is expanded here, on purpose
    if (($(cat $glob 2>/dev/null | grep -c "$pattern") >= min)); then kill -9 $pid; wait $pid 2>/dev/null; return 0; fi
    kill -CONT $pid
  done
  wait $pid 2>/dev/null
  fail "$name" "the command ended (exit $?) before the journal held $min '$pattern' entries"
  return 1
}
resumed() { grep -o 'resumed: .*' "$WORK/last.err" | head -1; }
# NAME DIR...: no job directory, job output or temp file left in the directories (the
# lists of directories in $TMPDIR that killed processes leave are `gxsort clean`'s).
no_debris() {
  local left; left=$(job_pieces "${@:2}"; find "${@:2}" -maxdepth 1 -name '*.tmp*')
  [[ -z "$left" ]] && pass "$1: nothing left behind" || fail "$1: leftovers" "$left"
}

# --- runs: its runs are pieces of a job directory inside the output directory.
gx runs in.bin -o Rref --memory 6M
runs_case() {  # NAME MIN [--resume]: kill after MIN runs, run again, compare with Rref
  local name=$1 min=$2
  rm -rf R
  kill_when "$name" 'R/.gxsort-job.*/journal' '^run ' "$min" runs in.bin -o R --memory 6M || return
  [[ ! -e R/manifest.txt ]] && pass "$name: killed before the manifest" || fail "$name: no manifest" "$(ls R)"
  gx runs in.bin -o R --memory 6M -v "${@:3}"
  expect_rc "$name: exits 0" 0
  cmp -s R/manifest.txt Rref/manifest.txt && pass "$name: the manifest of a fresh run (every run's size and XXH3)" ||
    fail "$name: manifest" "$(diff R/manifest.txt Rref/manifest.txt | head -3)"
  local bad=0 f
  for f in Rref/run-*.bin; do cmp -s "$f" "R/${f#Rref/}" || bad=1; done
  ((bad == 0)) && pass "$name: every run byte for byte" || fail "$name: runs differ" "$(ls R | head -3)"
  no_debris "$name" R
}
# plan_shows NAME REGEX... CMD...: `plan CMD --resume` (what a resume would find, read
# without touching the job) prints a line matching each REGEX (the arguments before --).
plan_shows() {
  local name=$1 re ok=1
  shift
  local res=()
  while [[ $1 != -- ]]; do res+=("$1"); shift; done
  shift
  gx plan "$@" --resume
  for re in "${res[@]}"; do grep -Eq "$re" "$WORK/last.out" || ok=0; done
  ((ok && RC == 0)) && pass "$name: plan --resume shows what is kept and left" || fail "$name: plan --resume" "$(tail -4 "$WORK/last.out") $(last_err)"
}
# The runs of in.bin at --memory 6M: the backend's chunk size decides (128 on the CPU, 96
# on the GPUs seen).
gx plan runs in.bin -o R --memory 6M --json
RUNS=$(json_get "$WORK/last.out" 'j["sort"]["runs"]')
gx plan runs in.bin -o R --memory 6M --resume
grep -q 'resume: no killed run of this job' "$WORK/last.out" && pass "plan runs --resume without a killed run: starts from the beginning" ||
  fail "plan runs --resume, no job" "$(cat "$WORK/last.out")"
gx plan runs in.bin --memory 6M --resume
expect_rc "plan runs --resume without -o: exit 2" 2
rm -rf R
if kill_when "runs, plan --resume" 'R/.gxsort-job.*/journal' '^run ' 20 runs in.bin -o R --memory 6M; then
  plan_shows "runs" "^  kept: ([2-9][0-9]|1[0-9][0-9]) of $RUNS runs\$" '^  left: form [0-9]+ runs, then the manifest$' -- runs in.bin -o R --memory 6M
  gx plan runs in.bin -o R --memory 6M --resume --json
  [[ $(json_get "$WORK/last.out" '(j["resume"]["job"], j["resume"]["runs_kept"] + j["resume"]["runs_to_form"], j["resume"]["running"])') == "('runs', $RUNS, False)" ]] &&
    pass "plan runs --resume --json: the runs kept and to form make the plan's" || fail "plan runs json" "$(cat "$WORK/last.out")"
fi
runs_case "runs, killed during run formation, --resume" 20 --resume
[[ $(resumed) =~ resumed:\ ([0-9]+)\ of\ [0-9]+\ runs ]] && ((BASH_REMATCH[1] >= 20)) &&
  pass "runs --resume reuses the journalled runs ($(resumed))" || fail "runs reuse" "$(last_err)"
runs_case "runs, killed, then without --resume" 10
grep -q resumed "$WORK/last.err" && fail "runs without --resume reuses nothing" "$(resumed)" || pass "runs without --resume reuses nothing"
# Killed after the runs got their names, before the manifest: the names are links to
# the job's pieces, which the next run recognizes (same inode) and replaces.
rm -rf R
if kill_when "runs, links left" 'R/.gxsort-job.*/journal' '^run ' 5 runs in.bin -o R --memory 6M; then
  ln R/.gxsort-job.*/run-000000.bin R/run-000000.bin
  gx runs in.bin -o R --memory 6M --resume -v
  expect_rc "runs: a kill's links to the job's pieces do not block the resume" 0
  cmp -s R/manifest.txt Rref/manifest.txt && pass "runs: links left by a kill, then --resume: a fresh run's manifest" || fail "links manifest" "$(last_err)"
fi
# A run not of the job (a user's file) still refuses.
rm -rf R && mkdir R && cp Rref/run-000000.bin R/
gx runs in.bin -o R --memory 6M --resume
expect_rc "runs: a run file of someone else's in the directory still refuses (exit 2)" 2
# A damaged run: discarded with a note, formed again.
rm -rf R
if kill_when "runs, damaged run" 'R/.gxsort-job.*/journal' '^run ' 10 runs in.bin -o R --memory 6M; then
  flip_byte "$(ls R/.gxsort-job.*/run-000002.bin)" 1000
  gx runs in.bin -o R --memory 6M --resume -v --stats-json st.json
  grep -q 'gxsort: note: resume: run 2 (.*run-000002.bin) discarded: the XXH3 of its bytes 0\.\.[0-9]* is not the journal.s; formed again' "$WORK/last.err" &&
    pass "runs: a damaged run is discarded with a note naming it and why" || fail "runs damaged note" "$(last_err)"
  [[ $(json_get st.json 'j["discarded"]') == 1 ]] && pass "runs: --stats-json counts the discarded piece" || fail "stats discarded" "$(cat st.json)"
  grep -q 'resumed: .*1 discarded (failed verification)' "$WORK/last.err" && pass "runs: -v counts it" || fail "-v discarded" "$(last_err)"
  cmp -s R/manifest.txt Rref/manifest.txt && pass "runs: the damaged run formed again (a fresh run's manifest)" || fail "damaged run manifest" "$(last_err)"
fi
# A touched input: another job; the dead one's directory goes.
rm -rf R
if kill_when "runs, touched input" 'R/.gxsort-job.*/journal' '^run ' 10 runs in.bin -o R --memory 6M; then
  touch in.bin
  gx runs in.bin -o R --memory 6M --resume -v
  [[ $(resumed) =~ ^resumed:\ 0\ of\ [0-9]+\ runs$ ]] && pass "runs: a touched input reuses nothing" || fail "runs touched" "$(resumed)"
  cmp -s R/manifest.txt Rref/manifest.txt && pass "runs: a touched input, a fresh run" || fail "runs touched manifest" "$(last_err)"
  no_debris "runs, touched input" R
fi

# --- dedupe --count (and --keep last): a staged job, the sorted records its stage, the
# sort a job of its own inside its directory.
gx dedupe in.bin -o dref.bin --count --memory 6M --ooc merge -T T -q
DD=(dedupe in.bin -o d.bin --count --memory 6M --ooc merge -T T)
# killed_and_resumed NAME WHAT OUT REF CMD-ARRAY JOURNALS PATTERN MIN WANT-REGEX [PLAN-REGEX...]:
# the command killed -9 once its journals hold MIN PATTERN entries, `plan` of it with
# --resume showing lines that match the PLAN-REGEXes, then resumed: the fresh run's
# bytes, what was reused as WANT-REGEX says, and nothing left behind.
killed_and_resumed() {
  local name=$1 what=$2 out=$3 ref=$4
  local -n cmd=$5
  shift 5
  rm -f "$out"
  kill_when "$name" "$1" "$2" "$3" "${cmd[@]}" || return
  (($# > 4)) && plan_shows "$name" "${@:5}" -- "${cmd[@]}"
  gx "${cmd[@]}" --resume -v
  expect_rc "$name: --resume exits 0" 0
  same_bytes "$name: --resume gives the bytes of a fresh $what" "$out" "$ref"
  [[ $(resumed) =~ $4 ]] && pass "$name: reused what was kept ($(resumed))" || fail "$name: reuse" "$(resumed) $(last_err)"
  no_debris "$name" T .
}
dedupe_case() { killed_and_resumed "$1" dedupe d.bin dref.bin DD "${@:2}"; }  # NAME JOURNALS PATTERN MIN WANT-REGEX
INNER='T/.gxsort-job.*/.gxsort-job.*/journal' OUTER='T/.gxsort-job.*/journal'
dedupe_case "dedupe --count, killed in run formation" "$INNER" '^run ' 30 'sort: ([3-9][0-9]|1[0-9][0-9]) of [0-9]+ runs' \
  '^  kept: of the sort of the records: ([3-9][0-9]|1[0-9][0-9]) of [0-9]+ runs, 0 of 2 merge outputs$' \
  '^  left: sort the records \(form [0-9]+ runs, 2 merges, then the last merge\), then the group pass$'
dedupe_case "dedupe --count, killed during a merge level" "$INNER" '^level 1 0 ' 1 'sort: [0-9]+ of [0-9]+ runs, [1-2] of 2 merge outputs'
dedupe_case "dedupe --count, killed in the last merge" "$INNER" '^final ' 3 'the last merge from [1-9]' \
  'kept: of the sort of the records: [0-9]+ of [0-9]+ runs, 2 of 2 merge outputs, the last merge [1-9][0-9]?% done$'
dedupe_case "dedupe --count, killed in the group pass" "$OUTER" '^sorted ' 1 '^resumed: the sorted records kept$' \
  '^  kept: the sorted records$' '^  left: the group pass$'
if kill_when "dedupe, damaged stage" "$OUTER" '^sorted ' 1 "${DD[@]}"; then
  flip_byte "$(ls T/.gxsort-job.*/sorted-000000.bin)" 12345
  gx "${DD[@]}" --resume -v
  grep -q 'gxsort: note: resume: the sorted records (.*sorted-000000.bin) discarded: its XXH3 is not the journal.s; made again' "$WORK/last.err" &&
    pass "dedupe: a damaged stage is discarded with a note" || fail "dedupe stage note" "$(last_err)"
  same_bytes "dedupe: the damaged stage made again, the bytes of a fresh dedupe" d.bin dref.bin
fi
if kill_when "dedupe, touched input" "$INNER" '^run ' 20 "${DD[@]}"; then
  touch in.bin
  gx "${DD[@]}" --resume -v
  same_bytes "dedupe, touched input: a fresh dedupe" d.bin dref.bin
  [[ $(resumed) =~ sort:\ 0\ of\ [0-9]+\ runs ]] && pass "dedupe, touched input: nothing reused" || fail "dedupe touched" "$(resumed)"
  no_debris "dedupe, touched input" T .
fi
# Keep first (no --count): the sort's own job, with -u.
gx dedupe in.bin -o uref.bin --memory 6M --ooc merge -T T -q
DU=(dedupe in.bin -o u.bin --memory 6M --ooc merge -T T)
killed_and_resumed "dedupe (sort -u), killed in run formation" dedupe u.bin uref.bin DU 'T/.gxsort-job.*/journal' '^run ' 20 \
  "^resumed: ([2-9][0-9]|1[0-9][0-9]) of $RUNS runs, 0 of 2 merge outputs\$" "^  kept: ([2-9][0-9]|1[0-9][0-9]) of $RUNS runs, 0 of 2 merge outputs\$"
gx plan dedupe in.bin -o u.bin --resume
grep -q '^resume: this job keeps no pieces' "$WORK/last.out" && pass "plan dedupe --resume of an in-memory dedupe: it keeps no pieces" ||
  fail "plan dedupe in memory" "$(tail -2 "$WORK/last.out")"
# --keep last of 16-byte records with an 8-byte key.
gx gen -o w.bin --count $((8 * 1024 * 1024)) --record-size 16 --key-type u64 --dist few-unique --seed 3 -q
DD=(dedupe w.bin -o d.bin --keep last --record-size 16 --key-type u64 --memory 6M --ooc merge -T T)
gx "${DD[@]}" -q && mv d.bin dref.bin
dedupe_case "dedupe --keep last, killed in run formation" "$INNER" '^run ' 20 'sort: [0-9]+ of [0-9]+ runs'

# --- graph build: the parsed edges and the sorted edges are stages.
gx gen --graph rmat --scale 18 --edge-factor 16 -o g.u32 -q
GB=(graph build g.u32 -o g.csr --symmetrize --memory 6M --ooc merge -T T)
gx "${GB[@]}" -q && mv g.csr gref.csr
graph_case() { killed_and_resumed "$1" build g.csr gref.csr GB "${@:2}"; }  # NAME JOURNALS PATTERN MIN WANT-REGEX
gx plan "${GB[@]}" --resume
grep -q 'resume: no killed run of this job' "$WORK/last.out" && pass "plan graph build --resume without a killed run: starts from the beginning" ||
  fail "plan graph build, no job" "$(tail -2 "$WORK/last.out")"
graph_case "graph build, killed in the sort's run formation" "$INNER" '^run ' 10 'the parsed edges kept; sort: [1-9][0-9]* of [0-9]+ runs' \
  '^  kept: the parsed edges; of the sort of the edges: [1-9][0-9]* of [0-9]+ runs, 0 of [0-9]+ merge outputs$' \
  '^  left: sort the edges \(form [0-9]+ runs, [0-9]+ merges, then the last merge\), then write the CSR$'
graph_case "graph build, killed in the sort's last merge" "$INNER" '^final ' 2 'the parsed edges kept; sort: .*the last merge from [1-9]' \
  'left: sort the edges \(form 0 runs, 0 merges, then the last merge from [1-9][0-9]?%\), then write the CSR$'
graph_case "graph build, killed writing the CSR" "$OUTER" '^sorted ' 1 '^resumed: the sorted edges kept$' \
  '^  kept: the sorted edges$' '^  left: write the CSR$'
gx plan "${GB[@]}" --resume --json
[[ $(json_get "$WORK/last.out" 'j["resume"]') == None ]] && pass "plan graph build --resume --json after a success: no job left (null)" ||
  fail "plan graph json" "$(cat "$WORK/last.out")"
if kill_when "graph build, touched input" "$INNER" '^run ' 10 "${GB[@]}"; then
  touch g.u32
  gx "${GB[@]}" --resume -v
  same_bytes "graph build, touched input: a fresh build" g.csr gref.csr
  [[ $(resumed) == "resumed: sort: 0 of "* ]] && pass "graph build, touched input: nothing reused" || fail "graph touched" "$(resumed)"
  no_debris "graph build, touched input" T .
fi
cat g.u32 | "$GX" graph build - -o s.csr --input-format bin32 --resume -T T -q 2>"$WORK/last.err"; RC=$?
expect_rc "graph build --resume of a stream: exit 2" 2

# --- merge of more files than the fan-in: killed during its first level.
mkdir -p parts
split -b 4M -d -a 3 in.bin parts/p   # 48 files
for f in parts/p*; do "$GX" sort "$f" -o "$f" -q; done
gx sort in.bin -o ref.bin --memory 4G -q
MG=(merge parts/p* -o m.bin --memory 2M --fan-in 8 -T T)
if kill_when "merge, killed during a level" 'T/.gxsort-job.*/journal' '^level 1 2 ' 1 "${MG[@]}"; then
  plan_shows "merge, killed during a level" '^  kept: [3-6] of 6 merge outputs$' '^  left: [0-3] merges, then the last merge$' -- "${MG[@]}"
  gx "${MG[@]}" --resume -v
  same_bytes "merge of 48 files with fan-in 8, killed during a level: --resume gives the sort's bytes" m.bin ref.bin
  [[ $(resumed) =~ ^resumed:\ ([0-9]+)\ of\ 6\ merge\ outputs$ ]] && ((BASH_REMATCH[1] >= 3)) &&
    pass "merge: the kept level outputs reused ($(resumed))" || fail "merge reuse" "$(resumed) $(last_err)"
  no_debris "merge, killed during a level" T .
fi
gx plan merge parts/p000 parts/p001 -o m.bin --resume
grep -q '^resume: this job keeps no pieces' "$WORK/last.out" && pass "plan merge --resume of one merge level: it keeps no pieces" ||
  fail "plan merge one level" "$(tail -2 "$WORK/last.out")"
finish
