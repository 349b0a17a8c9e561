#!/usr/bin/env bash
# `runs` + `merge` against `sort` and the oracle; stable merges of sorted files (ties by
# argument order); merge of an unsorted input; -o naming an input.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

REC=(--record-size 12 --key-offset 4 --key-type u32)

# sorted_file OUT COUNT SEED [dist] FORMAT...: a stably sorted file (with duplicates).
sorted_file() {
  local out=$1 n=$2 seed=$3 dist=$4; shift 4
  oracle gen -o "$WORK/unsorted.scratch" --count "$n" --seed "$seed" --dist "$dist" --expect "$out" "$@"
  rm -f "$WORK/unsorted.scratch"
}

no_leftovers() {  # NAME DIR...
  local name=$1; shift
  local l; l=$(leftover_temps "$@")
  if [[ -z "$l" ]]; then pass "$name"; else fail "$name" "left behind: $(echo $l)"; fi
}

# ---- runs then merge equals sort ----
runs_merge_case() {  # TAG COUNT DIST SEED FORMAT...
  local tag=$1 n=$2 dist=$3 seed=$4; shift 4
  rm -rf rd in.bin exp.bin sorted.bin merged*.bin
  oracle gen -o in.bin --count "$n" --dist "$dist" --seed "$seed" --expect exp.bin "$@"
  gx runs in.bin -o rd --memory 1M -q "$@"
  if [[ $RC != 0 ]]; then fail "$tag: runs" "exit $RC: $(last_err)"; return; fi
  local nruns; nruns=$(ls rd | grep -c '^run-.*\.bin$')
  if [[ -f rd/manifest.txt && $nruns -gt 1 ]]; then pass "$tag: runs wrote a manifest and $nruns run files"
  else fail "$tag: runs wrote a manifest and several run files" "$(ls rd | tr '\n' ' ')"; fi
  local bad=0 r
  for r in rd/run-*.bin; do "$GX" check "$r" -q "$@" || bad=$((bad + 1)); done
  ((bad == 0)) && pass "$tag: every run file is sorted" || fail "$tag: every run file is sorted" "$bad unsorted"
  local total; total=$(cat rd/run-*.bin | wc -c)
  [[ $total == $(stat -c %s in.bin) ]] && pass "$tag: the runs hold every byte" || fail "$tag: the runs hold every byte" "$total bytes"
  no_leftovers "$tag: no temp files in the runs directory" rd
  gx sort in.bin -o sorted.bin -q "$@"
  gx merge rd --memory 64M -o merged.bin -q "$@"
  same_bytes "$tag: merge DIR equals sort" merged.bin sorted.bin
  same_bytes "$tag: merge DIR equals the oracle" merged.bin exp.bin
  gx merge rd -o merged2.bin -q --memory 1M --fan-in 2 --threads 2 "$@"
  same_bytes "$tag: merge DIR --memory 1M --fan-in 2 (several levels) equals the oracle" merged2.bin exp.bin
  # the run files given one by one, in order, are the same merge
  gx merge rd/run-*.bin --memory 64M -o merged3.bin -q --fan-in 3 "$@"
  same_bytes "$tag: merge of the run files by name equals the oracle" merged3.bin exp.bin
  # runs and merge levels written around the page cache
  rm -rf rdd
  gx runs in.bin -o rdd --memory 1M -q --direct-io on "$@"
  gx merge rdd -o merged4.bin -q --memory 1M --fan-in 2 --threads 2 --direct-io on "$@"
  same_bytes "$tag: runs + merge (several levels) with --direct-io on equal the oracle" merged4.bin exp.bin
}

runs_merge_case "u64" 300000 random 1 --type u64
runs_merge_case "12-byte records, dups" 200000 dups 2 "${REC[@]}"
runs_merge_case "12-byte records, dups, --reverse" 200000 dups 3 "${REC[@]}" --reverse
runs_merge_case "f64 special" 150000 special 4 --type f64
runs_merge_case "gensort" 30000 random 5 --format gensort
runs_merge_case "20-byte records, 12-byte key" 60000 prefix 6 --record-size 20 --key-bytes 12

# ---- runs: format mismatch, existing manifest, empty input ----
oracle gen -o in.bin --count 100000 --seed 7 --type u64
rm -rf rd; gx runs in.bin -o rd --memory 1M -q
cp -a rd rd.before
gx merge rd --memory 64M -o m.bin --type i64
expect_rc "merge of a runs dir with another format: exit 2" 2
err_mentions "merge of a runs dir with another format: message names the dir" "rd" "format"
[[ ! -e m.bin ]] && pass "merge with another format: no output" || fail "merge with another format: no output" "m.bin exists"
gx runs in.bin -o rd --memory 1M -q
expect_rc "runs into a dir that already holds a manifest: exit 2" 2
err_mentions "runs into a used dir: message names it" "rd" "manifest"
diff -r rd rd.before >/dev/null && pass "runs into a used dir: the dir is unchanged" || fail "runs into a used dir: the dir is unchanged" "changed"
mkdir -p notruns
gx merge notruns --memory 64M -o m.bin
expect_rc "merge of a dir without a manifest: exit 2" 2
err_mentions "merge of a dir without a manifest: message names it" "notruns" "manifest"

: >empty.bin
rm -rf er; gx runs empty.bin -o er -q
expect_rc "runs of an empty file: exit 0" 0
[[ -f er/manifest.txt ]] && pass "runs of an empty file writes a manifest" || fail "runs of an empty file writes a manifest" "missing"
gx merge er --memory 64M -o em.bin -q
if [[ $RC == 0 && -f em.bin && ! -s em.bin ]]; then pass "merge of an empty runs dir gives an empty file"; else fail "merge of an empty runs dir gives an empty file" "rc=$RC: $(last_err)"; fi

# ---- merge of several sorted files: ties by argument order ----
sorted_file a.bin 20000 11 dups "${REC[@]}"
sorted_file b.bin 1 12 dups "${REC[@]}"
sorted_file c.bin 5000 13 dups "${REC[@]}"
: >d.bin
sorted_file e.bin 33333 14 dups "${REC[@]}"
sorted_file f.bin 777 15 equal "${REC[@]}"
oracle merge a.bin b.bin c.bin d.bin e.bin f.bin -o m.exp "${REC[@]}"
gx merge a.bin b.bin c.bin d.bin e.bin f.bin --memory 64M -o m.out -q "${REC[@]}"
same_bytes "merge of 6 sorted files (one empty) equals the oracle's stable merge" m.out m.exp
gx merge a.bin b.bin c.bin d.bin e.bin f.bin -o m.out -q --fan-in 2 --memory 1M "${REC[@]}"
same_bytes "merge of 6 files, --fan-in 2 --memory 1M" m.out m.exp
oracle merge e.bin f.bin a.bin c.bin b.bin -o m2.exp "${REC[@]}"
gx merge e.bin f.bin a.bin c.bin b.bin -o m2.out -q --fan-in 2 --memory 1M --threads 1 "${REC[@]}"
same_bytes "merge in another argument order follows that order on ties" m2.out m2.exp
oracle merge a.bin a.bin c.bin -o m3.exp "${REC[@]}"
gx merge a.bin a.bin c.bin --memory 64M -o m3.out -q "${REC[@]}"
same_bytes "merge of the same file twice" m3.out m3.exp
gx merge c.bin --memory 64M -o m4.out -q "${REC[@]}"
same_bytes "merge of one file copies it" m4.out c.bin

# Big enough (>= 2^18 records) for the merge to split between 2 threads: ties across
# files at the split must still follow argument order.
sorted_file p.bin 120000 21 dups "${REC[@]}"
sorted_file q.bin 100000 22 dups "${REC[@]}"
sorted_file r.bin 110000 23 equal "${REC[@]}"
oracle merge p.bin q.bin r.bin -o pqr.exp "${REC[@]}"
gx merge p.bin q.bin r.bin --memory 64M -o pqr.out -q --threads 2 "${REC[@]}"
same_bytes "merge of 330000 records with 2 threads, heavy ties" pqr.out pqr.exp
gx merge r.bin q.bin p.bin --memory 64M -o rqp.out -q --threads 2 "${REC[@]}"
oracle merge r.bin q.bin p.bin -o rqp.exp "${REC[@]}"
same_bytes "merge with 2 threads, reversed argument order" rqp.out rqp.exp

# Reverse-sorted files merged with --reverse.
sorted_file ra.bin 9000 31 dups "${REC[@]}" --reverse
sorted_file rb.bin 7000 32 dups "${REC[@]}" --reverse
oracle merge ra.bin rb.bin -o rm.exp "${REC[@]}" --reverse
gx merge ra.bin rb.bin --memory 64M -o rm.out -q "${REC[@]}" --reverse
same_bytes "merge --reverse of reverse-sorted files" rm.out rm.exp

# gensort files made by gxsort gen --dist sorted.
gx gen -o g1.bin --count 3000 --format gensort --dist sorted --seed 1 -q
gx gen -o g2.bin --count 2000 --format gensort --dist sorted --seed 2 -q
oracle merge g1.bin g2.bin -o g.exp --format gensort
gx merge g1.bin g2.bin --memory 64M -o g.out --format gensort -q
same_bytes "merge of gxsort gen --dist sorted gensort files" g.out g.exp

# ---- merge of an unsorted input ----
oracle gen -o uns.bin --count 5000 --seed 41 "${REC[@]}"
"$GX" check uns.bin -q "${REC[@]}" && fail "unsorted input is unsorted" "check says sorted"
printf 'OLD' >keep.out
gx merge a.bin uns.bin --memory 64M -o keep.out "${REC[@]}"
expect_rc "merge with an unsorted input: exit 2" 2
err_mentions "merge with an unsorted input: message names the file" "uns.bin" "not sorted"
[[ $(cat keep.out) == OLD ]] && pass "merge with an unsorted input: existing output unchanged" || fail "merge with an unsorted input: existing output unchanged" "changed"
gx merge uns.bin --memory 64M -o fresh.out "${REC[@]}"
expect_rc "merge of one unsorted file: exit 2" 2
[[ ! -e fresh.out ]] && pass "merge of an unsorted file: no output created" || fail "merge of an unsorted file: no output created" "fresh.out exists"
mkdir -p mt
gx merge a.bin c.bin e.bin uns.bin f.bin -o fresh.out --fan-in 2 --memory 1M --tmp-dir mt "${REC[@]}"
expect_rc "multi-level merge with an unsorted input: exit 2" 2
err_mentions "multi-level merge with an unsorted input: names the file" "uns.bin"
[[ ! -e fresh.out ]] && pass "multi-level merge failure: no output" || fail "multi-level merge failure: no output" "exists"
no_leftovers "multi-level merge failure: no temp files" mt "$WORK"
# a file sorted ascending is not sorted for --reverse
gx merge a.bin --memory 64M -o fresh.out "${REC[@]}" --reverse
expect_rc "merge --reverse of an ascending file: exit 2" 2
# a big unsorted file merged with 2 threads
oracle gen -o bigu.bin --count 300000 --seed 42 --dist dups "${REC[@]}"
gx merge bigu.bin p.bin --memory 64M -o fresh.out --threads 2 "${REC[@]}"
expect_rc "merge of a big unsorted file with 2 threads: exit 2" 2
[[ ! -e fresh.out ]] && pass "big unsorted merge: no output" || fail "big unsorted merge: no output" "exists"

# ---- merge with the default --memory (half the RAM) ----
# Buffers should be bounded by the input, not by the budget: two 8 KB files must merge
# under a 1 GB address-space limit, and quickly.
gx gen -o tiny.bin --count 1000 --dist sorted -q
oracle merge tiny.bin tiny.bin -o tiny.exp --type u64
(ulimit -v 1048576; exec "$GX" merge tiny.bin tiny.bin -o tiny.out -q) 2>"$WORK/last.err"; RC=$?
expect_rc "merge of two 8 KB files with the default --memory under ulimit -v 1G: exit 0" 0
same_bytes "merge of two 8 KB files with the default --memory: output" tiny.out tiny.exp
(ulimit -v 1048576; exec "$GX" sort tiny.bin -o tiny.sorted -q) 2>"$WORK/last.err"; RC=$?
expect_rc "sort of an 8 KB file with the default --memory under ulimit -v 1G: exit 0 (control)" 0
rm -f tiny.out
# Quick because it touches little memory: its peak resident set (what the kernel
# measured, not a time) stays far below the budget (the python parent's counts too).
read -r RC mib < <("${PY[@]}" -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$GX" merge tiny.bin tiny.bin -o tiny.out -q 2>"$WORK/last.err")
if [[ $RC == 0 ]] && ((mib < 64)); then pass "merge of two 8 KB files with the default --memory: ${mib} MiB resident at most (< 64)"
else fail "merge of two 8 KB files with the default --memory touches little memory" "rc=$RC, ${mib:-?} MiB resident"; fi

# ---- -o naming an input ----
oracle gen -o self.bin --count 7001 --seed 51 --dist dups --expect self.exp "${REC[@]}"
gx sort self.bin -o self.bin -q "${REC[@]}"
same_bytes "sort IN -o IN sorts the file in place" self.bin self.exp
cp a.bin a2.bin
oracle merge a2.bin c.bin -o a2.exp "${REC[@]}"
gx merge a2.bin c.bin --memory 64M -o a2.bin -q "${REC[@]}"
same_bytes "merge A B -o A" a2.bin a2.exp
cp c.bin c2.bin
oracle merge a.bin c2.bin -o c2.exp "${REC[@]}"
gx merge a.bin c2.bin -o c2.bin -q --fan-in 2 --memory 1M "${REC[@]}"
same_bytes "merge A B -o B, out of core" c2.bin c2.exp
( cd "$WORK" && "$GX" sort self.exp -o ./self.exp -q "${REC[@]}" ); RC=$?
oracle sort self.exp -o self.exp2 "${REC[@]}"
same_bytes "sort F -o ./F (another spelling of the same path)" self.exp self.exp2

no_leftovers "no temp files left in the work dir" "$WORK"
finish
