#!/usr/bin/env bash
# sort --distributed under mpirun (docs/distributed.md): 1, 3 and 4 ranks on this machine
# (oversubscribed), every output byte-for-byte the plain one-process `gxsort sort`'s:
# typed keys, records with few keys (stability across ranks), gensort, -r, -u across rank
# boundaries, in memory and out of core (--memory 1M: run files, many exchange rounds,
# received pieces in files), all keys equal, fewer records than ranks, no records, in
# place, a .npy output; dedupe --distributed; merge --distributed; plan --distributed; and failures: one line
# from the failing rank, its exit code, no output and no temp file on any rank (a missing
# output directory, one rank's missing or full -T, one rank's other options, -o -, a
# stream, SIGTERM). Without MPI in the build: the refusal is checked and the rest skipped.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

"$GX" gen -o in.bin --count 1000 -q
if ! "$GX" info --json 2>/dev/null | grep -q '"mpi_built":true'; then
  gx sort in.bin -o out.bin --distributed
  expect_rc "without MPI: sort --distributed is refused (exit 2)" 2
  err_mentions "without MPI: the refusal says so" "built without MPI"
  echo "SKIP: gxsort was built without MPI (GXSORT_MPI=OFF, or no Open MPI found): the distributed sort is not tested"
  ((NFAIL > 0)) && exit 1
  exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: mpirun is not installed (Debian: openmpi-bin): the distributed sort is not tested"
  exit 77
fi
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
mkdir -p outdir

# dist NP ARGS...: mpirun -np NP gxsort ARGS --distributed (stdout, stderr, RC as gx).
dist() {
  local np=$1; shift
  "${MPIRUN[@]}" -np "$np" "$GX" "$@" --distributed >"$WORK/last.out" 2>"$WORK/last.err"
  RC=$?
}

no_leftovers() {  # NAME DIR...
  local name=$1; shift
  local l; l=$(leftover_temps "$@")
  if [[ -z "$l" ]]; then pass "$name"; else fail "$name" "left behind: $(echo $l)"; fi
}

# like_plain NAME NP ARGS...: the distributed sort of in.bin equals the plain one
# (DIST_ONLY=(...): options of the distributed run only).
DIST_ONLY=()
like_plain() {
  local name=$1 np=$2; shift 2
  rm -f want.bin outdir/got.bin
  gx sort in.bin -o want.bin -q "$@"
  dist "$np" sort in.bin -o outdir/got.bin -q "$@" "${DIST_ONLY[@]}"
  if [[ $RC != 0 ]]; then fail "$name (-np $np)" "exit $RC: $(last_err)"; return; fi
  same_bytes "$name (-np $np)" outdir/got.bin want.bin
}

# one_error NAME RC TEXT...: exit RC, exactly one "gxsort:" line (mpirun adds its own
# banner), naming every TEXT; no output and no temp file anywhere.
one_error() {
  local name=$1 want=$2; shift 2
  expect_rc "$name: exit $want" "$want"
  local lines; lines=$(grep -c '^gxsort: ' "$WORK/last.err")
  local t ok=1
  for t in "$@"; do grep '^gxsort: ' "$WORK/last.err" | grep -qiF -- "$t" || ok=0; done
  if [[ $lines == 1 && $ok == 1 ]]; then pass "$name: one line naming $*"
  else fail "$name: one line naming $*" "$lines gxsort lines: $(last_err)"; fi
  if [[ ! -e outdir/got.bin ]]; then pass "$name: no output"; else fail "$name: no output" "outdir/got.bin exists"; fi
  no_leftovers "$name: no temp file on any rank" "$TMPDIR" outdir . small 2>/dev/null
}

# Typed keys, in memory: every rank's slice sorted in memory, one exchange round.
"$GX" gen -o in.bin --count 50000 -q
for np in 1 3 4; do like_plain "u64, in memory" "$np"; done

# Out of core: run files. On one host each rank reads its pieces of the others' run
# files in place (--exchange auto); --exchange mpi sends them in many rounds through 1M
# budgets into received files, as ranks on several hosts do.
"$GX" gen -o in.bin --count 400000 -q
rank_shapes() { json_get stats.json '",".join("%s/%s/%d" % (r["local"], r["received_in_memory"], r["rounds"]) for r in j["distributed"]["per_rank"])' 2>/dev/null; }
like_plain "u64, --memory 1M" 4 --memory 1M --stats-json stats.json
shape=$(rank_shapes)
if [[ $shape == "$(printf 'run files, read in place by every rank (one host)/False/0,%.0s' 1 2 3)run files, read in place by every rank (one host)/False/0" ]]; then
  pass "u64, --memory 1M: every rank read the others' run files in place, no round ($shape)"
else fail "u64, --memory 1M: the file exchange" "per rank: $shape"; fi
# Each rank's own stages: its run formation's buffers and stages, gathered by rank 0 (a
# GPU's merge adds its window stages after them).
stages=$(json_get stats.json '"/".join(",".join(s["name"] for s in r["stages"][:4]) for r in j["distributed"]["per_rank"])' 2>/dev/null)
if [[ $stages == "$(printf 'allocate buffers,read,sort,write runs/%.0s' 1 2 3)allocate buffers,read,sort,write runs" ]]; then
  pass "u64, --memory 1M: --stats-json gives each rank's run formation stages"
else fail "u64, --memory 1M: each rank's stages" "got '$stages'"; fi
GXSORT_OUTPUT_BACKLOG=4K like_plain "u64, --memory 1M, every rank's range a page ahead of the disk" 4 --memory 1M
DIST_ONLY=(--exchange mpi)
like_plain "u64, --memory 1M, --exchange mpi" 4 --memory 1M --stats-json stats.json
DIST_ONLY=()
shape=$(rank_shapes)
if [[ $shape == "run files/False/"* && $shape != *"read in place"* && $(json_get stats.json 'j["distributed"]["per_rank"][0]["rounds"]') -gt 1 ]]; then
  pass "u64, --memory 1M, --exchange mpi: run files, received to files, several rounds ($shape)"
else fail "u64, --memory 1M, --exchange mpi: out of core" "per rank: $shape"; fi
like_plain "u64, --memory 1M, -r" 3 --memory 1M -r
# A rank that cannot open the others' files (ranks in containers with their own /tmp;
# here a test hook): every rank takes MPI instead.
rm -f want.bin outdir/got.bin
gx sort in.bin -o want.bin -q --memory 1M
GXSORT_TEST_NO_PEER_FILES_RANK=1 "${MPIRUN[@]}" -x GXSORT_TEST_NO_PEER_FILES_RANK -np 3 "$GX" sort in.bin -o outdir/got.bin -q \
  --memory 1M --stats-json stats.json --distributed >"$WORK/last.out" 2>"$WORK/last.err"
expect_rc "u64, --memory 1M, rank 1 cannot open the others' run files: exit 0" 0
same_bytes "u64, --memory 1M, rank 1 cannot open the others' run files: the plain sort's bytes" outdir/got.bin want.bin
shape=$(rank_shapes)
if [[ $shape != *"read in place"* && $(json_get stats.json 'j["distributed"]["per_rank"][0]["rounds"]') -gt 1 ]]; then
  pass "u64, --memory 1M, rank 1 cannot open the others' run files: every rank exchanged through MPI ($shape)"
else fail "u64, --memory 1M, one rank cannot open: the MPI fallback" "per rank: $shape"; fi
no_leftovers "u64, --memory 1M, rank 1 cannot open the others' run files: no temp file left" "$TMPDIR" outdir .

# Records with few keys: groups of equal keys span ranks (stability: the payload holds
# the record's index).
REC=(--record-size 24 --key-type i32 --key-offset 4)
"$GX" gen -o in.bin --count 120000 --dist few-unique -q "${REC[@]}"
like_plain "24-byte records, few keys, in memory" 4 "${REC[@]}"
like_plain "24-byte records, few keys, --memory 1M" 3 "${REC[@]}" --memory 1M
like_plain "24-byte records, few keys, -u" 4 "${REC[@]}" -u
like_plain "24-byte records, few keys, -u, --memory 1M" 3 "${REC[@]}" -u --memory 1M
DIST_ONLY=(--exchange mpi)
like_plain "24-byte records, few keys, -u, --memory 1M, --exchange mpi" 3 "${REC[@]}" -u --memory 1M
DIST_ONLY=()

# gensort: 10-byte keys past the 8-byte prefix.
"$GX" gen -o in.bin --count 40000 -q --format gensort
like_plain "gensort, --memory 1M, -r" 3 --format gensort --memory 1M -r
like_plain "gensort, -u" 4 --format gensort -u

# Floats of every bit pattern (NaNs, signed zeros), -r -u.
"$GX" gen -o in.bin --count 30000 -q --type f64 --dist bits
like_plain "f64 bits, -r -u" 3 --type f64 -r -u

# All keys equal: the splitters cut the one group at input positions.
"$GX" gen -o in.bin --count 100000 -q --dist all-equal --record-size 16 --key-type u64
like_plain "all keys equal, --memory 1M" 4 --record-size 16 --key-type u64 --memory 1M
like_plain "all keys equal, -u" 3 --record-size 16 --key-type u64 -u

# Empty slices: fewer records than ranks, and none at all.
"$GX" gen -o in.bin --count 2 -q
like_plain "2 records on 4 ranks" 4
: >in.bin
like_plain "no records on 3 ranks" 3

# In place, and a .npy output (its header written by rank 0 at commit).
"$GX" gen -o in.bin --count 30000 -q --type i32
gx sort in.bin -o want.bin -q --type i32
cp in.bin outdir/got.bin
dist 3 sort outdir/got.bin -o outdir/got.bin -q --type i32
same_bytes "in place (-o the input) (-np 3)" outdir/got.bin want.bin
rm -f outdir/got.bin
gx sort in.bin -o want.npy -q --type i32
dist 3 sort in.bin -o outdir/got.npy -q --type i32
same_bytes ".npy output (-np 3)" outdir/got.npy want.npy
rm -f outdir/got.npy

# dedupe --distributed: the distributed sort -u, as dedupe's sort keeps the first.
"$GX" gen -o in.bin --count 60000 -q --dist few-unique "${REC[@]}"
gx dedupe in.bin -o want.bin -q "${REC[@]}"
dist 3 dedupe in.bin -o outdir/got.bin -q "${REC[@]}"
same_bytes "dedupe --distributed (-np 3)" outdir/got.bin want.bin
rm -f outdir/got.bin
gx dedupe in.bin -o out.bin --distributed --count "${REC[@]}"
expect_rc "dedupe --distributed --count is refused (exit 2)" 2

# merge --distributed: each rank merges its co-rank cuts of the inputs into its range.
# Few keys (ties across inputs and across rank boundaries keep input order), an empty
# input, records and gensort, an input out of order (one line, no output), -u refused.
merge_like_plain() {  # NAME NP FORMAT...: the inputs m1..m3 merged as `gxsort merge` merges them
  local name=$1 np=$2; shift 2
  rm -f want.bin outdir/got.bin
  gx merge m1 m2 m3 -o want.bin -q "$@"
  dist "$np" merge m1 m2 m3 -o outdir/got.bin -q "$@"
  if [[ $RC != 0 ]]; then fail "$name (-np $np)" "exit $RC: $(last_err)"; return; fi
  same_bytes "$name (-np $np)" outdir/got.bin want.bin
}
GS=(--format gensort)
for fmt in REC GS; do
  declare -n F=$fmt
  "$GX" gen -o u1 --count 30011 --dist few-unique --seed 1 -q "${F[@]}"
  "$GX" gen -o u2 --count 17 --dist few-unique --seed 2 -q "${F[@]}"
  gx sort u1 -o m1 -q "${F[@]}"; gx sort u2 -o m2 -q "${F[@]}"
  "$GX" gen -o m3 --count 0 -q "${F[@]}"
  for np in 1 3 4; do merge_like_plain "merge --distributed, $fmt, few keys" "$np" "${F[@]}"; done
  GXSORT_OUTPUT_BACKLOG=4K merge_like_plain "merge --distributed, $fmt, every rank's range a page ahead of the disk" 3 "${F[@]}"
  unset -n F
done
rm -f outdir/got.bin
"$GX" gen -o m1 --count 20000 --dist few-unique -q "${REC[@]}"; gx sort m1 -o m1 -q "${REC[@]}"
"$GX" gen -o m2 --count 20000 -q "${REC[@]}"   # not sorted
gx sort m2 -o m3 -q "${REC[@]}"
dist 3 merge m1 m2 m3 -o outdir/got.bin -q "${REC[@]}"
one_error "merge --distributed of an input out of order" 2 "m2" "not sorted"
dist 2 merge m1 m3 -o outdir/got.bin -u "${REC[@]}"
one_error "merge --distributed -u is refused" 2 "-u"
rm -f m1 m2 m3 u1 u2

# plan --distributed: --ranks N here, or the job's ranks under mpirun.
gx plan in.bin --distributed --ranks 4 --memory 1M "${REC[@]}"
if [[ $RC == 0 && $(grep -c 'runs of' "$WORK/last.out") == 4 ]] && grep -q 'rounds' "$WORK/last.out"; then
  pass "plan --distributed --ranks 4: four ranks' local sorts and the rounds"
else fail "plan --distributed --ranks 4" "rc=$RC: $(head -c 300 "$WORK/last.out") $(last_err)"; fi
dist 2 plan in.bin --memory 1M --json "${REC[@]}"
cp "$WORK/last.out" plan.json
if [[ $RC == 0 && $(json_get plan.json 'len(j["per_rank"])') == 2 && $(json_get plan.json 'j["rounds"] > 0') == True ]]; then
  pass "plan --distributed under mpirun -np 2: one JSON plan of two ranks"
else fail "plan --distributed under mpirun" "rc=$RC: $(head -c 300 plan.json) $(last_err)"; fi
# The device-to-device exchange needs a GPU that holds each slice: never on the CPU.
if [[ $(json_get plan.json 'j["device_exchange"]') == False && $(json_get plan.json '[r["slice_fits_device"] for r in j["per_rank"]]') == "[False, False]" ]] \
   && ! grep -q 'device to device' "$WORK/last.out"; then
  pass "plan --distributed on the CPU: no device-to-device exchange"
else fail "plan --distributed: device_exchange on the CPU" "$(head -c 300 plan.json)"; fi
# Run files on one host: read in place (file_exchange), unless --exchange mpi.
dist 2 plan in.bin --memory 1M "${REC[@]}"
if [[ $(json_get plan.json 'j["file_exchange"]') == True ]] && grep -q 'exchange: through the file system' "$WORK/last.out"; then
  pass "plan --distributed, run files on one host: file_exchange"
else fail "plan --distributed: file_exchange" "$(head -c 300 plan.json)"; fi
dist 2 plan in.bin --memory 1M "${REC[@]}" --exchange mpi
if [[ $RC == 0 ]] && ! grep -q 'through the file system' "$WORK/last.out" && grep -q 'rounds' "$WORK/last.out"; then
  pass "plan --distributed --exchange mpi: no file exchange"
else fail "plan --distributed --exchange mpi" "rc=$RC: $(head -c 300 "$WORK/last.out")"; fi
gx sort in.bin -o outdir/got.bin --exchange mpi
one_error "--exchange without --distributed" 2 "--exchange needs --distributed"
dist 2 sort in.bin -o outdir/got.bin --exchange nccl
one_error "--exchange nccl" 2 "--exchange"

# Failures: the failing rank's one line, its exit code, nothing left anywhere.
"$GX" gen -o in.bin --count 200000 -q
dist 3 sort in.bin -o missing/got.bin -q
one_error "-o in a missing directory" 3 "rank 0" "missing"
"${MPIRUN[@]}" -np 2 "$GX" sort in.bin -o outdir/got.bin -q --memory 1M --distributed : \
  -np 1 "$GX" sort in.bin -o outdir/got.bin -q --memory 1M -T "$WORK/nowhere" --distributed >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
one_error "rank 2's -T does not exist" 3 "rank 2" "nowhere"
"${MPIRUN[@]}" -np 1 "$GX" sort in.bin -o outdir/got.bin -q --distributed : \
  -np 2 "$GX" sort in.bin -o outdir/got.bin -q -u --distributed >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
one_error "ranks 1 and 2 given -u, rank 0 not" 2 "rank 1" "differ from rank 0"
if try_mount small size=256k; then
  # A real ENOSPC on rank 2 in the middle of the job (its preflight skipped).
  "${MPIRUN[@]}" -np 2 "$GX" sort in.bin -o outdir/got.bin -q --memory 1M --distributed : \
    -np 1 -x GXSORT_SKIP_SPACE_CHECK=1 "$GX" sort in.bin -o outdir/got.bin -q --memory 1M -T small --distributed \
    >"$WORK/last.out" 2>"$WORK/last.err"
  RC=$?
  one_error "rank 2's -T fills up" 3 "rank 2" "No space left"
else
  skip "rank 2's -T fills up" "mounting a small tmpfs needs root"
fi
dist 3 sort in.bin -o - -q
one_error "-o - (standard output)" 2 "rank 0" "regular file"
dist 3 sort in.bin -o outdir/got.bin -q --fan-out 2
one_error "an unknown option: said once, not by every rank" 2 "--fan-out"
cat in.bin | "${MPIRUN[@]}" -np 2 "$GX" sort - -o outdir/got.bin -q --distributed >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
one_error "a stream input" 2 "rank 0" "not a stream"

# SIGTERM to mpirun: every rank's signal handler removes its temp files (rank 0's output
# too). mpirun passes it on a second later, then SIGKILLs all once one rank is gone: the
# ranks linger after their cleanup (app/signals.cpp: end_at_once_on_signals) so the others finish theirs.
"$GX" gen -o big.bin --count 8000000 -q
# The pids in the names of the ranks' temp files (.gxsort.<host>.<pid>.<kind>...).
rank_pids() { find "$TMPDIR" outdir -name '.gxsort.*.tmp' 2>/dev/null | sed -n 's|.*/\.gxsort\.[^./]*\.\([0-9]*\)\..*|\1|p' | sort -u; }
"${MPIRUN[@]}" -np 3 "$GX" sort big.bin -o outdir/got.bin -q --memory 1M --distributed >/dev/null 2>&1 &
pid=$!
# Signalled once every rank is at work: each has a temp file (polled, at most 60 s).
end=$((SECONDS + 60))
while (($(rank_pids | wc -l) < 3)) && kill -0 $pid 2>/dev/null && ((SECONDS < end)); do sleep 0.05; done
ranks=$(rank_pids)
kill -TERM $pid 2>/dev/null
wait $pid
RC=$?
# mpirun may return before its ranks have ended: their files are checked once they have.
end=$((SECONDS + 60))
for r in $ranks; do while kill -0 "$r" 2>/dev/null && ((SECONDS < end)); do sleep 0.05; done; done
if [[ $RC == 0 ]]; then skip "SIGTERM during a job" "the job ended before the signal"
else
  if [[ ! -e outdir/got.bin ]]; then pass "SIGTERM during a job: no output"
  else  # the signal came after rank 0's commit: then the whole output is there
    gx check outdir/got.bin -q
    if [[ $RC == 0 && $(stat -c %s outdir/got.bin) == $(stat -c %s big.bin) ]]; then
      pass "SIGTERM during a job: committed before it, the whole sorted output"
    else fail "SIGTERM during a job: no output" "a partial outdir/got.bin"; fi
  fi
  no_leftovers "SIGTERM during a job: no temp file on any rank" "$TMPDIR" outdir .
fi
finish
