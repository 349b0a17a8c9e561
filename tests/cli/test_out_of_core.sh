#!/usr/bin/env bash
# Out-of-core sorts: --memory 1M (the minimum) and small --fan-in force temporary runs
# and several merge levels; the output must equal the oracle's and the in-memory sort,
# with 1 and 2 threads, one or two --tmp-dir, and leave no temp files anywhere.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

mkdir -p tA tB outdir

no_leftovers() {  # NAME DIR...
  local name=$1; shift
  local l; l=$(leftover_temps "$@"; find "$@" -mindepth 1 -name '*gxsort*' 2>/dev/null)
  if [[ -z "$l" ]]; then pass "$name"; else fail "$name" "left behind: $(echo $l)"; fi
}

# ooc_case TAG COUNT DIST SEED FORMAT...
ooc_case() {
  local tag=$1 count=$2 dist=$3 seed=$4; shift 4
  local F=("$@")
  rm -f in.bin exp.bin rexp.bin mem.bin out*.bin plan.json stats.json
  oracle gen -o in.bin --count "$count" --dist "$dist" --seed "$seed" --expect exp.bin "${F[@]}" || { fail "$tag" "oracle gen failed"; return; }
  oracle sort in.bin -o rexp.bin "${F[@]}" --reverse

  gx sort in.bin -o mem.bin -q --threads 2 "${F[@]}"
  same_bytes "$tag: in-memory sort (--threads 2) equals the oracle" mem.bin exp.bin

  gx plan in.bin --memory 1M --fan-in 2 --json "${F[@]}"
  cp "$WORK/last.out" plan.json
  local levels mode
  levels=$(json_get plan.json 'len(j["levels"])' 2>/dev/null) mode=$(json_get plan.json 'j["mode"]' 2>/dev/null)
  if [[ $RC == 0 && $mode == external && ${levels:-0} -gt 1 ]]; then pass "$tag: plan --memory 1M --fan-in 2 is external with $levels merge levels"
  else fail "$tag: plan external with several levels" "rc=$RC mode=$mode levels=$levels: $(last_err)"; fi

  gx sort in.bin -o out1.bin -q --memory 1M --fan-in 2 --threads 1 --stats-json stats.json "${F[@]}"
  same_bytes "$tag: --memory 1M --fan-in 2 --threads 1 equals the oracle" out1.bin exp.bin
  local ml; ml=$(json_get stats.json 'j["merge_levels"]' 2>/dev/null)
  if [[ ${ml:-0} -gt 1 ]]; then pass "$tag: stats report $ml merge levels"; else fail "$tag: stats merge levels" "got '$ml'"; fi
  # Where the last merge's time went besides merging: a journalled job's checkpoints
  # (busy on their own thread, then waited for) and the removal of its inputs.
  local stages; stages=$(json_get stats.json '[s["name"] for s in j["merge_stages"] if s["seconds"] >= 0]' 2>/dev/null)
  [[ $stages == *"checkpoints (journal, punching; own thread)"*"wait for the checkpoints"*"remove the last merge's inputs"* ]] &&
    pass "$tag: stats report the last merge's checkpoints and input removal" || fail "$tag: merge_stages" "got '$stages'"
  # Run formation: its buffers' allocation, then its stages' busy seconds.
  local run_stages; run_stages=$(json_get stats.json '",".join(s["name"] for s in j["run_stages"] if s["seconds"] >= 0)' 2>/dev/null)
  [[ $run_stages == "allocate buffers,read,sort,write runs,runs written back early,runs held in memory" ]] &&
    pass "$tag: stats report run formation's stages" || fail "$tag: run_stages" "got '$run_stages'"
  # A synced sort's runs handed to the disk as they form (at most the budget: here part
  # of the first run), and its output written at most a page ahead of the disk (every
  # write waits for the write-behind): the same bytes. Unsynced: neither.
  local early
  GXSORT_RUNS_EARLY_WRITEBACK=100000 GXSORT_OUTPUT_BACKLOG=4096 gx sort in.bin -o out9.bin -q --memory 1M --fan-in 2 \
    --threads 2 --stats-json estats.json "${F[@]}"
  same_bytes "$tag: runs written back early, output a page ahead of the disk, equals the oracle" out9.bin exp.bin
  early=$(json_get estats.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs written back early"][0]' 2>/dev/null)
  [[ -n $early && $early -le 100000 ]] && pass "$tag: early writeback within its budget ($early bytes)" || fail "$tag: early writeback" "got '$early'"
  GXSORT_RUNS_EARLY_WRITEBACK=100000 gx sort in.bin -o out9.bin -q --memory 1M --fan-in 2 --no-fsync --stats-json estats.json "${F[@]}"
  early=$(json_get estats.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs written back early"][0]' 2>/dev/null)
  [[ $early == 0 ]] && pass "$tag: --no-fsync writes no run back early" || fail "$tag: --no-fsync early writeback" "got '$early'"

  gx sort in.bin -o outdir/out2.bin -q --memory 1M --fan-in 2 --threads 2 --tmp-dir tA --tmp-dir tB "${F[@]}"
  same_bytes "$tag: --threads 2, two --tmp-dir equals the oracle" outdir/out2.bin exp.bin
  cmp -s outdir/out2.bin mem.bin && pass "$tag: identical to the in-memory sort" || fail "$tag: identical to the in-memory sort" "differs"
  no_leftovers "$tag: nothing left in the tmp dirs, \$TMPDIR or beside the output" tA tB "$TMPDIR" outdir

  gx sort in.bin -o out3.bin -q --memory 1M --fan-in 3 --reverse "${F[@]}"
  same_bytes "$tag: --reverse --memory 1M --fan-in 3 equals the oracle" out3.bin rexp.bin

  # Around the page cache: runs, temp levels and the synced output (ranges split
  # between two threads at whole 4 KiB blocks), then the unsynced output through it.
  gx sort in.bin -o out4.bin -q --memory 1M --fan-in 2 --threads 2 --direct-io on "${F[@]}"
  same_bytes "$tag: --direct-io on, --fan-in 2, --threads 2 equals the oracle" out4.bin exp.bin
  gx sort in.bin -o out5.bin -q --memory 1M --fan-in 3 --direct-io on --no-fsync --reverse "${F[@]}"
  same_bytes "$tag: --direct-io on --no-fsync --reverse equals the oracle" out5.bin rexp.bin

  # Partition: buckets by key range, each sorted in memory (the CPU's out-of-core sort
  # when no --fan-in asks for a merge).
  gx sort in.bin -o outdir/out6.bin -q --memory 1M --ooc partition --threads 2 --tmp-dir tA --tmp-dir tB \
     --stats-json pstats.json "${F[@]}"
  same_bytes "$tag: --ooc partition --threads 2, two --tmp-dir equals the oracle" outdir/out6.bin exp.bin
  local nb how
  nb=$(json_get pstats.json 'j["buckets"]' 2>/dev/null)
  how=$(json_get pstats.json '[p["name"] for p in j["phases"] if p["name"].startswith("sort buckets")][0]' 2>/dev/null)
  if [[ ${nb:-0} -ge 2 && $how == sort\ buckets:* ]]; then pass "$tag: partition into $nb buckets ($how)"
  else fail "$tag: partition stats" "buckets '$nb', phase '$how'"; fi
  no_leftovers "$tag: partition leaves nothing in the tmp dirs, \$TMPDIR or beside the output" tA tB "$TMPDIR" outdir
  gx sort in.bin -o out7.bin -q --memory 1M --threads 1 --reverse --device cpu "${F[@]}"
  same_bytes "$tag: --memory 1M --reverse --threads 1 (auto: partition) equals the oracle" out7.bin rexp.bin
  oracle dedupe in.bin -o uexp.bin "${F[@]}"
  gx sort in.bin -o out8.bin -q -u --memory 1M --ooc partition "${F[@]}"
  same_bytes "$tag: -u --ooc partition equals the oracle's unique" out8.bin uexp.bin
}

ooc_case "u64 random" 300000 random 1 --type u64
ooc_case "i32 dups" 400000 dups 2 --type i32
ooc_case "f64 special" 140000 random 3 --type f64
ooc_case "f32 special" 300000 special 4 --type f32
ooc_case "24-byte records, i64 key at 8" 90000 random 5 --record-size 24 --key-offset 8 --key-type i64
# Heavy duplicates in records with payload: stability across runs, merge levels and the
# split of a merge between threads (a merge of >= 2^18 records uses both threads).
ooc_case "12-byte records, u32 key at 4, dups" 300000 dups 6 --record-size 12 --key-offset 4 --key-type u32
ooc_case "20-byte records, 12-byte key, shared prefixes" 100000 prefix 7 --record-size 20 --key-bytes 12
ooc_case "16-byte records, 5-byte key at 3" 100000 dups 8 --record-size 16 --key-bytes 5 --key-offset 3
ooc_case "gensort" 25000 random 9 --format gensort

# Partition buckets the sample misjudged (skewed keys), past the in-memory sort's size:
# those of one key are already in order and copied; the rest go through merged runs.
# partition_case TAG STATS-PHASE-WORDS DIST COUNT FORMAT...
partition_case() {
  local tag=$1 words=$2 dist=$3 count=$4; shift 4
  local F=("$@")
  rm -f sk.bin sk.exp sk.uexp sk.out sk.uout
  oracle gen -o sk.bin --count "$count" --dist "$dist" --seed 21 --expect sk.exp "${F[@]}" || { fail "$tag" "oracle gen failed"; return; }
  oracle dedupe sk.bin -o sk.uexp "${F[@]}"
  # The CPU's bucket size (a device's sort scratch differs): the skew must overflow it.
  gx sort sk.bin -o sk.out -q --memory 1M --ooc partition --device cpu --threads 2 --stats-json sk.json "${F[@]}"
  same_bytes "$tag: --ooc partition equals the oracle" sk.out sk.exp
  local how; how=$(json_get sk.json '[p["name"] for p in j["phases"] if p["name"].startswith("sort buckets")][0]' 2>/dev/null)
  if [[ $how == *"$words"* ]]; then pass "$tag: a bucket sorted $words ($how)"; else fail "$tag: bucket kinds" "phase '$how'"; fi
  gx sort sk.bin -o sk.uout -q -u --memory 1M --ooc partition "${F[@]}"
  same_bytes "$tag: -u --ooc partition equals the oracle's unique" sk.uout sk.uexp
}
partition_case "all keys equal, 24-byte records" "of one key" equal 120000 --record-size 24 --key-offset 8 --key-type u64
partition_case "u32 keys, few values" "of one key" dups 1000000 --type u32
partition_case "12-byte keys sharing 8-byte prefixes" "through merged runs" prefix 300000 --record-size 20 --key-bytes 12
no_leftovers "skewed partitions leave no temp files" "$TMPDIR" "$WORK"

# gxsort's own gensort data, bigger, with default fan-in and 1M memory.
gx gen -o gs.bin --count 40000 --format gensort --seed 3 -q
oracle sort gs.bin -o gs.exp --format gensort
gx sort gs.bin -o gs.out --format gensort --memory 1M --threads 2 -q
same_bytes "gxsort gen gensort 4 MB, --memory 1M, default fan-in" gs.out gs.exp

# Runs kept in memory (a budget between the data and the in-memory sort's need). On the
# CPU backend: with a GPU the device holds the data and the plan is in-memory.
oracle gen -o rim.bin --count 100000 --dist dups --seed 11 --record-size 24 --key-offset 8 --key-type i64 --expect rim.exp
gx plan rim.bin --memory 6.5M --record-size 24 --key-offset 8 --key-type i64 --json --device cpu
cp "$WORK/last.out" rim.json
mode=$(json_get rim.json 'j["mode"]' 2>/dev/null)
if [[ $mode == runs-in-memory ]]; then pass "plan --memory 6.5M picks runs-in-memory"; else fail "plan --memory 6.5M picks runs-in-memory" "mode '$mode'"; fi
gx sort rim.bin -o rim.out --memory 6.5M --record-size 24 --key-offset 8 --key-type i64 -q --device cpu
same_bytes "runs-in-memory sort equals the oracle" rim.out rim.exp
gx sort rim.bin -o rim.out --memory 6.5M --record-size 24 --key-offset 8 --key-type i64 -q --threads 1 --reverse --device cpu
oracle sort rim.bin -o rim.rexp --record-size 24 --key-offset 8 --key-type i64 --reverse
same_bytes "runs-in-memory --reverse --threads 1 equals the oracle" rim.out rim.rexp

# Without --tmp-dir and without $TMPDIR the runs go beside the output.
oracle gen -o d.bin --count 200000 --seed 12 --type u64 --expect d.exp
mkdir -p besides
(unset TMPDIR; "$GX" sort d.bin -o besides/d.out --memory 1M --fan-in 2 -q) 2>"$WORK/last.err"; RC=$?
same_bytes "no --tmp-dir, no \$TMPDIR: external sort equals the oracle" besides/d.out d.exp
l=$(ls -A besides)
if [[ "$l" == d.out ]]; then pass "no --tmp-dir: only the output is left beside it"; else fail "no --tmp-dir: only the output is left beside it" "found: $(echo $l)"; fi

# Sorting a file onto itself, out of core.
cp d.bin self.bin
gx sort self.bin -o self.bin --memory 1M --fan-in 2 -q
same_bytes "external sort of a file onto itself" self.bin d.exp

# An already sorted and a reverse-sorted input, out of core.
oracle gen -o s.bin --count 200000 --seed 13 --dist sorted --type i64 --expect s.exp
gx sort s.bin -o s.out --memory 1M --fan-in 2 --type i64 -q
same_bytes "sorted input, external" s.out s.exp
oracle gen -o r.bin --count 200000 --seed 14 --dist reverse --type i64 --expect r.exp
gx sort r.bin -o r.out --memory 1M --fan-in 2 --type i64 -q
same_bytes "reverse-sorted input, external" r.out r.exp

# The benchmarks' knobs take sizes as the options do; a value that is none is said and
# ignored (the sort goes on with the defaults).
GXSORT_RUNS_EARLY_WRITEBACK=64K GXSORT_OUTPUT_BACKLOG=4K gx sort d.bin -o knobs.out --memory 1M --fan-in 2 -q \
  --stats-json knobs.json
same_bytes "GXSORT_RUNS_EARLY_WRITEBACK=64K GXSORT_OUTPUT_BACKLOG=4K: the oracle's bytes" knobs.out d.exp
early=$(json_get knobs.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs written back early"][0]' 2>/dev/null)
[[ -n $early && $early -le 65536 ]] && pass "GXSORT_RUNS_EARLY_WRITEBACK=64K: at most 65536 bytes early ($early)" ||
  fail "GXSORT_RUNS_EARLY_WRITEBACK=64K" "got '$early'"
GXSORT_OUTPUT_BACKLOG=lots gx sort d.bin -o knobs.out --memory 1M --fan-in 2 -q
[[ $RC == 0 ]] && grep -q "GXSORT_OUTPUT_BACKLOG=lots is not a size in bytes" "$WORK/last.err" &&
  same_bytes "GXSORT_OUTPUT_BACKLOG=lots: said, ignored, the oracle's bytes" knobs.out d.exp ||
  fail "GXSORT_OUTPUT_BACKLOG=lots" "exit $RC: $(last_err)"

# A one-level merge holds the last runs in their chunk buffers (Plan::held_runs): they
# are never written, and the merge reads them from memory. The same bytes as the oracle,
# with -u and --reverse too; GXSORT_SORT_HELD_RUNS=3 holds every slot's run (a device
# merge's plan does: the scheduler must not read a later chunk into a held buffer), =0
# writes every run.
held_case() {  # TAG COUNT SEED FORMAT...
  local tag=$1 count=$2 seed=$3; shift 3
  local F=("$@")
  rm -f h.bin h.exp hu.exp hr.exp h.out
  oracle gen -o h.bin --count "$count" --seed "$seed" --dist dups --expect h.exp "${F[@]}" || { fail "$tag" "oracle gen failed"; return; }
  oracle dedupe h.bin -o hu.exp "${F[@]}"
  oracle sort h.bin -o hr.exp --reverse "${F[@]}"
  gx plan h.bin --memory 1M --ooc merge --json "${F[@]}"
  local plan; plan=$(json_get "$WORK/last.out" '(len(j["levels"]), j["held_runs"], j["held_run_bytes"])' 2>/dev/null)
  if [[ $plan =~ ^\(1,\ ([1-9][0-9]*),\ ([0-9]+)\)$ ]]; then pass "$tag: the plan holds its last ${BASH_REMATCH[1]} runs in memory"
  else fail "$tag: the plan holds runs in memory" "got '$plan'"; return; fi
  local bytes=${BASH_REMATCH[2]} kept
  gx sort h.bin -o h.out --memory 1M --ooc merge --threads 2 --stats-json h.json -q "${F[@]}"
  same_bytes "$tag: runs held in memory: the oracle's bytes" h.out h.exp
  kept=$(json_get h.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs held in memory"][0]' 2>/dev/null)
  [[ $kept == "$bytes" ]] && pass "$tag: stats report the plan's $bytes bytes kept in memory" || fail "$tag: kept bytes" "got '$kept', plan $bytes"
  gx sort h.bin -o h.out --memory 1M --ooc merge -u -q "${F[@]}"
  same_bytes "$tag: runs held in memory, -u: the oracle's bytes" h.out hu.exp
  gx sort h.bin -o h.out --memory 1M --ooc merge --reverse --no-fsync -q "${F[@]}"
  same_bytes "$tag: runs held in memory, --reverse --no-fsync: the oracle's bytes" h.out hr.exp
  local t
  for t in 1 2; do  # (on the CPU: a GPU's larger runs of u64 leave 1M room for 2 either way)
    GXSORT_SORT_HELD_RUNS=3 gx sort h.bin -o h.out --memory 1M --ooc merge --threads $t --device cpu --stats-json h.json -q "${F[@]}"
    same_bytes "$tag: GXSORT_SORT_HELD_RUNS=3 (every slot's run held), --threads $t: the oracle's bytes" h.out h.exp
    kept=$(json_get h.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs held in memory"][0]' 2>/dev/null)
    ((kept > bytes)) && pass "$tag: GXSORT_SORT_HELD_RUNS=3 holds more ($kept bytes)" || fail "$tag: GXSORT_SORT_HELD_RUNS=3" "got '$kept'"
  done
  GXSORT_SORT_HELD_RUNS=0 gx sort h.bin -o h.out --memory 1M --ooc merge --stats-json h.json -q "${F[@]}"
  same_bytes "$tag: GXSORT_SORT_HELD_RUNS=0: the oracle's bytes" h.out h.exp
  kept=$(json_get h.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs held in memory"][0]' 2>/dev/null)
  [[ $kept == 0 ]] && pass "$tag: GXSORT_SORT_HELD_RUNS=0 keeps none" || fail "$tag: GXSORT_SORT_HELD_RUNS=0" "got '$kept'"
}
held_case "u64, runs held" 300001 21 --type u64
held_case "24-byte records, runs held" 60001 22 --record-size 24 --key-offset 8 --key-type i64
# dedupe's sort holds them too (-u's; and the stable sort before --keep last's group
# pass, whose stats say nothing of its runs).
H24=(--record-size 24 --key-offset 8 --key-type i64)
for keep in last first; do
  oracle dedupe h.bin -o hd.exp --keep $keep "${H24[@]}"
  gx dedupe h.bin -o hd.out --memory 1M --strategy sort --ooc merge --keep $keep --stats-json hd.json -q "${H24[@]}"
  same_bytes "dedupe --keep $keep, runs held in memory: the oracle's bytes" hd.out hd.exp
done
held=$(json_get hd.json '[s["bytes_written"] for s in j["run_stages"] if s["name"] == "runs held in memory"][0]' 2>/dev/null)
((${held:-0} > 0)) && pass "dedupe: its sort held runs in memory ($held bytes)" || fail "dedupe: runs held" "got '$held'"
GXSORT_SORT_HELD_RUNS=two gx sort h.bin -o h.out --memory 1M --ooc merge -q --record-size 24 --key-offset 8 --key-type i64
[[ $RC == 0 ]] && grep -q 'GXSORT_SORT_HELD_RUNS=two is not a count' "$WORK/last.err" &&
  same_bytes "GXSORT_SORT_HELD_RUNS=two: said, ignored, the oracle's bytes" h.out h.exp || fail "GXSORT_SORT_HELD_RUNS=two" "exit $RC: $(last_err)"

# A synced sort's written runs each cut into several files (Plan::run_files: by default
# with a device merge on 8 threads or more; GXSORT_SORT_RUN_FILES=N here, on any
# backend): each part a merge input of its own, written at once. Ties (the 24-byte
# records' payloads) keep input order across the parts: the oracle's bytes, with every
# thread count and held-run count; none with --no-fsync or -u. (The parts must leave each
# input a 64 KiB read buffer: 8M for 2 threads.)
parts_case() {  # TAG COUNT SEED FORMAT...
  local tag=$1 count=$2 seed=$3; shift 3
  local F=("$@") t held plan
  rm -f p.bin p.exp pu.exp p.out
  oracle gen -o p.bin --count "$count" --seed "$seed" --dist dups --expect p.exp "${F[@]}" || { fail "$tag" "oracle gen failed"; return; }
  oracle dedupe p.bin -o pu.exp "${F[@]}"
  GXSORT_SORT_RUN_FILES=3 gx plan p.bin --memory 8M --ooc merge --threads 2 --json "${F[@]}"
  plan=$(json_get "$WORK/last.out" '(len(j["levels"]), j["run_files"], j["runs"] > j["held_runs"])' 2>/dev/null)
  [[ $plan == "(1, 3, True)" ]] && pass "$tag: GXSORT_SORT_RUN_FILES=3: the plan cuts each written run into 3 files" ||
    { fail "$tag: the plan's run files" "got '$plan'"; return; }
  GXSORT_SORT_RUN_FILES=3 gx plan p.bin --memory 8M --ooc merge --threads 2 "${F[@]}"
  grep -q '^each written run in 3 files' "$WORK/last.out" && pass "$tag: plan says each run is in 3 files" || fail "$tag: plan text" "$(cat "$WORK/last.out")"
  for t in 1 2 3; do
    GXSORT_SORT_RUN_FILES=3 gx sort p.bin -o p.out --memory 8M --ooc merge --threads $t -q "${F[@]}"
    same_bytes "$tag: GXSORT_SORT_RUN_FILES=3, --threads $t: the oracle's bytes" p.out p.exp
  done
  for held in 0 3; do
    GXSORT_SORT_RUN_FILES=2 GXSORT_SORT_HELD_RUNS=$held gx sort p.bin -o p.out --memory 8M --ooc merge --threads 2 -q "${F[@]}"
    same_bytes "$tag: runs in 2 files, GXSORT_SORT_HELD_RUNS=$held: the oracle's bytes" p.out p.exp
  done
  for opt in --no-fsync -u; do
    GXSORT_SORT_RUN_FILES=3 gx plan p.bin --memory 8M --ooc merge --threads 2 --json $opt "${F[@]}"
    [[ $(json_get "$WORK/last.out" 'j["run_files"]') == 1 ]] && pass "$tag: $opt: one file a run" || fail "$tag: $opt: one file a run" "$(cat "$WORK/last.out")"
  done
  GXSORT_SORT_RUN_FILES=3 gx sort p.bin -o p.out --memory 8M --ooc merge -u -q "${F[@]}"
  same_bytes "$tag: GXSORT_SORT_RUN_FILES=3 -u: the oracle's bytes" p.out pu.exp
}
parts_case "u64, runs in files" 2400001 23 --type u64
parts_case "24-byte records, runs in files" 600001 24 "${H24[@]}"
for keep in last first; do
  oracle dedupe p.bin -o pd.exp --keep $keep "${H24[@]}"
  GXSORT_SORT_RUN_FILES=3 gx dedupe p.bin -o pd.out --memory 8M --threads 2 --strategy sort --ooc merge --keep $keep -q "${H24[@]}"
  same_bytes "dedupe --keep $keep, runs in 3 files: the oracle's bytes" pd.out pd.exp
done
GXSORT_SORT_RUN_FILES=three gx sort p.bin -o p.out --memory 8M --ooc merge -q "${H24[@]}"
[[ $RC == 0 ]] && grep -q 'GXSORT_SORT_RUN_FILES=three is not a count' "$WORK/last.err" &&
  same_bytes "GXSORT_SORT_RUN_FILES=three: said, ignored, the oracle's bytes" p.out p.exp || fail "GXSORT_SORT_RUN_FILES=three" "exit $RC: $(last_err)"

no_leftovers "no temp files left in the work dir" "$WORK"
finish
