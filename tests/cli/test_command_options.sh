#!/usr/bin/env bash
# Options that do not apply to a command (issue 21): -r of reduce and gen, --ooc of
# merge, -q of info and plan are exit 2 with one line naming the option; what -q leaves
# of reduce (its result); check -v; the help texts (the memory limit, not "RAM"; what -o
# names); the default budget of every command, bfs included, from the memory limit (a
# fake cgroup: GXSORT_TEST_CGROUP_DIR).
source "$(dirname "$0")/lib.sh"

oracle gen -o in.bin --count 5000 --seed 3 --dist random --type u64 --expect exp.bin

# refused NAME WORDS ARGS...: exit 2, one line naming every word.
refused() {
  local name=$1 words=$2; shift 2
  gx "$@"
  expect_rc "$name: exit 2" 2
  local w args=()
  IFS='|' read -ra args <<<"$words"
  err_mentions "$name: one line naming it" "${args[@]}"
  [[ ! -e out.bin ]] || fail "$name: no output" "out.bin exists"
}
refused "reduce -r" "-r does not apply to reduce|order" reduce in.bin --op sum -r
refused "reduce --reverse" "--reverse does not apply to reduce" reduce in.bin --op max --reverse
refused "gen -r" "-r does not apply to gen" gen -o out.bin --count 10 -r
refused "merge --ooc partition" "--ooc does not apply to merge|--fan-in" merge exp.bin -o out.bin --ooc partition
refused "merge --ooc=merge" "--ooc does not apply to merge" merge exp.bin -o out.bin --ooc=merge
refused "info -q" "-q does not apply to info" info -q
refused "plan -q" "-q does not apply to plan" plan in.bin -q
gx sort in.bin -o s.bin -r -q
expect_rc "sort -r still applies" 0
gx dedupe in.bin -o s.bin --ooc merge -q
expect_rc "dedupe --ooc still applies" 0

# The help of each command lists what it takes.
help_lacks() {  # NAME COMMAND PATTERN: `gxsort help COMMAND` has no line matching PATTERN
  gx help $2
  if [[ $RC == 0 ]] && ! grep -qE -- "$3" "$WORK/last.out"; then pass "$1"; else fail "$1" "$(grep -E -- "$3" "$WORK/last.out" | head -2)"; fi
}
help_lacks "reduce --help: no -r" reduce '^ +-r \['
help_lacks "gen --help: no -r" gen '^ +-r \['
help_lacks "merge --help: no --ooc" merge '^ +--ooc'
help_lacks "info --help: no -q" info '^ +-q \['
gx help sort
grep -qE '^ +-r \[' "$WORK/last.out" && grep -qE '^ +--ooc' "$WORK/last.out" && pass "sort --help: -r and --ooc" || fail "sort --help" ""
for c in sort plan runs merge dedupe "graph build" bfs info; do
  gx help $c
  if grep -q '% of RAM' "$WORK/last.out"; then fail "$c --help: --memory" "still says '% of RAM'"
  elif tr -s ' \n' ' ' <"$WORK/last.out" | grep -q 'memory limit (the smaller of RAM and the cgroup'; then pass "$c --help: --memory is a share of the memory limit"
  else fail "$c --help: --memory" "$(grep -A2 -- '--memory' "$WORK/last.out" | head -3)"; fi
done
for c in gen runs plan "graph build"; do
  help_lacks "$c --help: -o does not say it may name the input" "$c" 'may name the input'
done

# -q: reduce's result is its output (as wc's count), nothing else is printed.
gx reduce in.bin --op count
want=$(cat "$WORK/last.out")
gx reduce in.bin --op count -q
[[ $RC == 0 && "$(cat "$WORK/last.out")" == "$want" && ! -s "$WORK/last.err" ]] && pass "reduce -q: the result on stdout, nothing on stderr" || fail "reduce -q" "rc=$RC out='$(cat "$WORK/last.out")' err=$(last_err)"
gx check exp.bin -q
[[ $RC == 0 && ! -s "$WORK/last.out" ]] && pass "check -q: the exit status alone" || fail "check -q" "rc=$RC"
gx check exp.bin -v
[[ $RC == 0 ]] && grep -q '^gxsort check: 5000 records' "$WORK/last.err" && grep -q '^sorted: yes' "$WORK/last.out" && pass "check -v: the report and a summary" || fail "check -v" "rc=$RC: $(last_err)"

# The budget: --memory, by default half of the memory limit, for every command.
gx info --memory 1G
grep -q -- '--memory gives 1.0 GiB' "$WORK/last.out" && pass "info --memory 1G: shows the budget it gives" || fail "info --memory" "$(grep memory "$WORK/last.out")"
gx info --memory 25% --json
json_get "$WORK/last.out" 'j["memory_budget"] == j["memory_limit"] // 4' | grep -q True && pass "info --json: memory_budget (25% of the limit)" || fail "info --json memory_budget" "$(cat "$WORK/last.out")"

# A fake cgroup v2 limit of 2 MiB: the default budget is 1 MiB everywhere.
mkdir -p cg/root/job
echo "0::/job" >cg/cgroup
echo 2097152 >cg/root/job/memory.max
export GXSORT_TEST_CGROUP_DIR="$WORK/cg"
gx info
grep -q '^memory: .*limit 2.0 MiB (cgroup .*memory.max); --memory default 1.0 MiB' "$WORK/last.out" && pass "cgroup limit 2 MiB: info shows it and a 1 MiB default" || fail "info under the cgroup" "$(grep memory "$WORK/last.out")"
gx plan in.bin --memory 1M
want=$(grep '^memory budget' "$WORK/last.out")
gx plan in.bin
[[ $RC == 0 && "$(grep '^memory budget' "$WORK/last.out")" == "$want" ]] && pass "cgroup limit 2 MiB: plan's default budget is 1 MiB" || fail "plan under the cgroup" "$(grep budget "$WORK/last.out")"
unset GXSORT_TEST_CGROUP_DIR
# A graph whose load needs more than 1 MiB (32768 vertices: 256 KiB of offsets, ~1.9 MiB of ids).
gx gen -o e.bin --graph rmat --scale 15 -q
gx graph build e.bin --input-format bin32 -o g.csr -q
gx bfs g.csr --source 0 -q
expect_rc "bfs without a limit: loads the graph" 0
export GXSORT_TEST_CGROUP_DIR="$WORK/cg"
gx bfs g.csr --source 0 -q
expect_rc "bfs under a 2 MiB cgroup limit: exit 3 (the default budget is 1 MiB)" 3
err_mentions "bfs under the cgroup: names the budget" "budget of 1.0 MiB" "g.csr"
gx bfs g.csr --source 0 -q --memory 64M
expect_rc "bfs under the cgroup with --memory 64M: exit 0" 0
unset GXSORT_TEST_CGROUP_DIR
finish
