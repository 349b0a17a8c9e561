#!/usr/bin/env bash
# .npy files: headers (versions 1-3, plain and structured dtypes) written by this test,
# sorted, deduped and merged into valid .npy outputs with the new shape: big-endian, S,
# U, V, datetime and sub-array fields, 2-D arrays as rows, dedupe --count's named
# fields; headers that contradict the options, object, Fortran-order and 3-D arrays,
# keys of more than 16 fields refused (exit 2).
# numpy's own np.load round trip where numpy is installed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# npy_write OUT VERSION DESCR RAW [fortran] [cols=M] [dims=M,L]: RAW's bytes behind a
# .npy header; cols=M makes a 2-D array of rows of M elements (dims: more dimensions).
npy_write() {
  "${PY[@]}" - "$@" <<'PY'
import struct, sys
out, version, descr, raw = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
flags = sys.argv[5:]
fortran = "fortran" in flags
tail = [int(x) for f in flags if f[:5] in ("cols=", "dims=") for x in f[5:].split(",")]
data = open(raw, "rb").read()
def size(t, shape=()):  # bytes of one dtype string: "<u4", ">M8[ns]", "<U3" (UCS4) ...
    n = (8 if t == "|O" else int(t[2:].split("[")[0]) * (4 if t[1] == "U" else 1))
    for d in shape: n *= d
    return n
itemsize = sum(size(*f[1:]) for f in eval(descr)) if descr.startswith("[") else size(descr)
for d in tail: itemsize *= d
shape = (len(data) // itemsize,) + tuple(tail)
d = "{'descr': %s, 'fortran_order': %s, 'shape': %r, }" % (
    descr if descr.startswith("[") else repr(descr), "True" if fortran else "False", shape)
pre = 10 if version == 1 else 12
d += " " * ((-(pre + len(d) + 1)) % 64) + "\n"
head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(d)) if version == 1 else struct.pack("<I", len(d)))
open(out, "wb").write(head + d.encode())
open(out, "ab").write(data)
PY
}
# npy_check FILE DESCR COUNT DATA [COLS]: FILE's header says DESCR and (COUNT,) (or
# (COUNT, COLS)) and its data is DATA's bytes.
npy_check() {
  "${PY[@]}" - "$@" <<'PY'
import ast, struct, sys
f, descr, count, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
shape = (count,) + tuple(int(c) for c in sys.argv[5:])
b = open(f, "rb").read()
assert b[:6] == b"\x93NUMPY", "magic"
v = b[6]
n = struct.unpack_from("<H", b, 8)[0] if v == 1 else struct.unpack_from("<I", b, 8)[0]
start = 10 if v == 1 else 12
h = ast.literal_eval(b[start:start + n].decode())
assert (start + n) % 64 == 0, "data not 64-aligned"
assert str(h["descr"]) == descr or repr(h["descr"]) == descr, ("descr", h["descr"], descr)
assert h["shape"] == shape, ("shape", h["shape"], shape)
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

# Big-endian plain dtypes: the big-endian key types, the dtype kept.
oracle gen -o g8.bin --count 6007 --seed 11 --type u64 --dist dups
oracle gen -o gf.bin --count 3001 --seed 12 --record-size 8 --key 0:f64be --dist special
cat gf.bin >>g8.bin
for d in '>i2:i16be' '>u2:u16be' '>i4:i32be' '>u4:u32be' '>f4:f32be' '>i8:i64be' '>u8:u64be' '>f8:f64be'; do
  descr=${d%%:*} t=${d##*:} w=${d:2:1}
  npy_write be.npy 1 "$descr" g8.bin
  oracle sort g8.bin -o bexp.bin --record-size "$w" --key "0:$t"
  gx sort be.npy -o bes.npy -q
  npy_check bes.npy "'$descr'" $((9008 * 8 / w)) bexp.bin && pass "plain .npy $descr sorts as $t, dtype kept" || fail "plain .npy $descr" "$(last_err)"
done
npy_write be.npy 1 '>i8' g8.bin
oracle dedupe g8.bin -o bexp.bin --record-size 8 --key 0:i64be
gx dedupe be.npy -o bes.npy -q
npy_check bes.npy "'>i8'" $(( $(stat -c %s bexp.bin) / 8 )) bexp.bin && pass "dedupe of a '>i8' .npy" || fail "dedupe '>i8'" "$(last_err)"

# Structured with big-endian fields (key and payload; an f2 payload field too).
BST="[('a', '>i4'), ('p', '<f2'), ('b', '>f8'), ('c', '|S3')]"
oracle gen -o bst.bin --count 7001 --seed 13 --record-size 17 --key 0:i32be --key 6:f64be --dist dups
npy_write bst.npy 1 "$BST" bst.bin
oracle sort bst.bin -o bst_exp.bin --record-size 17 --key 0:i32be --key 6:f64be:desc
gx sort bst.npy -o bst_s.npy --key a --key b:desc -q
npy_check bst_s.npy "$BST" 7001 bst_exp.bin && pass "structured .npy, big-endian fields a, b:desc" || fail "structured big-endian" "$(last_err)"

# S, datetime, timedelta, U, V and sub-array fields, as keys and as payload (U40 only
# payload: 40 code points are more than 16 key fields).
XST="[('s', '|S5'), ('t', '<M8[ns]'), ('d', '>m8[ms]'), ('u', '<U3'), ('w', '>U2'), ('v', '|V3'), ('x', '<i4', (3,)), ('big', '<U40')]"
oracle gen -o xst.bin --count 5003 --seed 14 --record-size 216 --key 0:bytes:5 --key 5:i64 --key 13:i64be --key 21:u32 \
  --key 25:u32 --key 29:u32 --key 33:u32be --key 37:u32be --key 41:bytes:3 --key 44:bytes:12 --dist dups
npy_write xst.npy 3 "$XST" xst.bin
for k in 's=0:bytes:5' 't=5:i64' 'd=13:i64be' 'u=21:u32 25:u32 29:u32' 'w=33:u32be 37:u32be' 'v=41:bytes:3' 'x=44:bytes:12'; do
  name=${k%%=*} keys=()
  for f in ${k#*=}; do keys+=(--key "$f"); done
  oracle sort xst.bin -o xexp.bin --record-size 216 "${keys[@]}"
  gx sort xst.npy -o xs.npy --key "$name" -q
  npy_check xs.npy "$XST" 5003 xexp.bin && pass "structured .npy sorted by its ${k%% *} field" || fail "field $name" "$(last_err)"
done
oracle dedupe xst.bin -o xexp.bin --record-size 216 --key 21:u32:desc --key 25:u32:desc --key 29:u32:desc --key 5:i64
gx sort xst.npy -o xs.npy --key u:desc --key t -u -q
npy_check xs.npy "$XST" $(( $(stat -c %s xexp.bin) / 216 )) xexp.bin && pass "structured .npy, -u by u:desc (U3), t (M8)" || fail "U desc + M8" "$(last_err)"
gx sort xst.npy -o bad.npy --key big
expect_rc "a U40 field as a key: exit 2" 2
err_mentions "a U40 field as a key: message" "xst.npy" "U40" "16"
gx sort xst.npy -o bad.npy --key u --key w --key u --key u --key u --key u
expect_rc "a key of 17 fields (U3 and U2 counted by code point): exit 2" 2
err_mentions "a key of 17 fields: message" "xst.npy" "17" "16"

# Plain arrays of these kinds; NaT (int64 min) sorts first.
for d in '|S8:0:bytes:8' '<U2:0:u32 4:u32' '>M8[s]:0:i64be' '<m8[us]:0:i64' '|V4:0:bytes:4' '|S3:0:bytes:3'; do
  descr=${d%%:*} keys=() w=${d:2:1}
  for f in ${d#*:}; do keys+=(--key "$f"); done
  [[ ${descr:1:1} == U ]] && w=$((w * 4))
  head -c $((w * 1000)) g8.bin >pk.bin
  oracle sort pk.bin -o pexp.bin --record-size "$w" "${keys[@]}"
  npy_write pk.npy 1 "$descr" pk.bin
  gx sort pk.npy -o ps.npy -q
  npy_check ps.npy "'$descr'" 1000 pexp.bin && pass "plain .npy $descr sorts by ${d#*:}" || fail "plain .npy $descr" "$(last_err)"
done
"${PY[@]}" -c 'import struct; open("nat.bin", "wb").write(struct.pack("<4q", 3, -2**63, -1, 0))'
npy_write nat.npy 1 '<M8[s]' nat.bin
"${PY[@]}" -c 'import struct; open("nat_exp.bin", "wb").write(struct.pack("<4q", -2**63, -1, 0, 3))'
gx sort nat.npy -o nat_s.npy -q
npy_check nat_s.npy "'<M8[s]'" 4 nat_exp.bin && pass "datetime64: NaT sorts first" || fail "NaT first" "$(last_err)"
npy_write u17.npy 1 '<U17' g8.bin
gx sort u17.npy -o bad.npy
expect_rc "plain .npy of U17: exit 2" 2
err_mentions "plain .npy of U17: message" "u17.npy" "U17" "16"

# 2-D C-order arrays of a plain dtype: rows ordered by their columns, the shape kept.
head -c 48054 g8.bin >r2.bin
npy_write r2.npy 1 '<i2' r2.bin cols=3
oracle sort r2.bin -o r2_exp.bin --record-size 6 --key 0:i16 --key 2:i16 --key 4:i16
gx sort r2.npy -o r2s.npy -q
npy_check r2s.npy "'<i2'" 8009 r2_exp.bin 3 && pass "2-D '<i2' (n, 3): rows sorted by columns, shape (n, 3)" || fail "2-D sort" "$(last_err)"
oracle dedupe r2.bin -o r2_u.bin --record-size 6 --key 0:i16 --key 2:i16 --key 4:i16
gx dedupe r2.npy -o r2u.npy -q
npy_check r2u.npy "'<i2'" $(( $(stat -c %s r2_u.bin) / 6 )) r2_u.bin 3 && pass "2-D dedupe: unique rows, shape (k, 3)" || fail "2-D dedupe" "$(last_err)"
gx merge r2s.npy r2s.npy -o r2m.npy -q
oracle merge r2_exp.bin r2_exp.bin -o r2_m.bin --record-size 6 --key 0:i16 --key 2:i16 --key 4:i16
npy_check r2m.npy "'<i2'" 16018 r2_m.bin 3 && pass "2-D merge: shape (2n, 3)" || fail "2-D merge" "$(last_err)"
gx check r2s.npy
grep -q "sorted: yes" "$WORK/last.out" && pass "check of a sorted 2-D .npy" || fail "2-D check" "$(last_err)"
npy_write b2.npy 1 '>u4' g8.bin cols=2
oracle sort g8.bin -o b2_exp.bin --record-size 8 --key 0:u32be --key 4:u32be
gx sort b2.npy -o b2s.npy -q
npy_check b2s.npy "'>u4'" 9008 b2_exp.bin 2 && pass "2-D '>u4' (n, 2)" || fail "2-D big-endian" "$(last_err)"
head -c 17000 g8.bin >c17.bin
npy_write c17.npy 1 '|u1' c17.bin cols=17
gx sort c17.npy -o bad.npy
expect_rc "2-D of 17 columns: exit 2" 2
err_mentions "2-D of 17 columns: message" "c17.npy" "17 columns" "16"
npy_write d3.npy 1 '|u1' c17.bin dims=17,10
gx sort d3.npy -o bad.npy
expect_rc "3-D .npy: exit 2" 2
err_mentions "3-D .npy: message" "d3.npy" "3 dimensions"
npy_write f2.npy 1 '<i2' r2.bin fortran cols=3
gx sort f2.npy -o bad.npy
expect_rc "2-D Fortran-order .npy: exit 2" 2
err_mentions "2-D Fortran-order .npy: message" "f2.npy" "Fortran"
npy_write s2.npy 1 "[('a', '<u4'), ('b', '<u4')]" g8.bin cols=2
gx sort s2.npy -o bad.npy --key a
expect_rc "2-D structured .npy: exit 2" 2
err_mentions "2-D structured .npy: message" "s2.npy" "2-D"
head -c 12000 g8.bin >cx.bin
npy_write cx.npy 1 "[('k', '<u4'), ('z', '<c8')]" cx.bin
oracle sort cx.bin -o cx_exp.bin --record-size 12 --key 0:u32
gx sort cx.npy -o cxs.npy --key k -q
npy_check cxs.npy "[('k', '<u4'), ('z', '<c8')]" 1000 cx_exp.bin && pass "a complex payload field" || fail "complex payload" "$(last_err)"
gx sort cx.npy -o bad.npy --key z
expect_rc "a complex key field: exit 2" 2
npy_write qn.npy 1 "[(\"a'b\", '<u4')]" cx.bin
gx sort qn.npy -o bad.npy --key "a'b"
expect_rc "a field name with a quote (not written back as numpy reads it): exit 2" 2
err_mentions "a field name with a quote: message" "qn.npy" "quote"

# dedupe --count: the input's fields and a '<u8' field count (a plain dtype: value, count).
oracle dedupe bst.bin -o bst_c.bin --record-size 17 --key 0:i32be --count
gx dedupe bst.npy -o bst_c.npy --key a --count -q
npy_check bst_c.npy "${BST%]}, ('count', '<u8')]" $(( $(stat -c %s bst_c.bin) / 25 )) bst_c.bin \
  && pass "dedupe --count of a structured .npy: its fields and count" || fail "dedupe --count structured" "$(last_err)"
npy_write be.npy 1 '>i8' g8.bin
oracle dedupe g8.bin -o be_c.bin --record-size 8 --key 0:i64be --count
gx dedupe be.npy -o be_c.npy --count -q
npy_check be_c.npy "[('value', '>i8'), ('count', '<u8')]" $(( $(stat -c %s be_c.bin) / 16 )) be_c.bin \
  && pass "dedupe --count of a plain .npy: value and count" || fail "dedupe --count plain" "$(last_err)"
oracle dedupe r2.bin -o r2_c.bin --record-size 6 --key 0:i16 --key 2:i16 --key 4:i16 --count
gx dedupe r2.npy -o r2_c.npy --count -q
npy_check r2_c.npy "[('value', '<i2', (3,)), ('count', '<u8')]" $(( $(stat -c %s r2_c.bin) / 14 )) r2_c.bin \
  && pass "dedupe --count of a 2-D .npy: rows as a (3,) value field and count" || fail "dedupe --count 2-D" "$(last_err)"
npy_write cn.npy 1 "[('count', '<u4'), ('x', '<u4')]" g8.bin
oracle dedupe g8.bin -o cn_c.bin --record-size 8 --key 0:u32 --count
gx dedupe cn.npy -o cn_c.npy --key count --count -q
npy_check cn_c.npy "[('count', '<u4'), ('x', '<u4'), ('count_', '<u8')]" $(( $(stat -c %s cn_c.bin) / 16 )) cn_c.bin \
  && pass "dedupe --count of records with a field named count: count_" || fail "dedupe --count name clash" "$(last_err)"

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

# Refused: options that contradict the header, objects, Fortran order.
gx sort k1.npy -o bad.npy --type f32
expect_rc ".npy of u4 with --type f32: exit 2" 2
err_mentions ".npy with a contradicting --type: message" "k1.npy" "dtype"
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
  # The new dtypes against numpy: big-endian, S and U fields (stable argsort), datetime
  # without NaT (numpy puts it last), 2-D rows (np.unique(axis=0)), dedupe --count
  # (np.unique(return_counts=True)) with the fields kept.
  "${PY[0]}" -c '
import numpy as np
r = np.random.default_rng(7)
np.save("np_be.npy", r.integers(-50, 50, 20011).astype(">i8"))
a = np.zeros(9001, dtype=[("s", "S4"), ("u", ">U3"), ("t", "<M8[us]"), ("x", "<f2", (2,))])
a["s"] = r.choice([b"", b"a", b"a\x00b", b"ab", b"\xffz", b"b"], 9001)
a["u"] = r.choice(["", "a", "ab", "\u00e9", "\U0001F600x", "zz"], 9001)
a["t"] = r.integers(-10**12, 10**12, 9001)
np.save("np_st.npy", a)
np.save("np_2d.npy", r.integers(-3, 3, (10007, 4)).astype("<i4"))'
  gx sort np_be.npy -o np_be_s.npy -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("np_be.npy"); b = np.load("np_be_s.npy"); assert b.dtype == a.dtype and (np.sort(a, kind="stable") == b).all()' \
    && pass "numpy: a '>i8' array sorted as np.sort, dtype '>i8' kept" || fail "numpy big-endian" "differs"
  for k in s u t; do
    gx sort np_st.npy -o np_st_$k.npy --key $k -q
    "${PY[0]}" -c 'import numpy as np, sys; k = sys.argv[1]; a = np.load("np_st.npy"); b = np.load("np_st_%s.npy" % k)
assert b.dtype == a.dtype and a[np.argsort(a[k], kind="stable")].tobytes() == b.tobytes()' $k \
      && pass "numpy: structured .npy by its ${k} field as a[np.argsort(a[\"$k\"], kind=\"stable\")]" || fail "numpy field $k" "differs"
  done
  gx dedupe np_2d.npy -o np_2d_u.npy -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("np_2d.npy"); b = np.load("np_2d_u.npy"); assert (np.unique(a, axis=0) == b).all()' \
    && pass "numpy: dedupe of a 2-D array is np.unique(a, axis=0)" || fail "numpy 2-D unique" "differs"
  gx sort np_2d.npy -o np_2d_s.npy -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("np_2d.npy"); b = np.load("np_2d_s.npy"); assert (a[np.lexsort(a.T[::-1])] == b).all()' \
    && pass "numpy: sort of a 2-D array orders its rows by the columns in order" || fail "numpy 2-D sort" "differs"
  gx dedupe np_be.npy -o np_be_c.npy --count -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("np_be.npy"); c = np.load("np_be_c.npy"); u, n = np.unique(a, return_counts=True)
assert c.dtype.names == ("value", "count") and (c["value"] == u).all() and (c["count"] == n).all()' \
    && pass "numpy: dedupe --count is np.unique(return_counts=True) as fields value, count" || fail "numpy --count" "differs"
  gx dedupe np_st.npy -o np_st_c.npy --key s --count -q
  "${PY[0]}" -c 'import numpy as np; a = np.load("np_st.npy"); c = np.load("np_st_c.npy"); u, i, n = np.unique(a["s"], return_index=True, return_counts=True)
assert c.dtype.names == a.dtype.names + ("count",) and all(c[f].tobytes() == a[i][f].tobytes() for f in a.dtype.names) and (c["count"] == n).all()' \
    && pass "numpy: dedupe --count of a structured array keeps its fields, first of each group" || fail "numpy structured --count" "differs"
else
  skip "numpy round trips" "numpy is not installed"
fi
leftovers=$(leftover_temps "$WORK"); [[ -z $leftovers ]] && pass "no temp files left" || fail "no temp files left" "$leftovers"
finish
