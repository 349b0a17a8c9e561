#!/usr/bin/env bash
# `runs` whose directory sync fails once the manifest is in place (a test hook:
# GXSORT_TEST_FAIL_RUNS_DIR_SYNC=1, lib/src/commands/runs_dir.cpp: sync_runs_dir): an
# error (exit 3, one line naming the directory), and the directory stays whole: the
# manifest and every run it names, nothing else (no temp file, no job directory), and a
# merge of it gives the sorted bytes. Records (a regular input: runs linked from the
# job's pieces; a stream: temp runs renamed) and text lines.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
command -v sort >/dev/null || { fail "GNU sort" "not installed (coreutils)"; finish; }
REC=(--record-size 12 --key-offset 4 --key-type u32)

# whole_dir NAME DIR: the manifest and exactly the runs it names, nothing else.
whole_dir() {
  local listed present
  listed=$(grep -o 'run-[0-9]*\.bin' "$2/manifest.txt" 2>/dev/null | sort)
  present=$(ls -A "$2" | grep -v '^manifest\.txt$' | sort)
  [[ -f $2/manifest.txt && -n $listed && $listed == "$present" ]] && pass "$1: the manifest and its $(wc -w <<<"$listed") runs" \
    || fail "$1: the manifest and its runs" "listed: $(echo $listed); present: $(ls -A "$2" | tr '\n' ' ')"
}

# failed_sync NAME DIR RUNS_ARGS...: `runs` (RUNS_ARGS, -o DIR) with the sync failing.
failed_sync() {
  local name=$1 dir=$2; shift 2
  rm -rf "$dir"
  GXSORT_TEST_FAIL_RUNS_DIR_SYNC=1 "$GX" runs "$@" -o "$dir" -q 2>"$WORK/last.err" <"${STDIN:-/dev/null}"; RC=$?
  expect_rc "$name: exit 3" 3
  err_mentions "$name: one line naming the directory" "$dir: cannot sync the directory"
  whole_dir "$name" "$dir"
}

oracle gen -o in.bin --count 200000 --seed 5 --expect exp.bin "${REC[@]}"
failed_sync "records" rd in.bin --memory 1M "${REC[@]}"
gx merge rd -o merged.bin -q "${REC[@]}"
same_bytes "records: merge of the directory" merged.bin exp.bin

STDIN=in.bin failed_sync "records from a stream" rs - --memory 1M "${REC[@]}"
gx merge rs -o merged.bin -q "${REC[@]}"
same_bytes "records from a stream: merge of the directory" merged.bin exp.bin

"${PY[@]}" -c '
import random
r = random.Random(3)
open("in.txt", "w").write("".join("%d,%s\n" % (r.randint(-99, 99), "x" * r.randint(0, 30)) for _ in range(60000)))'
LC_ALL=C sort -t, -k1,1n in.txt >ref.txt
failed_sync "lines" rl --lines -t, -k1,1n in.txt --memory 1M
gx merge --lines -t, -k1,1n rl -o merged.txt -q
same_bytes "lines: merge of the directory" merged.txt ref.txt

# Without the hook the same commands succeed (the hook is what fails them).
rm -rf rl; gx runs --lines -t, -k1,1n in.txt --memory 1M -o rl -q
expect_rc "lines without the hook: exit 0" 0
finish
