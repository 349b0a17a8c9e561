#!/usr/bin/env bash
# What gxsort reads back is checked, never trusted: runs directories (manifest v2 with
# XXH3 checksums: truncated, flipped, swapped, missing or extra runs, edited manifests,
# a seeded fuzz) and CSR files (unknown flags, reserved bytes, a false symmetric flag,
# a seeded fuzz); counts that overflow; a graph whose offsets exceed --memory.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

no_temps() {  # NAME
  local l; l=$(leftover_temps "$WORK")
  [[ -z "$l" ]] && pass "$1: no temp files left" || fail "$1: no temp files left" "$(echo $l)"
}

# ---- runs directories ----
oracle gen -o in.bin --count 300000 --seed 21 --dist dups --expect exp.bin --type u32
gx runs in.bin -o good --memory 1M --type u32 -q
expect_rc "runs: exit 0" 0
nruns=$(ls good | grep -c '^run-.*\.bin$')
((nruns >= 3)) && pass "runs: $nruns run files" || fail "runs: several run files" "$nruns"
head -1 good/manifest.txt | grep -qx "gxsort-runs 2" && pass "runs: manifest version 2" || fail "runs: manifest version 2" "$(head -1 good/manifest.txt)"
# Each run's checksum is the xxh3 `check` prints for the file (and Python's xxhash gives).
r0=$(awk '$1 == "run-000000.bin" {print $4}' good/manifest.txt)
gx check good/run-000000.bin --type u32
[[ -n $r0 && $(grep '^xxh3:' "$WORK/last.out" | awk '{print $2}') == "$r0" ]] && pass "manifest checksum = check's xxh3 of the run file" \
  || fail "manifest checksum = check's xxh3" "$r0 vs $(grep xxh3 "$WORK/last.out")"
if "${PY[0]}" -c 'import xxhash' 2>/dev/null; then
  py=$("${PY[0]}" -c 'import sys, xxhash; print(xxhash.xxh3_64(open(sys.argv[1], "rb").read()).hexdigest())' good/run-000000.bin)
  [[ $py == "$r0" ]] && pass "manifest checksum = Python xxhash.xxh3_64" || fail "manifest checksum = Python xxhash" "$py vs $r0"
else
  skip "manifest checksum = Python xxhash.xxh3_64" "the xxhash module is not installed"
fi
gx merge good -o m.bin --type u32 -q
same_bytes "merge of an intact runs directory equals the oracle" m.bin exp.bin

# bad_runs NAME MUTATION TEXT: copies the good directory, applies MUTATION (shell code
# run inside the copy), and expects merge to exit 2 naming TEXT, with no output.
bad_runs() {
  local name=$1 mutation=$2 text=$3
  rm -rf bad m.bin; cp -r good bad
  (cd bad && eval "$mutation")
  gx merge bad -o m.bin --type u32
  expect_rc "$name: exit 2" 2
  err_mentions "$name: one line naming the problem" "$text"
  [[ ! -e m.bin ]] && pass "$name: no output" || fail "$name: no output" "m.bin exists"
  no_temps "$name"
}
bad_runs "truncated run" 'truncate -s -4 run-000001.bin' "run-000001.bin"
bad_runs "bit-flipped run (same size)" 'printf "\x55" | dd of=run-000001.bin bs=1 seek=100 conv=notrunc status=none' "run-000001.bin"
bad_runs "two runs swapped" 'mv run-000000.bin t && mv run-000001.bin run-000000.bin && mv t run-000001.bin' "run-00000"
bad_runs "missing run" 'rm run-000002.bin' "run-000002.bin"
bad_runs "extra run" 'cp run-000000.bin run-000099.bin' "run-000099.bin"
bad_runs "manifest run count edited" 'sed -i "s/^runs .*/runs 2/" manifest.txt' "manifest"
bad_runs "manifest record count edited" 'sed -i "0,/^run-000000.bin [0-9]*/s//run-000000.bin 7/" manifest.txt' "manifest"
bad_runs "manifest version 1" 'sed -i "1s/.*/gxsort-runs 1/" manifest.txt' "version"
bad_runs "manifest with a line after its end" 'echo "run-000099.bin 1 4 0000000000000000" >>manifest.txt' "manifest"
bad_runs "manifest without its end line" 'sed -i "/^end /d" manifest.txt' "manifest"
bad_runs "no manifest" 'rm manifest.txt' "manifest"
# An output inside the runs directory it merges: refused (the next merge would take it in).
gx merge good -o good/x.bin --type u32
expect_rc "merge DIR -o DIR/x: exit 2" 2
[[ ! -e good/x.bin ]] && pass "merge DIR -o DIR/x: no output" || fail "merge DIR -o DIR/x: no output" "exists"
gx runs in.bin -o good --type u32 -q
expect_rc "runs into a directory holding runs: exit 2" 2

# A seeded fuzz: every mutated manifest or run is refused (exit 2), never merged.
fuzz_ok=0 fuzz_bad=""
for seed in $(seq 1 40); do
  rm -rf bad m.bin; cp -r good bad
  target=$("${PY[@]}" - "$seed" bad <<'PY'
import os, random, sys
rnd = random.Random(int(sys.argv[1]))
d = sys.argv[2]
names = sorted(n for n in os.listdir(d))
name = "manifest.txt" if rnd.random() < 0.6 else rnd.choice(names)
p = os.path.join(d, name)
data = bytearray(open(p, "rb").read())
op = rnd.choice(["flip", "insert", "delete"])
i = rnd.randrange(len(data))
if op == "flip":
    data[i] ^= 1 << rnd.randrange(8)
elif op == "insert":
    data.insert(i, rnd.choice(b"0123456789 \nabcdef-"))
else:
    del data[i]
open(p, "wb").write(data)
print(name + " " + op)
PY
)
  gx merge bad -o m.bin --type u32
  if [[ $RC == 2 && ! -e m.bin ]]; then fuzz_ok=$((fuzz_ok + 1)); else fuzz_bad+="[seed $seed, $target: exit $RC] "; fi
done
[[ -z $fuzz_bad ]] && pass "fuzz: 40 mutated runs directories, all refused with exit 2" || fail "fuzz of runs directories" "$fuzz_bad"
no_temps "runs fuzz"

# ---- CSR files ----
"$GX" gen --graph rmat --scale 8 --edge-factor 8 --seed 3 -o e.bin32 -q
gx graph build e.bin32 -o g.csr --symmetrize -q
expect_rc "graph build: exit 0" 0
gx bfs g.csr --source 1
expect_rc "bfs of an intact CSR: exit 0" 0
# bad_csr NAME PYTHON TEXT: PYTHON edits `d` (the bytes); bfs must exit 2 naming TEXT.
bad_csr() {
  local name=$1 edit=$2 text=$3
  "${PY[@]}" -c "import struct, sys; d = bytearray(open('g.csr', 'rb').read()); $edit; open('bad.csr', 'wb').write(d)"
  gx bfs bad.csr --source 1
  expect_rc "CSR $name: exit 2" 2
  err_mentions "CSR $name: message" "bad.csr" "$text"
}
bad_csr "unknown flag bit" "d[32] |= 4" "flag"
bad_csr "non-zero reserved byte" "d[60] = 1" "reserved"
bad_csr "symmetric flag cleared" "d[32] &= 0xFE" "checksum"
bad_csr "a flipped neighbor" "d[-3] ^= 1" "checksum"
bad_csr "version 1" "d[8:12] = struct.pack('<I', 1)" "version"
# A directed graph whose header claims symmetric: refused, not searched bottom-up.
printf '0 1\n1 2\n' >dir.txt
gx graph build dir.txt -o dir.csr -q
"${PY[@]}" -c "d = bytearray(open('dir.csr', 'rb').read()); d[32] |= 1; open('sym.csr', 'wb').write(d)"
gx bfs sym.csr --source 2
expect_rc "a directed CSR claiming symmetric: exit 2" 2
fuzz_bad=""
for seed in $(seq 1 40); do
  "${PY[@]}" -c "
import random; r = random.Random($seed); d = bytearray(open('g.csr', 'rb').read())
i = r.randrange(len(d)); d[i] ^= 1 << r.randrange(8); open('fz.csr', 'wb').write(d)"
  gx bfs fz.csr --source 1
  [[ $RC == 2 ]] || fuzz_bad+="[seed $seed: exit $RC] "
done
[[ -z $fuzz_bad ]] && pass "fuzz: 40 CSR files with a flipped bit, all refused with exit 2" || fail "fuzz of CSR files" "$fuzz_bad"

# ---- sizes that overflow, memory that does not suffice ----
gx gen -o huge.bin --count 2305843009213693953
expect_rc "gen --count 2^61+1 of 8-byte records: exit 2" 2
err_mentions "gen --count overflow: message" "count" "2^64"
[[ ! -e huge.bin ]] && pass "gen --count overflow: no output" || fail "gen --count overflow: no output" "exists"
gx gen -o huge.bin --count 184467440737095517 --format gensort
expect_rc "gen --count of 100-byte records past 2^64 bytes: exit 2" 2
printf '0 1099511627000\n' >far.txt
gx graph build far.txt -o far.csr --memory 1G
expect_rc "graph build with offsets larger than --memory: exit 3" 3
err_mentions "graph build offsets: message names the file and the option" "far.txt" "--memory"
[[ ! -e far.csr ]] && pass "graph build offsets: no output" || fail "graph build offsets: no output" "exists"
# Memory the process cannot get (here a ulimit below --memory): one line naming the input,
# the budget and the options that change it; exit 3; nothing left.
head -c 8000000 /dev/urandom >rnd.bin
(ulimit -v 1000000; cat rnd.bin | "$GX" sort - -o oom.bin --memory 3G --device cpu) >"$WORK/last.out" 2>"$WORK/last.err"; RC=$?
expect_rc "sort - with --memory above the process's limit: exit 3" 3
err_mentions "out of memory: message names the input and --memory" "sort -" "out of host memory" "--memory 3.0 GiB" "lower --memory"
[[ ! -e oom.bin ]] && pass "out of memory: no output" || fail "out of memory: no output" "exists"
no_temps "sizes"
finish
