#!/usr/bin/env bash
# graph build's inputs through the binary: gzip edge lists read, other compressed ones
# refused by name, header lines (--skip-header), .npy outputs of bfs, and --renumber.
source "$(dirname "$0")/lib.sh"

pmpp() { printf '0 1\n0 2\n1 3\n1 4\n2 5\n2 6\n2 7\n3 4\n3 8\n4 5\n4 8\n5 6\n6 8\n7 0\n7 6\n'; }
u32s() { od -An -tu4 -v "$1" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
# Only printable ASCII on stderr (no raw bytes of the input reach the terminal).
printable_err() {
  if LC_ALL=C grep -q '[^[:print:]]' "$WORK/last.err"; then fail "$1" "raw bytes on stderr: $(od -c "$WORK/last.err" | head -3)"
  else pass "$1"; fi
}
pmpp >pmpp.txt
gx graph build pmpp.txt -o pmpp.csr; expect_rc "build plain snap" 0

# ---- compressed edge lists: gzip read directly (zlib); zstd, xz, bzip2 refused by name ----
"${PY[@]}" -c '
import bz2, gzip, lzma, struct
text = open("pmpp.txt", "rb").read()
pairs = b"".join(struct.pack("<II", *map(int, l.split())) for l in text.decode().splitlines())
open("pmpp.bin32", "wb").write(pairs)
open("pmpp.txt.gz", "wb").write(gzip.compress(text, mtime=0))
open("pmpp.bin32.gz.bin32", "wb").write(gzip.compress(pairs, mtime=0))
half = text.index(b"\n", len(text) // 2) + 1  # two gzip members, one after the other
open("two_members.gz", "wb").write(gzip.compress(text[:half], mtime=0) + gzip.compress(text[half:], mtime=0))
gz = gzip.compress(text, mtime=0)
open("truncated.gz", "wb").write(gz[:len(gz) // 2])
open("damaged.gz", "wb").write(gz[:-6] + bytes([gz[-6] ^ 0xff]) + gz[-5:])  # its CRC
open("pmpp.txt.xz", "wb").write(lzma.compress(text))
open("pmpp.txt.bz2", "wb").write(bz2.compress(text))
# a zstd frame: its magic, a frame header and a raw block (no zstd module needed)
open("pmpp.txt.zst", "wb").write(b"\x28\xb5\x2f\xfd\x20" + bytes([len(text)]) + struct.pack("<I", len(text) << 3 | 1)[:3] + text)'
refused_compressed() {  # NAME FILE KIND TOOL [build options]
  local name=$1 file=$2 kind=$3 tool=$4; shift 4
  gx graph build "$file" -o c.csr "$@"; expect_rc "$name: exit 2" 2
  err_mentions "$name: named" "$file: $kind-compressed file; decompress it first ($tool $file | gxsort graph build - ...)"
  printable_err "$name: no raw bytes in the message"
  [[ ! -e c.csr && -z "$(leftover_temps "$WORK")" ]] && pass "$name: nothing written" || fail "$name: nothing written" "$(ls)"
}
refused_compressed "xz snap" pmpp.txt.xz "an xz" xzcat
refused_compressed "xz as --input-format bin64" pmpp.txt.xz "an xz" xzcat --input-format bin64
refused_compressed "bzip2 snap" pmpp.txt.bz2 "a bzip2" bzcat
refused_compressed "zstd snap" pmpp.txt.zst "a zstd" zstdcat
refused_compressed "zstd as mtx" pmpp.txt.zst "a zstd" zstdcat --input-format mtx
gx graph build - -o c.csr <pmpp.txt.xz; expect_rc "xz on stdin: exit 2" 2
err_mentions "xz on stdin: named" "stdin: an xz-compressed file; decompress it first (xzcat | gxsort graph build - ...)"
[[ ! -e c.csr ]] && pass "xz on stdin: nothing written" || fail "xz on stdin: nothing written" "$(ls)"
gx graph build <(cat pmpp.txt.bz2) -o c.csr; expect_rc "bzip2 through a pipe: exit 2" 2
printable_err "bzip2 through a pipe: no raw bytes in the message"
# streams that are not compressed: their first bytes, read to sniff them, are parsed too
gx graph build <(cat pmpp.txt) -o pipe_snap.csr; expect_rc "snap through a pipe" 0
same_bytes "snap through a pipe: the same CSR" pipe_snap.csr pmpp.csr
gx graph build - --input-format bin32 -o pipe_bin.csr <pmpp.bin32; expect_rc "bin32 on stdin" 0
same_bytes "bin32 on stdin: the same CSR" pipe_bin.csr pmpp.csr
printf '0 1\n' | head -c 3 >tiny.txt
gx graph build <(cat tiny.txt) -o tiny.csr; expect_rc "a stream shorter than the sniffed bytes" 0
grep -q "^edges: 1 " "$WORK/last.out" && pass "a stream shorter than the sniffed bytes: its edge" || fail "a stream shorter than the sniffed bytes: its edge" "$(cat "$WORK/last.out")"
gx graph build pmpp.txt.gz -o gz.csr
if [[ $RC == 2 ]] && grep -q "decompress it first (zcat" "$WORK/last.err"; then
  # built without zlib (CMakeLists.txt: find_package(ZLIB)): gzip is refused by name too
  skip "gzip edge lists read directly" "this gxsort was built without zlib"
  refused_compressed "gzip snap" pmpp.txt.gz "a gzip" zcat
  refused_compressed "gzip bin32" pmpp.bin32.gz.bin32 "a gzip" zcat
else
  expect_rc "gzip snap: read directly" 0
  same_bytes "gzip snap: the same CSR" gz.csr pmpp.csr
  gx graph build pmpp.bin32.gz.bin32 -o gz32.csr; expect_rc "gzip bin32: read directly" 0
  same_bytes "gzip bin32: the same CSR" gz32.csr pmpp.csr
  gx graph build - -o gz_stdin.csr <pmpp.txt.gz; expect_rc "gzip on stdin" 0
  same_bytes "gzip on stdin: the same CSR" gz_stdin.csr pmpp.csr
  gx graph build <(cat pmpp.txt.gz) -o gz_pipe.csr; expect_rc "gzip through a pipe" 0
  same_bytes "gzip through a pipe: the same CSR" gz_pipe.csr pmpp.csr
  gx graph build two_members.gz -o gz2.csr; expect_rc "gzip of two members" 0
  same_bytes "gzip of two members: the same CSR" gz2.csr pmpp.csr
  gx graph build truncated.gz -o c.csr; expect_rc "truncated gzip: exit 2" 2
  err_mentions "truncated gzip: named" "truncated.gz: the gzip data ends early"
  gx graph build damaged.gz -o c.csr; expect_rc "damaged gzip: exit 2" 2
  err_mentions "damaged gzip: named" "damaged.gz: the gzip data is damaged (zlib: "
  [[ ! -e c.csr && -z "$(leftover_temps "$WORK")" ]] && pass "bad gzip: nothing written" || fail "bad gzip: nothing written" "$(ls)"
  gx graph build pmpp.txt.gz --input-format bin64 -o c.csr; expect_rc "gzip text as bin64: exit 2" 2
  err_mentions "gzip text as bin64: the decompressed size named" "pmpp.txt.gz: decompressed size 60 is not a multiple of 16"
  # larger than the reader's blocks: an R-MAT edge list of 4 MiB
  gx gen --graph rmat --scale 16 --edge-factor 8 --seed 5 -o big.bin32
  "${PY[@]}" -c 'import gzip; open("big.bin32.gz", "wb").write(gzip.compress(open("big.bin32", "rb").read(), 1, mtime=0))'
  gx graph build big.bin32 -o big.csr
  gx graph build big.bin32.gz --input-format bin32 --renumber=sorted -o big_gz.csr; expect_rc "a 4 MiB gzip with --renumber" 0
  gx graph build big.bin32 --renumber=sorted -o big_rn.csr
  same_bytes "a 4 MiB gzip with --renumber: the same CSR" big_gz.csr big_rn.csr
fi
# A bad line's bytes are escaped in the message: a binary line in a text edge list.
printf '0 1\n\001\377\033[31m 2\n' >binline.txt
gx graph build binline.txt -o c.csr; expect_rc "a binary line: exit 2" 2
err_mentions "a binary line: escaped in the message" 'binline.txt:2:' '\x01\xff\x1b[31m'
printable_err "a binary line: no raw bytes in the message"

# ---- header lines: --skip-header, or refused clearly; CSV and TSV fields ----
{ echo 'src,dst'; pmpp | tr ' ' ','; } >pmpp.csv
{ printf 'FromNodeId\tToNodeId\n'; pmpp | tr ' ' '\t'; } >pmpp.tsv
gx graph build pmpp.csv -o h.csr; expect_rc "CSV header without --skip-header: exit 2" 2
err_mentions "CSV header: refused clearly" "pmpp.csv:1: not an edge (a header? use --skip-header)"
[[ ! -e h.csr && -z "$(leftover_temps "$WORK")" ]] && pass "CSV header: nothing written" || fail "CSV header: nothing written" "$(ls)"
gx graph build pmpp.tsv -o h.csr; expect_rc "TSV header without --skip-header: exit 2" 2
err_mentions "TSV header: refused clearly" "pmpp.tsv:1: not an edge (a header? use --skip-header)"
gx graph build pmpp.csv --skip-header -o csv.csr; expect_rc "CSV with --skip-header" 0
same_bytes "CSV with --skip-header: the same CSR" csv.csr pmpp.csr
gx graph build pmpp.tsv --skip-header -o tsv.csr; expect_rc "TSV with --skip-header" 0
same_bytes "TSV with --skip-header: the same CSR" tsv.csr pmpp.csr
gx graph build - --skip-header -o stdin.csr <pmpp.csv; expect_rc "CSV on stdin with --skip-header" 0
same_bytes "CSV on stdin with --skip-header: the same CSR" stdin.csr pmpp.csr
# A wrong option is refused before the input is opened: a FIFO with no writer (whose
# open would wait for one) gets the usage line at once (a hang ends at the timeout: exit 124).
mkfifo edges.u32
RC=0; timeout 20 "$GX" graph build edges.u32 --skip-header -o fifo.csr 2>"$WORK/last.err" || RC=$?
expect_rc "--skip-header of a binary FIFO: exit 2 without waiting for a writer" 2
err_mentions "--skip-header of a binary FIFO: refused clearly" "applies to text edge lists"
RC=0; timeout 20 "$GX" graph build edges.u32 --ids m.ids -o fifo.csr 2>"$WORK/last.err" || RC=$?
expect_rc "--ids without --renumber, FIFO input: exit 2 without waiting for a writer" 2
[[ ! -e fifo.csr && ! -e m.ids ]] && pass "refused FIFO builds: nothing written" || fail "refused FIFO builds: nothing written" "$(ls)"
rm -f edges.u32
{ echo '# FromNodeId ToNodeId'; echo '% another comment'; echo; pmpp; } >comments.txt
gx graph build comments.txt -o comments.csr; expect_rc "comment lines still skipped" 0
same_bytes "comment lines: the same CSR" comments.csr pmpp.csr
gx graph build pmpp.txt --skip-header -o h.csr; expect_rc "--skip-header on an edge: exit 2" 2
err_mentions "--skip-header on an edge: refused (no edge dropped)" "pmpp.txt:1:" "is an edge, not a header"
{ echo '# edges'; echo 'src dst'; pmpp; } >late_header.txt
gx graph build late_header.txt -o h.csr; expect_rc "a header after a comment: exit 2" 2
err_mentions "a header after a comment: refused" "late_header.txt:2: not an edge" "start it with #"
gx graph build pmpp.bin32 --skip-header -o h.csr; expect_rc "--skip-header on binary: exit 2" 2
err_mentions "--skip-header on binary: refused" "--skip-header applies to text edge lists"
{ echo '%%MatrixMarket matrix coordinate pattern general'; echo '2 2 1'; echo '1 2'; } >one.mtx
gx graph build one.mtx --skip-header -o h.csr; expect_rc "--skip-header on mtx: exit 2" 2
err_mentions "--skip-header on mtx: refused" "--skip-header" "not Matrix Market"
printf '0 1\n1 two\n' >second.txt
gx graph build second.txt -o h.csr; expect_rc "a bad later line: exit 2" 2
err_mentions "a bad later line: the usual message" "second.txt:2:" "'two' is not a non-negative integer"
printf '0 1 5\n' >weighted.txt
gx graph build weighted.txt -o h.csr; expect_rc "three numbers on line 1: exit 2" 2
err_mentions "three numbers on line 1: not called a header" "weighted.txt:1: expected two vertex ids"
printf '0,,1\n' >empty_field.csv
gx graph build empty_field.csv -o h.csr; expect_rc "an empty CSV field: exit 2" 2
err_mentions "an empty CSV field: refused" "empty_field.csv:1: expected two vertex ids"

# ---- bfs -o / --parents ending in .npy: 1-D .npy arrays of the raw outputs' dtype ----
# npy_check FILE RAW DESCR: FILE is a 1-D .npy of DESCR whose data is RAW's bytes (its
# header parsed with the standard library: this check runs everywhere).
npy_check() {
  "${PY[@]}" - "$@" <<'PY'
import ast, struct, sys
path, raw, descr = sys.argv[1:4]
b, data = open(path, "rb").read(), open(raw, "rb").read()
assert b[:8] == b"\x93NUMPY\x01\x00", b[:8]
n = struct.unpack_from("<H", b, 8)[0]
assert (10 + n) % 64 == 0, "data not aligned"
h = ast.literal_eval(b[10:10 + n].decode("latin1"))
width = int(descr[2:])
assert h == {"descr": descr, "fortran_order": False, "shape": (len(data) // width,)}, h
assert b[10 + n:] == data, "data differs"
PY
}
gx bfs pmpp.csr --source 0 -o lv.raw --parents par.raw --device cpu; expect_rc "bfs raw outputs" 0
gx bfs pmpp.csr --source 0 -o lv.npy --parents par.npy --device cpu; expect_rc "bfs .npy outputs" 0
npy_check lv.npy lv.raw '<u4' && pass "levels .npy: header and data" || fail "levels .npy: header and data" "see above"
npy_check par.npy par.raw '<u4' && pass "parents .npy: header and data" || fail "parents .npy: header and data" "see above"
gx bfs pmpp.csr --source 0 -o lv2.npy --device cpu; expect_rc "bfs -o .npy alone" 0
same_bytes "bfs -o .npy: the same file" lv2.npy lv.npy
[[ -z "$(leftover_temps "$WORK")" ]] && pass ".npy outputs: no temp files left" || fail ".npy outputs: no temp files left" "$(leftover_temps "$WORK")"
NUMPY_PY=""  # an interpreter with numpy: the one on PATH, else the system's
for p in python3 /usr/bin/python3; do "$p" -c "import numpy" 2>/dev/null && { NUMPY_PY=$p; break; }; done
if [[ -n $NUMPY_PY ]]; then
  if "$NUMPY_PY" -c '
import numpy as np
lv, par = np.load("lv.npy"), np.load("par.npy")
assert lv.dtype == np.dtype("<u4") and lv.shape == (9,) and lv.tolist() == [0, 1, 1, 2, 2, 2, 2, 2, 3], lv
assert par.dtype == np.dtype("<u4") and par.shape == (9,) and par[0] == 0, par
assert (np.fromfile("lv.raw", "<u4") == lv).all() and (np.fromfile("par.raw", "<u4") == par).all()'; then
    pass "numpy.load reads the levels and parents"
  else
    fail "numpy.load reads the levels and parents" "see above"
  fi
else
  skip "numpy.load reads the levels and parents" "numpy is not installed (the header bytes were checked above)"
fi

# ---- --renumber: ids compacted to 0..n-1, the map beside the CSR ----
# sparse.txt: 1000 vertices with ids up to 10^10 (seeded), a ring and chords; the same
# graph relabelled by Python in first-seen order (dense_first.txt) and in id order
# (dense_sorted.txt), with the expected maps (raw u64).
"${PY[@]}" -c '
import random, struct
rng = random.Random(7)
ids = rng.sample(range(10**10), 1000)
edges = [(ids[i], ids[(i + 1) % 1000]) for i in range(1000)] + [(rng.choice(ids), rng.choice(ids)) for _ in range(3000)]
open("sparse.txt", "w").write("".join("%d %d\n" % e for e in edges))
first = {}
for s, d in edges:
    first.setdefault(s, len(first)); first.setdefault(d, len(first))
rank = {v: i for i, v in enumerate(sorted(first))}
for name, new, order in (("first", first, sorted(first, key=first.get)), ("sorted", rank, sorted(first))):
    open("dense_%s.txt" % name, "w").write("".join("%d %d\n" % (new[s], new[d]) for s, d in edges))
    open("map_%s.u64" % name, "wb").write(struct.pack("<%dQ" % len(order), *order))
print(first[ids[0]], rank[ids[0]], ids[0])' >sparse.facts
read -r SRC_FIRST SRC_SORTED SRC_ID <sparse.facts
body() { tail -c +65 "$1"; }  # a CSR's offsets and neighbors (its header has the map's flag and hash)
same_body() {
  if cmp -s <(body "$2") <(body "$3"); then pass "$1"; else fail "$1" "offsets or neighbors differ"; fi
}
gx graph build sparse.txt -o sparse_plain.csr --memory 64M; expect_rc "sparse ids without --renumber: exit 3 (offsets too big)" 3
err_mentions "sparse ids without --renumber: points to --renumber" "largest id + 1" "--renumber"
gx graph build sparse.txt --renumber -o sparse.csr; expect_rc "--renumber (first-seen)" 0
grep -q "^vertices: 1000$" "$WORK/last.out" && pass "--renumber: 1000 vertices" || fail "--renumber: 1000 vertices" "$(cat "$WORK/last.out")"
grep -q "^ids: sparse.csr.ids (new id -> original id)$" "$WORK/last.out" && pass "--renumber: the map named in the report" \
  || fail "--renumber: the map named in the report" "$(cat "$WORK/last.out")"
same_bytes "--renumber: the map, first-seen order" sparse.csr.ids map_first.u64
gx graph build dense_first.txt -o dense_first.csr
same_body "--renumber: the CSR of the ids numbered first-seen" sparse.csr dense_first.csr
gx graph build sparse.txt --renumber=sorted -o sparse_sorted.csr --json; expect_rc "--renumber=sorted" 0
[[ $(json_get "$WORK/last.out" 'j["ids"], j["vertices"]' | tr -d "(),'") == "sparse_sorted.csr.ids 1000" ]] && pass "--renumber --json: ids and vertices" \
  || fail "--renumber --json: ids and vertices" "$(cat "$WORK/last.out")"
same_bytes "--renumber=sorted: the map, ids ascending" sparse_sorted.csr.ids map_sorted.u64
gx graph build dense_sorted.txt -o dense_sorted.csr
same_body "--renumber=sorted: the CSR of the ids numbered in order" sparse_sorted.csr dense_sorted.csr
gx graph build sparse.txt --renumber sorted -o sparse_sorted2.csr; expect_rc "--renumber sorted (a separate word)" 0
same_bytes "--renumber sorted = --renumber=sorted" sparse_sorted2.csr sparse_sorted.csr
gx graph build --renumber sparse.txt -o x.csr; expect_rc "--renumber EDGES: exit 2" 2
err_mentions "--renumber EDGES: the mode named" "--renumber" "sparse.txt"
gx graph build sparse.txt --renumber=sorted --memory 8M --threads 2 -o sparse_ext.csr; expect_rc "--renumber, small --memory" 0
same_bytes "--renumber, small --memory: the same CSR" sparse_ext.csr sparse_sorted.csr

# bfs on a renumbered graph: --source is an original id; the outputs are indexed by the
# CSR's vertices (entry k: the vertex whose id is map[k]), parents are CSR vertices.
gx bfs dense_first.csr --source "$SRC_FIRST" -o want_lv --parents want_par --device cpu
gx bfs sparse.csr --source "$SRC_ID" -o lv --parents par --device cpu; expect_rc "bfs --source ORIGINAL_ID" 0
grep -q "^source $SRC_ID: " "$WORK/last.out" && pass "bfs on a renumbered graph reports the original id" \
  || fail "bfs on a renumbered graph reports the original id" "$(cat "$WORK/last.out")"
same_bytes "bfs on a renumbered graph: levels by CSR vertex" lv want_lv
same_bytes "bfs on a renumbered graph: parents as CSR vertices" par want_par
gx bfs sparse.csr --source "$SRC_FIRST" --device cpu; expect_rc "bfs --source of a CSR vertex number, not an id: exit 2" 2
err_mentions "--source not an id of the graph: named" "--source $SRC_FIRST is not a vertex of sparse.csr" "sparse.csr.ids"
gx bfs sparse.csr --random-sources 3 --device cpu; expect_rc "--random-sources on a renumbered graph" 0
"${PY[@]}" -c '
import struct, sys
ids = set(struct.unpack("<1000Q", open("sparse.csr.ids", "rb").read()))
srcs = [int(l.split(":")[0].split()[1]) for l in open(sys.argv[1]) if l.startswith("source ")]
sys.exit(0 if len(srcs) == 3 and all(s in ids for s in srcs) else 1)' "$WORK/last.out" \
  && pass "--random-sources: original ids reported" || fail "--random-sources: original ids reported" "$(cat "$WORK/last.out")"
gx bfs sparse_sorted.csr --source "$SRC_ID" -o lv_sorted --device cpu; expect_rc "bfs on a --renumber=sorted graph" 0
gx bfs dense_sorted.csr --source "$SRC_SORTED" -o want_lv_sorted --device cpu
same_bytes "bfs on a --renumber=sorted graph: levels" lv_sorted want_lv_sorted

# the map as .npy (--ids), and the checks that tie a map to its graph
gx graph build sparse.txt --renumber --ids map.npy -o sparse_npy.csr; expect_rc "--renumber --ids FILE.npy" 0
npy_check map.npy map_first.u64 '<u8' && pass "--ids FILE.npy: a .npy of <u8" || fail "--ids FILE.npy: a .npy of <u8" "see above"
[[ ! -e sparse_npy.csr.ids ]] && pass "--ids: no GRAPH.ids" || fail "--ids: no GRAPH.ids" "$(ls)"
gx bfs sparse_npy.csr --source "$SRC_ID" --ids map.npy -o lv_npy --device cpu; expect_rc "bfs --ids FILE.npy" 0
same_bytes "bfs --ids FILE.npy: levels" lv_npy want_lv
gx bfs sparse_npy.csr --source "$SRC_ID" --device cpu; expect_rc "bfs without its map: exit 2" 2
err_mentions "bfs without its map: named" "sparse_npy.csr: built with --renumber, but its id map sparse_npy.csr.ids is missing"
gx bfs sparse.csr --source "$SRC_ID" --ids sparse_sorted.csr.ids --device cpu; expect_rc "bfs with another graph's map: exit 2" 2
err_mentions "bfs with another graph's map: refused" "sparse_sorted.csr.ids: not the id map of sparse.csr"
head -c 800 sparse.csr.ids >short.ids
gx bfs sparse.csr --source "$SRC_ID" --ids short.ids --device cpu; expect_rc "bfs with a short map: exit 2" 2
err_mentions "bfs with a short map: refused" "short.ids: 800 bytes of ids, not the 8000"
gx bfs pmpp.csr --source 0 --ids sparse.csr.ids; expect_rc "bfs --ids on a graph not renumbered: exit 2" 2
gx bfs - --source "$SRC_ID" <sparse.csr; expect_rc "bfs of a renumbered graph on stdin without --ids: exit 2" 2
gx bfs - --source "$SRC_ID" --ids sparse.csr.ids -o lv_stdin --device cpu <sparse.csr; expect_rc "bfs of stdin with --ids" 0
same_bytes "bfs of stdin with --ids: levels" lv_stdin want_lv

# ids up to 2^64 - 1, in text and binary edge lists
printf '18446744073709551615 0\n0 1099511627775\n' >huge.txt
gx graph build huge.txt -o huge.csr; expect_rc "an id of 2^64-1 without --renumber: exit 2" 2
err_mentions "an id of 2^64-1 without --renumber: points to --renumber" "huge.txt:1:" "--renumber"
gx graph build huge.txt --renumber -o huge.csr; expect_rc "an id of 2^64-1 with --renumber" 0
[[ "$(od -An -tu8 huge.csr.ids | xargs)" == "18446744073709551615 0 1099511627775" ]] && pass "ids up to 2^64-1 in the map" \
  || fail "ids up to 2^64-1 in the map" "$(od -An -tu8 huge.csr.ids | xargs)"
gx bfs huge.csr --source 18446744073709551615 -o huge_lv --device cpu; expect_rc "bfs --source 2^64-1" 0
[[ "$(u32s huge_lv)" == "0 1 2" ]] && pass "bfs --source 2^64-1: levels" || fail "bfs --source 2^64-1: levels" "$(u32s huge_lv)"
printf '18446744073709551616 0\n' >over.txt
gx graph build over.txt --renumber -o over.csr; expect_rc "an id of 2^64: exit 2" 2
err_mentions "an id of 2^64: refused" "over.txt:1:" "2^64 or more"
"${PY[@]}" -c '
import struct
open("huge.bin64", "wb").write(struct.pack("<4Q", 2**64 - 1, 0, 0, 2**40 - 1))
open("huge.bin32", "wb").write(struct.pack("<4I", 2**32 - 1, 0, 0, 7))'
gx graph build huge.bin64 -o hb.csr; expect_rc "bin64 id 2^64-1 without --renumber: exit 2" 2
gx graph build huge.bin64 --renumber -o hb.csr; expect_rc "bin64 with --renumber" 0
same_bytes "bin64 with --renumber: the same map as the text" hb.csr.ids huge.csr.ids
same_body "bin64 with --renumber: the same CSR as the text" hb.csr huge.csr
gx graph build huge.bin32 --renumber=sorted -o hb32.csr; expect_rc "bin32 0xFFFFFFFF with --renumber" 0
[[ "$(od -An -tu8 hb32.csr.ids | xargs)" == "0 7 4294967295" ]] && pass "bin32 with --renumber=sorted: the map" \
  || fail "bin32 with --renumber=sorted: the map" "$(od -An -tu8 hb32.csr.ids | xargs)"

# refusals before any work
gx graph build pmpp.txt --ids x.ids -o x.csr; expect_rc "--ids without --renumber: exit 2" 2
gx graph build pmpp.txt --renumber --resume -o x.csr; expect_rc "--renumber --resume: exit 2" 2
gx graph build pmpp.txt --renumber=other -o x.csr; expect_rc "--renumber=other: exit 2" 2
gx graph build pmpp.txt --renumber --ids x.csr -o x.csr; expect_rc "--ids naming the graph: exit 2" 2
gx graph build pmpp.txt --renumber --ids pmpp.txt -o x.csr; expect_rc "--ids naming the input: exit 2" 2
gx graph build pmpp.txt --renumber -o - >/dev/null; expect_rc "--renumber into stdout without --ids: exit 2" 2
[[ ! -e x.csr && ! -e x.csr.ids && -z "$(leftover_temps "$WORK")" ]] && pass "refusals: nothing written" || fail "refusals: nothing written" "$(ls)"
printf '0 1\n1 two\n' >bad2.txt
gx graph build bad2.txt --renumber -o bad2.csr; expect_rc "--renumber of a bad edge list: exit 2" 2
[[ ! -e bad2.csr && ! -e bad2.csr.ids && -z "$(leftover_temps "$WORK")" ]] && pass "--renumber of a bad edge list: nothing written" \
  || fail "--renumber of a bad edge list: nothing written" "$(ls)"
finish
