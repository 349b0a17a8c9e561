#!/usr/bin/env bash
# The progress line (issue 21): --progress draws it where stderr is not a terminal, one
# line per update. A multi-level out-of-core sort (--memory 1M --fan-in 2) shows its
# phases in order, "merge level k of N" for k = 1..N, and the whole job's percent of the
# bytes its plan reads and writes, which never goes down and ends at 100%.
source "$(dirname "$0")/lib.sh"

# The phase labels of a progress log, in order, each once per run of equal labels.
labels() { sed -n 's/^gxsort: progress: \([^%|]*[a-z0-9]\) \+[0-9.]\+%.*/\1/p; s/^gxsort: progress: \([a-z ]*[a-z]\) [0-9.]* MB .*/\1/p' "$1" | uniq; }
# The job percentages of a progress log, in order.
job_pcts() { grep -o 'job *[0-9.]*%' "$1" | tr -dc '0-9.\n'; }
# Whether the numbers on stdin never go down and the last is 100.0.
monotone_to_100() { "${PY[@]}" -c 'import sys; v=[float(x) for x in sys.stdin.read().split()]; sys.exit(0 if v and all(a <= b for a, b in zip(v, v[1:])) and v[-1] == 100.0 else 1)'; }

# check_job NAME LOG: the job's percent never goes down and ends at 100%.
check_job() {
  if job_pcts "$2" | monotone_to_100; then pass "$1: the job's percent never goes down and ends at 100%"
  else fail "$1: job percent" "$(job_pcts "$2" | tr '\n' ' ')"; fi
}

# check_levels NAME LOG N: "merge level k of N" for k = 1..N, in order, after any run formation.
check_levels() {
  local want="" k
  for ((k = 1; k <= $3; k++)); do want+="merge level $k of $3|"; done
  local got; got=$(labels "$2" | grep '^merge' | tr '\n' '|')
  if [[ "$got" == "$want" ]]; then pass "$1: levels 1 to $3 of $3 in order"; else fail "$1: levels" "got '$got', want '$want'"; fi
}

oracle gen -o in.bin --count 300000 --seed 5 --dist random --type u64 --expect exp.bin
OOC=(--memory 1M --fan-in 2 --ooc merge)

gx plan in.bin "${OOC[@]}" --json
N=$(json_get "$WORK/last.out" 'len(j["levels"])')
TOTAL_MB=$(json_get "$WORK/last.out" '"%.1f" % ((j["bytes_read"] + j["bytes_written"]) / 1e6)')
[[ ${N:-0} -ge 3 ]] && pass "plan ${OOC[*]}: $N merge levels" || fail "plan levels" "got '$N'"

# Out of core, many levels.
"$GX" sort in.bin -o out.bin "${OOC[@]}" --progress 2>ooc.log
RC=$?
expect_rc "sort ${OOC[*]} --progress: exit 0" 0
same_bytes "sort ${OOC[*]} --progress: the output" out.bin exp.bin
[[ $(labels ooc.log | head -1) == "sort runs" ]] && pass "ooc: run formation comes first" || fail "ooc: first phase" "$(labels ooc.log | head -3 | tr '\n' '|')"
check_levels "ooc" ooc.log "$N"
check_job "ooc" ooc.log
if grep -q "job .* of $TOTAL_MB MB read+written" ooc.log && ! grep -v "of $TOTAL_MB MB read+written" ooc.log | grep -q .; then
  pass "ooc: every line's job total is the plan's bytes read + written ($TOTAL_MB MB)"
else
  fail "ooc: job total" "want $TOTAL_MB MB: $(head -2 ooc.log | tr '\n' '|')"
fi
grep -q 'ETA *[0-9]*s$' ooc.log && pass "ooc: the lines end with the job's ETA" || fail "ooc: ETA" "$(tail -1 ooc.log)"

# -u: a level writes less than it reads; the job still only goes forward.
"$GX" sort in.bin -o u.bin "${OOC[@]}" -u --progress 2>u.log
RC=$?
expect_rc "sort -u --progress: exit 0" 0
check_levels "ooc -u" u.log "$N"
check_job "ooc -u" u.log

# The other plans: each phase in order, one job figure.
"$GX" sort in.bin -o p.bin --memory 1M --ooc partition --progress 2>p.log
same_bytes "partition --progress: the output" p.bin exp.bin
[[ $(labels p.log | tr '\n' '|') == "partition|sort buckets|" ]] && pass "partition: its two passes in order" || fail "partition: phases" "$(labels p.log | tr '\n' '|')"
check_job "partition" p.log
"$GX" sort in.bin -o m.bin --progress 2>m.log
same_bytes "in memory --progress: the output" m.bin exp.bin
check_job "in memory" m.log

# A stream: its length is known once its runs are formed; then the levels and the job.
"$GX" sort - -o s.bin "${OOC[@]}" --progress <in.bin 2>s.log
same_bytes "stream --progress: the output" s.bin exp.bin
grep -q '^merge level 1 of ' <(labels s.log) && pass "stream: merge levels numbered" || fail "stream: levels" "$(labels s.log | tr '\n' '|')"
check_job "stream" s.log

# merge of a runs directory: all its levels are one job.
gx runs in.bin -o R --memory 1M -q
"$GX" merge R -o mr.bin --memory 1M --fan-in 2 --progress 2>mr.log
same_bytes "merge --progress: the output" mr.bin exp.bin
RUNS=$(find R -name 'run-*.bin' | wc -l)
MN=$("${PY[@]}" -c "import sys; n=int(sys.argv[1]); l=1
while n > 2: n=(n+1)//2; l+=1
print(l)" "$RUNS")
check_levels "merge" mr.log "$MN"
check_job "merge" mr.log

# Without --progress nothing is drawn where stderr is not a terminal; -q refuses it.
gx sort in.bin -o q.bin "${OOC[@]}"
[[ $RC == 0 && ! -s "$WORK/last.err" ]] && pass "no --progress, stderr not a terminal: nothing drawn" || fail "no progress" "rc=$RC: $(last_err)"
gx sort in.bin -o q.bin "${OOC[@]}" -q --progress
expect_rc "-q --progress: exit 2" 2
err_mentions "-q --progress: one line naming both" "-q" "--progress"
gx bfs x.csr --source 0 --progress
expect_rc "bfs --progress: exit 2 (bfs draws no progress)" 2
err_mentions "bfs --progress: names the option" "--progress does not apply to bfs"
gx sort --help
grep -q -- '--progress' "$WORK/last.out" && pass "sort --help lists --progress" || fail "sort --help --progress" ""
finish
