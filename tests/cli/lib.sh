# Common helpers of the gxsort CLI tests; sourced by tests/cli/test_*.sh.
#   usage: bash tests/cli/test_X.sh /path/to/gxsort
# Each case prints "PASS name", "FAIL name: why" or "SKIP name: why"; the script ends
# with "N passed, M failed[, K skipped]" and exits 1 if any case failed, 77 if every
# case was skipped, else 0.

set -u
GX=${1:-}
if [[ -z "$GX" ]]; then echo "usage: bash $0 /path/to/gxsort"; exit 2; fi
if [[ ! -x "$GX" ]]; then echo "SKIP: $GX is not an executable"; exit 77; fi
GX=$(cd "$(dirname "$GX")" && pwd)/$(basename "$GX")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: python3 is needed for the oracle"; exit 77; fi
# The interpreter itself (not a version-manager shim), isolated and without site
# packages: the oracle needs only the standard library, and starts much faster.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[[ -x "$PY" ]] || PY=$(command -v python3)
PY=("$PY" -I -S)
ORACLE=("${PY[@]}" "$HERE/oracle.py")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gxsort-cli.XXXXXX")
MOUNTS=()
cleanup() {
  local m j
  # A background gxsort a failed case left stopped (GXSORT_TEST_STOP_AT) or running.
  for j in $(jobs -p); do kill -9 "$j" 2>/dev/null; done
  for m in "${MOUNTS[@]+"${MOUNTS[@]}"}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  chmod -R u+rwx "$WORK" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# gxsort puts temporary runs in $TMPDIR: keep them inside the work dir, where the
# tests look for leftovers.
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
unset GXSORT_SKIP_SPACE_CHECK
cd "$WORK" || exit 2

NPASS=0 NFAIL=0 NSKIP=0
pass() { NPASS=$((NPASS + 1)); echo "PASS $1"; }
fail() { NFAIL=$((NFAIL + 1)); echo "FAIL $1: $2"; }
skip() { NSKIP=$((NSKIP + 1)); echo "SKIP $1: $2"; }

finish() {
  local line="$NPASS passed, $NFAIL failed"
  ((NSKIP > 0)) && line+=", $NSKIP skipped"
  echo "$line"
  ((NFAIL > 0)) && exit 1
  ((NPASS == 0 && NSKIP > 0)) && exit 77
  exit 0
}

oracle() { "${ORACLE[@]}" "$@"; }

# Runs gxsort, capturing stdout in $WORK/last.out, stderr in $WORK/last.err and the
# exit status in RC.
RC=0
gx() {
  "$GX" "$@" >"$WORK/last.out" 2>"$WORK/last.err"
  RC=$?
}
last_err() { tr '\n' '|' <"$WORK/last.err" | cut -c1-300; }

# Temp files (gxsort names all of them *.tmp) left in the given directories.
leftover_temps() { find "$@" -name '*.tmp*' 2>/dev/null; }
# The pieces resumable jobs keep for --resume (on signals and kill -9, by design) in the
# given directories: their .gxsort-job.<digest> directories and .gxsort-job.<digest>.out
# outputs beside their targets.
job_pieces() { find "$@" -maxdepth 1 -name '.gxsort-job.*' 2>/dev/null; }

# same_bytes NAME GOT EXPECTED: byte-for-byte comparison as one case.
same_bytes() {
  if [[ ! -f "$2" ]]; then fail "$1" "no output file $2 (rc=$RC: $(last_err))"
  elif cmp -s "$2" "$3"; then pass "$1"
  else fail "$1" "$(cmp "$2" "$3" 2>&1 | head -1) (sizes $(stat -c %s "$2") vs $(stat -c %s "$3"))"
  fi
}

# expect_rc NAME WANT: the last gx call exited with WANT.
expect_rc() {
  if [[ "$RC" == "$2" ]]; then pass "$1"; else fail "$1" "exit $RC, expected $2 (stderr: $(last_err))"; fi
}

# One line on stderr of the form "gxsort: ..." that contains every given text.
err_mentions() {
  local name=$1; shift
  local lines; lines=$(grep -c . "$WORK/last.err")
  if [[ "$lines" != 1 ]]; then fail "$name" "expected one line on stderr, got $lines: $(last_err)"; return; fi
  if ! grep -q '^gxsort: ' "$WORK/last.err"; then fail "$name" "stderr does not start with 'gxsort: ': $(last_err)"; return; fi
  local t
  for t in "$@"; do
    if ! grep -qiF -- "$t" "$WORK/last.err"; then fail "$name" "stderr does not mention '$t': $(last_err)"; return; fi
  done
  pass "$name"
}

# python3 one-liner on the JSON of a file: json_get FILE EXPR (EXPR uses `j`).
json_get() { "${PY[@]}" -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# flip_byte FILE OFFSET: the byte at OFFSET inverted (a damage that always changes it).
flip_byte() {
  local b; b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
is_root() { [[ $(id -u) == 0 ]]; }

# try_mount DIR OPTIONS: mounts a tmpfs at DIR (root only); 0 on success.
try_mount() {
  mkdir -p "$1"
  is_root || return 1
  mount -t tmpfs -o "$2" tmpfs "$1" 2>/dev/null || return 1
  MOUNTS+=("$1")
  return 0
}

# wait_stopped PID [SECONDS]: until PID has stopped itself where GXSORT_TEST_STOP_AT=POINT
# said (io/temp_files.hpp: a test hook), every thread of it, so that the test acts at
# that point however fast or loaded the machine. 1 if it ended first; after SECONDS
# (60) it is killed (-9: a process stopped later would never end) and 1 returned.
# kill -CONT lets it go on; a signal sent meanwhile waits for that (SIGKILL does not).
wait_stopped() {
  local end=$((SECONDS + ${2:-60})) t st all
  while ((SECONDS < end)); do
    all=1
    for t in /proc/"$1"/task/*/stat; do
      read -r st 2>/dev/null <"$t" || continue  # a thread that ended meanwhile
      st=${st##*) }
      [[ ${st:0:1} == Z && $t == /proc/$1/task/$1/stat ]] && return 1
      [[ ${st:0:1} == [Tt] ]] || all=0
    done
    [[ -e /proc/$1 ]] || return 1
    ((all)) && return 0
    sleep 0.01
  done
  kill -9 "$1" 2>/dev/null
  return 1
}
# stopped_when PID TEST [SECONDS]: PID stops at each point of an every-time kind
# (GXSORT_TEST_STOP_AT=journal:KIND) and goes on (kill -CONT) until it has stopped with
# the shell command TEST true: 0, PID left stopped there (kill -9 or -CONT it); 1 if it
# ended first (or did not stop within SECONDS: killed, as wait_stopped).
stopped_when() {
  while wait_stopped "$1" "${3:-60}"; do
    eval "$2" && return 0
    kill -CONT "$1"
  done
  return 1
}
# go_on PID: lets a stopped PID go on to its end past every later stop (kill -CONT each
# time); then `wait PID` has its exit status.
go_on() { while kill -CONT "$1" 2>/dev/null && wait_stopped "$1" 120; do :; done; }
