#!/usr/bin/env bash
# `check` (order, first violation, duplicates, checksum) against the oracle, and `gen`
# (determinism, every distribution, sorted/reverse output).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

field() { sed -n "s/^$1: //p" "$WORK/last.out" | head -1; }  # a line of `check` output

# check_vs_oracle NAME FILE FORMAT...: gxsort check and oracle check agree.
check_vs_oracle() {
  local name=$1 file=$2; shift 2
  local o; o=$(oracle check "$file" "$@"); local orc=$?
  gx check "$file" "$@"
  local want_sorted want_first want_dups want_n
  want_n=$(sed -n 's/^records: //p' <<<"$o")
  want_dups=$(sed -n 's/^duplicates: //p' <<<"$o")
  if grep -q '^sorted: yes' <<<"$o"; then want_sorted=yes; else want_sorted=no; want_first=$(sed -n 's/^sorted: no //p' <<<"$o"); fi
  local got_sorted; got_sorted=$(field sorted)
  if [[ $RC != "$orc" ]]; then fail "$name" "exit $RC, oracle says $orc: $(last_err)"; return; fi
  if [[ $(field records) != "$want_n" ]]; then fail "$name" "records $(field records), expected $want_n"; return; fi
  if [[ $want_sorted == yes ]]; then
    [[ $got_sorted == yes ]] || { fail "$name" "sorted: $got_sorted, expected yes"; return; }
  else
    [[ $got_sorted == "no (record $want_first "* ]] || { fail "$name" "sorted: '$got_sorted', expected no at record $want_first"; return; }
  fi
  [[ $(field "duplicate keys") == "$want_dups" ]] || { fail "$name" "duplicate keys $(field "duplicate keys"), expected $want_dups"; return; }
  [[ $(field checksum) =~ ^[0-9a-f]{16}$ ]] || { fail "$name" "checksum line '$(field checksum)'"; return; }
  pass "$name"
}

REC=(--record-size 12 --key-offset 4 --key-type u32)
seed=0
for fmt in "--type u64" "--type i32" "--type f32" "--type f64" "${REC[*]}" "--record-size 20 --key-bytes 12" "--format gensort"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  for dist in random dups; do
    for r in "" --reverse; do
      seed=$((seed + 1))
      oracle gen -o in.bin --count 3001 --dist "$dist" --seed $seed --expect exp.bin "${F[@]}" $r
      check_vs_oracle "check $tag $r $dist unsorted: exit 1, first violation, duplicates" in.bin "${F[@]}" $r
      gx sort in.bin -o out.bin -q "${F[@]}" $r
      check_vs_oracle "check $tag $r $dist after sort: exit 0, duplicates" out.bin "${F[@]}" $r
      gx check in.bin "${F[@]}" $r; c1=$(field checksum)
      gx check out.bin "${F[@]}" $r; c2=$(field checksum)
      [[ -n $c1 && $c1 == "$c2" ]] && pass "check $tag $r $dist: checksum of IN equals checksum of OUT" || fail "check $tag $r $dist: checksum" "$c1 vs $c2"
    done
  done
done

# Sorted ascending is not sorted for --reverse, and the other way round.
gx gen -o asc.bin --count 500 --seed 77 --dist sorted --type u64 -q
gx check asc.bin --type u64 -q
expect_rc "check of an ascending file: exit 0" 0
gx check asc.bin --type u64 --reverse
expect_rc "check --reverse of an ascending file: exit 1" 1
[[ $(field sorted) == "no (record 1 "* ]] && pass "check --reverse of an ascending file: first violation is record 1" || fail "check --reverse first violation" "$(field sorted)"
# One swapped pair in the middle: the violation index is exact.
"${PY[@]}" - <<'EOF'
import struct
v = list(range(0, 2000, 2))
v[700], v[701] = v[701], v[700]
open("swap.bin", "wb").write(b"".join(struct.pack("<q", x) for x in v))
EOF
gx check swap.bin --type i64
[[ $RC == 1 && $(field sorted) == "no (record 701 "* ]] && pass "check: a swapped pair at 700/701 is reported at record 701" || fail "check: swapped pair" "rc=$RC $(field sorted)"
# Chunk boundaries: a violation right after 16 MiB of records (check streams by chunks).
"${PY[@]}" - <<'EOF'
import struct
n = (16 << 20) // 8 + 5
data = bytearray(struct.pack("<Q", 5)) * n
struct.pack_into("<Q", data, ((16 << 20) // 8) * 8, 4)   # first record of the 2nd chunk
open("chunk.bin", "wb").write(data)
EOF
gx check chunk.bin --type u64
[[ $RC == 1 && $(field sorted) == "no (record 2097152 "* ]] && pass "check: a violation at the first record of the second chunk" || fail "check: violation at a chunk boundary" "rc=$RC $(field sorted)"
[[ $(field "duplicate keys") == $((2097152 + 5 - 1 - 2)) ]] && pass "check: duplicates across a chunk boundary" || fail "check: duplicates across a chunk boundary" "$(field "duplicate keys")"
rm -f chunk.bin
# Signed zeros and NaNs are different keys; equal bit patterns are duplicates.
"${PY[@]}" - <<'EOF'
import struct
vals = [0xff800000, 0x80000000, 0x80000000, 0x00000000, 0x7fc00000, 0x7fc00001, 0x7fc00001]
open("z.bin", "wb").write(b"".join(struct.pack("<I", v) for v in vals))
EOF
gx check z.bin --type f32
[[ $RC == 0 && $(field "duplicate keys") == 2 ]] && pass "check f32: -inf -0 -0 +0 NaN NaN' NaN' sorted with 2 duplicates" || fail "check f32 special" "rc=$RC dups=$(field "duplicate keys") sorted=$(field sorted)"
: >empty.bin
gx check empty.bin
[[ $RC == 0 && $(field records) == 0 && $(field sorted) == yes ]] && pass "check of an empty file: 0 records, sorted" || fail "check of an empty file" "rc=$RC $(cat "$WORK/last.out" | tr '\n' ' ')"
gx check in.bin -q --format gensort
[[ ! -s "$WORK/last.out" ]] && pass "check -q prints nothing" || fail "check -q prints nothing" "$(cat "$WORK/last.out")"
# The checksum sees the payload: one changed payload byte changes it.
oracle gen -o p.bin --count 100 --seed 5 "${REC[@]}"
gx check p.bin "${REC[@]}"; c1=$(field checksum)
"${PY[@]}" -c 'import sys; d=bytearray(open("p.bin","rb").read()); d[50*12+10]^=1; open("p2.bin","wb").write(d)'
gx check p2.bin "${REC[@]}"; c2=$(field checksum)
[[ $c1 != "$c2" ]] && pass "check: a changed payload byte changes the checksum" || fail "check: checksum ignores payload" "$c1"

# ---- gen ----
for fmt in "--type u64" "--format gensort" "--type f32" "--type i32" "--record-size 24 --key-offset 8 --key-type i64" "--record-size 16 --key-bytes 5 --key-offset 3"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  gx gen -o g1.bin --count 5000 --seed 42 -q "${F[@]}"
  gx gen -o g2.bin --count 5000 --seed 42 -q "${F[@]}"
  gx gen -o g3.bin --count 5000 --seed 43 -q "${F[@]}"
  cmp -s g1.bin g2.bin && pass "gen $tag: the same seed gives the same bytes" || fail "gen $tag: same seed" "differ"
  cmp -s g1.bin g3.bin && fail "gen $tag: another seed gives other bytes" "identical" || pass "gen $tag: another seed gives other bytes"
  gx gen -o g4.bin --count 9000 --seed 42 -q "${F[@]}"
  cmp -s g1.bin <(head -c "$(stat -c %s g1.bin)" g4.bin) && pass "gen $tag: record i depends only on (seed, i)" || fail "gen $tag: prefix property" "first 5000 records differ"
  gx gen -o gs.bin --count 4099 --dist sorted --seed 3 -q "${F[@]}"
  gx check gs.bin -q "${F[@]}"
  expect_rc "gen $tag --dist sorted: check exit 0" 0
  [[ $(oracle check gs.bin "${F[@]}" | grep -c 'sorted: yes') == 1 ]] && pass "gen $tag --dist sorted: the oracle agrees" || fail "gen $tag --dist sorted: the oracle agrees" "not sorted"
  gx gen -o gr.bin --count 4099 --dist reverse --seed 3 -q "${F[@]}"
  gx check gr.bin -q "${F[@]}" --reverse
  expect_rc "gen $tag --dist reverse: check --reverse exit 0" 0
  gx check gr.bin -q "${F[@]}"
  expect_rc "gen $tag --dist reverse: check exit 1" 1
  [[ $(oracle check gr.bin "${F[@]}" --reverse | grep -c 'sorted: yes') == 1 ]] && pass "gen $tag --dist reverse: the oracle agrees" || fail "gen $tag --dist reverse: the oracle agrees" "not reverse sorted"
  gx gen -o ge.bin --count 1000 --dist all-equal -q "${F[@]}"
  gx check ge.bin "${F[@]}"
  [[ $RC == 0 && $(field "duplicate keys") == 999 ]] && pass "gen $tag --dist all-equal: 999 duplicates" || fail "gen $tag all-equal" "rc=$RC dups=$(field "duplicate keys")"
done
rs_of() { case $1 in --type\ u64) echo 8;; --format*) echo 100;; esac; }
for fmt in "--type u64" "--format gensort"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  for d in uniform sorted reverse few-unique zipf all-equal bits; do
    rm -f gd.bin
    gx gen -o gd.bin --count 3001 --dist $d --seed 8 -q "${F[@]}"
    size=$(stat -c %s gd.bin 2>/dev/null)
    [[ $RC == 0 && $size == $((3001 * $(rs_of "$fmt"))) ]] && pass "gen $tag --dist $d: exit 0, $size bytes" || fail "gen $tag --dist $d" "rc=$RC size=$size: $(last_err)"
  done
  gx gen -o gf.bin --count 3001 --dist few-unique -q "${F[@]}"
  gx sort gf.bin -o gfs.bin -q "${F[@]}"
  gx check gfs.bin "${F[@]}"
  [[ $(field "duplicate keys") -ge $((3001 - 16)) ]] && pass "gen $tag --dist few-unique: at most 16 distinct keys" || fail "gen $tag few-unique" "dups $(field "duplicate keys")"
done
gx gen -o g0.bin --count 0 -q
[[ $RC == 0 && -f g0.bin && ! -s g0.bin ]] && pass "gen --count 0: an empty file" || fail "gen --count 0" "rc=$RC"
# gensort layout: 10-byte key, then 00 11, 32 hex digits of the row id
gx gen -o gl.bin --count 3 --format gensort -q
"${PY[@]}" -c '
import sys
d = open("gl.bin", "rb").read()
ok = len(d) == 300 and all(d[r*100+10:r*100+12] == b"\x00\x11" and d[r*100+12:r*100+44] == ("%032X" % r).encode() for r in range(3))
sys.exit(0 if ok else 1)' && pass "gen --format gensort: gensort record layout (row ids)" || fail "gen --format gensort: layout" "not gensort-like"
gx gen -o gz.bin --count 20000 --type f64 --dist bits --seed 1 -q
"${PY[@]}" -c '
import struct, sys
v = [x[0] for x in struct.iter_unpack("<Q", open("gz.bin","rb").read())]
nan = [x for x in v if (x >> 52) & 0x7ff == 0x7ff and x & ((1 << 52) - 1)]
sys.exit(0 if any(x >> 63 for x in nan) and any(not x >> 63 for x in nan) else 1)' && pass "gen --dist bits f64: NaNs of both signs" || fail "gen --dist bits f64" "no NaNs of both signs"

[[ -z "$(leftover_temps "$WORK")" ]] && pass "no temp files left" || fail "no temp files left" "$(leftover_temps "$WORK")"
finish
