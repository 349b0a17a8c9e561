#!/usr/bin/env bash
# runs of text lines (runs --lines IN... -o DIR) and their merge (merge --lines DIR): runs
# then merge give `LC_ALL=C sort`'s bytes with the same options; the directory made and
# refused as the runs of records make and refuse it; its manifest names the lines' order
# (a merge by another order, or as records, is refused); a tampered run is refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

"${PY[@]}" "$HERE/lines_corpus.py" "$WORK" || { fail "corpus" "lines_corpus.py failed"; finish; }
command -v sort >/dev/null || { fail "GNU sort" "not installed (coreutils)"; finish; }
gnu() { LC_ALL=C sort "$@"; }
# Text of about 880 KB: with --memory 1M, several runs.
cat mixed.txt few.txt nums.txt csv.txt nofinal.txt >all.txt
SMALL=(--memory 1M)

run_count() { ls "$1" | grep -c '^run-[0-9]*\.bin$'; }
no_temps() {  # NAME DIR...
  local l; l=$(leftover_temps "$@")
  [[ -z $l ]] && pass "$1" || fail "$1" "left behind: $(echo $l)"
}

# ---- runs then merge equals GNU sort ----
# runs_case OPTS FILE: runs with OPTS (several runs), each run sorted (-u: without equal
# keys), merge of the directory equal to GNU sort's bytes.
runs_case() {
  local opts=$1 file=$2 r bad=0
  rm -rf rd; gx runs --lines $opts "$file" -o rd -q "${SMALL[@]}"
  if [[ $RC != 0 ]]; then fail "runs $opts: exit 0" "exit $RC: $(last_err)"; return; fi
  local n; n=$(run_count rd)
  ((n > 1)) && [[ -f rd/manifest.txt ]] && pass "runs $opts $file: a manifest and $n run files" ||
    fail "runs $opts $file: a manifest and several run files" "$(ls rd | tr '\n' ' ')"
  for r in rd/run-*.bin; do "$GX" check --lines $opts "$r" -q || bad=$((bad + 1)); done
  ((bad == 0)) && pass "runs $opts: every run is sorted (-u: no equal keys)" || fail "runs $opts: every run is sorted" "$bad not"
  no_temps "runs $opts: no temp files in the directory" rd
  gnu $opts "$file" >want
  gx merge --lines $opts rd -o got -q "${SMALL[@]}"
  same_bytes "runs $opts, then merge: GNU sort's bytes" got want
}
runs_case "" all.txt
runs_case "-t, -k2,2n" all.txt
runs_case "-k2,2n" all.txt
runs_case "-u" all.txt
runs_case "-t, -k2,2 -u" all.txt
runs_case "-r" all.txt
runs_case "-s -k1,1" all.txt
runs_case "-z" zero.txt
runs_case "-z -k2 -u" zero.txt

# GNU's key options imply --lines.
rm -rf rk; gx runs -t, -k2,2n all.txt -o rk -q "${SMALL[@]}"
gx merge -t, -k2,2n rk -o got -q
gnu -t, -k2,2n all.txt >want
same_bytes "runs -t, -k2,2n (no --lines): lines, merged to GNU's bytes" got want
grep -qx "format lines newline -t 0x2c -k2.1n,2.0" rk/manifest.txt &&
  pass "the manifest names the lines and their order" || fail "the manifest's format line" "$(sed -n 2p rk/manifest.txt)"
# Several inputs, one after the other (the last line of one without a newline gets it).
rm -rf rs; gx runs --lines nofinal.txt few.txt mixed.txt -o rs -q "${SMALL[@]}"
gx merge --lines rs -o got -q
gnu nofinal.txt few.txt mixed.txt >want
same_bytes "runs of three inputs, merged: GNU's bytes" got want
# Standard input.
rm -rf ri; gx runs -k2,2n - -o ri -q "${SMALL[@]}" <all.txt
gx merge -k2,2n ri -o got -q
gnu -k2,2n all.txt >want
same_bytes "runs of standard input, merged: GNU's bytes" got want
# A runs directory among sorted files, and with -u across runs and files.
gnu -t, -k2,2n csv.txt >csv.sorted
gx merge -t, -k2,2n csv.sorted rk -o got -q
gnu -t, -k2,2n csv.txt all.txt >want
same_bytes "merge of a sorted file and a runs directory: GNU's bytes" got want
gx merge -z -k2 -u rd -o got -q  # rd: the last runs_case's, -z -k2 -u
gnu -z -k2 -u zero.txt >want
same_bytes "merge -u of runs formed with -u: GNU's sort -u" got want
rm -rf rp; gx runs --lines all.txt -o rp -q "${SMALL[@]}"
gx merge --lines -u rp -o got -q
gnu -u all.txt >want
same_bytes "merge -u of runs formed without -u: GNU's sort -u" got want
gx merge --lines rp -o got --progress --stats-json stats.json --no-fsync
gnu all.txt >want
same_bytes "merge --progress --stats-json --no-fsync: GNU's bytes" got want
grep -q '"command": *"merge"' stats.json && pass "merge --stats-json: written" || fail "merge --stats-json" "$(head -c 200 stats.json)"

# --no-fsync, --progress, --stats-json, -v of runs (the runs above were synced: the default).
rm -rf rf; gx runs --lines all.txt -o rf "${SMALL[@]}" --no-fsync --progress --stats-json rstats.json -v
expect_rc "runs --no-fsync --progress --stats-json -v: exit 0" 0
grep -q '"command": *"runs"' rstats.json && pass "runs --stats-json: written" || fail "runs --stats-json" "$(head -c 200 rstats.json)"
grep -q "sort runs" last.err && pass "runs --progress: the sort runs phase shows" || fail "runs --progress" "$(last_err)"
grep -q "$(run_count rf) runs" last.err && pass "runs -v: the runs counted" || fail "runs -v" "$(last_err)"

# ---- one line, no lines ----
printf 'only' >one.txt
rm -rf r1; gx runs --lines one.txt -o r1 -q
[[ $RC == 0 && $(run_count r1) == 1 ]] && pass "runs of one line: one run" || fail "runs of one line" "rc=$RC, $(ls r1)"
gx merge --lines r1 -o got -q
printf 'only\n' >want
same_bytes "one line: merged, with its newline" got want
: >empty.txt
rm -rf r0; gx runs --lines empty.txt -o r0 -q
[[ $RC == 0 && -f r0/manifest.txt && $(run_count r0) == 0 ]] && pass "runs of no lines: a manifest, no runs" ||
  fail "runs of no lines" "rc=$RC: $(ls r0 2>&1)"
gx merge --lines r0 -o got -q
[[ $RC == 0 && -f got && ! -s got ]] && pass "merge of no runs: an empty output" || fail "merge of no runs" "rc=$RC"

# ---- the directory: made and refused as the runs of records ----
"$GX" gen -o rec.bin --count 1000 -q
# both_refuse NAME SETUP: DIR set up by SETUP (shell code) for runs of records and of
# lines: each gets the same exit status, a refusal leaves DIR as it was.
both_refuse() {
  local name=$1 setup=$2 want
  rm -rf D D.target; eval "$setup"
  gx runs rec.bin -o D -q; want=$RC
  rm -rf D D.target; eval "$setup"
  local before; before=$(ls -lAR D 2>&1)
  gx runs --lines all.txt -o D -q "${SMALL[@]}"
  [[ $RC == "$want" && $RC != 0 ]] && pass "$name: refused as runs of records refuse it (exit $RC)" ||
    fail "$name: refused as runs of records" "exit $RC, records' $want: $(last_err)"
  [[ $(ls -lAR D 2>&1) == "$before" ]] && pass "$name: left as it was" || fail "$name: left as it was" "$(ls -A D)"
}
both_refuse "DIR holding a manifest" 'mkdir D; echo x >D/manifest.txt'
both_refuse "DIR holding a run file" 'mkdir D; echo x >D/run-000003.bin'
both_refuse "DIR a file" 'echo x >D'
both_refuse "DIR a dangling symlink" 'ln -s D.target D'
both_refuse "DIR a symlink to a runs directory" 'cp -r rd D.target; ln -s D.target D'
both_refuse "runs of lines into runs of lines" 'cp -r rd D'
gx runs --lines missing.txt -o nodir -q
expect_rc "runs of a missing input: exit 2" 2
[[ ! -e nodir ]] && pass "runs of a missing input: no directory made" || fail "runs of a missing input: no directory" "nodir exists"
# A line longer than --memory: refused, the directory it made removed.
head -c 3000000 /dev/zero | tr '\0' 'x' >long1.txt
gx runs --lines long1.txt -o nolong -q --memory 1M
expect_rc "runs of a line longer than --memory: exit 2" 2
[[ ! -e nolong ]] && pass "a refused runs: its new directory removed" || fail "a refused runs: directory removed" "$(ls -A nolong)"
no_temps "refusals: no temp files left" "$WORK"

# ---- merge: a runs directory of another kind or order, tampered runs ----
gx merge rk -o got
expect_rc "merge of runs of lines as records: exit 2" 2
err_mentions "merge of runs of lines as records: says so" "rk" "text lines" "--lines"
rm -rf rb; "$GX" runs rec.bin -o rb -q
gx merge --lines rb -o got
expect_rc "merge --lines of runs of records: exit 2" 2
err_mentions "merge --lines of runs of records: says so" "rb" "binary records"
gx merge -t, -k2,2 rk -o got
expect_rc "merge by another order: exit 2" 2
err_mentions "merge by another order: names both" "rk" "-k2.1n,2.0" "-k2.1,2.0"
gx merge -z -t, -k2,2n rk -o got
expect_rc "merge with another terminator: exit 2" 2
[[ $(wc -l <last.err) == 1 ]] && pass "each refusal: one line" || fail "refusal: one line" "$(last_err)"
gx merge -t, -k2,2n rk -o rk/out.txt
expect_rc "merge into the runs directory: exit 2" 2
# tampered DESC MUTATION TEXT: a copy of rk changed by MUTATION (in it) is refused, the
# message naming TEXT, no output.
tampered() {
  rm -rf bad got; cp -r rk bad
  (cd bad && eval "$2")
  gx merge -t, -k2,2n bad -o got
  expect_rc "$1: exit 2" 2
  err_mentions "$1: names it" "$3"
  [[ ! -e got ]] && pass "$1: no output" || fail "$1: no output" "got exists"
}
tampered "a truncated run" 'truncate -s -4 run-000001.bin' "run-000001.bin"
tampered "a run changed, same size" 'printf x | dd of=run-000001.bin bs=1 seek=10 conv=notrunc status=none' "run-000001.bin"
tampered "a run missing" 'rm run-000002.bin' "run-000002.bin"
tampered "the manifest's order edited" 'sed -i "2s/-k2.1n/-k2.1/" manifest.txt' "manifest"
no_temps "merge refusals: no temp files left" "$WORK"


# ---- merge of more inputs than the fan-in: in passes through temp files ----
mkdir -p T
# nine_sorted OPTS FILE: FILE cut into nine pieces p1 .. p9, each sorted by OPTS.
nine_sorted() {
  local sep=() f; [[ $1 == *-z* ]] && sep=(-t '\0')
  rm -f p?; split "${sep[@]}" -n l/9 -a 1 --numeric-suffixes=1 "$2" p
  for f in p?; do gnu $1 "$f" -o "$f"; done
}
# passes_case OPTS FILE: nine sorted inputs merged with --fan-in 2 (4 passes) and 3 (2):
# GNU sort -m's bytes, the passes in the stats and the plan, no temp file left.
passes_case() {
  local opts=$1 f want_levels levels planned
  nine_sorted "$opts" "$2"
  gnu -m $opts p? >want
  for f in 2 3; do
    want_levels=$([[ $f == 2 ]] && echo 4 || echo 2)
    gx merge --lines $opts p? -o got -T T --fan-in $f --stats-json st.json -q
    same_bytes "merge $opts of 9 inputs, --fan-in $f: GNU sort -m's bytes" got want
    levels=$(json_get st.json 'j["merge_levels"]')
    gx plan merge --lines $opts p? -o got -T T --fan-in $f --json
    planned=$(json_get last.out 'j["merge_passes"]')
    [[ $levels == "$want_levels" && $planned == "$levels" ]] &&
      pass "merge $opts, --fan-in $f: $levels passes, as plan says" ||
      fail "merge $opts, --fan-in $f: $want_levels passes" "stats $levels, plan $planned"
  done
  no_temps "merge $opts in passes: no temp file left" T
}
passes_case "" all.txt
passes_case "-t, -k2,2n" all.txt
passes_case "-u" all.txt
passes_case "-t, -k2,2 -u" all.txt
passes_case "-r" all.txt
passes_case "-s -k1,1" all.txt
passes_case "-z" zero.txt
nine_sorted "" all.txt
# Within the fan-in: one pass, as before.
rm -f st.json; gx merge --lines p? -o got -T T --stats-json st.json -q
[[ $RC == 0 && $(json_get st.json 'j["merge_levels"]') == 1 ]] && pass "9 inputs, the default fan-in: one pass" ||
  fail "9 inputs, the default fan-in: one pass" "rc $RC: $(last_err)"
# An input out of order, read in the first pass (the 7th) or carried to the last (the 9th
# with --fan-in 2): refused naming it, no output, no temp file left.
for bad in p7 p9; do
  cp "$bad" "$bad.good"; printf 'zzz\naaa\n' >>"$bad"; rm -f got
  gx merge --lines p? -o got -T T --fan-in 2
  expect_rc "merge in passes, $bad out of order: exit 2" 2
  err_mentions "merge in passes, $bad out of order: names it" "$bad" "not sorted"
  [[ ! -e got ]] && pass "merge in passes, $bad out of order: no output" || fail "$bad out of order: no output" "got exists"
  no_temps "merge in passes, $bad out of order: no temp file left" T "$WORK"
  mv "$bad.good" "$bad"
done
# A runs directory of 10 runs, --fan-in 3: 3 passes (10 -> 4 -> 2 -> the output).
seq 1 72000 >ten.txt
rm -rf r10; gx runs --lines ten.txt -o r10 -q "${SMALL[@]}"
[[ $(run_count r10) == 10 ]] && pass "runs: 10 runs" || fail "runs: 10 runs" "$(run_count r10) runs"
gx merge --lines r10 -o got -T T --fan-in 3 --stats-json st.json -q
gnu ten.txt >want
same_bytes "merge of a runs directory of 10 runs, --fan-in 3: GNU's bytes" got want
levels=$(json_get st.json 'j["merge_levels"]')
gx plan merge --lines r10 -o got -T T --fan-in 3 --json
[[ $levels == 3 && $(json_get last.out 'j["merge_passes"]') == 3 && $(json_get last.out 'j["runs"]') == 10 ]] &&
  pass "merge of 10 runs, --fan-in 3: 3 passes, as plan says" || fail "merge of 10 runs: 3 passes" "stats $levels: $(head -c 300 last.out)"
no_temps "merge of a runs directory in passes: no temp file left" T r10
# More inputs than their buffers (4 KiB each at least) fit in --memory: a lower fan-in.
mkdir -p many; for i in $(seq 1 300); do echo "line $i" >"many/f$i"; done
gnu -m many/f* >want
gx merge --lines many/f* -o got -T T --fan-in 1000 --memory 1M --stats-json st.json -q
same_bytes "merge of 300 inputs in --memory 1M: GNU's bytes" got want
levels=$(json_get st.json 'j["merge_levels"]')
gx plan merge --lines many/f* -o got -T T --fan-in 1000 --memory 1M --json
[[ $levels == 2 && $(json_get last.out 'j["merge_passes"]') == 2 && $(json_get last.out 'j["fan_in"]') -lt 300 ]] &&
  pass "300 inputs in --memory 1M: 2 passes, a fan-in within the budget" || fail "300 inputs in --memory 1M" "stats $levels: $(head -c 300 last.out)"
no_temps "merge in --memory 1M: no temp file left" T

# -o -: "-" is standard output (and a merge reads it as standard input): no directory of that name.
printf 'b\na\n' >two.txt
"$GX" gen -o recs.bin --count 100 -q
for args in "--lines two.txt" "recs.bin"; do
  gx runs $args -o -
  expect_rc "runs $args -o -: exit 2" 2
  [[ ! -e ./- ]] && grep -q "not to standard output" last.err && pass "runs $args -o -: refused, no directory named -" ||
    fail "runs $args -o -" "$(last_err)"
  rm -rf ./-
done

finish
