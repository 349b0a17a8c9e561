#!/usr/bin/env bash
# gxsort graph build / bfs / gen --graph through the binary.
source "$(dirname "$0")/lib.sh"

pmpp() { printf '0 1\n0 2\n1 3\n1 4\n2 5\n2 6\n2 7\n3 4\n3 8\n4 5\n4 8\n5 6\n6 8\n7 0\n7 6\n'; }
u32s() { od -An -tu4 -v "$1" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }

pmpp >pmpp.txt
gx graph build pmpp.txt -o pmpp.csr; expect_rc "build snap" 0
gx bfs pmpp.csr --source 0 -o lv0 --parents par0 --device cpu; expect_rc "bfs cpu" 0
if [[ "$(u32s lv0)" == "0 1 1 2 2 2 2 2 3" ]]; then pass "pmpp levels from 0"; else fail "pmpp levels from 0" "$(u32s lv0)"; fi
if grep -q "vertices reached 9" "$WORK/last.out" && grep -q "GTEPS" "$WORK/last.out"; then pass "bfs stats"; else fail "bfs stats" "$(cat "$WORK/last.out")"; fi
if [[ "$(u32s par0 | cut -d' ' -f1)" == "0" ]]; then pass "source is its own parent"; else fail "source parent" "$(u32s par0)"; fi
gx bfs pmpp.csr --source 2 -o lv2
if [[ "$(u32s lv2)" == "2 3 0 4 4 1 1 1 2" ]]; then pass "pmpp levels from 2 (auto device)"; else fail "pmpp levels from 2" "$(u32s lv2)"; fi

# every input format gives the same CSR
{ echo '%%MatrixMarket matrix coordinate integer general'; echo '% c'; echo '9 9 15'; pmpp | awk '{print $1+1, $2+1, 7}'; } >pmpp.mtx
"${PY[@]}" -c '
import struct,sys
e=[tuple(map(int,l.split())) for l in open("pmpp.txt")]
open("pmpp.bin32","wb").write(b"".join(struct.pack("<II",a,b) for a,b in e))
open("pmpp.bin64","wb").write(b"".join(struct.pack("<QQ",a,b) for a,b in e))'
for f in mtx bin32 bin64; do
  gx graph build pmpp.$f -o p_$f.csr; same_bytes "build $f = snap" p_$f.csr pmpp.csr
done
gx graph build pmpp.txt --input-format snap --symmetrize --device cpu -o sym.csr; expect_rc "symmetrize" 0
if grep -q "edges: 30" "$WORK/last.out"; then pass "symmetrize doubles the edges"; else fail "symmetrize" "$(cat "$WORK/last.out")"; fi
printf '0 1\n0 1\n2 2\n' >dup.txt
gx graph build dup.txt -o dup.csr
grep -q "edges: 1 " "$WORK/last.out" && pass "dedupe and drop loops" || fail "dedupe and drop loops" "$(cat "$WORK/last.out")"
gx graph build dup.txt -o dup2.csr --keep-duplicates --keep-self-loops
grep -q "edges: 3 " "$WORK/last.out" && pass "keep duplicates and loops" || fail "keep duplicates and loops" "$(cat "$WORK/last.out")"

# bad input: one line naming FILE:LINE, exit 2, nothing written
printf '0 1\n# c\n1 two\n' >bad.txt
gx graph build bad.txt -o bad.csr; expect_rc "bad snap exit 2" 2
err_mentions "bad snap message" "bad.txt:3:"
[[ ! -e bad.csr && -z "$(leftover_temps "$WORK")" ]] && pass "bad snap: nothing written" || fail "bad snap: nothing written" "$(ls)"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n' >arr.mtx
gx graph build arr.mtx -o arr.csr; expect_rc "array mtx exit 2" 2
err_mentions "array mtx message" "arr.mtx:1:" "coordinate"
"${PY[@]}" -c 'import struct; open("bad.bin32","wb").write(struct.pack("<IIII",1,2,3,0xFFFFFFFF))'
gx graph build bad.bin32 -o b32.csr; expect_rc "bin32 out of range exit 2" 2
err_mentions "bin32 out of range message" "bad.bin32" "out of range"
gx bfs pmpp.csr --source 8 --device cpu; expect_rc "bfs from a vertex with no out-edges" 0
err_mentions "a source with no out-edges: a note" "note: --source 8 has no edge out of it in pmpp.csr" "reaches it alone"
grep -q "vertices reached 1" "$WORK/last.out" && pass "a source with no out-edges reaches itself" \
  || fail "a source with no out-edges reaches itself" "$(cat "$WORK/last.out")"
gx bfs pmpp.csr --source 8 --device cpu -q; expect_rc "bfs -q from a vertex with no out-edges" 0
[[ ! -s "$WORK/last.err" ]] && pass "a source with no out-edges, -q: no note" || fail "a source with no out-edges, -q: no note" "$(last_err)"
gx bfs pmpp.csr --source 0 --device cpu
! grep -q "no edge out of it" "$WORK/last.err" && pass "a source with edges: no note" || fail "a source with edges: no note" "$(last_err)"
gx bfs pmpp.csr --source 9; expect_rc "source out of range" 2
gx bfs pmpp.txt --source 0; expect_rc "not a CSR" 2
gx bfs pmpp.csr; expect_rc "bfs without --source" 2
gx graph frob x; expect_rc "graph without build" 2

# generators: deterministic; R-MAT through build and bfs on both devices agree
gx gen --graph rmat --scale 16 --edge-factor 8 --seed 3 -o r1.bin32; expect_rc "gen rmat" 0
gx gen --graph rmat --scale 16 --edge-factor 8 --seed 3 -o r2.bin32
same_bytes "gen rmat deterministic" r1.bin32 r2.bin32
[[ $(stat -c %s r1.bin32) == $((8 * 8 * 65536)) ]] && pass "gen rmat size" || fail "gen rmat size" "$(stat -c %s r1.bin32)"
gx gen --graph uniform --scale 10 -o u.bin32; expect_rc "gen uniform" 0
gx gen --graph rmat -o x.bin32; expect_rc "gen --graph needs --scale" 2
gx graph build r1.bin32 --symmetrize --memory 8M --threads 2 -o r.csr; expect_rc "build rmat (small --memory: external sort)" 0
gx graph build r1.bin32 --symmetrize -o r_mem.csr
same_bytes "external and in-memory builds agree" r.csr r_mem.csr
gx bfs r.csr --source 7 --device cpu -o rl_cpu; expect_rc "bfs rmat cpu" 0
gx bfs r.csr --source 7 --device auto -o rl_auto; expect_rc "bfs rmat auto" 0
same_bytes "cpu and auto levels agree" rl_auto rl_cpu
# --device-memory far below the graph (r.csr holds ~4 MiB of neighbors): on the GPU the
# kernels read the neighbors in place from pinned host memory, or (GXSORT_BFS_STREAM=copy,
# the way where pinning is refused) stream them in partitions; the CPU backend ignores the option.
gx bfs r.csr --source 7 --device-memory 2M -o rl_small; expect_rc "bfs with a small --device-memory" 0
same_bytes "small --device-memory: levels = cpu" rl_small rl_cpu
if grep -q "backend cuda" "$WORK/last.out"; then
  grep -q "neighbors read in place from pinned host memory" "$WORK/last.out" && pass "small --device-memory reads the neighbors in host memory" \
    || fail "small --device-memory reads the neighbors in host memory" "$(cat "$WORK/last.out")"
  GXSORT_BFS_STREAM=copy gx bfs r.csr --source 7 --device-memory 2M -o rl_copy; expect_rc "bfs streaming partitions" 0
  same_bytes "streamed partitions: levels = cpu" rl_copy rl_cpu
  grep -q "neighbors streamed" "$WORK/last.out" && pass "GXSORT_BFS_STREAM=copy streams the neighbors" \
    || fail "GXSORT_BFS_STREAM=copy streams the neighbors" "$(cat "$WORK/last.out")"
  gx bfs r.csr --source 7 --device cuda --device-memory 64K; expect_rc "--device-memory below the resident arrays" 2
  err_mentions "too small --device-memory message" "at least --device-memory"
else
  skip "small --device-memory streams the neighbors" "no GPU: the CPU backend ran (the option is ignored there)"
fi
gx bfs r.csr --source 7 --device cpu --device-memory 2M -o rl_cpu2; expect_rc "--device cpu accepts --device-memory" 0
same_bytes "--device cpu with --device-memory: levels" rl_cpu2 rl_cpu
grep -q "undirected edges" "$WORK/last.out" && pass "undirected edge count printed (not called Graph500's)" || fail "undirected edge count" "$(cat "$WORK/last.out")"
gx bfs r.csr --random-sources 4 --device cpu; expect_rc "random sources" 0
grep -q "mean of 4 searches" "$WORK/last.out" && pass "random sources mean" || fail "random sources mean" "$(cat "$WORK/last.out")"
finish
