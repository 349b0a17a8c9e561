#!/usr/bin/env bash
# Error paths: exit code, one "gxsort: ..." line naming the file, no output created or
# replaced, no temp files left. Includes a real ENOSPC on a small tmpfs (root only).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

oracle gen -o good.bin --count 1000 --seed 1 --type u64
head -c 8001 /dev/urandom >odd.bin
mkdir -p adir

printf 'OLD CONTENT' >old.ref
old_intact() { cmp -s "$1" "$WORK/old.ref"; }

# err_case NAME RC "TEXT1|TEXT2" ARGS... : ARGS may contain OUT, replaced by an output
# path: once a fresh one (must not be created), once an existing file (must keep its
# content). Checks exit code, the message and that no temp file is left.
err_case() {
  local name=$1 want=$2 texts=$3; shift 3
  local -a mentions
  IFS='|' read -r -a mentions <<<"$texts"
  local -a args=() args2=()
  local a has_out=0
  for a in "$@"; do
    if [[ $a == OUT ]]; then args+=("$WORK/fresh.out"); args2+=("$WORK/old.out"); has_out=1
    else args+=("$a"); args2+=("$a"); fi
  done
  rm -f "$WORK/fresh.out"
  gx "${args[@]}"
  expect_rc "$name: exit $want" "$want"
  err_mentions "$name: message" "${mentions[@]}"
  if ((has_out)); then
    [[ ! -e "$WORK/fresh.out" ]] && pass "$name: no output created" || fail "$name: no output created" "fresh.out exists"
    printf 'OLD CONTENT' >"$WORK/old.out"
    gx "${args2[@]}"
    [[ $RC == "$want" ]] || fail "$name (existing output): exit $want" "exit $RC: $(last_err)"
    old_intact "$WORK/old.out" && pass "$name: an existing output keeps its content" \
      || fail "$name: an existing output keeps its content" "replaced"
  fi
  local l; l=$(leftover_temps "$WORK")
  [[ -z "$l" ]] && pass "$name: no temp files left" || fail "$name: no temp files left" "$(echo $l)"
}

# ---- input errors ----
err_case "size not a multiple of the record size" 2 "odd.bin|multiple" sort odd.bin -o OUT
err_case "size not a multiple (24-byte records)" 2 "good.bin|multiple|24" sort good.bin -o OUT --record-size 24 --key-type u64
err_case "key outside the record (8-byte record, u32 at 6)" 2 "inside" sort good.bin -o OUT --record-size 8 --key-offset 6 --key-type u32
err_case "key outside the record (--key-bytes 9 of 8)" 2 "inside" sort good.bin -o OUT --record-size 8 --key-bytes 9
err_case "key outside the record (offset 8 of 8)" 2 "inside" sort good.bin -o OUT --record-size 8 --key-offset 8 --key-bytes 1
err_case "key outside the record (--key-bytes -1 wraps around)" 2 "key-bytes" sort good.bin -o OUT --record-size 8 --key-offset 2 --key-bytes -1
err_case "missing input" 2 "nope.bin" sort nope.bin -o OUT
err_case "directory as input" 2 "adir" sort adir -o OUT
err_case "missing input (plan)" 2 "nope.bin" plan nope.bin
err_case "missing input (check)" 2 "nope.bin" check nope.bin
err_case "size not a multiple (check)" 2 "odd.bin|multiple" check odd.bin
err_case "missing input (runs)" 2 "nope.bin" runs nope.bin -o rdir
[[ ! -e rdir ]] && pass "runs of a missing input: no directory created" || fail "runs of a missing input: no directory created" "rdir exists"
err_case "missing input among merge inputs" 2 "nope.bin" merge good.bin nope.bin -o OUT --memory 8M
err_case "size not a multiple (merge)" 2 "odd.bin|multiple" merge good.bin odd.bin -o OUT --memory 8M
if is_root; then
  skip "unreadable input (chmod 000)" "running as root: permission bits do not stop reads (the directory case stands in)"
else
  cp good.bin noread.bin; chmod 000 noread.bin
  err_case "unreadable input (chmod 000)" 2 "noread.bin|denied" sort noread.bin -o OUT
  chmod 644 noread.bin
fi

# ---- output errors ----
err_case "missing output directory" 3 "nodir" sort good.bin -o nodir/out.bin
[[ ! -e nodir ]] && pass "missing output directory: not created" || fail "missing output directory: not created" "exists"
err_case "missing output directory (gen)" 3 "nodir" gen -o nodir/g.bin --count 10
err_case "missing output directory (merge)" 3 "nodir" merge good.bin -o nodir/m.bin --memory 8M
# An output that is a directory is a usage error (exit 2) for every command and option
# that names a file to write.
mkdir -p outisdir
printf '0 1\n1 2\n' >e.txt
"$GX" graph build e.txt -o g.csr --input-format snap -q
for args in "sort good.bin -o outisdir" "merge good.bin -o outisdir" "dedupe good.bin -o outisdir" \
            "dedupe good.bin -o outisdir --keep last --record-size 8 --key-type u32" "gen -o outisdir --count 10" \
            "gen --graph rmat --scale 4 -o outisdir" "graph build e.txt -o outisdir --input-format snap" \
            "bfs g.csr --source 0 -o outisdir" "bfs g.csr --source 0 --parents outisdir" \
            "sort good.bin -o sd.bin --stats-json outisdir" "check good.bin --stats-json outisdir"; do
  read -r -a a <<<"$args"
  gx "${a[@]}" -q
  expect_rc "output is a directory ($args): exit 2" 2
  err_mentions "output is a directory ($args): message" "outisdir" "directory"
done
gx sort good.bin -o sd.bin --stats-json outisdir
err_mentions "--stats-json DIR: the message names --stats-json, not -o" "outisdir" "--stats-json names a file"
gx bfs g.csr --source 0 --parents outisdir
err_mentions "--parents DIR: the message names --parents, not -o" "outisdir" "--parents names a file"
[[ ! -e sd.bin ]] && pass "--stats-json DIR: no output written" || fail "--stats-json DIR: no output written" "sd.bin exists"
[[ -d outisdir && -z "$(ls -A outisdir)" ]] && pass "output is a directory: it is left alone" || fail "output is a directory: it is left alone" "changed"
[[ -z "$(leftover_temps "$WORK")" ]] && pass "output is a directory: no temp left" || fail "output is a directory: no temp left" "$(leftover_temps "$WORK")"

# read-only output directory
ro_ok=0
if is_root; then
  if try_mount "$WORK/ro" size=1m; then
    printf 'OLD CONTENT' >"$WORK/ro/old.out"
    mount -o remount,ro "$WORK/ro" 2>/dev/null && ro_ok=1
  fi
else
  mkdir -p ro; printf 'OLD CONTENT' >ro/old.out; chmod 555 ro; ro_ok=1
fi
if ((ro_ok)); then
  gx sort good.bin -o ro/out.bin
  expect_rc "read-only output directory: exit 3" 3
  err_mentions "read-only output directory: message names it" "ro"
  [[ ! -e ro/out.bin ]] && pass "read-only output directory: no output" || fail "read-only output directory: no output" "exists"
  gx sort good.bin -o ro/old.out
  expect_rc "read-only output directory, existing output: exit 3" 3
  old_intact ro/old.out && pass "read-only output directory: existing output unchanged" || fail "read-only output directory: existing output unchanged" "changed"
  gx runs good.bin -o ro/runs
  expect_rc "runs into a read-only directory: exit 3" 3
  [[ -z "$(ls -A ro | grep -v old.out)" ]] && pass "read-only output directory: nothing written" || fail "read-only output directory: nothing written" "$(ls -A ro)"
  is_root || chmod 755 ro
else
  skip "read-only output directory" "cannot mount a read-only tmpfs here"
fi

gx runs good.bin -o newrd --memory 512K
expect_rc "runs with --memory below the minimum: exit 2" 2
[[ ! -e newrd ]] && pass "runs with a usage error: no output directory created" || fail "runs with a usage error: no output directory created" "newrd was created"

# ---- options ----
err_case "--memory below the minimum" 2 "--memory|minimum|1.0 MiB" sort good.bin -o OUT --memory 512K
err_case "--memory below the minimum (plan)" 2 "minimum" plan good.bin --memory 100000
err_case "bad size text (12Q)" 2 "--memory|12Q" sort good.bin -o OUT --memory 12Q
err_case "bad size text (-5M)" 2 "--memory|-5M" sort good.bin -o OUT --memory -5M
err_case "bad size text (150%)" 2 "--memory|150%" sort good.bin -o OUT --memory 150%
err_case "bad size text (1M trailing space)" 2 "--memory" sort good.bin -o OUT --memory '1M '
err_case "unknown option" 2 "--bogus" sort good.bin -o OUT --bogus
err_case "bad --direct-io" 2 "--direct-io|maybe" sort good.bin -o OUT --direct-io maybe
err_case "unknown --type" 2 "u17" sort good.bin -o OUT --type u17
err_case "unknown --key-type" 2 "f16" sort good.bin -o OUT --record-size 8 --key-type f16
err_case "unknown --format" 2 "--format|csv" sort good.bin -o OUT --format csv
err_case "--format gensort with --type" 2 "--format" sort good.bin -o OUT --format gensort --type u32
err_case "--type with --record-size" 2 "--type" sort good.bin -o OUT --type u32 --record-size 8 --key-type u32
err_case "--record-size without a key" 2 "--key-type" sort good.bin -o OUT --record-size 8
err_case "--record-size with both key options" 2 "--key-type" sort good.bin -o OUT --record-size 8 --key-type u32 --key-bytes 4
err_case "--key-offset without --record-size" 2 "--record-size" sort good.bin -o OUT --key-offset 4
err_case "--record-size 0" 2 "record-size" sort good.bin -o OUT --record-size 0 --key-bytes 1
err_case "--fan-in 1" 2 "--fan-in" sort good.bin -o OUT --fan-in 1
err_case "--threads 0" 2 "--threads" sort good.bin -o OUT --threads 0
err_case "--threads -1 (negative)" 2 "--threads" sort good.bin -o OUT --threads -1
err_case "--threads abc" 2 "threads" sort good.bin -o OUT --threads abc
err_case "-q with -v" 2 "-q" sort good.bin -o OUT -q -v
err_case "--device bogus" 2 "--device|bogus" sort good.bin -o OUT --device bogus
err_case "dedupe without -o" 2 "-o" dedupe good.bin  # sort without -o writes stdout (GNU's habit: test_gnu_spellings.sh)
err_case "sort with two inputs" 2 "one input" sort good.bin good.bin -o OUT
gx frobnicate good.bin
expect_rc "unknown command: exit 2" 2
head -1 "$WORK/last.err" | grep -q "^gxsort: .*frobnicate" && pass "unknown command: first line names it" || fail "unknown command: first line names it" "$(last_err)"
err_case "merge without -o" 2 "-o" merge good.bin
err_case "gen without --count" 2 "--count" gen -o OUT
err_case "gen --count -1 (negative)" 2 "--count" gen -o OUT --count -1
err_case "gen bad --dist" 2 "--dist|normal" gen -o OUT --count 10 --dist normal
err_case "plan --json with --dot" 2 "--json" plan good.bin --json --dot
oracle gen -o big.bin --count 524288 --seed 2 --type u64   # 4 MiB
err_case "--tmp-dir missing (external sort)" 3 "notmp" sort big.bin -o OUT --memory 1M --fan-in 2 --tmp-dir notmp
[[ ! -e notmp ]] && pass "--tmp-dir missing: not created" || fail "--tmp-dir missing: not created" "exists"
err_case "--tmp-dir is a file (external sort)" 2 "good.bin" sort big.bin -o OUT --memory 1M --tmp-dir good.bin
err_case "one of two --tmp-dir missing (external sort)" 3 "notmp" sort big.bin -o OUT --memory 1M --tmp-dir adir --tmp-dir notmp
if ! "$GX" info 2>/dev/null | grep -q 'CPU only'; then
  skip "--device cuda without CUDA" "this gxsort has CUDA"
else
  err_case "--device cuda on a CPU-only build" 4 "cuda" sort good.bin -o OUT --device cuda
fi
# --stats-json into a missing directory: the command fails, so its output must not appear.
err_case "--stats-json into a missing directory" 3 "nodir/s.json" sort good.bin -o OUT --stats-json nodir/s.json

# ---- out of host memory: one line naming the command's input, where it ran out, the
# --memory budget and what to change; exit 3 ----
truncate -s 1G sparse.bin   # no disk: a 1 GiB mapping that a 400 MB address space refuses
(ulimit -v 400000 && exec "$GX" sort sparse.bin -o OUT.bin --memory 3G --threads 1) >/dev/null 2>"$WORK/last.err"; RC=$?
expect_rc "out of address space mapping the input: exit 3" 3
err_mentions "out of address space mapping the input: message" "sparse.bin" "out of host memory" "--memory 3.0 GiB" "lower --memory"
[[ ! -e OUT.bin ]] && pass "out of address space: no output" || fail "out of address space: no output" "exists"
# A thread whose stack the address space cannot hold (glibc sizes thread stacks by
# ulimit -s): EAGAIN from pthread_create.
if (ulimit -s 1000000 2>/dev/null); then
  (ulimit -s 1000000 && ulimit -v 900000 && exec "$GX" sort good.bin -o OUT.bin --threads 2) >/dev/null 2>"$WORK/last.err"; RC=$?
  expect_rc "no memory for a thread: exit 3" 3
  err_mentions "no memory for a thread: message" "good.bin" "thread" "out of host memory" "--memory" "--threads"
else
  skip "no memory for a thread" "ulimit -s cannot be raised to 1 GB here"
fi
rm -f sparse.bin OUT.bin

# ---- ENOSPC on a small tmpfs ----
gx sort big.bin -o bigsorted.bin -q --memory 64M
if try_mount "$WORK/small" size=1m; then
  printf 'OLD CONTENT' >small/old.out
  before=$(df -k --output=used small | tail -1)
  # 1. the free-space preflight refuses before writing anything
  gx sort big.bin -o small/out.bin
  expect_rc "preflight: not enough free space: exit 3" 3
  err_mentions "preflight: message" "not enough free space" "small"
  [[ "$(ls -A small)" == old.out ]] && pass "preflight: nothing written" || fail "preflight: nothing written" "$(ls -A small)"
  gx sort big.bin -o small/old.out
  [[ $RC == 3 ]] && old_intact small/old.out && pass "preflight: existing output unchanged (exit 3)" || fail "preflight: existing output unchanged" "rc=$RC"
  gx gen -o small/g.bin --count 524288
  expect_rc "preflight (gen): exit 3" 3
  gx runs big.bin -o small/rd --memory 1M
  expect_rc "preflight (runs): exit 3" 3
  rm -rf small/rd
  # 2. with the preflight skipped, a real ENOSPC while writing
  export GXSORT_SKIP_SPACE_CHECK=1
  gx sort big.bin -o small/out.bin
  expect_rc "ENOSPC while writing the output: exit 3" 3
  err_mentions "ENOSPC: message says 'No space left' and names the output" "No space left" "out.bin"
  [[ ! -e small/out.bin ]] && pass "ENOSPC: no output" || fail "ENOSPC: no output" "exists"
  gx sort big.bin -o small/old.out
  expect_rc "ENOSPC, existing output: exit 3" 3
  old_intact small/old.out && pass "ENOSPC: existing output unchanged" || fail "ENOSPC: existing output unchanged" "changed"
  [[ "$(ls -A small)" == old.out ]] && pass "ENOSPC: no temp files left in the full tmpfs" || fail "ENOSPC: no temp files left in the full tmpfs" "$(ls -A small)"
  after=$(df -k --output=used small | tail -1)
  [[ $before == "$after" ]] && pass "ENOSPC: the tmpfs space is given back" || fail "ENOSPC: the tmpfs space is given back" "used ${before}K before, ${after}K after"
  # temp runs on the full tmpfs, the output elsewhere
  mkdir -p ok
  gx sort big.bin -o ok/out.bin --memory 1M --fan-in 2 --tmp-dir small
  expect_rc "ENOSPC in --tmp-dir: exit 3" 3
  err_mentions "ENOSPC in --tmp-dir: message" "No space left" "small"
  [[ -z "$(ls -A ok)" ]] && pass "ENOSPC in --tmp-dir: no output" || fail "ENOSPC in --tmp-dir: no output" "$(ls -A ok)"
  [[ "$(ls -A small)" == old.out ]] && pass "ENOSPC in --tmp-dir: no temp runs left" || fail "ENOSPC in --tmp-dir: no temp runs left" "$(ls -A small)"
  # the same with each run in 2 files written at once (Plan::run_files): a part's error
  # waits for the others, and none is left
  PARTS=(big.bin -o ok/out.bin --memory 2M --threads 1 --ooc merge --tmp-dir small)
  GXSORT_SORT_RUN_FILES=2 gx plan "${PARTS[@]}" --json
  [[ $(json_get "$WORK/last.out" 'j["run_files"]') == 2 ]] && pass "ENOSPC in --tmp-dir, runs in 2 files: the plan cuts them" || fail "runs in 2 files: plan" "$(cat "$WORK/last.out")"
  GXSORT_SORT_RUN_FILES=2 gx sort "${PARTS[@]}"
  expect_rc "ENOSPC in --tmp-dir, runs in 2 files: exit 3" 3
  err_mentions "ENOSPC in --tmp-dir, runs in 2 files: message" "No space left" "small"
  [[ -z "$(ls -A ok)" ]] && pass "ENOSPC in --tmp-dir, runs in 2 files: no output" || fail "ENOSPC in --tmp-dir, runs in 2 files: no output" "$(ls -A ok)"
  [[ "$(ls -A small)" == old.out ]] && pass "ENOSPC in --tmp-dir, runs in 2 files: no temp runs left" || fail "ENOSPC in --tmp-dir, runs in 2 files: no temp runs left" "$(ls -A small)"
  # the same with the runs written around the page cache (O_DIRECT, where tmpfs takes it)
  gx sort big.bin -o ok/out.bin --memory 1M --fan-in 2 --tmp-dir small --direct-io on
  expect_rc "ENOSPC in --tmp-dir, --direct-io on: exit 3" 3
  err_mentions "ENOSPC in --tmp-dir, --direct-io on: message" "No space left" "small"
  [[ -z "$(ls -A ok)" ]] && pass "ENOSPC in --tmp-dir, --direct-io on: no output" || fail "ENOSPC in --tmp-dir, --direct-io on: no output" "$(ls -A ok)"
  [[ "$(ls -A small)" == old.out ]] && pass "ENOSPC in --tmp-dir, --direct-io on: no temp runs left" || fail "ENOSPC in --tmp-dir, --direct-io on: no temp runs left" "$(ls -A small)"
  gx runs big.bin -o small/rd --memory 1M
  expect_rc "ENOSPC in runs: exit 3" 3
  [[ -z "$(ls -A small/rd 2>/dev/null)" ]] && pass "ENOSPC in runs: no run files or manifest left" || fail "ENOSPC in runs: no run files or manifest left" "$(ls -A small/rd)"
  rm -rf small/rd
  # sorting a file onto itself fails for lack of space: the input must survive intact
  head -c $((600 * 1024)) big.bin >small/self.bin
  cp small/self.bin self.ref
  gx sort small/self.bin -o small/self.bin
  expect_rc "ENOSPC sorting a file onto itself: exit 3" 3
  cmp -s small/self.bin self.ref && pass "ENOSPC sorting a file onto itself: the input is intact" || fail "ENOSPC sorting a file onto itself: the input is intact" "changed"
  rm -f small/self.bin
  gx gen -o small/g.bin --count 524288
  expect_rc "ENOSPC in gen: exit 3" 3
  [[ "$(ls -A small)" == old.out ]] && pass "ENOSPC in gen: nothing left" || fail "ENOSPC in gen: nothing left" "$(ls -A small)"
  gx merge bigsorted.bin -o small/m.bin --memory 8M
  expect_rc "ENOSPC in merge: exit 3" 3
  [[ "$(ls -A small)" == old.out ]] && pass "ENOSPC in merge: nothing left" || fail "ENOSPC in merge: nothing left" "$(ls -A small)"
  unset GXSORT_SKIP_SPACE_CHECK
else
  skip "ENOSPC on a small tmpfs" "mounting a tmpfs is not permitted here (needs root)"
fi

# ---- an input too large to plan (2^59 bytes, sparse, on a tmpfs) ----
if try_mount "$WORK/huge" size=1m && truncate -s 4E huge/h.bin 2>/dev/null; then
  gx plan huge/h.bin
  expect_rc "plan of a 4 EiB input: exit 2" 2
  err_mentions "plan of a 4 EiB input: message" "huge/h.bin" "more than gxsort can plan"
  gx sort huge/h.bin -o OUT.bin
  expect_rc "sort of a 4 EiB input: exit 2" 2
  err_mentions "sort of a 4 EiB input: message" "huge/h.bin" "more than gxsort can plan"
  [[ ! -e OUT.bin ]] && pass "sort of a 4 EiB input: no output" || fail "sort of a 4 EiB input: no output" "exists"
else
  skip "an input too large to plan" "needs root (a tmpfs holds a 4 EiB sparse file)"
fi

[[ -z "$(leftover_temps "$WORK")" ]] && pass "no temp files left in the work dir" || fail "no temp files left in the work dir" "$(leftover_temps "$WORK")"
finish
