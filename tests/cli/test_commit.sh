#!/usr/bin/env bash
# The commit of outputs: a file with other hard links is rewritten in place, and a
# signal or kill -9 during that rewrite never loses the data (the signal waits for the
# rewrite; after kill -9 the complete output stays as FILE.gxsort-sorted, which the next
# command's note and `gxsort clean` name and never remove); nothing that can fail comes
# after an output replaced a file (--stats-json and bfs --parents into /dev/full).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p O
oracle gen -o in.bin --count 2000000 --seed 21 --expect exp.bin   # 16 MiB
# start_in_place: sorts O/hl.bin (hard-linked as O/hl2.bin) onto itself in the
# background, and waits until it has stopped itself halfway through the rewrite
# (GXSORT_TEST_STOP_AT=in-place, a test hook: half of the file rewritten).
start_in_place() {
  cp in.bin O/hl.bin; ln -f O/hl.bin O/hl2.bin
  GXSORT_TEST_STOP_AT=in-place "$GX" sort O/hl.bin -o O/hl.bin "$@" 2>"$WORK/last.err" &
  PID=$!
  wait_stopped "$PID"
}

# ---- a signal while a hard-linked file is rewritten in place ----
for sig in TERM HUP; do
  if start_in_place -q; then
    kill -s "$sig" "$PID"; kill -CONT "$PID"; wait "$PID"; RC=$?
    want=$((128 + $(kill -l "$sig")))
    [[ $RC == "$want" ]] && pass "SIG$sig during the in-place rewrite: dies of it once the rewrite is whole (exit $RC)" \
      || fail "SIG$sig during the in-place rewrite: exit $want" "exit $RC: $(last_err)"
    same_bytes "SIG$sig during the in-place rewrite: the file holds the whole sorted output" O/hl.bin exp.bin
    same_bytes "SIG$sig during the in-place rewrite: so does its other name" O/hl2.bin exp.bin
    grep -q "finished first" "$WORK/last.err" && pass "SIG$sig during the in-place rewrite: says it finishes first" \
      || fail "SIG$sig during the in-place rewrite: message" "$(last_err)"
    [[ -z "$(find O "$TMPDIR" -name '.gxsort*' -o -name '*gxsort-sorted*')" ]] && pass "SIG$sig during the in-place rewrite: nothing left" \
      || fail "SIG$sig during the in-place rewrite: nothing left" "$(find O "$TMPDIR" -name '.gxsort*' -o -name '*gxsort-sorted*')"
  else
    wait "$PID"; fail "SIG$sig during the in-place rewrite" "the rewrite never began (exit $?): $(last_err)"
  fi
done

# ---- kill -9 while a hard-linked file is rewritten in place ----
if start_in_place -q --memory 1M; then
  kill -9 "$PID"; wait "$PID" 2>/dev/null
  same_bytes "kill -9 during the in-place rewrite: the complete output is kept in FILE.gxsort-sorted" O/hl.bin.gxsort-sorted exp.bin
  cmp -s O/hl.bin exp.bin && fail "kill -9 during the in-place rewrite: the file was half-written" "it is whole (the pause did not hold)" \
    || pass "kill -9 during the in-place rewrite: the file itself is half-written (what the kept copy is for)"
  gx clean -n
  grep -q "^kept .*hl.bin.gxsort-sorted.*cp .*hl.bin.gxsort-sorted .*hl.bin" "$WORK/last.out" \
    && pass "clean -n (default directories) names the kept output and how to restore it" || fail "clean -n names the kept output" "$(cat "$WORK/last.out")"
  gx clean
  [[ -e O/hl.bin.gxsort-sorted ]] && pass "clean never removes the kept output" || fail "clean never removes the kept output" "gone"
  gx clean -T O
  [[ -e O/hl.bin.gxsort-sorted ]] && pass "clean -T DIR never removes it either" || fail "clean -T DIR never removes it" "gone"
  oracle gen -o other.bin --count 1000 --seed 1
  gx sort other.bin -o O/other.bin
  expect_rc "a later sort into that directory: exit 0" 0
  grep -q "note: .*O/hl.bin.gxsort-sorted is the complete output of an in-place rewrite of O/hl.bin.*cp O/hl.bin.gxsort-sorted O/hl.bin" "$WORK/last.err" \
    && pass "a later sort into that directory notes the kept output and how to restore it" || fail "the note names the kept output" "$(last_err)"
  cp O/hl.bin.gxsort-sorted O/hl.bin && rm O/hl.bin.gxsort-sorted
  same_bytes "restored as the note says: the other hard link sees the sorted output" O/hl2.bin exp.bin
else
  wait "$PID"; fail "kill -9 during the in-place rewrite" "the rewrite never began (exit $?): $(last_err)"
fi
rm -f O/*

# ---- nothing that can fail after an output replaced a file ----
printf 'OLD' >old.ref
printf 'OLD' >O/old.out
gx sort in.bin -o O/old.out --stats-json /dev/full
expect_rc "sort --stats-json /dev/full: exit 3" 3
err_mentions "sort --stats-json /dev/full: message" "/dev/full"
cmp -s O/old.out old.ref && pass "sort --stats-json /dev/full: the old output is untouched" || fail "sort --stats-json /dev/full: old output untouched" "replaced"
cp in.bin O/hl.bin; ln -f O/hl.bin O/hl2.bin
gx sort O/hl.bin -o O/hl.bin --stats-json /dev/full
expect_rc "in-place sort --stats-json /dev/full: exit 3" 3
same_bytes "in-place sort --stats-json /dev/full: the file is untouched" O/hl.bin in.bin
gx merge exp.bin exp.bin -o O/old.out --stats-json /dev/full
cmp -s O/old.out old.ref && pass "merge --stats-json /dev/full: the old output is untouched" || fail "merge --stats-json /dev/full" "replaced"
gx dedupe in.bin -o O/old.out --stats-json /dev/full
cmp -s O/old.out old.ref && pass "dedupe --stats-json /dev/full: the old output is untouched" || fail "dedupe --stats-json /dev/full" "replaced"
gx gen -o O/old.out --count 10 --stats-json /dev/full
cmp -s O/old.out old.ref && pass "gen --stats-json /dev/full: the old output is untouched" || fail "gen --stats-json /dev/full" "replaced"
gx runs in.bin -o O/rd --memory 1M --stats-json /dev/full
expect_rc "runs --stats-json /dev/full: exit 3" 3
[[ ! -e O/rd ]] && pass "runs --stats-json /dev/full: no runs directory" || fail "runs --stats-json /dev/full: no runs directory" "$(ls -A O/rd | head -3)"
printf '0 1\n1 2\n2 0\n' >e.txt
gx graph build e.txt -o O/old.out --input-format snap --stats-json /dev/full
cmp -s O/old.out old.ref && pass "graph build --stats-json /dev/full: the old output is untouched" || fail "graph build --stats-json /dev/full" "replaced"
gx graph build e.txt -o g.csr --input-format snap -q
gx bfs g.csr --source 0 -o O/old.out --parents /dev/full
expect_rc "bfs -o FILE --parents /dev/full: exit 3" 3
cmp -s O/old.out old.ref && pass "bfs --parents /dev/full: the levels output is untouched" || fail "bfs --parents /dev/full: levels untouched" "replaced"
printf 'OLD' >O/old2.out
gx bfs g.csr --source 0 -o O/old.out --parents O/old2.out --stats-json /dev/full
cmp -s O/old.out old.ref && cmp -s O/old2.out old.ref && pass "bfs --stats-json /dev/full: levels and parents untouched" \
  || fail "bfs --stats-json /dev/full: levels and parents untouched" "replaced"
gx bfs g.csr --source 0 -o O/lv.bin --parents O/par.bin --stats-json O/st.json
[[ $RC == 0 && -s O/lv.bin && -s O/par.bin ]] && json_get O/st.json 'j["command"] == "bfs"' | grep -q True \
  && pass "bfs -o, --parents and --stats-json: all three written" || fail "bfs -o, --parents, --stats-json" "rc=$RC: $(last_err)"
gx sort in.bin -o O/s.bin --stats-json O/s.json
[[ $RC == 0 ]] && json_get O/s.json '[p["name"] for p in j["phases"]][-1] == "sync and rename"' | grep -q True \
  && pass "sort --stats-json: written, with the sync and rename phase" || fail "sort --stats-json" "rc=$RC: $(cat O/s.json 2>/dev/null | head -c 300)"
[[ -z "$(find O "$TMPDIR" -name '.gxsort*')" ]] && pass "no temp files left" || fail "no temp files left" "$(find O "$TMPDIR" -name '.gxsort*')"
# ---- an existing output is replaced whole: swapped with the finished file, whose name
# then holds the old content and is unlinked (no writeback forced by a rename over it) ----
for sync in synced --no-fsync; do
  cp in.bin O/old.bin
  exec 7<O/old.bin  # a reader of the old file keeps it, as with a rename over it
  if [[ $sync == synced ]]; then gx sort in.bin -o O/old.bin; else gx sort in.bin -o O/old.bin --no-fsync; fi
  same_bytes "an existing output replaced ($sync): the sorted records" O/old.bin exp.bin
  cmp -s /dev/fd/7 in.bin && pass "an existing output replaced ($sync): a reader of the old file still reads it" ||
    fail "old file reader ($sync)" "$(cmp /dev/fd/7 in.bin 2>&1)"
  exec 7<&-
  left=$(leftover_temps O)
  [[ -z "$left" ]] && pass "an existing output replaced ($sync): the old content left no temp file" || fail "replace leftovers ($sync)" "$left"
done
finish
