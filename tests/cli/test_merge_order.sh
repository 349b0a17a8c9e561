# merge of record files refuses an input that is out of order wherever the disorder lies,
# also exactly where the merge cuts its work between threads (each thread checked only
# the records inside its own range: a pair straddling a cut passed unseen), and leaves
# no output and no temp file; sorted inputs give the sorted bytes on any thread count.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# Two sorted u64 inputs of N records, evens and odds: a 2-thread merge cuts each near N/2.
N=$((1 << 19))
make_inputs() {  # DIR [SWAP]: the evens with records SWAP-1 and SWAP swapped (none: 0)
  "${PY[@]}" - "$1" "${2:-0}" "$N" <<'PY'
import struct, sys
d, swap, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
evens = [2 * i for i in range(n)]
if swap: evens[swap - 1], evens[swap] = evens[swap], evens[swap - 1]
open(d + "/a.bin", "wb").write(struct.pack(f"<{n}Q", *evens))
open(d + "/b.bin", "wb").write(struct.pack(f"<{n}Q", *[2 * i + 1 for i in range(n)]))
open(d + "/want.bin", "wb").write(struct.pack(f"<{2 * n}Q", *range(2 * n)))
PY
}

mkdir -p "$WORK/ok"
make_inputs "$WORK/ok"
for t in 1 2 4; do
  gx merge "$WORK/ok/a.bin" "$WORK/ok/b.bin" -o "$WORK/ok/out.bin" --type u64 --threads $t -q
  expect_rc "sorted inputs, $t threads: exit 0" 0
  same_bytes "sorted inputs, $t threads: the merged bytes" "$WORK/ok/out.bin" "$WORK/ok/want.bin"
  rm -f "$WORK/ok/out.bin"
done

# The disorder at the cut of 2 and of 4 threads, and on either side of it.
for at in $((N / 2 - 1)) $((N / 2)) $((N / 2 + 1)) $((N / 4)) $((N * 3 / 4)) 1 $((N - 1)); do
  d=$WORK/swap$at
  mkdir -p "$d"
  make_inputs "$d" "$at"
  for t in 2 4; do
    gx merge "$d/a.bin" "$d/b.bin" -o "$d/out.bin" --type u64 --threads $t -q
    expect_rc "records $((at - 1)) and $at of a.bin swapped, $t threads: exit 2" 2
    err_mentions "records $((at - 1)) and $at swapped, $t threads: one line naming a.bin" "a.bin" "not sorted"
    [[ ! -e "$d/out.bin" && -z "$(leftover_temps "$d")" ]] && pass "swapped at $at, $t threads: no output, no temp file" ||
      fail "swapped at $at, $t threads: no output, no temp file" "$(ls "$d")"
  done
  rm -rf "$d"
done
finish
