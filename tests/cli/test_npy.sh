#!/usr/bin/env bash
# .npy files: headers (versions 1-3, plain and structured dtypes) written by this test,
# sorted, deduped and merged into valid .npy outputs with the new shape; headers that
# contradict the options, big-endian, object and Fortran-order arrays refused (exit 2).
# numpy's own np.load round trip where numpy is installed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# npy_write OUT VERSION DESCR RAW [fortran]: RAW's bytes behind a .npy header.
npy_write() {
  "${PY[@]}" - "$@" <<'PY'
import struct, sys
out, version, descr, raw = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
fortran = len(sys.argv) > 5
data = open(raw, "rb").read()
if descr.startswith("["):
    fields = eval(descr)
    itemsize = sum(int(t[2:]) for _, t in fields)
else:
    itemsize = 8 if descr == "|O" else int(descr[2:])
d = "{'descr': %s, 'fortran_order': %s, 'shape': (%d,), }" % (
    descr if descr.startswith("[") else repr(descr), "True" if fortran else "False", len(data) // itemsize)
pre = 10 if version == 1 else 12
d += " " * ((-(pre + len(d) + 1)) % 64) + "\n"
head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(d)) if version == 1 else struct.pack("<I", len(d)))
open(out, "wb").write(head + d.encode())
open(out, "ab").write(data)
PY
}
# npy_check FILE DESCR COUNT DATA: FILE's header says DESCR and (COUNT,) and its data is DATA's bytes.
npy_check() {
  "${PY[@]}" - "$@" <<'PY'
import ast, struct, sys
f, descr, count, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
b = open(f, "rb").read()
assert b[:6] == b"\x93NUMPY", "magic"
v = b[6]
n = struct.unpack_from("<H", b, 8)[0] if v == 1 else struct.unpack_from("<I", b, 8)[0]
start = 10 if v == 1 else 12
h = ast.literal_eval(b[start:start + n].decode())
assert (start + n) % 64 == 0, "data not 64-aligned"
assert str(h["descr"]) == descr or repr(h["descr"]) == descr, ("descr", h["descr"], descr)
assert h["shape"] == (count,), ("shape", h["shape"], count)
assert h["fortran_order"] is False
assert b[start + n:] == open(data, "rb").read(), "data"
PY
}

oracle gen -o k.bin --count 10000 --seed 3 --dist dups --type u32 --expect ks.bin
for v in 1 2 3; do
  npy_write k$v.npy $v '<u4' k.bin
  gx sort k$v.npy -o s$v.npy -q
  expect_rc "sort of a version-$v .npy (u4): exit 0" 0
  npy_check s$v.npy "'<u4'" 10000 ks.bin && pass "sort of a version-$v .npy: a valid .npy with the sorted keys" || fail "sort .npy v$v" "bad output"
done
gx sort k1.npy -o plain.bin -q
npy_check plain.bin "'<u4'" 10000 ks.bin && pass "a .npy input's output is a .npy even named .bin" || fail ".npy input, .bin output" "bad output"
oracle dedupe k.bin -o kd.bin --type u32
cnt=$(( $(stat -c %s kd.bin) / 4 ))
gx dedupe k1.npy -o d.npy -q
npy_check d.npy "'<u4'" "$cnt" kd.bin && pass "dedupe .npy: the new shape ($cnt)" || fail "dedupe .npy" "bad output"
gx sort k.bin -o raw2npy.npy --type u32 -q
npy_check raw2npy.npy "'<u4'" 10000 ks.bin && pass "sort raw -o x.npy: a header for the type" || fail "raw -o .npy" "bad output"
gx merge s1.npy s2.npy -o m.npy -q
oracle merge ks.bin ks.bin -o mexp.bin --type u32
npy_check m.npy "'<u4'" 20000 mexp.bin && pass "merge of .npy files: a .npy of both" || fail "merge .npy" "bad output"
gx check s1.npy
grep -q "records: 10000" "$WORK/last.out" && grep -q "sorted: yes" "$WORK/last.out" && pass "check .npy: the header is not a record" || fail "check .npy" "$(last_err)"
gx reduce k1.npy --op count
[[ $(cat "$WORK/last.out") == "count 10000" ]] && pass "reduce .npy counts the records only" || fail "reduce .npy" "$(cat "$WORK/last.out")"

# Structured: --key names the field.
oracle gen -o r.bin --count 5000 --seed 4 --record-size 16 --key-offset 8 --key-type f64 --dist special --expect rs.bin
npy_write r.npy 1 "[('id', '<u8'), ('x', '<f8')]" r.bin
gx sort r.npy -o rs.npy --key x -q
expect_rc "structured .npy, --key x: exit 0" 0
npy_check rs.npy "[('id', '<u8'), ('x', '<f8')]" 5000 rs.bin && pass "structured .npy sorted by its f8 field, dtype kept" || fail "structured .npy" "bad output"
gx sort r.npy -o bad.npy
expect_rc "structured .npy without --key: exit 2" 2
err_mentions "structured .npy without --key: message lists the fields" "r.npy" "--key" "id" "x"
gx sort r.npy -o bad.npy --key nope
expect_rc "--key naming no field: exit 2" 2

# Composite keys of structured arrays: --key names several fields, each asc or desc;
# OFFSET:TYPE fields work without --record-size (the header gives it).
ST="[('a', '|i1'), ('b', '<f4'), ('c', '<u2')]"
oracle gen -o cs.bin --count 20011 --seed 9 --record-size 7 --key 0:i8 --key 1:f32 --key 5:u16 --dist dups
npy_write cs.npy 1 "$ST" cs.bin
oracle sort cs.bin -o cs_ab.bin --record-size 7 --key 0:i8 --key 1:f32:desc
gx sort cs.npy -o cs_ab.npy --key a --key b:desc -q
npy_check cs_ab.npy "$ST" 20011 cs_ab.bin && pass "structured .npy, --key a --key b:desc: sorted by both, dtype kept" || fail "structured .npy, two keys" "$(last_err)"
gx sort cs.npy -o cs_raw.npy --key 0:i8 --key 1:f32:desc -q
npy_check cs_raw.npy "$ST" 20011 cs_ab.bin && pass "structured .npy, --key OFFSET:TYPE without --record-size" || fail "structured .npy, raw keys" "$(last_err)"
oracle dedupe cs.bin -o cs_cu.bin --record-size 7 --key 5:u16 --key 0:i8:desc
cnt=$(( $(stat -c %s cs_cu.bin) / 7 ))
gx sort cs.npy -o cs_cu.npy --key c --key a:desc -u -q
npy_check cs_cu.npy "$ST" "$cnt" cs_cu.bin && pass "structured .npy, -u on two fields: the new shape ($cnt)" || fail "structured .npy, -u" "$(last_err)"
gx sort cs.npy -o bad.npy --key a --key nope
expect_rc "--key naming no field among several: exit 2" 2
err_mentions "--key naming no field: message lists the fields" "cs.npy" "nope" "a, b, c"
gx sort cs.npy -o bad.npy --key a --record-size 7
expect_rc "--key NAME with --record-size: exit 2" 2

# Plain arrays of 1- and 2-byte integers: i1 is signed, u1 unsigned, i2 and u2 are
# 16-bit keys; f2 (half floats) is refused.
head -c 40000 cs.bin >b.bin
for d in '|i1:i8' '|u1:u8' '<i2:i16' '<u2:u16'; do
  descr=${d%%:*} t=${d##*:}
  npy_write p.npy 1 "$descr" b.bin
  n=$(( 40000 / ${descr:2} ))
  oracle sort b.bin -o pexp.bin --type "$t"
  gx sort p.npy -o ps.npy -q
  npy_check ps.npy "'$descr'" "$n" pexp.bin && pass "plain .npy $descr sorts as $t" || fail "plain .npy $descr" "$(last_err)"
done
npy_write h.npy 1 '<f2' b.bin
gx sort h.npy -o bad.npy
expect_rc "plain .npy of f2: exit 2" 2
err_mentions "plain .npy of f2: message" "h.npy" "f2"

# A .npy under another name would have its header sorted in: refused, from a pipe too.
cat k1.npy | "$GX" sort - -o piped.npy 2>"$WORK/last.err"; RC=$?
expect_rc "a .npy piped to sort -: exit 2" 2
err_mentions "a .npy piped to sort -: message" "stdin" ".npy"
[[ ! -e piped.npy ]] && pass "a .npy piped to sort -: no output" || fail "piped .npy: no output" "piped.npy exists"
cp k1.npy k1.bin
gx sort k1.bin -o bad.bin --type u32
expect_rc "a .npy named .bin: exit 2" 2
err_mentions "a .npy named .bin: message" "k1.bin" ".npy"
gx check - --type u32 <k1.bin
expect_rc "a .npy on stdin (a regular file) to check: exit 2" 2
head -c 8 k1.npy | "$GX" sort - -o - --type u64 >/dev/null 2>"$WORK/last.err"; RC=$?
expect_rc "8 bytes of .npy magic from a pipe: exit 2" 2
printf 'abc' | "$GX" sort - -o short.bin --record-size 1 --key-bytes 1 -q; RC=$?
[[ $RC == 0 && $(cat short.bin) == abc ]] && pass "a stream shorter than the magic sorts" || fail "short stream" "rc $RC"

# Refused: options that contradict the header, big-endian, objects, Fortran order.
gx sort k1.npy -o bad.npy --type f32
expect_rc ".npy of u4 with --type f32: exit 2" 2
err_mentions ".npy with a contradicting --type: message" "k1.npy" "dtype"
npy_write be.npy 1 '>u8' k.bin
gx sort be.npy -o bad.npy
expect_rc "big-endian .npy: exit 2" 2
err_mentions "big-endian .npy: message" "be.npy" "big-endian"
npy_write ob.npy 1 '|O' k.bin
gx sort ob.npy -o bad.npy
expect_rc "object .npy: exit 2" 2
npy_write fo.npy 1 '<u4' k.bin fortran
gx sort fo.npy -o bad.npy
expect_rc "Fortran-order .npy: exit 2" 2
err_mentions "Fortran-order .npy: message" "fo.npy" "Fortran"
head -c 5000 k1.npy >cut.npy
gx sort cut.npy -o bad.npy
expect_rc "a .npy shorter than its shape: exit 2" 2
[[ ! -e bad.npy ]] && pass "refused .npy inputs: no output" || fail "refused .npy inputs: no output" "bad.npy exists"

if "${PY[0]}" -c 'import numpy' 2>/dev/null; then
  "${PY[0]}" -c '
import numpy as np, sys
a = np.random.default_rng(5).integers(-2**40, 2**40, 77777).astype("<i8")
np.save("np.npy", a)
r = np.zeros(3000, dtype=[("k", "<f4"), ("v", "<u4")]); r["k"] = np.random.default_rng(6).normal(size=3000); r["v"] = np.arange(3000) % 7
np.save("st.npy", r)'
  gx sort np.npy -o np_sorted.npy -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("np.npy"); b = np.load("np_sorted.npy"); assert (np.sort(a, kind="stable") == b).all()' \
    && pass "numpy: np.load of sort's output equals np.sort" || fail "numpy round trip" "differs"
  gx sort st.npy -o st_sorted.npy --key k -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("st.npy"); b = np.load("st_sorted.npy"); assert (np.sort(a, order="k", kind="stable") == b).all()' \
    && pass "numpy: a structured array sorted by a field, as np.sort(order=, kind=stable)" || fail "numpy structured round trip" "differs"
  gx sort st.npy -o st_kv.npy --key v:desc --key k -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("st.npy"); b = np.load("st_kv.npy"); i = np.lexsort((a["k"], -a["v"].astype(np.int64))); assert (a[i] == b).all()' \
    && pass "numpy: --key v:desc --key k is np.lexsort((k, -v))" || fail "numpy composite round trip" "differs"
else
  skip "numpy round trips" "numpy is not installed"
fi
leftovers=$(leftover_temps "$WORK"); [[ -z $leftovers ]] && pass "no temp files left" || fail "no temp files left" "$leftovers"
finish
