#!/usr/bin/env bash
# The binary starts where Open MPI is absent (issue 38): it does not link libmpi; only
# sort --distributed loads MPI, through the plugin libgxsort-mpi.so (beside the binary in
# the build folder, LIBDIR/gxsort in an installed tree). A copy of the binary without its
# plugin sorts as the original does and refuses --distributed with one line naming the
# plugin and how to get it; a plugin whose libmpi cannot be found (its NEEDED entry renamed)
# is refused naming that library, another library in its place as not the plugin; a plugin in the installed tree's place runs a job.
# Without MPI in the build: skipped (test_mpi.sh checks the refusal).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

if ! "$GX" info --json 2>/dev/null | grep -q '"mpi_built":true'; then
  echo "SKIP: gxsort was built without MPI: it has no MPI plugin"
  exit 77
fi
PLUGIN=$(dirname "$GX")/libgxsort-mpi.so
if [[ ! -f $PLUGIN ]]; then
  fail "the MPI plugin is beside the binary" "no $PLUGIN"
  finish
fi

if ldd "$GX" | grep -q 'libmpi'; then fail "the binary does not link libmpi" "$(ldd "$GX" | grep libmpi)"
else pass "the binary does not link libmpi"; fi

"$GX" gen -o in.bin --count 1000 -q
"$GX" sort in.bin -o want.bin -q

# A copy of the binary in a folder of its own, without the plugin (HERE_REAL: the work
# folder as /proc/self/exe names it, its links resolved).
HERE_REAL=$(pwd -P)
mkdir -p alone/bin
cp "$GX" alone/bin/gxsort
"$WORK/alone/bin/gxsort" sort in.bin -o got.bin -q 2>"$WORK/last.err"
RC=$?
expect_rc "without the plugin: a plain sort runs" 0
same_bytes "without the plugin: a plain sort's output" got.bin want.bin
"$WORK/alone/bin/gxsort" sort in.bin -o dist.bin --distributed >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
expect_rc "without the plugin: sort --distributed is refused (exit 2)" 2
err_mentions "without the plugin: the refusal names it, where it looked and how to get it" \
  "libgxsort-mpi.so" "$HERE_REAL/alone/bin" "apt-get install openmpi-bin"
[[ -e dist.bin ]] && fail "without the plugin: no output" "dist.bin was written" || pass "without the plugin: no output"

# The plugin with its libmpi unfindable: the same bytes, NEEDED libmpi.so.40 renamed.
mkdir -p nompi
cp "$GX" nompi/gxsort
perl -0777 -pe 's/libmpi\.so\.40\0/libmpX.so.40\0/g' "$PLUGIN" >nompi/libgxsort-mpi.so
if ! grep -qa 'libmpX\.so\.40' nompi/libgxsort-mpi.so; then
  fail "libmpi hidden: the plugin's NEEDED entry renamed" "no libmpi.so.40 in $PLUGIN"
fi
"$WORK/nompi/gxsort" sort in.bin -o dist.bin --distributed >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
expect_rc "libmpi hidden: sort --distributed is refused (exit 2)" 2
err_mentions "libmpi hidden: the refusal names the plugin, the missing library and how to get it" \
  "$HERE_REAL/nompi/libgxsort-mpi.so" "libmpX.so.40" "apt-get install openmpi-bin"

# Another library in the plugin's place (libm, which the binary links): refused by name.
cp "$(ldd "$GX" | awk '$1 ~ /^libm\.so/ {print $3}')" nompi/libgxsort-mpi.so
"$WORK/nompi/gxsort" sort in.bin -o dist.bin --distributed >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
expect_rc "another library in the plugin's place: refused (exit 2)" 2
err_mentions "another library in the plugin's place: the refusal says so" "not gxsort's MPI plugin"

# The installed tree's place (the second place the refusal above names), under mpirun.
if ! command -v mpirun >/dev/null 2>&1; then
  skip "the plugin in the installed tree's place" "mpirun is not installed (Debian: openmpi-bin)"
  finish
fi
"$WORK/alone/bin/gxsort" sort in.bin -o dist.bin --distributed 2>"$WORK/last.err"
libdir=$(sed -n 's/.* nor \(.*\) (it is built.*/\1/p' "$WORK/last.err")
case $libdir in
  "$HERE_REAL"/alone/*) mkdir -p "$libdir" && cp "$PLUGIN" "$libdir/" ;;
  *) fail "the installed tree's place is under the tree" "'$libdir' from $(last_err)" ;;
esac
mpirun --allow-run-as-root --oversubscribe -np 2 "$WORK/alone/bin/gxsort" sort in.bin -o dist.bin -q --distributed \
  >"$WORK/last.out" 2>"$WORK/last.err"
RC=$?
expect_rc "the plugin in the installed tree's place: a 2-rank job runs" 0
same_bytes "the plugin in the installed tree's place: the job's output" dist.bin want.bin
finish
