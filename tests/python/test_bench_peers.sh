# tools/bench/python_peers.py's tiny mode (issue 37): it runs against the Python package,
# prints a row for each job (the device ones timed or skipped with a reason), every gxsort
# result equal to its peers', and exits 1 when a result is not.
#   GXSORT_PYTHON=PYTHON bash tests/python/test_bench_peers.sh PYTHON   (tools/python-test.sh runs it)
# PYTHON: an interpreter that imports gxsort (the venv of tools/python-test.sh, or any
# python with PYTHONPATH=BUILD/python); without one the script skips (exit 77).
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh" "$@"
ROOT=$(cd "$HERE/../.." && pwd)
PEERS=$ROOT/tools/bench/python_peers.py

if [[ -z ${GXSORT_PYTHON:-} ]]; then
  echo "SKIP: GXSORT_PYTHON is not set (a python that imports gxsort, e.g. BUILD/venv/bin/python of tools/python-test.sh)"
  exit 77
fi
if ! "$GXSORT_PYTHON" -c "import gxsort" >import.err 2>&1; then
  echo "SKIP: GXSORT_PYTHON=$GXSORT_PYTHON cannot import gxsort: $(tail -1 import.err)"
  exit 77
fi

"$GXSORT_PYTHON" "$PEERS" --tiny --tmp "$WORK" --json peers.json >peers.txt 2>&1
RC=$?
expect_rc "python_peers.py --tiny: exits 0" 0
# rows JOB: the number of rows of JOB in the table; table_rows FILE: of all jobs.
rows() { grep -c "^| $1 |" peers.txt; }
table_rows() { grep '^| ' "$1" | grep -vc '^| job |'; }
[[ $(rows "u64 sort, numpy array") == 2 && $(rows "16-byte records by 2 u64 keys") == 2 &&
   $(rows "u64 unique (~8 copies each), numpy") == 1 ]] && pass "python_peers.py --tiny: a row for each host job and peer" ||
  fail "host rows" "$(cat peers.txt)"
[[ $(grep "^| \(u64 sort, numpy array\|16-byte records by 2 u64 keys\|u64 unique (~8 copies each), numpy\) |" peers.txt |
     grep -c '| equal |$') == 5 ]] &&
  pass "python_peers.py --tiny: every host result equals numpy's" || fail "host results" "$(cat peers.txt)"
[[ $(rows "u64 sort, numpy array, per call") == 4 &&
   $(grep "^| u64 sort, numpy array, per call |" peers.txt | grep -c '| equal |$') == 4 ]] &&
  pass "python_peers.py --tiny: per-call rows of four sizes, equal to np.sort's" || fail "per-call rows" "$(cat peers.txt)"
grep -q "^| u64 memmap sort, budgets 16 MiB | 64 MiB | [0-9.]* | .*output sorted, the input's values |$" peers.txt &&
  pass "python_peers.py --tiny: the memmap over its budget sorted" || fail "memmap row" "$(cat peers.txt)"
# Device jobs: timed where cupy/torch and a GPU are there, else a row that says why.
[[ $(rows "u64 sort, CuPy array") -ge 1 && $(rows "int64 sort, torch CUDA tensor") -ge 1 &&
   $(rows "u64 unique (~8 copies each), CuPy") -ge 1 && $(grep -c "^| u64 sort in place, CuPy array of" peers.txt) == 1 &&
   $(rows "u64 sort, CuPy array, per call") -ge 1 ]] &&
  pass "python_peers.py --tiny: a row for each device job" || fail "device rows" "$(cat peers.txt)"
! grep -q "DIFFERS\|FAILED\|NOT SORTED\|VALUES DIFFER\|TEMP FILES LEFT" peers.txt &&
  pass "python_peers.py --tiny: no result differs, no gxsort call failed" || fail "results" "$(cat peers.txt)"
[[ $(json_get peers.json "len(j['rows'])") == $(table_rows peers.txt) &&
   $(json_get peers.json "all(r['peer_over_gxsort'] > 0 for r in j['rows'] if r['result'] == 'equal')") == True ]] &&
  pass "python_peers.py --json: the table's rows, with their ratios" || fail "json" "$(cat peers.json)"
[[ -z $(find "$WORK" -name 'gxsort-pypeers.*') && -z $(leftover_temps "$WORK") ]] &&
  pass "python_peers.py --tiny: no file left in --tmp" || fail "leftovers" "$(find "$WORK" -name 'gxsort-pypeers.*' -o -name '*.tmp*')"

"$GXSORT_PYTHON" "$PEERS" --tiny --only records >only.txt 2>&1
RC=$?
expect_rc "python_peers.py --only records: exits 0" 0
[[ $(table_rows only.txt) == 2 && $(grep -c '^| 16-byte records' only.txt) == 2 ]] &&
  pass "python_peers.py --only records: its rows alone" || fail "--only rows" "$(cat only.txt)"
"$GXSORT_PYTHON" "$PEERS" --tiny --only nothing >only.txt 2>&1
RC=$?
expect_rc "python_peers.py --only nothing: a usage error (exit 2)" 2

# A gxsort whose sort gives a wrong order: the bench says so and exits 1.
"$GXSORT_PYTHON" - "$PEERS" >broken.txt 2>&1 <<'PY'
import runpy, sys
import gxsort
right = gxsort.sort
gxsort.sort = lambda a, *args, **kw: right(a, *args, **kw)[::-1].copy()
sys.argv = [sys.argv[1], "--tiny", "--only", "sort"]
runpy.run_path(sys.argv[0], run_name="__main__")
PY
RC=$?
expect_rc "python_peers.py with a wrong gxsort.sort: exits 1" 1
[[ $(grep -c '^| u64 sort, numpy array .*| DIFFERS |$' broken.txt) == 2 ]] && grep -q "^python_peers.py: .*differs" broken.txt &&
  pass "python_peers.py with a wrong gxsort.sort: DIFFERS rows and a line on stderr" || fail "wrong sort" "$(cat broken.txt)"
finish
