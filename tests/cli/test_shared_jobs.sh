#!/usr/bin/env bash
# Resumable jobs in a shared directory (issue 35). A job's directory
# (.gxsort-job.<digest>) and its output beside a target (.gxsort-job.<digest>.out) have
# names anyone can compute; another user (nobody) plants entries of those names in a
# 1777 directory, and the victim (root, as CI runs) must never follow, enter, remove or
# trust them: it stops with one line naming the entry and its owner (exit 3), and
# nothing outside is touched. Also: the digest sees content changed with size and
# mtime put back (touch -r); a kill during merge level 1 is not reported as damaged
# runs; a resumed `runs` leaves no manifest temp file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$HERE/other_user.sh"
need_other_user || finish

gx gen -o in.bin --count $((2 * 1024 * 1024)) --seed 21 -q   # 16 MiB
gx sort in.bin -o ref.bin -q
# --device cpu: the plan's shape (run sizes) is the CPU backend's on any machine.
SORT=(sort in.bin -o out.bin --memory 8M --ooc merge --fan-in 4 -T "$SHARED" --device cpu)   # 8 runs, two merge levels
gx plan "${SORT[@]:1}" --json
[[ $(json_get "$WORK/last.out" '(j["runs"], len(j["levels"]))') == "(8, 2)" ]] && pass "the job has 8 runs and two merge levels" ||
  fail "the job's plan" "$(cat "$WORK/last.out")"

# error_line NAME TEXT...: err_mentions on stderr without the notes of the leftover
# scan (which lists what the killed runs here left, and what is planted).
error_line() {
  grep -v '^gxsort: note: ' "$WORK/last.err" >"$WORK/last.err.lines"
  mv "$WORK/last.err.lines" "$WORK/last.err"
  err_mentions "$@"
}

# job_of DIR CMD...: the name of the job directory CMD makes in DIR (a digest of public
# facts: what another user computes). CMD runs until its last merge journals its first
# checkpoint, stops itself there (a test hook) and is killed (-9): its pieces are left
# in DIR/<name>, its output beside its target.
job_of() {
  local dir=$1 name="" pid
  shift
  GXSORT_TEST_STOP_AT=journal:final "$GX" "$@" -q 2>/dev/null &
  pid=$!
  if wait_stopped $pid; then
    name=$(cd "$dir" && find . -maxdepth 1 -type d -name '.gxsort-job.*' -printf '%f\n' | head -1)
    [[ -n $name ]] && grep -q '^final ' "$dir/$name/journal" 2>/dev/null || name=""
  fi
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  echo "$name"
}
# kill_when_true TEST CMD...: runs CMD in the background and kills it (-9) once the
# shell command TEST succeeds (polled: CMD is held in that state, 60 s at most); 0 when
# it was killed so.
kill_when_true() {
  local test=$1 pid end=$((SECONDS + 60))
  shift
  "$@" 2>/dev/null &
  pid=$!
  while ((SECONDS < end)); do
    if eval "$test" 2>/dev/null; then kill -9 $pid; wait $pid 2>/dev/null; return 0; fi
    kill -0 $pid 2>/dev/null || break
    sleep 0.01
  done
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  return 1
}
# forget_job DIR NAME TARGET-DIR: what job_of left goes (as root: the test's cleanup).
forget_job() { rm -rf "${1:?}/$2" "$3/$2.out"; }
# A directory of the victim's, with files at two depths, and its fingerprint.
mkdir -p victim/sub T
for f in a b sub/c; do head -c 100000 /dev/urandom >"victim/$f"; done
fingerprint() { (cd "$1" && find . -printf '%p %y %U %s %m\n' | sort; find . -type f -exec md5sum {} + | sort); }
VICTIM=$(fingerprint victim)
victim_intact() {  # NAME
  [[ $(fingerprint victim) == "$VICTIM" ]] && pass "$1: the victim's files untouched" || fail "$1: victim's files" "$(find victim | sort)"
}

JOB=$(job_of "$SHARED" "${SORT[@]}")
if [[ -z $JOB ]]; then
  fail "the job's name" "the sort ended before its last merge journalled a checkpoint"
  finish
fi
pass "the job's name is known in advance ($JOB)"
forget_job "$SHARED" "$JOB" .

# planted_output_cases PREFIX KEPT LINK_TO TARGET SORT...: nobody plants a link to
# LINK_TO, then a file of theirs, at a job's output KEPT beside TARGET; SORT (with and
# without --resume, then --resume) stops (exit 3) with one line naming it and its owner,
# writes through nothing, leaves the entry as it is and nothing else. KEPT is gone after.
planted_output_cases() {
  local prefix=$1 kept=$2 link_to=$3 target=$4 resume name
  shift 4
  as_other ln -s "$link_to" "$kept"
  for resume in "" --resume; do
    name="${prefix}a link planted at the job's output beside the target, sort ${resume:-(no --resume)}"
    gx "$@" $resume
    expect_rc "$name: stops (exit 3)" 3
    error_line "$name: one line naming it and its owner" "$kept" "symbolic link" "owned by nobody"
    victim_intact "$name"
    [[ -L $kept && ! -e $target && -z $(job_pieces T) && -z $(leftover_temps "$SHARED" T) ]] &&
      pass "$name: the link left as it is, nothing else left" || fail "$name: leftovers" "$(ls -la "$SHARED" T)"
  done
  rm -f "$kept"
  as_other sh -c "head -c 1000000 /dev/zero >'$kept'"
  gx "$@" --resume
  expect_rc "${prefix}a file of nobody's at the job's output: --resume stops (exit 3)" 3
  error_line "${prefix}a file of nobody's at the job's output: one line naming it" "$kept" "owned by nobody"
  [[ $(owner_of "$kept") == nobody && $(stat -c %s "$kept") == 1000000 ]] &&
    pass "${prefix}a file of nobody's at the job's output: left as it is" || fail "${prefix}nobody's output file" "$(ls -la "$SHARED")"
  rm -f "$kept"
}

# 1. A link at the job's name to a directory full of the victim's files.
as_other ln -s "$WORK/victim" "$SHARED/$JOB"
for resume in "" --resume; do
  name="a link planted at the job's name, sort ${resume:-(no --resume)}"
  rm -f out.bin
  gx "${SORT[@]}" $resume
  expect_rc "$name: stops (exit 3)" 3
  error_line "$name: one line naming the entry and its owner" "$SHARED/$JOB" "symbolic link" "owned by nobody"
  victim_intact "$name"
  [[ -L $SHARED/$JOB && ! -e out.bin ]] && pass "$name: the link left as it is, no output" || fail "$name: link kept" "$(ls -la "$SHARED")"
done
rm -f out.bin
TMPDIR="$SHARED" "$GX" "${SORT[@]:0:10}" --device cpu >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
expect_rc "a link planted at the job's name, TMPDIR the shared directory: stops (exit 3)" 3
error_line "TMPDIR the shared directory: one line naming the entry" "$SHARED/$JOB" "owned by nobody"
victim_intact "TMPDIR the shared directory"
gx plan "${SORT[@]:1}" --resume
expect_rc "plan --resume with a link planted at the job's name: refused (exit 3)" 3
error_line "plan --resume: one line naming the planted entry" "$SHARED/$JOB" "owned by nobody"
victim_intact "plan --resume"
rm -f "$SHARED/$JOB"

# 2. A job directory made by nobody at the victim's job name, whose journal's checksums
# match its pieces (the pieces of a sort of another input, as another user crafts
# them): never resumed from, never emptied.
gx gen -o evil.bin --count $((2 * 1024 * 1024)) --seed 99 -q
EVIL=$(job_of "$SHARED" sort evil.bin -o evil_out.bin --memory 8M --ooc merge --fan-in 4 -T "$SHARED")
if [[ -n $EVIL ]]; then
  cp -r "$SHARED/$EVIL" crafted && chmod -R a+rX crafted
  forget_job "$SHARED" "$EVIL" .
  as_other cp -r crafted "$SHARED/$JOB"
  as_other chmod 700 "$SHARED/$JOB"
  PLANTED=$(fingerprint "$SHARED/$JOB")
  for resume in --resume ""; do
    name="another user's job directory at the job's name, sort ${resume:-(no --resume)}"
    rm -f out.bin
    gx "${SORT[@]}" $resume -v
    expect_rc "$name: stops (exit 3)" 3
    error_line "$name: one line naming it and its owner" "$SHARED/$JOB" "owned by nobody"
    [[ ! -e out.bin ]] && ! grep -q 'resumed:' "$WORK/last.err" && pass "$name: nothing of it used" || fail "$name: used" "$(last_err)"
    [[ $(fingerprint "$SHARED/$JOB") == "$PLANTED" ]] && pass "$name: left as it was" || fail "$name: changed" "$(ls -la "$SHARED/$JOB")"
  done
  rm -rf "${SHARED:?}/$JOB"
else
  fail "another user's job directory" "the sort of evil.bin ended before its last merge journalled a checkpoint"
fi

# 3. A link planted at the job's output beside a target in the shared directory (and a
# file of nobody's there): never written through, replaced or trusted.
SORT3=(sort in.bin -o "$SHARED/out.bin" --memory 8M --ooc merge --fan-in 4 -T T --device cpu)
JOB3=$(job_of T "${SORT3[@]}")
if [[ -n $JOB3 ]]; then
  forget_job T "$JOB3" "$SHARED"
  planted_output_cases "" "$SHARED/$JOB3.out" "$WORK/victim/a" "$SHARED/out.bin" "${SORT3[@]}"
  gx "${SORT3[@]}"
  same_bytes "the same sort without a planted entry: the bytes of a plain sort" "$SHARED/out.bin" ref.bin
  rm -f "$SHARED/out.bin"
else
  fail "a link at the job's output" "the sort ended before its last merge journalled a checkpoint"
fi

# 4. The victim's own entry at the job's name that others may write to (a 0777
# directory), and a -T directory others may write to without the sticky bit.
mkdir "$SHARED/$JOB" && chmod 0777 "$SHARED/$JOB"
as_other touch "$SHARED/$JOB/theirs"
gx "${SORT[@]}" --resume
expect_rc "a 0777 directory at the job's name: stops (exit 3)" 3
error_line "a 0777 directory at the job's name: one line naming it" "$SHARED/$JOB" "writable by other users"
[[ -e $SHARED/$JOB/theirs && ! -e out.bin ]] && pass "a 0777 directory at the job's name: left as it is" || fail "0777 job dir" "$(ls -la "$SHARED/$JOB")"
rm -rf "${SHARED:?}/$JOB"
# There (a group's project directory often is one) the sort runs as a job that cannot
# resume, its pieces private temp files, and says so; --resume is refused.
mkdir open && chmod 0777 open
gx sort in.bin -o out.bin --memory 8M --ooc merge --fan-in 4 -T open
expect_rc "a -T directory others may write to, no sticky bit: sorts (exit 0)" 0
same_bytes "a -T directory others may write to: the bytes of a plain sort" out.bin ref.bin
grep -q "note: .*open.*keeps no pieces" "$WORK/last.err" && pass "a -T directory others may write to: a note says the job cannot resume" \
  || fail "-T open note" "$(last_err)"
[[ -z $(ls -A open) ]] && pass "a -T directory others may write to: nothing left there" || fail "-T open" "$(ls -A open)"
rm -f out.bin
gx sort in.bin -o out.bin --memory 8M --ooc merge --fan-in 4 -T open --resume
expect_rc "a -T directory others may write to, --resume: refused (exit 3)" 3
error_line "a -T directory others may write to, --resume: one line naming it" "open" "sticky"
[[ -z $(ls -A open) && ! -e out.bin ]] && pass "a -T directory others may write to, --resume: nothing left there" || fail "-T open --resume" "$(ls -A open)"

# 5. Content changed with size and mtime put back (touch -r): another job (the digest
# covers ctime and the inode), so the stale pieces are never reused.
JOB=$(job_of "$SHARED" "${SORT[@]}")
if [[ -n $JOB ]]; then
  touch -r in.bin stamp
  flip_byte in.bin 4000000
  touch -r stamp in.bin
  gx sort in.bin -o ref2.bin -q
  if cmp -s ref.bin ref2.bin; then fail "touch -r: the changed input sorts differently" "same bytes"; fi
  gx "${SORT[@]}" --resume -v
  expect_rc "touch -r: --resume exits 0" 0
  same_bytes "touch -r: --resume gives the sort of the changed input" out.bin ref2.bin
  [[ $(grep -o 'resumed: .*' "$WORK/last.err") =~ resumed:\ 0\ of\ 8\ runs,\ 0\ of\ 2\ merge ]] &&
    pass "touch -r: nothing of the killed run reused" || fail "touch -r: reuse" "$(last_err)"
  [[ -z $(job_pieces "$SHARED" .) ]] && pass "touch -r: the stale job's pieces removed" || fail "touch -r: leftovers" "$(job_pieces "$SHARED" .)"
  cp ref2.bin ref.bin
else
  fail "touch -r" "the sort ended before its last merge journalled a checkpoint"
fi

# 6. Killed during merge level 1 (it stops itself after each merge output is journalled,
# a test hook: killed after the first's, its inputs read and punched): the resume forms
# those runs again without calling them damaged.
rm -f out.bin
SORT6=(sort in.bin -o out.bin --memory 8M --ooc merge --fan-in 4 -T T --device cpu)
GXSORT_TEST_STOP_AT=journal:level "$GX" "${SORT6[@]}" -q 2>/dev/null &
PID=$!
if stopped_when $PID "grep -q '^level 1 0 ' T/.gxsort-job.*/journal"; then
  kill -9 $PID; wait $PID 2>/dev/null
  gx "${SORT6[@]}" --resume -v
  expect_rc "killed during merge level 1: --resume exits 0" 0
  same_bytes "killed during merge level 1: --resume gives the bytes of a plain sort" out.bin ref.bin
  ! grep -q 'discarded' "$WORK/last.err" && pass "killed during merge level 1: no run the merge consumed reported as damaged" ||
    fail "level 1 kill: discarded notes" "$(last_err)"
  [[ $(grep -o 'resumed: .*' "$WORK/last.err") == "resumed: 4 of 8 runs, 1 of 2 merge outputs" ]] &&
    pass "killed during merge level 1: the merge output and the runs it did not consume reused" || fail "level 1 reuse" "$(last_err)"
else
  wait $PID 2>/dev/null
  fail "killed during merge level 1" "the sort ended before the first merge of level 1 was journalled"
fi

# 7. `runs` killed with its manifest written and not yet committed (its --stats-json, a
# FIFO no one reads, holds it there), then resumed: no manifest temp file left.
mkfifo stats.fifo
kill_when_true "[[ -n \$(find R -name '*manifest*.tmp') ]]" "$GX" runs in.bin -o R --memory 8M --stats-json stats.fifo -q
killed=$?
rm -f stats.fifo "$TMPDIR"/.gxsort.*stats*.tmp
if ((killed == 0)); then
  gx runs in.bin -o R --memory 8M --resume -v
  expect_rc "runs killed before its manifest's commit: --resume exits 0" 0
  [[ $(grep -o 'resumed: .*' "$WORK/last.err") =~ ^resumed:\ ([0-9]+)\ of\ ([0-9]+)\ runs$ && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] &&
    pass "runs --resume: every run reused" || fail "runs reuse" "$(last_err)"
  left=$(ls -A R | grep -v '^run-[0-9]*\.bin$' | grep -v '^manifest\.txt$')
  [[ -z $left ]] && pass "runs --resume: no manifest temp file (nor anything else) left" || fail "runs --resume: leftovers" "$left"
else
  fail "runs killed before its manifest's commit" "the command ended before its manifest temp file appeared"
fi
# 8. A sort of lines keeps its last merge's output beside its target as records do
# (.gxsort-job.<digest>.out): a link or a file of nobody's planted there is never written
# through, replaced or trusted.
source "$HERE/lines_jobs.sh"
resume_text 5
LSORT=(sort --lines in.txt -o "$SHARED/lines.out" --memory 1M -T T --threads 4)
GXSORT_TEST_STOP_AT=journal:part "$GX" "${LSORT[@]}" -q 2>/dev/null &
PID=$!
LJOB=""
if wait_stopped $PID; then
  LJOB=$(cd T && find . -maxdepth 1 -type d -name '.gxsort-job.*' -printf '%f\n' | head -1)
  [[ -n $LJOB ]] && grep -q '^part ' "T/$LJOB/journal" 2>/dev/null || LJOB=""
fi
kill -9 $PID 2>/dev/null; wait $PID 2>/dev/null
if [[ -n $LJOB && -e $SHARED/$LJOB.out ]]; then
  forget_job T "$LJOB" "$SHARED"
  find . T "$SHARED" -maxdepth 1 -name ".gxsort.*.$PID.*.tmp" -delete
  planted_output_cases "lines: " "$SHARED/$LJOB.out" "$WORK/victim/b" "$SHARED/lines.out" "${LSORT[@]}"
  LC_ALL=C sort in.txt >lines.ref
  gx "${LSORT[@]}"
  same_bytes "lines: the same sort without a planted entry: GNU sort's bytes" "$SHARED/lines.out" lines.ref
  rm -f "$SHARED/lines.out"
else
  fail "lines: the job's output beside the target" "the sort ended before its last merge journalled a part, or kept no output ($LJOB)"
fi
finish
