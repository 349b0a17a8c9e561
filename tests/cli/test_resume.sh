#!/usr/bin/env bash
# A killed job resumes where it stopped (--resume): kill -9 during run formation, between
# merge levels and during the last merge (the journal is polled, not slept on), then the
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
# lines matching PATTERN; 0 when it was killed in time.
kill_when() {
  rm -f out.bin
  "$GX" "${SORT[@]}" -q 2>/dev/null &
  local pid=$! i
  for ((i = 0; i < 2000; i++)); do
    if (($(journal | grep -c "$2") >= $3)); then kill -9 $pid; wait $pid 2>/dev/null; return 0; fi
    kill -0 $pid 2>/dev/null || break
    sleep 0.01
  done
  wait $pid 2>/dev/null
  skip "$1" "the sort ended before the journal held $3 '$2' entries"
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
  printf '\x01' | dd of="$piece" bs=1 seek=100 conv=notrunc status=none
  gx "${SORT[@]}" --resume -v
  same_bytes "a flipped byte in a kept run: formed again, the bytes of a plain sort" out.bin ref.bin
  r=$(grep -o 'resumed: [0-9]* of' "$WORK/last.err" | grep -o '[0-9]*' | head -1)
  (( r >= 1 && r < kept )) && pass "the damaged run was not reused ($r reused of the $kept journalled)" || fail "damaged run" "reused $r of $kept"
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
if kill_when "partition, killed in pass 1" '^bucket ' 1; then
  gx "${SORT[@]}" --resume -v
  same_bytes "partition, killed as pass 1 ended: --resume gives the bytes of a plain sort" out.bin ref.bin
fi

# --resume on a stream: refused.
cat in.bin | "$GX" sort - -o o.bin --memory 6M --resume -T T -q 2>"$WORK/last.err"; RC=$?
expect_rc "--resume of a stream: exit 2" 2
finish
