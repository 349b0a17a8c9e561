#!/usr/bin/env bash
# Inputs that another user controls (issue 35): an input rewritten while the in-memory
# sort reads it (exit 3 with one line or a sorted output, never a crash, nothing left
# behind), a .npy read from a FIFO (opened once), .npy headers whose numbers are out of
# bounds (exit 2 with one line), bfs --random-sources beyond the vertex count, and file
# names with control characters (the error line stays one line).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# ---- an input that changes while the in-memory sort reads it --------------------------

# Rewrites of a file of records, in place (the same inode: what a writer with the
# file open does): rewrite FILE random | top-bit | one-key | tails.
#   random   new random bytes
#   top-bit  every u64 key with its top bit flipped (each key's low digits, and so the
#            counts of the sort's first digit, unchanged)
#   one-key  the middle u64 key made one larger (an input of equal keys no longer is)
#   tails    100-byte records: key bytes 8-9 complemented (ties of the 8-byte prefix
#            now in the opposite order)
rewrite() {
  "${PY[@]}" - "$@" <<'PY'
import os, struct, sys
path, how = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDWR)
data = bytearray(os.pread(fd, os.fstat(fd).st_size, 0))
if how == "random":
    data = bytearray(os.urandom(len(data)))
elif how == "top-bit":
    for i in range(7, len(data), 8):
        data[i] ^= 0x80
elif how == "one-key":
    i = len(data) // 16 * 8
    struct.pack_into("<Q", data, i, struct.unpack_from("<Q", data, i)[0] + 1)
elif how == "tails":
    for i in range(0, len(data), 100):
        data[i + 8] ^= 0xff
        data[i + 9] ^= 0xff
os.pwrite(fd, bytes(data), 0)
os.close(fd)
PY
}

# between HOW ARGS...: gxsort ARGS with the test hook GXSORT_TEST_BETWEEN_PASSES: once
# the sort has read its input a first time (it creates hook.paused), in.bin is rewritten
# (rewrite in.bin HOW; "none" leaves it), then the sort goes on. RC and last.err as gx.
between() {
  local how=$1; shift
  rm -f "$WORK/hook.paused" "$WORK/hook.go"
  GXSORT_TEST_BETWEEN_PASSES="$WORK/hook" "$GX" "$@" >"$WORK/last.out" 2>"$WORK/last.err" &
  local pid=$! end=$((SECONDS + 60))
  while ((SECONDS < end)); do  # polls the state, 60 s at most (the sort waits 120 s for hook.go)
    [[ -e "$WORK/hook.paused" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  [[ -e "$WORK/hook.paused" && "$how" != none ]] && rewrite in.bin "$how"
  touch "$WORK/hook.go"
  wait "$pid"
  RC=$?
  PAUSED=0
  [[ -e "$WORK/hook.paused" ]] && PAUSED=1
}

# changed NAME: the last run found its input changed: exit 3, one line naming in.bin,
# no output and no temp file.
changed() {
  if [[ "$PAUSED" != 1 ]]; then fail "$1" "the sort never reached the test hook (rc=$RC: $(last_err))"; return; fi
  expect_rc "$1: exit 3" 3
  err_mentions "$1: one line" "in.bin" "input changed"
  [[ ! -e out.bin ]] && pass "$1: no output" || fail "$1: no output" "out.bin exists"
  local left; left="$(leftover_temps "$WORK")$(job_pieces "$WORK" "$TMPDIR")"
  [[ -z "$left" ]] && pass "$1: no temp file or job" || fail "$1: no temp file or job" "$left"
}

for t in 1 2; do
  # 2^18 u64 keys: two threads of the radix sort take a block each.
  oracle gen -o in.bin --count 262144 --seed 5 --type u64 --expect want.bin
  between none sort in.bin -o out.bin --threads $t --device cpu
  expect_rc "unchanged input, hook on, --threads $t: sorted" 0
  same_bytes "unchanged input, hook on, --threads $t: the oracle's output" out.bin want.bin
  rm -f out.bin

  "$GX" gen -o in.bin --count 262144 --seed 6 -q
  between random sort in.bin -o out.bin --threads $t --device cpu
  changed "u64 keys rewritten between the count and the scatter, --threads $t"

  # Keys below 2^24: the first digit is below the top byte; the rewrite flips the top
  # bit of each, so every digit count is the same and only the bits above it differ.
  "${PY[@]}" -c "
import os, struct, random
r = random.Random(7)
open('in.bin', 'wb').write(b''.join(struct.pack('<Q', r.getrandbits(24)) for _ in range(262144)))"
  between top-bit sort in.bin -o out.bin --threads $t --device cpu
  changed "u64 keys with new high bits and the same digit counts, --threads $t"

  "${PY[@]}" -c "open('in.bin', 'wb').write((5).to_bytes(8, 'little') * 262144)"
  between one-key sort in.bin -o out.bin --threads $t --device cpu
  changed "equal u64 keys, one changed after the count, --threads $t"

  "$GX" gen -o in.bin --count 262144 --seed 8 -q
  between random dedupe in.bin -o out.bin --threads $t --device cpu
  changed "dedupe (sort -u) of u64 keys rewritten, --threads $t"
  between random dedupe in.bin -o out.bin --count --threads $t --device cpu
  changed "dedupe --count of u64 keys rewritten, --threads $t"

  "$GX" gen -o in.bin --count 20000 --seed 9 --format gensort -q
  between random sort in.bin -o out.bin --format gensort --threads $t --device cpu
  changed "gensort records rewritten between the keys and the gather, --threads $t"

  # Every record's key starts with the same 8 bytes: groups of ties finished on the key's
  # last 2 bytes, by the small-group sort (200 records) and by the radix passes (5000).
  for n in 200 5000; do
    "${PY[@]}" -c "
import os, random
r = random.Random($n)
open('in.bin', 'wb').write(b''.join(b'prefix!!' + r.randbytes(92) for _ in range($n)))"
    cp in.bin orig.bin
    oracle sort orig.bin -o want.bin --format gensort
    between none sort in.bin -o out.bin --format gensort --threads $t --device cpu
    expect_rc "$n tied gensort prefixes, unchanged, --threads $t: sorted" 0
    same_bytes "$n tied gensort prefixes, unchanged, --threads $t: the oracle's output" out.bin want.bin
    rm -f out.bin
    between tails sort in.bin -o out.bin --format gensort --threads $t --device cpu
    changed "$n tied gensort prefixes, their tails reversed after the sort, --threads $t"
  done
done

# The out-of-core partition sort reads its mapping of the input twice too (bucket
# numbers, then the records): records rewritten in between land in the wrong buckets,
# found at the buckets' boundaries.
oracle gen -o in.bin --count 500000 --seed 12 --type u64 --expect want.bin
between none sort in.bin -o out.bin --memory 1M --ooc partition --device cpu
expect_rc "partition sort, unchanged input, hook on" 0
same_bytes "partition sort, unchanged input, hook on: the oracle's output" out.bin want.bin
rm -f out.bin
between random sort in.bin -o out.bin --memory 1M --ooc partition --device cpu
changed "partition sort of u64 keys rewritten between bucket numbers and records"

# A writer rewriting random blocks of the input for as long as the sort runs (no hook):
# every run ends with exit 0 and a sorted output, or exit 3 and one line; never a crash
# (before: exit 139 or 134), never a temp file left.
cat >writer.py <<'PY'
import os, random, sys, time
path, ready = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_WRONLY)
size = os.fstat(fd).st_size
open(ready, "w").close()
end = time.time() + 20  # bounded: the test kills it sooner
while time.time() < end:
    os.pwrite(fd, os.urandom(1 << 14), random.randrange(0, size - (1 << 14)) // 8 * 8)
PY
stress_ok=0 stress_bad=""
for round in 1 2 3; do
  for t in 1 2; do
    for cmd in sort dedupe; do
      "$GX" gen -o in.bin --count 1048576 --seed $round -q
      rm -f ready
      "${PY[@]}" writer.py in.bin ready &
      wpid=$!
      end=$((SECONDS + 60))
      while ((SECONDS < end)) && [[ ! -e ready ]]; do sleep 0.01; done
      gx $cmd in.bin -o out.bin --threads $t --device cpu
      kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
      left="$(leftover_temps "$WORK")$(job_pieces "$WORK" "$TMPDIR")"
      if [[ $RC == 0 ]] && "$GX" check out.bin -q; then
        stress_ok=$((stress_ok + 1))
      elif [[ $RC == 3 && $(grep -c . last.err) == 1 ]] && grep -q "in.bin: input changed" last.err; then
        stress_ok=$((stress_ok + 1))
      else
        stress_bad+=" [$cmd --threads $t: rc=$RC $(last_err)]"
      fi
      [[ -n "$left" ]] && stress_bad+=" [$cmd --threads $t: left $left]"
      rm -f out.bin
    done
  done
done
[[ -z "$stress_bad" ]] && pass "a writer during $stress_ok sorts and dedupes: each exit 0 sorted or exit 3, nothing left" \
  || fail "a writer during sorts and dedupes" "$stress_bad"

# Text lines (sort --lines) are read into private memory before they are compared: a
# rewrite after the read (the hook: between the passes of the prefixes' sort) leaves the
# sort's bytes as they were, and is found at the end (exit 3); a writer during the sort
# never crashes it (comparison sorts trust what they compared before).
"${PY[@]}" -c "
import random
r = random.Random(13)
open('in.bin', 'w').write(''.join('same prefix %d,%d\\n' % (r.randrange(50), r.randrange(10 ** 6)) for _ in range(200000)))"
cp in.bin orig.txt
LC_ALL=C sort orig.txt >want.txt
between none sort --lines in.bin -o out.bin --device cpu
expect_rc "lines, unchanged input, hook on: sorted" 0
same_bytes "lines, unchanged input, hook on: GNU sort's output" out.bin want.txt
rm -f out.bin
between random sort --lines in.bin -o out.bin --device cpu
changed "lines rewritten after they were read"
cp orig.txt in.bin
lines_bad=""
for round in 1 2 3; do
  rm -f ready
  "${PY[@]}" writer.py in.bin ready &
  wpid=$!
  end=$((SECONDS + 60))
  while ((SECONDS < end)) && [[ ! -e ready ]]; do sleep 0.01; done
  gx sort -t, -k2,2n in.bin -o out.bin --device cpu
  kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
  if [[ $RC == 0 ]] && "$GX" check -t, -k2,2n out.bin -q; then :
  elif [[ $RC == 3 && $(grep -c . last.err) == 1 ]] && grep -q "in.bin: input changed" last.err; then :
  else lines_bad+=" [round $round: rc=$RC $(last_err)]"
  fi
  left="$(leftover_temps "$WORK")"
  [[ -n "$left" ]] && lines_bad+=" [round $round: left $left]"
  rm -f out.bin
done
[[ -z "$lines_bad" ]] && pass "a writer during sorts of lines: each exit 0 sorted or exit 3, nothing left" ||
  fail "a writer during sorts of lines" "$lines_bad"

# ---- .npy files ------------------------------------------------------------------------

# npy_make OUT DESCR COUNT RAW [VERSION]: RAW's bytes behind a header that says DESCR
# (as written, quotes included) and shape (COUNT,).
npy_make() {
  "${PY[@]}" - "$@" <<'PY'
import struct, sys
out, descr, count, raw = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
version = int(sys.argv[5]) if len(sys.argv) > 5 else 1
d = "{'descr': %s, 'fortran_order': False, 'shape': (%d,), }" % (descr, count)
pre = 10 if version == 1 else 12
d += " " * ((-(pre + len(d) + 1)) % 64) + "\n"
head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(d)) if version == 1 else struct.pack("<I", len(d)))
open(out, "wb").write(head + d.encode() + open(raw, "rb").read())
PY
}
# npy_data NPY OUT: the data of NPY into OUT; prints its header's descr and shape.
npy_data() {
  "${PY[@]}" - "$@" <<'PY'
import ast, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<H", b, 8)[0] if b[6] == 1 else struct.unpack_from("<I", b, 8)[0]
start = 10 if b[6] == 1 else 12
h = ast.literal_eval(b[start:start + n].decode())
open(sys.argv[2], "wb").write(b[start + n:])
print(h["descr"], h["shape"])
PY
}

# A FIFO named *.npy: its header and data are read from the one open (before: the FIFO
# was opened twice, and the second open waited for a writer or read data as a header).
oracle gen -o k.bin --count 30000 --seed 11 --type u64 --expect ks.bin
npy_make k.npy "'<u8'" 30000 k.bin
mkfifo fifo.npy
timeout 120 sh -c 'cat k.npy > fifo.npy' &
wpid=$!
RC=0
timeout 120 "$GX" sort fifo.npy -o fifo_out.npy >"$WORK/last.out" 2>"$WORK/last.err" || RC=$?
expect_rc "sort of a .npy FIFO" 0
if [[ -f fifo_out.npy ]]; then
  shape=$(npy_data fifo_out.npy fifo_data.bin)
  [[ "$shape" == "<u8 (30000,)" ]] && pass "sort of a .npy FIFO: header" || fail "sort of a .npy FIFO: header" "$shape"
  same_bytes "sort of a .npy FIFO: the oracle's records" fifo_data.bin ks.bin
else
  fail "sort of a .npy FIFO: output" "none (rc=$RC: $(last_err))"
fi
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
timeout 120 sh -c 'cat k.npy > fifo.npy' &
wpid=$!
RC=0
timeout 120 "$GX" check fifo.npy >"$WORK/last.out" 2>"$WORK/last.err" || RC=$?
expect_rc "check of an unsorted .npy FIFO: not sorted" 1
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null

# Header numbers out of bounds: exit 2, one line naming the file, no temp file, for every
# command that reads one (before: a dtype width past 2^64 aborted with exit 134).
printf '\1\0\0\0\0\0\0\0' >one.bin
npy_make good.npy "'<u8'" 1 one.bin
npy_make wide.npy "'<u99999999999999999999'" 1 one.bin
npy_make wide2.npy "'|V2147483648'" 1 one.bin
npy_make widefields.npy "[('a', '<u8'), ('b', '|V2147483647'), ('c', '|V2147483647')]" 1 one.bin
npy_make wrap.npy "'<u8'" 2305843009213693953 one.bin  # 8 * this wraps to 8 bytes
npy_make huge.npy "'<u8'" 99999999999999999999999 one.bin
"${PY[@]}" -c "
import struct
d = \"{'descr': '<u8', 'fortran_order': False, 'shape': (-1,), }\"
open('negative.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(d) + 1) + d.encode() + b'\n' + b'\0' * 8)
d = \"{'descr': \" + '[' * 100000 + ']' * 100000 + \", 'fortran_order': False, 'shape': (1,), }\"
open('deep.npy', 'wb').write(b'\x93NUMPY\x02\x00' + struct.pack('<I', len(d) + 1) + d.encode() + b'\n' + b'\0' * 8)
open('longhead.npy', 'wb').write(b'\x93NUMPY\x02\x00' + struct.pack('<I', 0xffffffff) + b'{')"
declare -A why=([wide]="too wide" [wide2]="too wide" [widefields]="wider than" [wrap]="the header says"
                [huge]="too large" [negative]="unexpected '-'" [deep]="nested" [longhead]="a header of")
for bad in wide wide2 widefields wrap huge negative deep longhead; do
  for cmd in sort merge check dedupe; do
    rm -f out.npy
    case $cmd in
      check) gx check $bad.npy ;;
      merge) gx merge good.npy $bad.npy -o out.npy ;;
      *) gx $cmd $bad.npy -o out.npy ;;
    esac
    expect_rc "$cmd $bad.npy: exit 2" 2
    err_mentions "$cmd $bad.npy: one line" "$bad.npy" "${why[$bad]}"
    left=$(leftover_temps "$WORK")
    [[ -z "$left" && ! -e out.npy ]] && pass "$cmd $bad.npy: nothing left" || fail "$cmd $bad.npy: nothing left" "$left $(ls out.npy 2>/dev/null)"
  done
done

# ---- bfs --random-sources ----------------------------------------------------------------

printf '0 1\n0 2\n1 3\n1 4\n2 5\n2 6\n2 7\n3 4\n3 8\n4 5\n4 8\n5 6\n6 8\n7 0\n7 6\n' >g.txt
gx graph build g.txt -o g.csr
expect_rc "graph of 9 vertices" 0
gx bfs g.csr --random-sources 18446744073709551615 --device cpu
expect_rc "bfs --random-sources 2^64-1: exit 2" 2
err_mentions "bfs --random-sources 2^64-1: one line" "g.csr" "--random-sources 18446744073709551615" "9 vertices"
gx bfs g.csr --random-sources 10 --device cpu
expect_rc "bfs --random-sources one more than the vertices: exit 2" 2
gx bfs g.csr --random-sources 9 --device cpu
expect_rc "bfs --random-sources as many as the vertices" 0
grep -q "mean of 9 searches" last.out && pass "bfs --random-sources 9: nine searches" || fail "bfs --random-sources 9" "$(cat last.out)"

# ---- control characters in file names --------------------------------------------------

gx sort $'no\nsuch\tfile.bin' -o out.bin
err_mentions "a missing input with a newline and a tab in its name: one line, escaped" 'no\nsuch\tfile.bin'
printf 'abc' >$'odd\nsize\001.bin'
gx sort $'odd\nsize\001.bin' -o out.bin
expect_rc "an input of a partial record with a newline in its name" 2
err_mentions "an input of a partial record with a newline in its name: one line, escaped" 'odd\nsize\x01.bin' "not a multiple"
gx sort one.bin -o $'no\ndir/out.bin'
err_mentions "an output in a missing directory with a newline in its name: one line, escaped" 'no\ndir'

finish
