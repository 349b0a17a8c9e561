#!/usr/bin/env bash
# `plan` (text, --json, --dot), `info` and the help texts.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

gx gen -o small.bin --count 1000 -q
gx gen -o big.bin --count 300000 -q
gx gen -o gs.bin --count 20000 --format gensort -q
: >empty.bin

json_ok() {  # NAME: stdout of the last gx call is JSON
  if [[ $RC == 0 ]] && "${PY[@]}" -c 'import json,sys; json.load(sys.stdin)' <"$WORK/last.out" 2>/dev/null; then pass "$1"
  else fail "$1" "rc=$RC: $(head -c 200 "$WORK/last.out") $(last_err)"; fi
}
jq_() { "${PY[@]}" -c "import json,sys; j=json.load(sys.stdin); print($1)" <"$WORK/last.out" 2>/dev/null; }

for args in "small.bin" "big.bin --memory 1M --fan-in 2" "big.bin --memory 1M" "gs.bin --format gensort --memory 1M --fan-in 3" "empty.bin" \
            "big.bin --memory 3M --record-size 24 --key-type u64 --key-offset 0"; do
  read -r -a A <<<"$args"
  [[ $args == *record-size\ 24* ]] && { gx gen -o r24.bin --count 100000 --record-size 24 --key-offset 0 --key-type u64 -q; A=(r24.bin "${A[@]:1}"); }
  gx plan "${A[@]}" --json
  json_ok "plan $args --json parses"
  gx plan "${A[@]}" --dot
  [[ $RC == 0 && $(head -c 7 "$WORK/last.out") == digraph ]] && pass "plan $args --dot starts with digraph" || fail "plan $args --dot" "rc=$RC: $(head -c 60 "$WORK/last.out")"
  [[ $(tail -n 1 "$WORK/last.out") == "}" ]] && pass "plan $args --dot ends with }" || fail "plan $args --dot ends with }" "$(tail -n 1 "$WORK/last.out")"
  gx plan "${A[@]}"
  [[ $RC == 0 ]] && grep -q '^mode: \(in-memory\|runs-in-memory\|external\|partition\)$' "$WORK/last.out" && pass "plan $args (text) names the mode" || fail "plan $args text" "rc=$RC: $(head -5 "$WORK/last.out" | tr '\n' '|')"
done

gx plan small.bin --json
[[ $(jq_ 'j["mode"]') == in-memory && $(jq_ 'j["records"]') == 1000 && $(jq_ 'j["runs"]') == 1 ]] && pass "plan of a small file: in-memory, 1000 records, 1 run" || fail "plan small json" "$(cat "$WORK/last.out")"
gx plan small.bin
grep -q '^mode: in-memory$' "$WORK/last.out" && pass "plan text: mode: in-memory" || fail "plan text: mode: in-memory" "$(cat "$WORK/last.out")"
gx plan big.bin --memory 1M --fan-in 2 --json
lv=$(jq_ 'len(j["levels"])'); runs=$(jq_ 'j["runs"]'); fi_=$(jq_ 'j["fan_in"]')
[[ $(jq_ 'j["mode"]') == external && $lv -gt 1 && $runs -gt 2 && $fi_ == 2 ]] && pass "plan --memory 1M --fan-in 2: external, $runs runs, $lv levels, fan-in 2" || fail "plan external json" "$(cat "$WORK/last.out")"
[[ $(jq_ 'j["levels"][-1]["final"]') == True && $(jq_ 'all(not l["final"] for l in j["levels"][:-1])') == True ]] && pass "plan json: only the last level is final" || fail "plan json: final level" "$(cat "$WORK/last.out")"
[[ $(jq_ 'all(g <= 2 for l in j["levels"] for g in l["groups"])') == True ]] && pass "plan json: no group wider than the fan-in" || fail "plan json: groups" "$(cat "$WORK/last.out")"
[[ $(jq_ 'sum(j["levels"][0]["groups"]) == j["runs"]') == True ]] && pass "plan json: level 1 takes every run" || fail "plan json: level 1 groups" "$(cat "$WORK/last.out")"
gx plan big.bin --memory 1M --fan-in 2
grep -q '^mode: external$' "$WORK/last.out" && grep -q 'temporary directories' "$WORK/last.out" && pass "plan text: mode: external, temporary directories" || fail "plan text external" "$(cat "$WORK/last.out" | tr '\n' '|')"
[[ $(grep -c '^merge level' "$WORK/last.out") == "$lv" ]] && pass "plan text lists the $lv merge levels" || fail "plan text levels" "$(grep -c '^merge level' "$WORK/last.out") vs $lv"
gx plan big.bin --memory 1M --fan-in 1000
grep -q 'lowered' "$WORK/last.out" && pass "plan: a --fan-in too big for --memory is lowered and says so" || fail "plan: fan-in lowered" "$(grep fan-in "$WORK/last.out")"
gx plan big.bin --memory 1M --fan-in 2 --dot
edges=$(grep -c -- '->' "$WORK/last.out")
gx plan big.bin --memory 1M --fan-in 2 --json
# One edge out of every run and every intermediate merge; a run carried over unmerged is
# no node of its own (its edge goes to where it is merged).
want_edges=$(jq_ 'j["runs"] + sum(sum(1 for g in l["groups"] if g > 1) for l in j["levels"] if not l["final"])')
[[ $edges == "$want_edges" ]] && pass "plan --dot has one edge per node ($edges)" || fail "plan --dot edges" "$edges vs $want_edges"
gx plan big.bin --memory 1M --fan-in 2 --dot
grep -q 'records, ' "$WORK/last.out" && pass "plan --dot labels nodes with records and bytes" || fail "plan --dot labels" "$(head -5 "$WORK/last.out")"
# Without --fan-in, on at most 4 threads, the CPU partitions instead: buckets by key
# range, no merge levels.
gx plan big.bin --memory 1M --threads 2 --device cpu --json
nb=$(jq_ 'j["buckets"]'); br=$(jq_ 'j["bucket_records"]')
[[ $(jq_ 'j["mode"]') == partition && $nb -ge 2 && $br -gt 0 && $(jq_ 'len(j["levels"])') == 0 &&
   $(jq_ 'j["temp_bytes"] == j["input_bytes"] and j["bytes_written"] == 2 * j["input_bytes"]') == True ]] &&
  pass "plan --memory 1M (no --fan-in): partition into $nb buckets of up to $br records, no merge levels" || fail "plan partition json" "$(cat "$WORK/last.out")"
[[ $(jq_ 'j["bucket_records"] * 16 <= j["memory"]') == True ]] && pass "plan partition: a bucket's sort fits --memory" || fail "plan partition bucket size" "$(cat "$WORK/last.out")"
gx plan big.bin --memory 1M --threads 2 --device cpu
grep -q '^mode: partition$' "$WORK/last.out" && grep -q "into $nb bucket files" "$WORK/last.out" && grep -q 'temporary directories' "$WORK/last.out" &&
  pass "plan text: mode: partition, $nb bucket files, temporary directories" || fail "plan text partition" "$(cat "$WORK/last.out" | tr '\n' '|')"
gx plan big.bin --memory 1M --threads 2 --device cpu --dot
[[ $(grep -c -- '->' "$WORK/last.out") == $(( 2 * nb )) ]] && pass "plan partition --dot: input -> each bucket -> output" || fail "plan partition --dot" "$(cat "$WORK/last.out" | tr '\n' '|')"
gx plan big.bin --memory 1M --ooc merge --threads 2 --device cpu --json
[[ $(jq_ 'j["mode"]') == external ]] && pass "plan --ooc merge: external" || fail "plan --ooc merge" "$(cat "$WORK/last.out")"
# The runs written back as they form: those beyond 3/4 of what this machine's kernel keeps
# dirty (none for so small an input on most machines), never more than the runs.
[[ $(jq_ '0 <= j["early_writeback_bytes"] <= j["input_bytes"]') == True ]] &&
  pass "plan --json: early_writeback_bytes within the runs ($(jq_ 'j["early_writeback_bytes"]'))" || fail "plan early_writeback_bytes" "$(cat "$WORK/last.out")"
# Under a cgroup's memory limit (a fake one of 64 MiB) the flusher's threshold is of that
# memory, which the output's backlog of 512 MiB fills: all 16 MiB of runs go early (unless
# the machine sets vm.dirty_background_bytes, which then counts instead).
mkdir -p cgp/root/job && echo "0::/job" >cgp/cgroup && echo 67108864 >cgp/root/job/memory.max
gx gen -o mid.bin --count 2097152 -q
GXSORT_TEST_CGROUP_DIR="$WORK/cgp" gx plan mid.bin --memory 1M --ooc merge --device cpu --json
want=$(python3 -c '
bg = int(open("/proc/sys/vm/dirty_background_bytes").read())
avail = int([l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemAvailable:")][0]) * 1024
bg = bg or min(avail, 64 << 20) // 100 * min(100, int(open("/proc/sys/vm/dirty_background_ratio").read()))
print(max(0, (16 << 20) - min(bg // 4 * 3, bg - min(bg, 512 << 20)))) if bg else print(0)')
[[ $(jq_ 'j["early_writeback_bytes"]') == "$want" ]] &&
  pass "plan under a 64 MiB cgroup: the runs beyond what its dirty threshold keeps written back early ($want bytes)" ||
  fail "plan early writeback under a cgroup" "got $(jq_ 'j["early_writeback_bytes"]'), want $want"
gx plan big.bin --memory 1M --threads 5 --device cpu --json
[[ $(jq_ 'j["mode"]') == external ]] && pass "plan --threads 5: auto merges (all cores in every pass)" || fail "plan --threads 5 auto" "$(cat "$WORK/last.out")"
gx plan big.bin --memory 1M --fan-in 2 --ooc partition --json
[[ $(jq_ 'j["mode"]') == partition ]] && pass "plan --ooc partition wins over --fan-in" || fail "plan --ooc partition with --fan-in" "$(cat "$WORK/last.out")"
gx plan small.bin --memory 1M --ooc partition --json
[[ $(jq_ 'j["mode"]') == in-memory ]] && pass "plan --ooc partition: an input that fits is still sorted in memory" || fail "plan --ooc partition small" "$(cat "$WORK/last.out")"
gx plan big.bin --memory 1M --ooc sideways
[[ $RC == 2 ]] && grep -q -- '--ooc' "$WORK/last.err" && pass "plan --ooc sideways: usage error naming --ooc" || fail "plan --ooc bad value" "rc=$RC $(last_err)"

# --device auto gives an in-memory sort of records wider than 64 bytes, on 16 threads or
# more, to the CPU backend (plan/device_choice.hpp: choose_backend), and the plan says why.
auto_cpu='(--device auto: in memory, records wider than 64 bytes sort faster here)'
gx gen -o r64.bin --count 1000 --record-size 64 --key-offset 0 --key-type u64 -q
gx gen -o r72.bin --count 1000 --record-size 72 --key-offset 0 --key-type u64 -q
for args in "gs.bin --format gensort --threads 16" "r72.bin --record-size 72 --key-offset 0 --key-type u64 --threads 64"; do
  read -r -a A <<<"$args"
  gx plan "${A[@]}"
  [[ $RC == 0 && $(head -n 1 "$WORK/last.out") == "backend: cpu (${A[-1]} threads) $auto_cpu" ]] &&
    pass "plan $args: --device auto takes the CPU backend, and says why" || fail "plan $args: auto's choice" "rc=$RC: $(head -n 1 "$WORK/last.out")"
done
for args in "gs.bin --format gensort --threads 15" "gs.bin --format gensort --threads 16 --device cpu" \
            "gs.bin --format gensort --threads 16 --memory 1M" "r64.bin --record-size 64 --key-offset 0 --key-type u64 --threads 16"; do
  read -r -a A <<<"$args"
  gx plan "${A[@]}"
  [[ $RC == 0 && $(head -n 1 "$WORK/last.out") == "backend: cpu ("*" threads)" ]] &&
    pass "plan $args: no choice of --device auto's" || fail "plan $args: no auto choice" "rc=$RC: $(head -n 1 "$WORK/last.out")"
done

gx plan big.bin --memory 1M --fan-in 2 -o "$WORK/x.out"
[[ $RC == 0 && ! -e "$WORK/x.out" ]] && pass "plan writes nothing (-o not created)" || fail "plan writes nothing" "rc=$RC"
[[ -z "$(ls -A "$TMPDIR")" ]] && pass "plan leaves \$TMPDIR empty" || fail "plan leaves \$TMPDIR empty" "$(ls -A "$TMPDIR")"

gx info
[[ $RC == 0 && -s "$WORK/last.out" ]] && pass "info: exit 0 with output" || fail "info" "rc=$RC"
grep -qi gxsort "$WORK/last.out" && grep -qi thread "$WORK/last.out" && pass "info: names gxsort and the threads" || fail "info content" "$(cat "$WORK/last.out")"
gx --version
[[ $RC == 0 ]] && pass "--version: exit 0" || fail "--version" "rc=$RC"
gx --help
[[ $RC == 0 ]] && grep -q 'exit codes' "$WORK/last.out" && pass "--help: exit 0, lists the exit codes" || fail "--help" "rc=$RC"
gx
[[ $RC == 2 ]] && grep -q '^usage' "$WORK/last.err" && [[ ! -s "$WORK/last.out" ]] && pass "no arguments: the usage on stderr, exit 2" || fail "no arguments" "rc=$RC"
for c in sort plan runs merge check gen; do
  gx $c --help
  [[ $RC == 0 ]] && grep -q "^usage: gxsort $c" "$WORK/last.out" && pass "$c --help: exit 0 and usage" || fail "$c --help" "rc=$RC"
done
gx plan big.bin --help
grep -q -- '--json' "$WORK/last.out" && pass "plan --help lists --json" || fail "plan --help lists --json" ""
# --json: one JSON object with a format version, for every command that reports.
oracle gen -o j.bin --count 5000 --seed 2 --expect js.bin
printf '0 1\n1 2\n' >j.txt
"$GX" graph build j.txt -o j.csr -q
json_case() {  # NAME EXPR ARGS...: the stdout of gxsort ARGS parses and EXPR (on `j`) is true
  local name=$1 expr=$2; shift 2
  gx "$@"
  if "${PY[@]}" -c "import json, sys; j = json.load(open(sys.argv[1])); assert j['format_version'] == 1; assert $expr" "$WORK/last.out" 2>/dev/null
  then pass "$name"; else fail "$name" "rc=$RC: $(head -c 300 "$WORK/last.out") $(last_err)"; fi
}
json_case "check --json" "j['records'] == 5000 and j['sorted'] is False and len(j['xxh3']) == 16" check j.bin --json
json_case "check --json of a sorted file" "j['sorted'] is True" check js.bin --json
json_case "reduce --json" "j['op'] == 'count' and j['values'] == [5000]" reduce j.bin --op count --json
json_case "info --json" "j['threads'] >= 1 and j['memory_limit'] > 0 and isinstance(j['gpus'], list)" info --json
json_case "plan --json" "j['command'] == 'plan' and j['mode'] == 'in-memory' and j['records'] == 5000" plan j.bin --json
json_case "bfs --json" "j['searches'][0]['reached'] == 3 and 'undirected_gteps' in j['searches'][0]" bfs j.csr --source 0 --json
json_case "clean --json" "j['removed'] == 0 and j['files'] == []" clean -T "$WORK/tmp" --json
json_case "graph build --json" "j['vertices'] == 3" graph build j.txt -o j2.csr --json
gx check js.bin --stats-json cs.json -q
[[ $RC == 0 ]] && json_get cs.json 'j["command"] == "check" and j["records"] == 5000' | grep -q True && pass "check --stats-json" || fail "check --stats-json" "rc=$RC"
gx bfs j.csr --source 0 --stats-json bs.json -q
[[ $RC == 0 ]] && json_get bs.json 'j["command"] == "bfs"' | grep -q True && pass "bfs --stats-json" || fail "bfs --stats-json" "rc=$RC"
gx info --stats-json x.json
expect_rc "info --stats-json: refused (no work to report)" 2

# The process's limits: threads from the affinity mask, the budget from the cgroup.
if command -v taskset >/dev/null; then
  out=$(taskset -c 0 "$GX" info)
  grep -q '^threads: 1 ' <<<"$out" && pass "taskset -c 0 gxsort info: 1 thread" || fail "taskset -c 0 gxsort info" "$(grep threads <<<"$out")"
else
  skip "taskset -c 0 gxsort info" "no taskset"
fi
gx info
grep -q '^memory: .*limit .*--memory default' "$WORK/last.out" && pass "info: the memory limit and where it comes from" || fail "info: memory limit" "$(grep memory "$WORK/last.out")"
finish
