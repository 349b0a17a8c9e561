# The benchmark scripts' tiny modes (tools/bench/): they run, and what they compare agrees.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
ROOT=$(cd "$HERE/../.." && pwd)

ROUNDS=1 DEVICE=cpu bash "$ROOT/tools/bench/ab_in_memory.sh" "$GX" "$GX" 0.001 "$WORK" >ab.txt 2>&1
RC=$?
expect_rc "ab_in_memory.sh tiny: exits 0" 0
[[ $(grep -c '^| \(u64\|gensort\|16-byte records\) |' ab.txt) == 3 ]] && pass "ab_in_memory.sh tiny: a row for each input" ||
  fail "ab_in_memory.sh rows" "$(cat ab.txt)"
! grep -q DIFFERS ab.txt && pass "ab_in_memory.sh tiny: every output is the reference's" || fail "ab_in_memory.sh outputs" "$(cat ab.txt)"

# Out of core (a budget below the input) for one input alone: ONLY and EXTRA.
ONLY=u64 EXTRA="--memory 1M" ROUNDS=1 DEVICE=cpu bash "$ROOT/tools/bench/ab_in_memory.sh" "$GX" "$GX" 0.004 "$WORK" >ab.txt 2>&1
RC=$?
expect_rc "ab_in_memory.sh ONLY=u64 EXTRA=--memory 1M: exits 0" 0
[[ $(grep -c '^| ' ab.txt) == 2 && $(grep -c '^| u64 |' ab.txt) == 1 ]] && pass "ab_in_memory.sh ONLY=u64: the u64 row alone" ||
  fail "ab_in_memory.sh ONLY rows" "$(cat ab.txt)"
! grep -q DIFFERS ab.txt && pass "ab_in_memory.sh out of core: the output is the reference's" || fail "ab_in_memory.sh ooc outputs" "$(cat ab.txt)"
# lines.sh on 200 kB of text: a row per job, every output GNU sort's (no DIFFERS).
BENCH_REPS=1 bash "$ROOT/tools/bench/lines.sh" "$GX" 200000 "$WORK" >lines.txt 2>&1
RC=$?
expect_rc "lines.sh tiny: exits 0" 0
[[ $(grep -c '^| \(lines\|-t, -k2,2n\|-u\)' lines.txt) == 3 ]] && pass "lines.sh tiny: a row for each job" ||
  fail "lines.sh rows" "$(cat lines.txt)"
! grep -q DIFFERS lines.txt && pass "lines.sh tiny: every output is GNU sort's" || fail "lines.sh outputs" "$(cat lines.txt)"

# bfs_bench.sh at scale 8 on the CPU: its graph build runs (it once passed an option
# graph build no longer takes, and failed at once) and the CPU column has a time.
THREADS=2 SOURCES=2 WORK="$WORK" bash "$ROOT/tools/bench/bfs_bench.sh" "$GX" 8 >bfs.txt 2>&1
RC=$?
expect_rc "bfs_bench.sh scale 8: exits 0" 0
grep -Eq '^\|  8 \| .*\| +[0-9.]+ \| +[0-9.]+ \| +([0-9.]+|n/a) \| +([0-9.]+|n/a) \|$' bfs.txt && pass "bfs_bench.sh scale 8: a row with the CPU search's time" ||
  fail "bfs_bench.sh row" "$(cat bfs.txt)"
finish
