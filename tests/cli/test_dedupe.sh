#!/usr/bin/env bash
# gxsort dedupe against the oracle, byte for byte: every strategy (sort, bitmap, the
# --assume-sorted stream), --count, --keep first|last, formats with NaNs and signed zeros,
# groups across chunks and runs (tiny --memory), all-equal and duplicate-free inputs,
# unsorted input under --assume-sorted (exit 1, the record index, no output), usage
# errors, and CPU vs default device byte-identical.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# dd_case NAME COUNT DIST SEED "GXSORT OPTIONS" "ORACLE OPTIONS" FORMAT...
dd_case() {
  local name=$1 count=$2 dist=$3 seed=$4 gopts=$5 oopts=$6; shift 6
  rm -f in.bin exp.bin out.bin
  if ! oracle gen -o in.bin --count "$count" --dist "$dist" --seed "$seed" "$@"; then fail "$name" "oracle gen failed"; return; fi
  # shellcheck disable=SC2086
  oracle dedupe in.bin -o exp.bin $oopts "$@" || { fail "$name" "oracle dedupe failed"; return; }
  # shellcheck disable=SC2086
  gx dedupe in.bin -o out.bin -q $gopts "$@"
  if [[ $RC != 0 ]]; then fail "$name" "exit $RC: $(last_err)"; return; fi
  same_bytes "$name" out.bin exp.bin
}

seed=500
for fmt in "--type u32" "--type i32" "--type f32" "--type u64" "--type f64" \
           "--record-size 12 --key-offset 4 --key-type i32" "--record-size 16 --key-bytes 5 --key-offset 3" "--format gensort"; do
  read -r -a F <<<"$fmt"
  tag=${fmt// /}
  dists="random dups equal"
  [[ $fmt == *f32* || $fmt == *f64* ]] && dists+=" special"
  for d in $dists; do
    seed=$((seed + 1))
    dd_case "dedupe $tag $d" 3001 "$d" "$seed" "" "" "${F[@]}"
    dd_case "dedupe $tag $d --count --keep last" 3001 "$d" "$seed" "--count --keep last --strategy sort" "--count --keep last" "${F[@]}"
  done
  if [[ $fmt == "--type u32" || $fmt == "--type i32" || $fmt == "--type f32" ]]; then
    dd_case "dedupe $tag bitmap" 5003 dups "$seed" "--strategy bitmap" "" "${F[@]}"
    dd_case "dedupe $tag bitmap --reverse" 5003 random "$seed" "--strategy bitmap --reverse" "--reverse" "${F[@]}"
    dd_case "dedupe $tag bitmap --device cpu" 2001 special "$seed" "--strategy bitmap --device cpu" "" "${F[@]}"
  fi
done

# Out of core: groups straddle chunks, runs and merge windows.
dd_case "dedupe out-of-core keep first" 150000 dups 601 "--memory 1M --threads 2 --device-memory 64M" "" --record-size 16 --key-type u64
dd_case "dedupe out-of-core --keep last --count" 150000 dups 602 "--memory 1M --threads 2 --device-memory 64M --keep last --count" "--keep last --count" --record-size 16 --key-type u64
dd_case "dedupe out-of-core u32 --count" 200000 dups 603 "--memory 1M --threads 2 --device-memory 64M --count" "--count" --type u32
dd_case "dedupe empty input" 0 random 604 "" "" --type u64
dd_case "dedupe empty input bitmap" 0 random 604 "--strategy bitmap" "" --type u32
dd_case "dedupe one record --count" 1 random 605 "--count" "--count" --type i64

# --count totals equal the input count.
oracle gen -o in.bin --count 20011 --dist dups --seed 606 --type u64
gx dedupe in.bin -o out.bin -q --count --type u64
total=$("${PY[@]}" -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(sum(struct.unpack_from("<Q", d, i+8)[0] for i in range(0, len(d), 16)))' out.bin)
if [[ $RC == 0 && $total == 20011 ]]; then pass "dedupe --count totals"; else fail "dedupe --count totals" "rc $RC total $total"; fi

# --assume-sorted: a sorted input (the oracle's sort) streams; groups across chunks.
for opts in "" "--count" "--keep last --count"; do
  oracle gen -o raw.bin --count 100003 --dist dups --seed 607 --record-size 12 --key-type u32
  oracle sort raw.bin -o sorted.bin --record-size 12 --key-type u32
  # shellcheck disable=SC2086
  oracle dedupe raw.bin -o exp.bin $opts --record-size 12 --key-type u32
  rm -f out.bin
  # shellcheck disable=SC2086
  gx dedupe sorted.bin -o out.bin -q --assume-sorted --memory 1M $opts --record-size 12 --key-type u32
  same_bytes "dedupe --assume-sorted $opts" out.bin exp.bin
done
# An unsorted input: exit 1, the first record out of order named, no output left.
"${PY[@]}" -c 'import struct; open("unsorted.bin","wb").write(struct.pack("<6Q", 1, 2, 2, 5, 3, 9))'
rm -f out.bin
gx dedupe unsorted.bin -o out.bin --assume-sorted
expect_rc "dedupe --assume-sorted unsorted exit 1" 1
err_mentions "dedupe --assume-sorted unsorted names the record" "not sorted" "record 4"
if [[ -e out.bin || -n "$(leftover_temps . "$TMPDIR")" ]]; then fail "dedupe --assume-sorted unsorted leaves nothing" "$(ls)"; else pass "dedupe --assume-sorted unsorted leaves nothing"; fi

# Usage errors.
oracle gen -o in.bin --count 100 --seed 608 --type u64
gx dedupe in.bin -o out.bin --type u64 --strategy bitmap
expect_rc "dedupe bitmap on u64 is a usage error" 2
gx dedupe in.bin -o out.bin --type u32 --strategy bitmap --count
expect_rc "dedupe bitmap --count is a usage error" 2
gx dedupe in.bin -o out.bin --type u64 --keep middle
expect_rc "dedupe --keep middle is a usage error" 2
gx dedupe in.bin -o out.bin --type u64 --strategy hash
expect_rc "dedupe --strategy hash is a usage error" 2
gx dedupe in.bin --type u64
expect_rc "dedupe without -o is a usage error" 2
gx dedupe --help
if [[ $RC == 0 ]] && grep -q "little-endian u64" "$WORK/last.out" && grep -q -- "--assume-sorted" "$WORK/last.out"; then
  pass "dedupe --help documents --count's format"; else fail "dedupe --help documents --count's format" "$(head -c 300 "$WORK/last.out")"; fi

# The default device (a GPU where there is one) and the CPU: byte-identical.
for s in sort bitmap; do
  for opts in "" "--keep last --count"; do
    [[ $s == bitmap && -n $opts ]] && continue
    oracle gen -o in.bin --count 120000 --dist dups --seed 609 --type u32
    gx dedupe in.bin -o cpu.bin -q --type u32 --strategy $s $opts --device cpu --memory 2M --threads 2
    gx dedupe in.bin -o dev.bin -q --type u32 --strategy $s $opts --memory 2M --threads 2 --device-memory 1G
    same_bytes "dedupe --strategy $s $opts: default device = cpu" dev.bin cpu.bin
  done
done
# On a GPU: an explicit bitmap that does not fit the device budget is a resource error.
if "$GX" info 2>/dev/null | grep -qi "cuda:"; then
  gx dedupe in.bin -o out.bin --type u32 --strategy bitmap --device cuda --device-memory 64M
  expect_rc "dedupe bitmap over the device budget exits 3" 3
  gx dedupe in.bin -o out.bin -q --type u32 --device cuda --device-memory 64M
  expect_rc "dedupe auto falls back to sort when the bitmap does not fit" 0
else
  skip "dedupe bitmap over the device budget" "no GPU"
fi
finish
