#!/usr/bin/env bash
# Every record format against the independent oracle, byte for byte: flat typed keys,
# typed keys inside records, byte keys, gensort; --reverse; edge sizes; duplicates,
# sorted and reverse input; NaNs of both signs, signed zeros, infinities, subnormals.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# sort_case NAME COUNT DIST SEED FORMAT...: oracle input, gxsort sort, cmp.
sort_case() {
  local name=$1 count=$2 dist=$3 seed=$4; shift 4
  rm -f in.bin exp.bin out.bin
  if ! oracle gen -o in.bin --count "$count" --dist "$dist" --seed "$seed" --expect exp.bin "$@"; then
    fail "$name" "oracle gen failed"; return
  fi
  gx sort in.bin -o out.bin -q "$@"
  if [[ $RC != 0 ]]; then fail "$name" "exit $RC: $(last_err)"; return; fi
  same_bytes "$name" out.bin exp.bin
}

FLAT=(u32 u64 i32 i64 f32 f64)
RECORD_FORMATS=(
  "--record-size 24 --key-offset 8 --key-type i64"
  "--record-size 12 --key-offset 4 --key-type f32"
  "--record-size 16 --key-offset 0 --key-type u32"
  "--record-size 11 --key-offset 3 --key-type f64"
  "--record-size 6 --key-offset 2 --key-type i32"
  "--record-size 16 --key-offset 8 --key-type u64"
  "--record-size 16 --key-bytes 5 --key-offset 3"
  "--record-size 20 --key-bytes 12"
  "--record-size 9 --key-bytes 8 --key-offset 1"
  "--record-size 2 --key-bytes 1"
  "--record-size 32 --key-bytes 32"
  "--format gensort"
)
FORMATS=()
for t in "${FLAT[@]}"; do FORMATS+=("--type $t"); done
FORMATS+=("${RECORD_FORMATS[@]}")

seed=100
for fmt in "${FORMATS[@]}"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  for c in "0 random" "1 random" "2 random" "7919 random" "1025 dups" "1024 sorted" "1023 reverse" "4096 equal"; do
    read -r n d <<<"$c"
    seed=$((seed + 1))
    sort_case "sort $tag n=$n $d" "$n" "$d" "$seed" "${F[@]}"
  done
  for c in "2 random" "7919 random" "1025 dups" "1024 sorted" "1023 reverse"; do
    read -r n d <<<"$c"
    seed=$((seed + 1))
    sort_case "sort $tag --reverse n=$n $d" "$n" "$d" "$seed" "${F[@]}" --reverse
  done
  case $fmt in
    *f32*|*f64*)
      sort_case "sort $tag n=7919 special floats" 7919 special $((seed += 1)) "${F[@]}"
      sort_case "sort $tag --reverse n=7919 special floats" 7919 special $((seed += 1)) "${F[@]}" --reverse
      sort_case "sort $tag n=3 special floats" 3 special $((seed += 1)) "${F[@]}"
      ;;
  esac
  case $fmt in
    *key-bytes*|*gensort*)
      # long equal prefixes: the order is decided by the last key bytes
      sort_case "sort $tag n=5003 shared prefixes" 5003 prefix $((seed += 1)) "${F[@]}"
      sort_case "sort $tag --reverse n=5003 shared prefixes" 5003 prefix $((seed += 1)) "${F[@]}" --reverse
      ;;
  esac
done

# Powers of two +-1 and larger inputs.
for fmt in "--type u32" "--type i64" "--type f64" "--record-size 24 --key-offset 8 --key-type i64" \
           "--record-size 16 --key-bytes 5 --key-offset 3" "--format gensort"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  sort_case "sort $tag n=65535" 65535 random $((seed += 1)) "${F[@]}"
  sort_case "sort $tag --reverse n=65537" 65537 random $((seed += 1)) "${F[@]}" --reverse
done
sort_case "sort --type f64 n=65537 dups" 65537 dups $((seed += 1)) --type f64
sort_case "sort --type u32 n=65537 equal" 65537 equal $((seed += 1)) --type u32

# Short option -r is --reverse.
oracle gen -o in.bin --count 999 --seed 7 --dist dups --record-size 12 --key-offset 4 --key-type i32 --reverse --expect exp.bin
gx sort in.bin -o out.bin -q -r --record-size 12 --key-offset 4 --key-type i32
same_bytes "sort -r (short option) equals the oracle's reverse" out.bin exp.bin

# gxsort's own generator, every distribution, sorted by gxsort and the oracle.
for fmt in "--format gensort" "--type u64" "--type f32" "--type f64"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  for d in uniform bits few-unique zipf; do
    rm -f g.bin exp.bin out.bin
    gx gen -o g.bin --count 5003 --dist "$d" --seed 9 "${F[@]}" -q
    if [[ $RC != 0 ]]; then fail "gen+sort $tag $d" "gen exit $RC: $(last_err)"; continue; fi
    for r in "" --reverse; do
      oracle sort g.bin -o exp.bin "${F[@]}" $r
      gx sort g.bin -o out.bin -q "${F[@]}" $r
      same_bytes "gxsort gen $tag --dist $d, sort $r vs oracle" out.bin exp.bin
    done
  done
done

# Hand-made float file: every special value once, in a known order.
"${PY[@]}" - <<'EOF'
import struct
vals = [0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffffffff, 0x7f800000,
        0xff800000, 0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000,
        0x007fffff, 0x807fffff, 0x7f7fffff, 0xff7fffff]
open("f.bin", "wb").write(b"".join(struct.pack("<I", v) for v in vals))
want = [0xffffffff, 0xffc00000, 0xff800001, 0xff800000, 0xff7fffff, 0xbf800000, 0x807fffff,
        0x80000001, 0x80000000, 0x00000000, 0x00000001, 0x007fffff, 0x3f800000, 0x7f7fffff,
        0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff]
open("f.want", "wb").write(b"".join(struct.pack("<I", v) for v in want))
open("f.want.rev", "wb").write(b"".join(struct.pack("<I", v) for v in reversed(want)))
EOF
gx sort f.bin -o f.out --type f32 -q
same_bytes "f32 totalOrder: -NaN < -inf < -max < ... < -0 < +0 < ... < +inf < +NaN" f.out f.want
gx sort f.bin -o f.out --type f32 --reverse -q
same_bytes "f32 totalOrder reversed" f.out f.want.rev

# Reverse stays stable: equal keys keep input order.
printf '\x01A\x02B\x01C\x02D\x01E' >st.bin
printf '\x02B\x02D\x01A\x01C\x01E' >st.want
gx sort st.bin -o st.out --record-size 2 --key-bytes 1 --reverse -q
same_bytes "--reverse is stable (1-byte key, hand-made)" st.out st.want
printf '\x01\x00\x00\x00A\x02\x00\x00\x00B\x01\x00\x00\x00C\x02\x00\x00\x00D' >st2.bin
printf '\x02\x00\x00\x00B\x02\x00\x00\x00D\x01\x00\x00\x00A\x01\x00\x00\x00C' >st2.want
gx sort st2.bin -o st2.out --record-size 5 --key-type u32 --reverse -q
same_bytes "--reverse is stable (u32 key in 5-byte records, hand-made)" st2.out st2.want

leftovers=$(leftover_temps "$WORK")
if [[ -z "$leftovers" ]]; then pass "no temp files left"; else fail "no temp files left" "$leftovers"; fi
finish
