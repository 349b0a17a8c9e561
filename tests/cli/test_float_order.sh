#!/usr/bin/env bash
# --float-order numpy through the binary: f32 and f64 keys (flat, in records, reversed,
# descending and big-endian fields of composite keys) holding NaNs of both signs and
# payloads, -0.0, +0.0, infinities and duplicates, ordered as numpy orders them (every NaN
# last and all NaNs equal, -0.0 == +0.0) by sort (in memory, --ooc merge and partition),
# sort -u, dedupe, merge, runs + merge DIR and check, each against the oracle (oracle.py
# --float-order numpy: the floats decoded by struct, no bit transform); .npy in and out,
# against numpy's np.sort(kind="stable") and np.unique where numpy is installed. The
# default stays IEEE totalOrder; errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# name|format options|records (at --memory 1M: two runs or more, two buckets or more)
KEYSETS=(
  "f64|--type f64|40011"
  "f32|--type f32|60011"
  "f64 in records, -r|--record-size 16 --key-offset 8 --key-type f64 -r|30011"
  "composite|--record-size 16 --key 0:f32:desc --key 4:u16 --key 8:f64be|30011"
)
NP=(--float-order numpy)

# gxsort check's lines in the oracle's words: records, sorted yes|no FIRST, duplicates.
check_words() {
  sed -n -e 's/^records: /records: /p' -e 's/^sorted: no (record \([0-9]*\) .*/sorted: no \1/p' -e 's/^sorted: yes$/sorted: yes/p' \
    -e 's/^duplicate keys: /duplicates: /p' "$WORK/last.out" | tr '\n' ' '
}

seed=300
for ks in "${KEYSETS[@]}"; do
  IFS='|' read -r name F count <<<"$ks"
  for dist in special dups; do
    seed=$((seed + 1))
    t="$name/$dist"
    oracle gen -o in.bin --count "$count" --seed $seed $F --dist $dist
    if [[ $dist == dups ]]; then  # a few values repeated, and among them the special ones
      oracle gen -o sp.bin --count 3001 --seed $((seed + 20)) $F --dist special
      cat sp.bin >>in.bin
    fi
    oracle sort in.bin -o exp.bin $F "${NP[@]}"
    oracle sort in.bin -o exp_total.bin $F
    cmp -s exp.bin exp_total.bin && fail "$t: the input tells the orders apart" "numpy's order is totalOrder here"
    if [[ $dist == special ]]; then
      # The CPU's plan (a GPU's may keep so small an input on the device).
      gx plan in.bin $F "${NP[@]}" --memory 1M --ooc merge --device cpu
      grep -q "^mode: external" "$WORK/last.out" && pass "$t: --memory 1M --ooc merge forms runs" || fail "$t: plan merge" "$(last_err)"
      grep -q "^format: .*:numpy" "$WORK/last.out" && pass "$t: plan shows numpy's order in the key" || fail "$t: plan key" "$(grep format: "$WORK/last.out")"
      gx plan in.bin $F "${NP[@]}" --memory 1M --ooc partition --device cpu
      grep -q "^mode: partition" "$WORK/last.out" && pass "$t: --memory 1M --ooc partition partitions" || fail "$t: plan partition" "$(last_err)"
    fi
    gx sort in.bin -o out.bin $F "${NP[@]}" -q
    same_bytes "$t: sort in memory" out.bin exp.bin
    gx sort in.bin -o out.bin $F "${NP[@]}" -q --memory 1M --ooc merge --fan-in 4
    same_bytes "$t: sort --ooc merge, --memory 1M" out.bin exp.bin
    gx sort in.bin -o out.bin $F "${NP[@]}" -q --memory 1M --ooc partition
    same_bytes "$t: sort --ooc partition, --memory 1M" out.bin exp.bin
    gx sort in.bin -o out.bin $F -q
    same_bytes "$t: the default is still totalOrder" out.bin exp_total.bin
    gx sort in.bin -o out.bin $F --float-order total -q
    same_bytes "$t: --float-order total is totalOrder" out.bin exp_total.bin
    oracle dedupe in.bin -o exp_u.bin $F "${NP[@]}"
    gx sort in.bin -o out.bin $F "${NP[@]}" -u -q
    same_bytes "$t: sort -u (NaNs one key, -0.0 == +0.0)" out.bin exp_u.bin
    gx sort in.bin -o out.bin $F "${NP[@]}" -u -q --memory 1M --ooc merge --fan-in 3
    same_bytes "$t: sort -u out of core" out.bin exp_u.bin
    gx dedupe in.bin -o out.bin $F "${NP[@]}" -q
    same_bytes "$t: dedupe" out.bin exp_u.bin
    oracle dedupe in.bin -o exp_d.bin $F "${NP[@]}" --keep last --count
    gx dedupe in.bin -o out.bin $F "${NP[@]}" --keep last --count -q --memory 1M
    same_bytes "$t: dedupe --keep last --count, --memory 1M" out.bin exp_d.bin
    want=$(oracle check exp.bin $F "${NP[@]}" | tr '\n' ' ')
    gx check exp.bin $F "${NP[@]}"
    got=$(check_words)
    [[ $RC == 0 && "$got" == "$want" ]] && pass "$t: check of the sorted output" || fail "$t: check sorted" "rc $RC: '$got' vs '$want'"
    want=$(oracle check exp_total.bin $F "${NP[@]}" | tr '\n' ' ')
    gx check exp_total.bin $F "${NP[@]}"
    got=$(check_words)
    [[ $RC == 1 && "$got" == "$want" ]] && pass "$t: check of the totalOrder output names its first record out of numpy's order" ||
      fail "$t: check totalOrder output" "rc $RC: '$got' vs '$want'"
  done
  # merge of two sorted files (ties: the first file's records first), and of a runs directory.
  oracle gen -o a.bin --count 7001 --seed $((seed + 50)) $F --dist dups
  oracle gen -o b.bin --count 9001 --seed $((seed + 51)) $F --dist special
  oracle sort a.bin -o as.bin $F "${NP[@]}"
  oracle sort b.bin -o bs.bin $F "${NP[@]}"
  oracle merge as.bin bs.bin -o exp_m.bin $F "${NP[@]}"
  gx merge as.bin bs.bin -o out.bin $F "${NP[@]}" -q
  same_bytes "$name: merge of two sorted files" out.bin exp_m.bin
  oracle merge bs.bin as.bin -o exp_m2.bin $F "${NP[@]}"
  gx merge bs.bin as.bin -o out.bin $F "${NP[@]}" -q --memory 1M
  same_bytes "$name: merge, the other order, --memory 1M" out.bin exp_m2.bin
  oracle dedupe exp_m.bin -o exp_mu.bin $F "${NP[@]}"
  gx merge as.bin bs.bin -o out.bin $F "${NP[@]}" -u -q
  same_bytes "$name: merge -u" out.bin exp_mu.bin
  rm -rf rdir
  gx runs in.bin -o rdir $F "${NP[@]}" -q --memory 1M
  gx merge rdir -o out.bin $F "${NP[@]}" -q
  same_bytes "$name: runs + merge DIR" out.bin exp.bin
  gx merge rdir -o out2.bin $F
  expect_rc "$name: merge DIR of numpy-ordered runs in totalOrder: exit 2" 2
  err_mentions "$name: the message names the runs' order" "rdir" "another format" ":numpy"
done

# .npy in and out: the header is kept; numpy's own sort and unique where numpy is installed.
"${PY[@]}" - <<'PY'
import random, struct
rnd = random.Random(9)
special = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), -float("nan"), 1.0, -1.0, 5e-324, -5e-324]
vals = [rnd.choice(special) if rnd.random() < 0.6 else rnd.choice((1.5, -2.25, 3.0)) for _ in range(20011)]
raw = b"".join(struct.pack("<d", v) for v in vals)
# NaNs with payloads and the sign bit, as bits.
raw += struct.pack("<QQQ", 0x7ff0000000000001, 0xfff8000000000123, 0x7fffffffffffffff)
d = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % (len(raw) // 8)
d += " " * ((-(10 + len(d) + 1)) % 64) + "\n"
open("x.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + raw)
open("x.raw", "wb").write(raw)
open("x.hdr", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode())
PY
hdr=$(stat -c %s x.hdr)
oracle sort x.raw -o xs.raw --type f64 "${NP[@]}"
gx sort x.npy -o xs.npy "${NP[@]}" -q
tail -c +$((hdr + 1)) xs.npy >xs_data.bin
same_bytes ".npy <f8: sorted in numpy's order" xs_data.bin xs.raw
cmp -s <(head -c "$hdr" xs.npy) x.hdr && pass ".npy <f8: the header is kept" || fail ".npy <f8: header" "changed"
gx sort x.npy -o xu.npy "${NP[@]}" -u -q
NUMPY_PY=""  # an interpreter with numpy: the one on PATH, else the system's
for p in python3 /usr/bin/python3; do "$p" -c "import numpy" 2>/dev/null && { NUMPY_PY=$p; break; }; done
if [[ -n $NUMPY_PY ]]; then
  if "$NUMPY_PY" - <<'PY'
import numpy as np
a = np.load("x.npy")
s = np.load("xs.npy")
u = np.load("xu.npy")
assert s.tobytes() == np.sort(a, kind="stable").tobytes(), "np.sort(kind='stable')"
assert np.array_equal(u, np.unique(a), equal_nan=True), "np.unique"
PY
  then pass ".npy <f8: np.sort(kind='stable') and np.unique give the same"; else fail ".npy <f8 against numpy" "differs"; fi
else
  skip ".npy <f8 against numpy" "numpy is not installed (the oracle's comparison above stands)"
fi

# Errors: exit 2, one line, no output.
rm -f OUT
gx sort in.bin -o OUT --type f64 --float-order ieee
expect_rc "--float-order ieee: exit 2" 2
err_mentions "--float-order ieee: the message lists the orders" "--float-order" "total" "numpy"
gx gen -o OUT --count 10 --type f64 --float-order numpy
expect_rc "gen --float-order: exit 2 (gen writes no order)" 2
gx reduce in.bin --op sum --type f64 --float-order numpy
expect_rc "reduce --float-order: exit 2" 2
gx sort in.bin -o OUT --record-size 16 --key 0:u32:numpy
expect_rc "--key 0:u32:numpy: exit 2" 2
err_mentions "--key 0:u32:numpy: numpy's order is for floats" "f32 and f64"
[[ ! -e OUT ]] && pass "refused commands: no output" || fail "refused commands: no output" "OUT exists"
leftovers=$(leftover_temps "$WORK"); [[ -z $leftovers ]] && pass "no temp files left" || fail "no temp files left" "$leftovers"
finish
