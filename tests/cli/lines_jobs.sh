# Helpers of the tests that kill and resume sorts of lines (test_lines_resume*.sh);
# sourced after lib.sh, in the test's $WORK with a T/ temp directory.

# resume_text SEED: in.txt, 120000 CSV-like lines (a word, a number, the word reversed).
resume_text() {
  "${PY[@]}" -c '
import random, sys
r = random.Random(int(sys.argv[1]))
with open("in.txt", "w") as f:
    for i in range(120000):
        w = "".join(r.choice("abcdefgh") for _ in range(r.randint(1, 12)))
        f.write("%s,%d,%s\n" % (w, r.randint(-500, 500), w[::-1]))
' "$1"
}

journal() { cat T/.gxsort-job.*/journal 2>/dev/null; }
journalled() { journal | grep -c "^$1 "; }  # KIND: the journal's entries of that kind

# stop_after_journalled KIND N SIGNAL ARGS...: the sort (ARGS) stopped after its Nth
# journalled KIND (run, part) and sent SIGNAL there (KILL, or TERM: let go on to die of
# it); its exit status in RC, the entries of KIND journalled by then in KEPT.
stop_after_journalled() {
  local kind=$1 n=$2 sig=$3; shift 3
  GXSORT_TEST_STOP_AT=journal:$kind "$GX" "$@" 2>"$WORK/last.err" &
  local pid=$!
  if ! stopped_when "$pid" "((\$(journalled $kind) >= $n))"; then
    wait "$pid"; RC=$?
    fail "stopped after $n ${kind}s" "the sort ended (exit $RC) first: $(last_err)"; return 1
  fi
  kill -s "$sig" "$pid"
  [[ $sig == KILL ]] || go_on "$pid"
  wait "$pid" 2>/dev/null; RC=$?
  KEPT=$(journalled "$kind")  # after SIGTERM, a piece the signal found written is journalled too
  # What a kill -9 leaves besides the job (its output's temp file, its list of temp
  # directories) is `gxsort clean`'s: removed here by the dead process's id.
  [[ $sig == KILL ]] && find . -name ".gxsort.*.$pid.*.tmp" -delete
  return 0
}
