#!/usr/bin/env bash
# `plan CMD ARGS` (issue 16: one plan for every command): each command's plan as text
# and JSON, with the command's own options; the commands, run from these plans, give
# the outputs they gave before (checked against the oracle).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

jq_() { "${PY[@]}" -c "import json,sys; j=json.load(sys.stdin); print($1)" <"$WORK/last.out" 2>/dev/null; }
# plan_case NAME EXPR ARGS...: gxsort plan ARGS --json parses, is a plan, and EXPR holds.
plan_case() {
  local name=$1 expr=$2; shift 2
  gx plan "$@" --json
  if [[ $RC == 0 ]] && "${PY[@]}" -c "import json, sys; j = json.load(open(sys.argv[1])); assert j['format_version'] == 1 and j['command'] == 'plan'; assert $expr" "$WORK/last.out" 2>/dev/null
  then pass "$name"; else fail "$name" "rc=$RC: $(head -c 400 "$WORK/last.out") $(last_err)"; fi
}
# text_case NAME PATTERN... -- ARGS...: gxsort plan ARGS prints every line PATTERN (grep).
text_case() {
  local name=$1; shift
  local pats=()
  while [[ $1 != -- ]]; do pats+=("$1"); shift; done
  shift
  gx plan "$@"
  [[ $RC == 0 ]] || { fail "$name" "rc=$RC $(last_err)"; return; }
  local p
  for p in "${pats[@]}"; do
    grep -q -- "$p" "$WORK/last.out" || { fail "$name" "no line '$p' in: $(tr '\n' '|' <"$WORK/last.out")"; return; }
  done
  pass "$name"
}

oracle gen -o a.bin --count 200000 --seed 3 --dist dups --expect a_sorted.bin
oracle dedupe a.bin -o a_dedupe.bin
oracle dedupe a.bin -o a_count.bin --count
gx gen -o u.bin --count 100000 --type u32 -q
printf '0 1\n1 2\n2 0\n2 3\n' >e.txt
gx graph build e.txt -o e.csr -q

# ---- the plans: text and JSON, each with its command's options ----
text_case "plan check: chunks within the budget" '^command: check$' '^threads: 2$' '^chunks: ' -- check a.bin --threads 2
plan_case "plan check --json: chunk sizes and slots within --memory" \
  "j['planned'] == 'check' and j['records'] == 200000 and j['chunks']['slots'] == 3 and j['chunks']['slots'] * j['chunks']['chunk_bytes'] <= j['memory'] == 1 << 20" \
  check a.bin --memory 1M
text_case "plan reduce --op sum (reduce's options)" '^command: reduce$' '^chunks: ' -- reduce a.bin --op sum --algo cub
plan_case "plan reduce --json: whole blocks" "j['planned'] == 'reduce' and j['chunks']['chunk_records'] % 4096 == 0" reduce a.bin --op min
text_case "plan dedupe: the sort -u plan" '^strategy: sort$' 'mode: in-memory' -- dedupe a.bin
plan_case "plan dedupe --json: strategy sort, keep first, the sort's plan" \
  "j['dedupe']['strategy'] == 'sort' and j['dedupe']['keep_first'] and j['sort']['mode'] == 'in-memory'" dedupe a.bin -o x.bin
plan_case "plan dedupe --count: the sort, then the group pass" "not j['dedupe']['keep_first'] and j['dedupe']['group']['chunk_records'] > 0" dedupe a.bin --count
plan_case "plan dedupe --assume-sorted: the stream, under a budget too small to sort" \
  "j['dedupe']['strategy'] == 'stream' and not j['dedupe']['sort_planned']" dedupe a.bin --assume-sorted --memory 100K
text_case "plan dedupe of u32 keys, a small --memory: the bitmap" '^strategy: bitmap$' '^bitmap: keys streamed' -- dedupe u.bin --type u32 --memory 100K
text_case "plan runs: runs of the external plan" '^command: runs$' '^runs: [0-9]* of up to ' '^run files: ' -- runs a.bin -o rdir --memory 1M
plan_case "plan runs --json" "j['planned'] == 'runs' and j['sort']['runs'] >= 2 and j['chunks']['slots'] == 3" runs a.bin --memory 1M
text_case "plan merge: its tree" '^command: merge$' '^fan-in: 2$' '^merge level 2:' -- merge a_sorted.bin a_sorted.bin a_sorted.bin --memory 1M --fan-in 2
plan_case "plan merge --json: the tree over the inputs" "j['sort']['runs'] == 3 and len(j['sort']['levels']) == 2 and j['window_memory'] == j['memory']" \
  merge a_sorted.bin a_sorted.bin a_sorted.bin --memory 1M --fan-in 2
gx plan merge a_sorted.bin a_sorted.bin --dot
[[ $RC == 0 && $(head -c 7 "$WORK/last.out") == digraph ]] && pass "plan merge --dot: its tree" || fail "plan merge --dot" "rc=$RC $(last_err)"
text_case "plan graph build" '^command: graph build$' '^parse: ' '^csr: ' -- graph build e.txt -o g.csr --symmetrize
plan_case "plan graph build --json (graph build's --json)" "j['planned'] == 'graph build' and j['graph']['offsets_budget'] > 0" graph build e.txt
text_case "plan bfs: the graph and the search" '^command: bfs$' '^graph: 4 vertices, 4 edges$' '^search: ' -- bfs e.csr
plan_case "plan bfs --json (bfs's --json), --source not required" "j['bfs']['vertices'] == 4 and j['bfs']['graph_known']" bfs e.csr --device cpu
gx plan sort a.bin --json
[[ $RC == 0 && $(jq_ 'j["mode"]') == in-memory ]] && pass "plan sort IN is plan IN" || fail "plan sort IN" "rc=$RC $(last_err)"

# ---- errors: a budget too small, options of another command, nothing written ----
gx plan check a.bin --memory 16
expect_rc "plan check --memory 16: a usage error" 2
err_mentions "plan check --memory 16 names the budget" "--memory 16 B is too small to check"
gx check a.bin --memory 16
expect_rc "check --memory 16: the same error" 2
gx plan check a.bin --fan-in 2
expect_rc "plan check --fan-in: check's options only" 2
gx plan merge a_sorted.bin --dot --json
expect_rc "plan --dot and --json: one of them" 2
gx plan reduce a.bin --op sum --dot
expect_rc "plan reduce --dot: no merge tree" 2
gx plan dedupe a.bin --stats-json s.json
expect_rc "plan dedupe --stats-json: refused" 2
[[ ! -e rdir && ! -e x.bin && ! -e g.csr && -z "$(ls -A "$TMPDIR")" ]] && pass "plan CMD writes nothing" || fail "plan CMD writes nothing" "$(ls)"
gx plan check --help
[[ $RC == 0 ]] && grep -q '^usage: gxsort plan check' "$WORK/last.out" && grep -q -- '--memory' "$WORK/last.out" && pass "plan check --help: check's options" || fail "plan check --help" "rc=$RC"

# ---- the commands run from their plans: the outputs they gave before ----
for mem in 1M 64M; do
  gx check a.bin --memory "$mem"
  [[ $RC == 1 ]] && grep -q '^records: 200000$' "$WORK/last.out" && pass "check --memory $mem: not sorted, 200000 records" || fail "check --memory $mem" "rc=$RC"
  gx check a_sorted.bin --memory "$mem" --json
  [[ $RC == 0 && $(jq_ 'j["sorted"]') == True && $(jq_ 'j["records"]') == 200000 ]] && pass "check --memory $mem of the sorted file" || fail "check sorted $mem" "rc=$RC"
done
gx reduce a.bin --op count --memory 1M --json
[[ $RC == 0 && $(jq_ 'j["values"]') == "[200000]" ]] && pass "reduce --memory 1M: count" || fail "reduce --memory 1M" "rc=$RC $(cat "$WORK/last.out")"
gx reduce a.bin --op sum -q
s1=$(cat "$WORK/last.out")
gx reduce a.bin --op sum --memory 1M -q
[[ $(cat "$WORK/last.out") == "$s1" ]] && pass "reduce: the same sum whatever the budget's chunks" || fail "reduce sum" "$s1 vs $(cat "$WORK/last.out")"
gx sort a.bin -o s.bin --memory 1M --threads 2 --device cpu
same_bytes "sort --memory 1M (partition)" s.bin a_sorted.bin
gx sort a.bin -o s2.bin --memory 1M --ooc merge --fan-in 2
same_bytes "sort --memory 1M --ooc merge --fan-in 2" s2.bin a_sorted.bin
cat a.bin | "$GX" sort - -o s3.bin --memory 1M -q
same_bytes "sort of a stream, --memory 1M" s3.bin a_sorted.bin
gx dedupe a.bin -o d.bin --memory 1M
same_bytes "dedupe --memory 1M" d.bin a_dedupe.bin
gx dedupe a.bin -o d2.bin --count --memory 1M
same_bytes "dedupe --count --memory 1M (sort, then the group pass)" d2.bin a_count.bin
gx dedupe a_sorted.bin -o d3.bin --assume-sorted --memory 100K
same_bytes "dedupe --assume-sorted --memory 100K" d3.bin a_dedupe.bin
gx runs a.bin -o rd --memory 1M
gx merge rd -o m.bin --memory 1M --fan-in 2
same_bytes "runs then merge, --memory 1M --fan-in 2" m.bin a_sorted.bin
gx bfs e.csr --source 0 -o lv.bin
[[ $RC == 0 && $(od -An -tu4 lv.bin | tr -s ' ') == " 0 1 2 3" ]] && pass "bfs: levels 0 1 2 3" || fail "bfs levels" "rc=$RC $(od -An -tu4 lv.bin)"
finish
