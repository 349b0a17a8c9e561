#!/usr/bin/env bash
# Sets up and builds gxsort, then generates about 1 GiB of random u64 keys, sorts it,
# checks the result and prints the throughput; then sorts 100 MB of CSV-like text lines by
# their second field as numbers and compares the bytes with GNU sort's.
# Usage: tools/demo.sh [size-in-keys]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh build
keys=${1:-134217728}   # 2^27 keys = 1 GiB
work=$(mktemp -d "${TMPDIR:-/tmp}/gxsort-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
g=build/gxsort
$g info
echo "demo: generating $keys random u64 keys"
$g gen -o "$work/in.bin" --count "$keys" --dist uniform --seed 42
start=$(date +%s.%N)
$g sort "$work/in.bin" -o "$work/out.bin" --stats-json "$work/stats.json" -v
end=$(date +%s.%N)
$g check "$work/out.bin" | tee "$work/check.txt"
# check exits 1 for the unsorted input: only its checksum matters here.
in_sum=$($g check "$work/in.bin" | grep checksum || true)
out_sum=$(grep checksum "$work/check.txt")
if [ "$in_sum" != "$out_sum" ]; then echo "demo: checksum mismatch: input $in_sum, output $out_sum" >&2; exit 1; fi
python3 - "$start" "$end" "$keys" <<'PY'
import sys
start, end, keys = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
gib = keys * 8 / 2**30
print(f"demo: sorted {gib:.2f} GiB in {end-start:.2f} s: {keys*8/(end-start)/1e6:.0f} MB/s, {keys/(end-start)/1e6:.1f} Mkeys/s")
PY
echo "demo: text lines: 100 MB of CSV-like lines, by field 2 as numbers (sort -t, -k2,2n)"
build/bench/gen_lines "$work/in.txt" 100000000 42
$g sort -t, -k2,2n "$work/in.txt" -o "$work/out.txt" -v
LC_ALL=C sort -t, -k2,2n "$work/in.txt" | cmp - "$work/out.txt"
echo "demo: the same bytes as LC_ALL=C sort -t, -k2,2n"
