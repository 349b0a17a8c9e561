#!/usr/bin/env bash
# Files a shell hands gxsort: "-" and pipes, FIFOs, process substitution and /proc files
# as inputs (in and out of core, every reading command); "-", devices, FIFOs and
# symlinks as outputs; in-place sorts that keep mode, owner and hard links; -o naming a
# directory; --stats-json naming an input or an output; an output naming an input of
# bfs or graph build; standard input named twice; a closed standard output.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

no_temps() {  # NAME
  local l; l=$(leftover_temps "$WORK")
  [[ -z "$l" ]] && pass "$1: no temp files left" || fail "$1: no temp files left" "$(echo $l)"
}

# ---- streams in: every format, in memory and out of core, against the oracle ----
stream_case() {  # TAG COUNT DIST MEMORY FORMAT...
  local tag=$1 n=$2 dist=$3 mem=$4; shift 4
  rm -f in.bin exp.bin out*.bin uexp.bin
  oracle gen -o in.bin --count "$n" --seed 7 --dist "$dist" --expect exp.bin "$@"
  "$GX" sort - -o out1.bin --memory "$mem" -q "$@" <in.bin; RC=$?
  expect_rc "$tag: sort - (a file on stdin is read whole)" 0
  same_bytes "$tag: sort - equals the oracle" out1.bin exp.bin
  cat in.bin | "$GX" sort - -o out2.bin --memory "$mem" -q "$@"; RC=$?
  expect_rc "$tag: cat | sort - exits 0" 0
  same_bytes "$tag: cat | sort - equals the oracle" out2.bin exp.bin
  cat in.bin | "$GX" sort /dev/stdin -o - --memory "$mem" -q "$@" >out3.bin; RC=$?
  same_bytes "$tag: cat | sort /dev/stdin -o - equals the oracle" out3.bin exp.bin
  "$GX" sort <(cat in.bin) -o out4.bin --memory "$mem" -q "$@"; RC=$?
  same_bytes "$tag: sort <(cat) equals the oracle" out4.bin exp.bin
  # The synced output written at most a page ahead of the disk.
  cat in.bin | GXSORT_OUTPUT_BACKLOG=4K "$GX" sort - -o out6.bin --memory "$mem" -q "$@"; RC=$?
  same_bytes "$tag: cat | sort - -o FILE, the output a page ahead of the disk, equals the oracle" out6.bin exp.bin
  oracle dedupe in.bin -o uexp.bin "$@"
  cat in.bin | "$GX" sort - -u -o out5.bin --memory "$mem" -q "$@"; RC=$?
  same_bytes "$tag: cat | sort -u - equals the oracle's dedupe" out5.bin uexp.bin
  [[ ! -e - ]] && pass "$tag: no file named '-'" || fail "$tag: no file named '-'" "exists"
  no_temps "$tag"
}
stream_case "u64 in memory" 20000 random 64M --type u64
stream_case "u64 out of core (1M)" 300000 dups 1M --type u64
stream_case "f32 NaNs and zeros out of core" 200000 special 1M --type f32
stream_case "24-byte records, i32 key, out of core" 100000 dups 1M --record-size 24 --key-offset 4 --key-type i32
stream_case "gensort out of core" 30000 random 1M --format gensort
stream_case "empty stream" 0 random 1M --type u64

# A FIFO: its writer starts before and after gxsort opens it.
oracle gen -o in.bin --count 100000 --seed 3 --expect exp.bin
rm -f ff; mkfifo ff
(cat in.bin >ff) &
gx sort ff -o fifo_out.bin --memory 1M -q
wait
expect_rc "sort FIFO: exit 0" 0
same_bytes "sort FIFO (out of core): the whole stream sorted" fifo_out.bin exp.bin

# gen -o - | sort - -o - | check -: in and out of core, CPU and (where built) GPU.
for mem in 64M 1M; do
  for dev in cpu auto; do
    out=$("$GX" gen -o - --count 300000 --seed 9 -q | "$GX" sort - -o - --memory $mem --device $dev -q | "$GX" check - 2>&1)
    if grep -q "records: 300000" <<<"$out" && grep -q "sorted: yes" <<<"$out"; then pass "gen | sort - -o - | check - (--memory $mem, --device $dev)"
    else fail "gen | sort - -o - | check - (--memory $mem, --device $dev)" "$(tr '\n' '|' <<<"$out")"; fi
  done
done

# Every command that reads: check, reduce, dedupe, merge, runs, graph build, bfs, plan.
oracle gen -o d.bin --count 50000 --seed 11 --dist dups --type u32
cat d.bin | gx check - --type u32
grep -q "records: 50000" "$WORK/last.out" && pass "check -: counts every record" || fail "check -" "$(tr '\n' '|' <"$WORK/last.out")"
x1=$(grep xxh3 "$WORK/last.out"); gx check d.bin --type u32
[[ -n $x1 && $x1 == "$(grep xxh3 "$WORK/last.out")" ]] && pass "check -: the same xxh3 as the file" || fail "check - xxh3" "$x1"
r1=$(cat d.bin | "$GX" reduce - --op sum --type u32); r2=$("$GX" reduce d.bin --op sum --type u32)
[[ -n $r1 && $r1 == "$r2" ]] && pass "reduce -: the file's sum" || fail "reduce -" "'$r1' vs '$r2'"
oracle dedupe d.bin -o dexp.bin --type u32
for strat in sort bitmap; do
  cat d.bin | "$GX" dedupe - -o dd.bin --strategy $strat --type u32 -q; RC=$?
  same_bytes "dedupe - --strategy $strat equals the oracle" dd.bin dexp.bin
done
oracle dedupe d.bin -o dcexp.bin --type u32 --count --keep last
cat d.bin | "$GX" dedupe - -o dc.bin --count --keep last --type u32 --memory 1M -q; RC=$?
same_bytes "dedupe - --count --keep last (out of core) equals the oracle" dc.bin dcexp.bin
"$GX" sort d.bin -o ds.bin --type u32 -q
cat ds.bin | "$GX" dedupe - -o da.bin --assume-sorted --type u32 -q; RC=$?
same_bytes "dedupe --assume-sorted - equals the oracle" da.bin dexp.bin
oracle merge ds.bin ds.bin -o mexp.bin --type u32
cat ds.bin | "$GX" merge - ds.bin -o m.bin --type u32 --memory 8M -q; RC=$?
same_bytes "merge - FILE equals the oracle (stdin first: ties to it)" m.bin mexp.bin
gx merge - - -o m2.bin --type u32 </dev/null
expect_rc "merge - -: refused" 2
# Standard input named twice in any spelling: refused before anything is read.
for pair in "- /dev/stdin" "/dev/stdin /dev/stdin" "/dev/fd/0 /proc/self/fd/0" "/proc/self/fd/0 -"; do
  read -r -a two <<<"$pair"
  cat ds.bin | "$GX" merge "${two[@]}" -o m2.bin --type u32 -q 2>"$WORK/last.err"; RC=$?
  expect_rc "merge $pair: refused (exit 2)" 2
  err_mentions "merge $pair: message" "standard input" "once"
done
[[ ! -e m2.bin ]] && pass "merge of stdin twice: no output" || fail "merge of stdin twice: no output" "exists"
rm -f ff2; mkfifo ff2
timeout 60 "$GX" merge ff2 ff2 -o m2.bin --type u32 2>"$WORK/last.err"; RC=$?   # opened, it would wait for a writer
expect_rc "merge FIFO FIFO: refused before opening it (exit 2)" 2
# A stream that never ends: a FIFO this shell holds open (fd 7) and never writes. A
# command that reads it waits until `timeout` ends it (exit 124).
mkfifo endless; exec 7<>endless
# -o is checked before a stream input is read.
mkdir -p adir
for out in adir nodir/m.bin; do
  want=2; [[ $out == nodir/* ]] && want=3
  timeout 60 "$GX" merge - ds.bin -o "$out" --type u32 -q 2>"$WORK/last.err" <endless; RC=$?
  expect_rc "merge - FILE -o $out: exit $want" "$want"
  [[ $RC != 124 ]] && pass "merge - FILE -o $out: refused before reading stdin (a stream that never ends)" \
    || fail "merge - FILE -o $out: refused before reading stdin" "it waited for stdin until killed"
done
cat d.bin | "$GX" runs - -o rd --type u32 --memory 1M -q; RC=$?
gx merge rd -o rm.bin --type u32 -q
same_bytes "runs - then merge equals sort" rm.bin ds.bin
printf '0 1\n1 2\n2 0\n' | "$GX" graph build - -o g.csr --input-format snap -q; RC=$?
expect_rc "graph build - (snap on stdin)" 0
# An output that is an input (or another output) of the command is refused before any
# work, for every command where it would destroy data: bfs and graph build write a
# different kind of file (sort, merge and dedupe rewrite their input in place).
cp g.csr gkeep.csr
gx bfs g.csr --source 0 -o g.csr
expect_rc "bfs G -o G: refused (exit 2)" 2
err_mentions "bfs G -o G: message" "g.csr" "input"
gx bfs g.csr --source 0 -o lv0.bin --parents ./g.csr
expect_rc "bfs G --parents ./G: refused (exit 2)" 2
cmp -s g.csr gkeep.csr && pass "bfs G -o G: the graph is untouched" || fail "bfs G -o G: the graph is untouched" "changed"
gx bfs g.csr --source 0 -o lv0.bin --parents par0.bin --stats-json par0.bin
expect_rc "bfs --stats-json naming --parents: refused (exit 2)" 2
err_mentions "bfs --stats-json naming --parents: message" "--stats-json" "par0.bin"
[[ ! -e lv0.bin && ! -e par0.bin ]] && pass "bfs --stats-json naming --parents: nothing written" || fail "bfs --stats-json naming --parents: nothing written" "$(ls lv0.bin par0.bin 2>&1)"
gx bfs g.csr --source 0 -o lv0.bin --parents lv0.bin
expect_rc "bfs -o F --parents F: refused (exit 2)" 2
printf '0 1\n1 2\n' >edges.txt; cp edges.txt edges.ref
gx graph build edges.txt -o edges.txt --input-format snap
expect_rc "graph build E -o E: refused (exit 2)" 2
cmp -s edges.txt edges.ref && pass "graph build E -o E: the edges are untouched" || fail "graph build E -o E: the edges are untouched" "changed"
gx bfs g.csr --source 0
grep -q "vertices reached 3" "$WORK/last.out" && pass "bfs of a graph built from stdin" || fail "bfs of a graph built from stdin" "$(last_err)"
cat g.csr | "$GX" bfs - --source 0 -o - >lv.bin 2>/dev/null; RC=$?
[[ $RC == 0 && $(od -An -tu4 lv.bin | tr -s ' ' | sed 's/^ //') == "0 1 2" ]] && pass "bfs - -o -: levels of a CSR on stdin" || fail "bfs - -o -" "rc $RC $(od -An -tu4 lv.bin)"
cat d.bin | gx plan - --type u32
expect_rc "plan -: exit 0" 0
grep -qi "cannot be known" "$WORK/last.out" && pass "plan -: says the size cannot be known" || fail "plan -" "$(tr '\n' '|' <"$WORK/last.out")"
# A /proc file: st_size says 0, the content is not empty.
want=$(wc -c </proc/version)
gx check /proc/version --record-size 1 --key-bytes 1
grep -q "records: $want" "$WORK/last.out" && pass "check /proc/version: every byte read ($want), not st_size's 0" || fail "check /proc/version" "$(tr '\n' '|' <"$WORK/last.out")"
# A stream that is not a whole number of records: exit 2, nothing written.
head -c 8003 /dev/urandom | "$GX" sort - -o part.bin -q 2>"$WORK/last.err"; RC=$?
expect_rc "sort - of 8003 bytes of u64: exit 2" 2
err_mentions "sort - of 8003 bytes: message" "stdin" "multiple"
[[ ! -e part.bin ]] && pass "sort - of 8003 bytes: no output" || fail "sort - of 8003 bytes: no output" "exists"
head -c $((1024 * 1024 * 3 + 5)) /dev/urandom | "$GX" sort - -o part.bin --memory 1M -q 2>"$WORK/last.err"; RC=$?
expect_rc "sort - of 3 MiB + 5 bytes, out of core: exit 2" 2
[[ ! -e part.bin ]] && pass "... no output" || fail "... no output" "exists"
no_temps "partial record in a stream"

# ---- outputs that are not regular files ----
oracle gen -o in.bin --count 20000 --seed 5 --expect exp.bin
gx sort in.bin -o - -q
cmp -s "$WORK/last.out" exp.bin && pass "-o -: the output on stdout" || fail "-o -" "differs"
[[ ! -e - ]] && pass "-o -: no file named '-'" || fail "-o -: no file named '-'" "exists"
"$GX" sort in.bin -o /dev/stdout -q >so.bin; RC=$?
same_bytes "-o /dev/stdout: written through to stdout" so.bin exp.bin
[[ -L /dev/stdout ]] && pass "-o /dev/stdout: /dev/stdout is still a symlink" || fail "-o /dev/stdout" "/dev/stdout replaced"
gx sort in.bin -o /dev/null -q
expect_rc "-o /dev/null: exit 0" 0
[[ -c /dev/null ]] && pass "-o /dev/null: still a character device" || fail "-o /dev/null" "replaced: $(ls -l /dev/null)"
# A character device made with mknod as an INPUT (root): read as a stream, never sized
# by st_size. /dev/null's twin (c 1 3) is an empty input (/dev/zero's would never end).
if is_root && mknod "$WORK/nullin" c 1 3 2>/dev/null; then
  gx sort nullin -o devsorted.bin -q
  expect_rc "sort a character device made by mknod (an empty one): exit 0" 0
  [[ -f devsorted.bin && ! -s devsorted.bin ]] && pass "sort a character device: an empty output" || fail "sort a character device: an empty output" "$(ls -l devsorted.bin 2>&1)"
  gx check nullin
  grep -q "records: 0" "$WORK/last.out" && pass "check a character device made by mknod: 0 records" || fail "check a character device" "$(tr '\n' '|' <"$WORK/last.out")"
  gx merge nullin ds.bin -o devm.bin --type u32 -q
  same_bytes "merge of a character device and a file: the file" devm.bin ds.bin
  [[ -c nullin ]] && pass "a character device input is left as it was" || fail "a character device input" "changed"
  rm -f nullin
else
  skip "a character device made by mknod as input" "needs root (mknod)"
fi
if is_root && mknod "$WORK/nulldev" c 1 3 2>/dev/null; then
  gx sort in.bin -o nulldev -q --memory 1M
  expect_rc "-o a character device made by mknod (out of core)" 0
  [[ -c nulldev ]] && pass "-o a character device: written through, not replaced" || fail "-o a character device" "replaced"
  rm -f nulldev
else
  skip "-o a character device made by mknod" "needs root (mknod)"
fi
rm -f fo; mkfifo fo
(cat fo >fifo_read.bin) &
gx sort in.bin -o fo -q
wait
same_bytes "-o FIFO: the reader gets the sorted output" fifo_read.bin exp.bin
[[ -p fo ]] && pass "-o FIFO: still a FIFO" || fail "-o FIFO" "replaced"
"$GX" sort in.bin -o /dev/fd/1 -q >fd1.bin; RC=$?
same_bytes "-o /dev/fd/1: written through" fd1.bin exp.bin
printf 'KEEP' >appended.bin
"$GX" sort in.bin -o /dev/stdout -q >>appended.bin; RC=$?
{ printf 'KEEP'; cat exp.bin; } >appended.exp
same_bytes "-o /dev/stdout >> FILE: appended, the file's old bytes kept" appended.bin appended.exp
"$GX" sort in.bin -o /dev/stdout -q | cat >piped.bin; RC=$?
same_bytes "-o /dev/stdout into a pipe" piped.bin exp.bin
if "${PY[@]}" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$WORK/sock" 2>/dev/null; then
  gx sort in.bin -o sock
  expect_rc "-o a socket: refused (exit 2)" 2
  err_mentions "-o a socket: message" "sock" "socket"
  [[ -S sock ]] && pass "-o a socket: left as it was" || fail "-o a socket" "replaced"
else
  skip "-o a socket" "cannot make a unix socket here"
fi
no_temps "device and FIFO outputs"

# ---- symlinks, modes, owners, hard links ----
cp in.bin target.bin; ln -sf target.bin link.bin
gx sort link.bin -o link.bin -q
[[ -L link.bin ]] && pass "-o SYMLINK: the link stays a link" || fail "-o SYMLINK" "replaced by a file"
same_bytes "-o SYMLINK: its target holds the sorted output" target.bin exp.bin
rm -f dangling_target.bin; ln -sf dangling_target.bin dangle.bin
gx sort in.bin -o dangle.bin -q
same_bytes "-o a dangling symlink: its target is created" dangling_target.bin exp.bin
cp in.bin private.bin; chmod 600 private.bin
gx sort private.bin -o private.bin -q
[[ $(stat -c %a private.bin) == 600 ]] && pass "in place: mode 600 kept" || fail "in place: mode kept" "$(stat -c %a private.bin)"
same_bytes "in place (mode 600): sorted" private.bin exp.bin
if is_root && id nobody >/dev/null 2>&1; then
  cp in.bin owned.bin; chown nobody owned.bin
  gx sort owned.bin -o owned.bin -q
  [[ $(stat -c %U owned.bin) == nobody ]] && pass "in place as root: the owner is kept" || fail "in place: owner kept" "$(stat -c %U owned.bin)"
else
  skip "in place as root: the owner is kept" "needs root and a user 'nobody'"
fi
cp in.bin linked.bin; ln -f linked.bin other_name.bin
ino=$(stat -c %i linked.bin)
gx sort linked.bin -o linked.bin --memory 1M -q
same_bytes "in place with a hard link: sorted" linked.bin exp.bin
same_bytes "in place with a hard link: the other name sees the sorted data" other_name.bin exp.bin
[[ $(stat -c %i linked.bin) == "$ino" && $(stat -c %h linked.bin) == 2 ]] && pass "in place with a hard link: same inode, 2 links" \
  || fail "in place with a hard link: inode kept" "inode $(stat -c %i linked.bin) vs $ino, links $(stat -c %h linked.bin)"
if ! is_root; then
  cp in.bin readonly.bin; chmod 444 readonly.bin
  gx sort in.bin -o readonly.bin
  expect_rc "-o a read-only file: exit 3, before any work" 3
  chmod 644 readonly.bin
else
  skip "-o a read-only file" "root may write any file"
fi
# A hard-linked target on a full file system: the room is reserved before a byte of it
# is rewritten, so it fails with the file as it was.
if try_mount "$WORK/small" size=3m; then
  head -c 1048576 /dev/urandom >small/linked.bin; ln small/linked.bin small/link2.bin; cp small/linked.bin linked.ref
  "$GX" gen -o big2.bin --count 262144 -q   # 2 MiB
  gx sort big2.bin -o small/linked.bin --tmp-dir "$WORK/tmp"
  expect_rc "hard-linked output on a full file system: exit 3" 3
  cmp -s small/linked.bin linked.ref && pass "... the file keeps its bytes" || fail "... the file keeps its bytes" "changed"
  [[ -z "$(ls -A small | grep -v '^link')" ]] && pass "... nothing else left there" || fail "... nothing left" "$(ls -A small)"
else
  skip "hard-linked output on a full file system" "needs root (tmpfs)"
fi
no_temps "symlinks, modes, hard links"

# ---- standard output closed: refused at once, before any work ----
timeout 60 "$GX" sort - -o - -q >&- 2>"$WORK/last.err" <endless; RC=$?
expect_rc "sort - -o - with stdout closed: exit 3" 3
err_mentions "sort - -o - with stdout closed: message" "stdout" "closed"
[[ $RC != 124 ]] && pass "sort -o - with stdout closed: refused before reading (a stream that never ends)" \
  || fail "sort -o - with stdout closed: refused before reading" "it waited for stdin until killed"
"$GX" sort in.bin -o - -q >&- 2>"$WORK/last.err"; RC=$?
expect_rc "sort FILE -o - with stdout closed: exit 3" 3
err_mentions "sort FILE -o - with stdout closed: refused at open (not a write error after the sort)" "stdout" "closed"
"$GX" sort in.bin -o /dev/stdout -q <&- >&- 2>"$WORK/last.err"; RC=$?
expect_rc "sort -o /dev/stdout with stdin and stdout closed: exit 3" 3
"$GX" gen -o - --count 10 -q >&- 2>"$WORK/last.err"; RC=$?
expect_rc "gen -o - with stdout closed: exit 3" 3
no_temps "closed stdout"

# ---- refused before any work ----
"$GX" gen -o big.bin --count 4000000 -q
mkdir -p adir
# Work would form runs: the sort stops itself at its first (GXSORT_TEST_STOP_AT, a test
# hook), where this catches it.
GXSORT_TEST_STOP_AT=run "$GX" sort big.bin -o adir --memory 1M >"$WORK/last.out" 2>"$WORK/last.err" &
PID=$!
if wait_stopped "$PID"; then
  kill -9 "$PID"; wait "$PID" 2>/dev/null; RC=$?
  fail "-o DIR: refused at once" "it formed a run first"
else
  wait "$PID"; RC=$?
  pass "-o DIR: refused at once (before its first run)"
fi
expect_rc "-o DIR: exit 2" 2
err_mentions "-o DIR: message" "adir" "directory"
cp in.bin keep.bin
gx sort keep.bin -o s.bin --stats-json keep.bin
expect_rc "--stats-json naming the input: exit 2" 2
cmp -s keep.bin in.bin && pass "--stats-json naming the input: the input is untouched" || fail "--stats-json naming the input" "input changed"
[[ ! -e s.bin ]] && pass "--stats-json naming the input: no output" || fail "--stats-json naming the input: no output" "exists"
gx sort keep.bin -o s.bin --stats-json s.bin
expect_rc "--stats-json naming the output: exit 2" 2
gx sort keep.bin -o s.bin --stats-json ./s.bin
expect_rc "--stats-json naming the output by another spelling: exit 2" 2
[[ ! -e s.bin ]] && pass "--stats-json naming the output by another spelling: no file" || fail "--stats-json ./s.bin" "s.bin exists"
gx dedupe big.bin -o adir --keep last --memory 1M
expect_rc "dedupe --keep last -o DIR: exit 2" 2
gx sort keep.bin -o s.bin --stats-json adir
expect_rc "--stats-json naming a directory: exit 2" 2
[[ ! -e s.bin ]] && pass "--stats-json naming a directory: no output" || fail "--stats-json naming a directory: no output" "exists"
gx sort keep.bin -o - --stats-json -
expect_rc "--stats-json - with -o -: exit 2" 2
gx sort keep.bin -o s.bin --stats-json - -q
grep -q '"command"' "$WORK/last.out" && pass "--stats-json -: JSON on stdout" || fail "--stats-json -" "$(head -c 200 "$WORK/last.out")"
no_temps "refusals"
finish
