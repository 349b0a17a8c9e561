#!/usr/bin/env bash
# GNU sort's spellings where they mean what gxsort's options do (--parallel, --buffer-size,
# --temporary-directory, -s; sort -c/-C/-m as check/merge; no input = stdin, no -o =
# stdout but not to a terminal), the one line for GNU options gxsort does not take, numpy's
# dtype names for --type/--key, the record width in plan, -v and --help; and the commands
# whose meaning stays (no -o is still an error for merge, dedupe, runs).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$WORK" || exit 1

"$GX" gen -o u.bin --count 20000 --seed 3 -q
"$GX" sort u.bin -o ref.bin -q
"$GX" gen -o v.bin --count 7000 --seed 4 -q
"$GX" sort v.bin -o v.sorted -q
"$GX" merge ref.bin v.sorted -o merged.ref -q

# ---- the same options under GNU's names ----
for spelled in "--parallel=1" "--parallel 2" "--buffer-size=2M" "--buffer-size 2048" "-S 2M" "-s" "--stable" \
               "--temporary-directory=$WORK"; do
  gx sort u.bin -o out.bin $spelled
  same_bytes "sort $spelled: the bytes of sort" out.bin ref.bin
done
gx plan u.bin --buffer-size 2048
grep -q "memory budget: 2.0 MiB" last.out && pass "--buffer-size 2048: a bare number is KiB, as in GNU sort" ||
  fail "--buffer-size 2048" "$(grep budget last.out)"
gx plan u.bin -S 4194304
grep -q "memory budget: 4.0 MiB" last.out && pass "-S 4194304: --memory's short form, bytes as before" ||
  fail "-S bytes" "$(grep budget last.out)"
mkdir -p tdir
"$GX" gen -o big.bin --count 300000 -q
gx plan big.bin --memory 1M --temporary-directory=tdir
grep -q "temporary directories: tdir" last.out && pass "--temporary-directory DIR: the temp files go there" ||
  fail "--temporary-directory" "$(tr '\n' '|' <last.out)"
gx sort u.bin -o out.bin --memory 2M --buffer-size 2M
expect_rc "--memory with --buffer-size: exit 2" 2
err_mentions "--memory with --buffer-size: one line" "--buffer-size"
gx sort u.bin -o out.bin --threads 1 --parallel 1
expect_rc "--threads with --parallel: exit 2" 2

# ---- sort -c, -C, -m ----
gx check u.bin; want=$(cat last.out)
gx sort -c u.bin
expect_rc "sort -c of an unsorted file: exit 1, as check" 1
[[ $(cat last.out) == "$want" ]] && pass "sort -c: check's report" || fail "sort -c report" "$(tr '\n' '|' <last.out)"
gx sort --check ref.bin
expect_rc "sort --check of a sorted file: exit 0" 0
gx sort -C u.bin
expect_rc "sort -C of an unsorted file: exit 1" 1
[[ ! -s last.out && ! -s last.err ]] && pass "sort -C: the exit status only" || fail "sort -C quiet" "$(tr '\n' '|' <last.out)"
gx sort --check=quiet ref.bin
expect_rc "sort --check=quiet of a sorted file: exit 0" 0
"$GX" sort -c <ref.bin >last.out 2>last.err; RC=$?
expect_rc "sort -c with no file: standard input, sorted" 0
gx sort -m ref.bin v.sorted -o out.bin
same_bytes "sort -m A B -o OUT: merge's bytes" out.bin merged.ref
"$GX" sort -m ref.bin v.sorted >out2.bin 2>last.err
same_bytes "sort -m A B > OUT: merge's bytes on stdout" out2.bin merged.ref
gx sort -m ref.bin u.bin -o out.bin
expect_rc "sort -m of an unsorted input: exit 2, as merge" 2
err_mentions "sort -m of an unsorted input: merge's line" "u.bin" "not sorted"
gx sort -c -m ref.bin
expect_rc "sort -c -m: exit 2" 2
err_mentions "sort -c -m: one line" "cannot be combined"

# ---- standard input and output by default ----
"$GX" sort <u.bin >out.bin 2>last.err; RC=$?
same_bytes "sort < IN > OUT: stdin to stdout" out.bin ref.bin
"$GX" sort u.bin >out.bin 2>last.err; RC=$?
same_bytes "sort IN > OUT: stdout" out.bin ref.bin
if command -v script >/dev/null; then
  script -qec "'$GX' sort u.bin" /dev/null >tty.out 2>&1 </dev/null; RC=$?
  expect_rc "sort without -o to a terminal: exit 2" 2
  lines=$(tr -d '\r' <tty.out | grep -c .)
  [[ $lines == 1 ]] && grep -q "gxsort: sort: standard output is a terminal" tty.out && pass "to a terminal: one line, no records" ||
    fail "to a terminal" "$(tr '\n' '|' <tty.out | cut -c1-300)"
  script -qec "'$GX' sort u.bin -o - >/dev/null" /dev/null >/dev/null 2>&1 </dev/null; RC=$?
  expect_rc "sort -o - redirected from the terminal: exit 0" 0
else
  fail "sort to a terminal" "script(1) (util-linux) is not installed"
fi

# ---- the other commands keep their meaning ----
gx merge ref.bin v.sorted
expect_rc "merge without -o: still exit 2" 2
err_mentions "merge without -o: the output is required" "output is required"
gx dedupe u.bin
expect_rc "dedupe without -o: still exit 2" 2
gx runs u.bin
expect_rc "runs without -o: still exit 2" 2
gx check
expect_rc "check without a file: still exit 2" 2
gx plan u.bin -c
expect_rc "plan -c: exit 2 (GNU's -c only on sort)" 2
gx info -s
expect_rc "info -s: exit 2" 2

# ---- GNU options gxsort does not take: one line with the gxsort way ----
# (Its text options, -k POS, -t, -n, ..., sort text lines: test_lines.sh.)
for case in "-M|month" "-nM|month" "--month-sort|month" "-V|version" "-R|shuffle" "--random-source=x|shuffle" \
            "--batch-size=8|--fan-in" "--files0-from=x|operands" "--compress-program=gzip|has none" "--debug|plan"; do
  opt=${case%%|*}; text=${case#*|}
  gx sort u.bin -o out.bin $opt
  expect_rc "sort $opt: exit 2" 2
  err_mentions "sort $opt: GNU's meaning and the gxsort way" "GNU sort's" "$text"
done
gx merge ref.bin -c -o out.bin
err_mentions "merge -c: points to check" "gxsort check"
gx gen -o out.bin --count 10 --key 2,2
expect_rc "gen --key 2,2 (GNU's key of lines): exit 2" 2
err_mentions "gen --key 2,2: one line pointing to sort's text lines" "text lines" "gxsort sort -k2,2"

# ---- numpy's dtype names ----
for pair in "<u8|u64" "=u8|u64" "uint64|u64" ">i4|i32be" "int32|i32" "<f4|f32" "float32|f32" "=f8|f64" ">f8|f64be" \
            "|u1|u8" "uint8|u8" "int8|i8" ">u2|u16be" "int16|i16"; do
  np=${pair%|*}; gxt=${pair##*|}
  [[ $np == "|u1" ]] && gxt=u8
  "$GX" sort u.bin -o want.bin --type "$gxt" -q
  gx sort u.bin -o out.bin --type "$np"
  same_bytes "--type $np is --type $gxt" out.bin want.bin
done
"$GX" sort u.bin -o want.bin --record-size 8 --key 4:u32:desc --key 0:i16be -q
gx sort u.bin -o out.bin --record-size 8 --key '4:<u4:desc' --key '0:>i2'
same_bytes "--key 4:<u4:desc --key 0:>i2: numpy's names in --key" out.bin want.bin
gx sort u.bin -o out.bin --record-size 8 --key-type uint32
same_bytes "--key-type uint32 (with --record-size)" out.bin "$(
  "$GX" sort u.bin -o want2.bin --record-size 8 --key-type u32 -q; echo want2.bin)"
gx sort u.bin -o out.bin --type '|u8'
expect_rc "--type |u8 (no such numpy form): exit 2" 2

# ---- the record width where a user sees the format ----
gx plan u.bin --type u8
grep -q "^format: 1-byte records" last.out && pass "plan --type u8: 1-byte records" || fail "plan u8" "$(grep format last.out)"
gx plan u.bin
grep -q "^format: u64 keys (8-byte records)" last.out && pass "plan: u64 keys (8-byte records)" || fail "plan u64" "$(grep format last.out)"
gx sort u.bin -o out.bin -v
grep -q "format: u64 keys (8-byte records)" last.err && pass "sort -v: the format with its width" || fail "sort -v" "$(last_err)"
gx sort --help
grep -q "u8 is 1-byte records" last.out && pass "sort --help: u8 is one byte" || fail "--help width" "$(grep -- --type last.out)"
grep -q -- "--parallel" last.out && grep -q -- "--buffer-size" last.out && pass "sort --help: the GNU spellings" ||
  fail "--help GNU" "no --parallel or --buffer-size"

[[ -z $(leftover_temps "$WORK") ]] && pass "no temp files left" || fail "temp files left" "$(leftover_temps "$WORK")"
finish
