#!/usr/bin/env bash
# Sniffing before the default format: with no format option an input whose first bytes
# are a container signature (Parquet, zip/npz, gzip, zstd, xz, bzip2, HDF5, Arrow IPC) or
# text lines is refused, exit 2, one line naming the file, what it looks like and what
# to use; files, stdin and FIFOs, every command that reads records. Any format option
# sorts it as told; gen's output of every distribution and type is never refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# refused NAME WHAT...: the last call exited 2 with one line mentioning WHAT..., and
# left no output (out.bin) and no temporary file.
refused() {
  local name=$1; shift
  expect_rc "$name: exit 2" 2
  err_mentions "$name: one line" "$@"
  if [[ -e out.bin || -n "$(leftover_temps . "$TMPDIR")" ]]; then fail "$name: nothing left" "$(ls)"
  else pass "$name: nothing left"; fi
  rm -f out.bin
}

# with_signature FILE HEX: FILE is the signature's bytes, then random bytes up to 64.
with_signature() {
  "${PY[@]}" -c 'import os,sys; h=bytes.fromhex(sys.argv[2]); open(sys.argv[1],"wb").write(h+os.urandom(64-len(h)))' "$1" "$2"
}

declare -A SIG=(
  [parquet]="50415231:Parquet" [zip]="504b0304:zip archive" [empty_zip]="504b0506:zip archive"
  [gzip]="1f8b0800:gzip" [zstd]="28b52ffd:zstd" [xz]="fd377a585a00:xz"
  [bzip2]="425a683931415926 5359:bzip2" [hdf5]="894844460d0a1a0a:HDF5" [arrow]="4152524f5731:Arrow"
)
for kind in "${!SIG[@]}"; do
  hex=${SIG[$kind]%%:*} what=${SIG[$kind]#*:}
  with_signature "$kind.dat" "${hex// /}"
  gx sort "$kind.dat" -o out.bin
  refused "$kind: sort" "$kind.dat" "$what" "format option"
  gx sort "$kind.dat" -o out.bin --type u64
  oracle sort "$kind.dat" -o exp.bin --type u64
  expect_rc "$kind: --type u64 sorts it as told" 0
  same_bytes "$kind: --type u64 output" out.bin exp.bin
  rm -f out.bin
done

# A real gzip file (any size: refused before its size is checked), and its advice.
seq 1 5000 | gzip -n >real.gz
gx check real.gz
refused "real gzip: check" "real.gz" "gzip" "zcat real.gz | gxsort sort - --type u64"
gx check real.gz --type u8
expect_rc "real gzip: check --type u8 reads its bytes (not sorted: exit 1)" 1

# Text lines: a CSV whose size is a multiple of 8, through every command that reads records.
printf 'b,2\na,1\nc,3\nd,4\n' >t.csv
for c in "sort t.csv -o out.bin" "merge t.csv -o out.bin" "dedupe t.csv -o out.bin" "check t.csv" \
         "runs t.csv -o out.bin" "reduce t.csv --op sum" "plan t.csv" "plan merge t.csv t.csv" "plan check t.csv"; do
  gx $c
  refused "text: $c" "t.csv" "text lines" "gxsort sort --lines t.csv" "--type"
done
for opts in "--type u64" "--type u32" "--record-size 8 --key-bytes 8" "--record-size 4 --key-offset 0 --key-type u32" "--key 0:u64 --record-size 8"; do
  gx sort t.csv -o out.bin $opts
  oracle sort t.csv -o exp.bin $opts
  expect_rc "text: $opts sorts it as told" 0
  same_bytes "text: $opts output" out.bin exp.bin
  rm -f out.bin
done
printf '%s\n' 'Zürich,1' 'Äpfel,22' 'naïve,33' >u.txt  # UTF-8, 32 bytes
gx sort u.txt -o out.bin
refused "UTF-8 text" "u.txt" "text lines"
# One line longer than the window (no two line breaks in its first 4 KiB): not text.
head -c 8192 /dev/zero | tr '\0' x >long.txt
gx sort long.txt -o out.bin
expect_rc "a line longer than 4 KiB: sorted as u64, as before" 0
rm -f out.bin
# Under 16 bytes (at most two u64 records): never text.
printf 'a\nb\nc\nd\n' >tiny.txt
gx sort tiny.txt -o out.bin
expect_rc "8 bytes of text: sorted as u64, as before" 0
rm -f out.bin

# Streams: stdin and a FIFO are sniffed on their first block; a format option reads them.
gx sort - -o out.bin <t.csv
refused "text on stdin" "stdin" "text lines" "gxsort sort --lines\`"
gx sort - -o out.bin <gzip.dat
refused "gzip on stdin" "stdin" "gzip" "zcat | gxsort"
gx sort - -o out.bin --type u64 <t.csv
oracle sort t.csv -o exp.bin --type u64
same_bytes "text on stdin with --type u64: sorted as told" out.bin exp.bin
rm -f out.bin ff; mkfifo ff
(cat t.csv >ff) &
gx sort ff -o out.bin
wait
refused "text from a FIFO" "ff" "text lines"
(cat zstd.dat >ff) &
gx check ff
wait
refused "zstd from a FIFO: check" "ff" "zstd"
(cat t.csv >ff) &
gx sort ff -o out.bin --type u64
wait
same_bytes "text from a FIFO with --type u64: sorted as told" out.bin exp.bin
rm -f out.bin

# A .npy header under another name: refused with or without a format option, as before.
"${PY[@]}" -c 'import sys; d="{'"'"'descr'"'"': '"'"'<u8'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }"; d+=" "*(-(11+len(d))%64)+"\n"; open("a.dat","wb").write(b"\x93NUMPY\x01\x00"+len(d).to_bytes(2,"little")+d.encode()+bytes(16))'
for opts in "" "--type u64"; do
  gx sort a.dat -o out.bin $opts
  refused ".npy header under another name ${opts:-(no format)}" "a.dat" ".npy header"
done

# gen's output of every distribution and type (2, 3 and 1000 records, several seeds) is
# never taken for another kind of file.
for dist in uniform sorted reverse few-unique zipf all-equal bits; do
  seen=""
  for type in u8 i8 u16 i16 u32 i32 u64 i64 f32 f64; do
    for seed in 1 2 3; do
      for count in 2 3 1000; do
        "$GX" gen -o g.bin --count "$count" --dist "$dist" --type "$type" --seed "$seed" -q
        gx check g.bin
        grep -q "looks like" last.err && seen+=" $type/$seed/$count"
      done
    done
  done
  gx gen -o g.bin --count 1000 --dist "$dist" --format gensort -q
  gx check g.bin
  grep -q "looks like" last.err && seen+=" gensort"
  if [[ -z "$seen" ]]; then pass "gen --dist $dist: never refused"; else fail "gen --dist $dist: never refused" "refused:$seen"; fi
done

finish
