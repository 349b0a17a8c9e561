# The benchmark scripts' tiny modes (tools/bench/): they run, and what they compare agrees.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
ROOT=$(cd "$HERE/../.." && pwd)

ROUNDS=1 DEVICE=cpu bash "$ROOT/tools/bench/ab_in_memory.sh" "$GX" "$GX" 0.001 "$WORK" >ab.txt 2>&1
RC=$?
expect_rc "ab_in_memory.sh tiny: exits 0" 0
[[ $(grep -c '^| \(u64\|gensort\|16-byte records\) |' ab.txt) == 3 ]] && pass "ab_in_memory.sh tiny: a row for each input" ||
  fail "ab_in_memory.sh rows" "$(cat ab.txt)"
! grep -q DIFFERS ab.txt && pass "ab_in_memory.sh tiny: every output is the reference's" || fail "ab_in_memory.sh outputs" "$(cat ab.txt)"
finish
