#!/usr/bin/env bash
# Composite keys (--key OFFSET:TYPE[:desc], repeatable) through the binary, each against
# the Python oracle (oracle.py decodes every field itself and sorts with Python's stable
# sorted()): sort in memory, out of core (--ooc merge and --ooc partition with a small
# --memory) and from a stream, -r, -u, merge, runs + merge DIR, dedupe, check, gen; the
# old single-key options as shorthands of --key; errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# name|record size|--key fields (most significant first)|records (at --memory 1M: two
# runs or more, two buckets or more)
KEYSETS=(
  "k64|8|0:u8 1:u16be:desc 3:f32|40011"                  # 7 bytes: one 64-bit key
  "k128|24|8:f64:desc 0:i16 2:bytes:3|25011"             # 13 bytes: one 128-bit key
  "kwide|32|0:u32 4:bytes:13 20:f32be:desc 24:i64|25011" # 29 bytes: prefix and tie-break
  "ksigned|9|4:i32:desc 0:i8|50011"                      # unaligned, signed, descending first
  "ki16|2|0:i16|60011"                                   # one field of a new type: 2-byte records
)
fmt_of() {  # the format options of a key set
  local rs=$1 k out="--record-size $1"
  for k in $2; do out+=" --key $k"; done
  echo "$out"
}

# gxsort check's lines in the oracle's words: records, sorted yes|no FIRST, duplicates.
check_words() {
  sed -n -e 's/^records: /records: /p' -e 's/^sorted: no (record \([0-9]*\) .*/sorted: no \1/p' -e 's/^sorted: yes$/sorted: yes/p' \
    -e 's/^duplicate keys: /duplicates: /p' "$WORK/last.out" | tr '\n' ' '
}

seed=100
for ks in "${KEYSETS[@]}"; do
  IFS='|' read -r name rs keys count <<<"$ks"
  F=$(fmt_of "$rs" "$keys")
  for dist in random dups; do
    seed=$((seed + 1))
    t="$name/$dist"
    oracle gen -o in.bin --count "$count" --seed $seed $F --dist $dist --expect exp.bin
    if [[ $dist == random ]]; then
      # The CPU's plan (a GPU's may keep so small an input on the device).
      gx plan in.bin $F --memory 1M --ooc merge --fan-in 4 --device cpu
      grep -q "^mode: external" "$WORK/last.out" && pass "$name: --memory 1M --ooc merge forms runs" || fail "$name: plan merge" "$(last_err)"
      gx plan in.bin $F --memory 1M --ooc partition --device cpu
      grep -q "^mode: partition" "$WORK/last.out" && pass "$name: --memory 1M --ooc partition partitions" || fail "$name: plan partition" "$(last_err)"
    fi
    gx sort in.bin -o out.bin $F -q
    same_bytes "$t: sort in memory" out.bin exp.bin
    gx sort in.bin -o out.bin $F -q --memory 1M --ooc merge --fan-in 4
    same_bytes "$t: sort --ooc merge, --memory 1M" out.bin exp.bin
    gx sort in.bin -o out.bin $F -q --memory 1M --ooc partition
    same_bytes "$t: sort --ooc partition, --memory 1M" out.bin exp.bin
    cat in.bin | "$GX" sort - -o out.bin $F -q --memory 1M
    same_bytes "$t: sort of a stream (runs merged)" out.bin exp.bin
    oracle sort in.bin -o exp_r.bin $F -r
    gx sort in.bin -o out.bin $F -r -q
    same_bytes "$t: -r reverses the whole key, stably" out.bin exp_r.bin
    oracle dedupe in.bin -o exp_u.bin $F
    gx sort in.bin -o out.bin $F -u -q
    same_bytes "$t: sort -u (equal on every field)" out.bin exp_u.bin
    gx sort in.bin -o out.bin $F -u -q --memory 1M --ooc merge --fan-in 3
    same_bytes "$t: sort -u out of core" out.bin exp_u.bin
    oracle dedupe in.bin -o exp_d.bin $F --keep last --count
    gx dedupe in.bin -o out.bin $F --keep last --count -q --memory 1M
    same_bytes "$t: dedupe --keep last --count, --memory 1M" out.bin exp_d.bin
    # check: the sorted file passes with the oracle's duplicate count; the input fails at
    # the oracle's first unsorted record.
    want=$(oracle check exp.bin $F | tr '\n' ' ')
    gx check exp.bin $F
    got=$(check_words)
    [[ $RC == 0 && "$got" == "$want" ]] && pass "$t: check of the sorted output" || fail "$t: check sorted" "rc $RC: '$got' vs '$want'"
    want=$(oracle check in.bin $F | tr '\n' ' ')
    gx check in.bin $F
    got=$(check_words)
    [[ $RC == 1 && "$got" == "$want" ]] && pass "$t: check of the input names its first unsorted record" || fail "$t: check unsorted" "rc $RC: '$got' vs '$want'"
  done
  # merge of two sorted files (ties: the first file's records first), and of a runs directory.
  oracle gen -o a.bin --count 7001 --seed $((seed + 50)) $F --dist dups --expect as.bin
  oracle gen -o b.bin --count 9001 --seed $((seed + 51)) $F --dist dups --expect bs.bin
  oracle merge as.bin bs.bin -o exp_m.bin $F
  gx merge as.bin bs.bin -o out.bin $F -q
  same_bytes "$name: merge of two sorted files" out.bin exp_m.bin
  oracle merge bs.bin as.bin -o exp_m2.bin $F
  gx merge bs.bin as.bin -o out.bin $F -q --memory 1M
  same_bytes "$name: merge, the other order, --memory 1M" out.bin exp_m2.bin
  gx merge as.bin in.bin -o out.bin $F -q
  expect_rc "$name: merge of an unsorted input: exit 2" 2
  rm -rf rdir
  gx runs in.bin -o rdir $F -q --memory 1M
  gx merge rdir -o out.bin $F -q
  same_bytes "$name: runs + merge DIR" out.bin exp.bin
  gx merge rdir -o out2.bin --record-size "$rs" --key "0:bytes:1"
  expect_rc "$name: merge DIR with another key: exit 2" 2
  err_mentions "$name: merge DIR with another key: message names the runs' key" "rdir" "another format" "${keys%% *}"
  # gen: sorted keys are sorted by every field and its direction.
  gx gen -o g.bin --count 20000 $F --dist sorted -q
  gx check g.bin $F -q
  expect_rc "$name: gen --dist sorted passes check" 0
  gx gen -o g.bin --count 20000 $F --dist few-unique -q
  oracle sort g.bin -o exp_g.bin $F
  gx sort g.bin -o out.bin $F -q
  same_bytes "$name: sort of gen --dist few-unique" out.bin exp_g.bin
done

# The old single-key options are shorthands of --key.
oracle gen -o r24.bin --count 20011 --seed 7 --record-size 24 --key-offset 8 --key-type i64 --dist dups
gx sort r24.bin -o a.bin --record-size 24 --key-offset 8 --key-type i64 -q
gx sort r24.bin -o b.bin --record-size 24 --key 8:i64 -q
same_bytes "--key 8:i64 is --key-offset 8 --key-type i64" b.bin a.bin
gx sort r24.bin -o a.bin --record-size 24 --key-offset 8 --key-type i64 -r -q
gx sort r24.bin -o b.bin --record-size 24 --key 8:i64:desc -q
same_bytes "--key 8:i64:desc is --key-offset 8 --key-type i64 -r" b.bin a.bin
gx sort r24.bin -o b.bin --record-size 24 --key 8:i64:desc -r -q
oracle sort r24.bin -o exp.bin --record-size 24 --key-offset 8 --key-type i64
same_bytes "--key 8:i64:desc -r is ascending" b.bin exp.bin
gx sort r24.bin -o a.bin --record-size 24 --key-offset 3 --key-bytes 9 -q
gx sort r24.bin -o b.bin --record-size 24 --key 3:bytes:9 -q
same_bytes "--key 3:bytes:9 is --key-offset 3 --key-bytes 9" b.bin a.bin
oracle gen -o u64.bin --count 20011 --seed 8 --type u64
gx sort u64.bin -o a.bin --type u64 -q
gx sort u64.bin -o b.bin --record-size 8 --key 0:u64 -q
same_bytes "--record-size 8 --key 0:u64 is --type u64" b.bin a.bin
gx plan u64.bin --record-size 8 --key 0:u64
grep -q 'u64 keys' "$WORK/last.out" && pass "plan: --key 0:u64 on 8-byte records is the flat u64 format" || fail "plan of --key 0:u64" "$(head -c 300 "$WORK/last.out")"
gx plan r24.bin --record-size 24 --key 8:f64:desc --key 0:u16be
grep -q '24-byte records, key 8:f64:desc,0:u16be' "$WORK/last.out" && pass "plan names a composite key" || fail "plan of a composite key" "$(head -c 300 "$WORK/last.out")"
gx sort u64.bin -o b.bin --type u16be -q
oracle sort u64.bin -o exp.bin --record-size 2 --key 0:u16be
same_bytes "--type u16be: a flat file of big-endian u16" b.bin exp.bin

# Errors: exit 2, one line, no output.
rm -f OUT
err_case() {  # name, texts, args...
  local name=$1 texts=$2; shift 2
  gx "$@"
  expect_rc "$name: exit 2" 2
  IFS='|' read -ra t <<<"$texts"
  err_mentions "$name: message" "${t[@]}"
}
err_case "unknown key type" "u33" sort r24.bin -o OUT --record-size 24 --key 0:u33
err_case "a key field outside the record" "inside|6:u32" sort r24.bin -o OUT --record-size 8 --key 0:u8 --key 6:u32
err_case "--key OFFSET:TYPE without --record-size" "--record-size" sort r24.bin -o OUT --key 0:u32
err_case "--key NAME on raw records" "names a field|.npy" sort r24.bin -o OUT --record-size 24 --key price
err_case "--key with --key-type" "cannot be combined" sort r24.bin -o OUT --record-size 24 --key 0:u32 --key-type u32
err_case "fields and names mixed" "not both" sort r24.bin -o OUT --record-size 24 --key 0:u32 --key price
err_case "a bad order word" "desc" sort r24.bin -o OUT --record-size 24 --key 0:u32:down
err_case "bytes without a width" "bytes:N" sort r24.bin -o OUT --record-size 24 --key 0:bytes
many=(); for i in $(seq 0 16); do many+=(--key "$i:u8"); done
err_case "17 key fields" "at most 16" sort r24.bin -o OUT --record-size 24 "${many[@]}"
err_case "reduce of a composite key" "one typed key" reduce r24.bin --op sum --record-size 24 --key 0:u32 --key 8:i64
err_case "dedupe --strategy bitmap of a composite key" "bitmap" dedupe r24.bin -o OUT --record-size 24 --key 0:u16 --key 2:u16 --strategy bitmap
[[ ! -e OUT ]] && pass "refused commands: no output" || fail "refused commands: no output" "OUT exists"
leftovers=$(leftover_temps "$WORK"); [[ -z $leftovers ]] && pass "no temp files left" || fail "no temp files left" "$leftovers"
finish
