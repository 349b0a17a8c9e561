#!/usr/bin/env bash
# graph build's inputs through the binary: compressed edge lists refused by name, header
# lines (--skip-header), .npy outputs of bfs, and --renumber.
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

# ---- compressed edge lists: refused by name, exit 2, nothing written ----
"${PY[@]}" -c '
import bz2, gzip, lzma, struct
text = open("pmpp.txt", "rb").read()
pairs = b"".join(struct.pack("<II", *map(int, l.split())) for l in text.decode().splitlines())
open("pmpp.txt.gz", "wb").write(gzip.compress(text, mtime=0))
open("pmpp.bin32", "wb").write(pairs)
open("pmpp.bin32.gz.bin32", "wb").write(gzip.compress(pairs, mtime=0))
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
refused_compressed "gzip snap" pmpp.txt.gz "a gzip" zcat
refused_compressed "gzip as --input-format snap" pmpp.txt.gz "a gzip" zcat --input-format snap
refused_compressed "gzip bin32" pmpp.bin32.gz.bin32 "a gzip" zcat
refused_compressed "gzip as bin64" pmpp.txt.gz "a gzip" zcat --input-format bin64
refused_compressed "gzip as mtx" pmpp.txt.gz "a gzip" zcat --input-format mtx
refused_compressed "xz snap" pmpp.txt.xz "an xz" xzcat
refused_compressed "bzip2 snap" pmpp.txt.bz2 "a bzip2" bzcat
refused_compressed "zstd snap" pmpp.txt.zst "a zstd" zstdcat
gx graph build - -o c.csr <pmpp.txt.gz; expect_rc "gzip on stdin: exit 2" 2
err_mentions "gzip on stdin: named" "stdin: a gzip-compressed file; decompress it first (zcat | gxsort graph build - ...)"
[[ ! -e c.csr ]] && pass "gzip on stdin: nothing written" || fail "gzip on stdin: nothing written" "$(ls)"
gx graph build <(cat pmpp.txt.gz) -o c.csr; expect_rc "gzip through a pipe: exit 2" 2
printable_err "gzip through a pipe: no raw bytes in the message"
gx graph build <("${PY[@]}" -c 'import gzip,sys; sys.stdout.buffer.write(gzip.decompress(open("pmpp.txt.gz","rb").read()))') \
  -o unzipped.csr; expect_rc "decompressed through a pipe: builds" 0
same_bytes "decompressed through a pipe: the same CSR" unzipped.csr pmpp.csr
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
finish
