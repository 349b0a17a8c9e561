# `cmake --install` of a build into a fresh prefix: the binary, its man page and
# completions, and the library, which a separate CMake project finds (find_package) and
# builds examples/sort_array.cpp on.
#   usage: bash tests/install/test_install.sh BUILD/gxsort BUILD SOURCE
BUILD=$(cd "${2:?usage: test_install.sh GXSORT BUILD SOURCE}" && pwd)
SOURCE=$(cd "${3:?usage: test_install.sh GXSORT BUILD SOURCE}" && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"  # cds to $WORK
PREFIX=$WORK/prefix

if cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1; then
  pass "cmake --install exits 0"
else
  fail "cmake --install exits 0" "$(tail -3 "$WORK/install.log")"
fi

missing=()
for f in bin/gxsort share/man/man1/gxsort.1 share/bash-completion/completions/gxsort \
         share/zsh/site-functions/_gxsort include/gxsort/gxsort.hpp include/gxsort/memory.hpp \
         lib/libgxsort_api.a lib/cmake/gxsort/gxsortConfig.cmake \
         lib/cmake/gxsort/gxsortConfigVersion.cmake lib/cmake/gxsort/gxsortTargets.cmake; do
  [[ -f "$PREFIX/$f" ]] || missing+=("$f")
done
if ((${#missing[@]} == 0)); then pass "installed files"; else fail "installed files" "missing ${missing[*]}"; fi

if "$PREFIX/bin/gxsort" --version | grep -q '^gxsort [0-9]'; then
  pass "installed gxsort runs"
else
  fail "installed gxsort runs" "no version line"
fi

# The man page: its header, and (where man is installed) a rendering with every command.
page=$PREFIX/share/man/man1/gxsort.1
if head -1 "$page" | grep -q '^\.TH GXSORT 1 ' && grep -q '^\.SH NAME' "$page"; then
  pass "man page header"
else
  fail "man page header" "$(head -1 "$page")"
fi
if command -v man >/dev/null; then
  MANWIDTH=200 man -l "$page" >"$WORK/man.txt" 2>"$WORK/man.err"
  absent=$("$GX" help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}' |
           while read -r cmd; do grep -q "^   gxsort $cmd" "$WORK/man.txt" || echo "$cmd"; done)
  if [[ -s "$WORK/man.txt" && -z "$absent" ]]; then
    pass "man -l renders every command"
  else
    fail "man -l renders every command" "absent: $absent $(head -2 "$WORK/man.err")"
  fi
else
  skip "man -l renders every command" "man is not installed (the header was checked)"
fi

if bash -n "$PREFIX/share/bash-completion/completions/gxsort"; then pass "bash -n completion"; else fail "bash -n completion" "syntax"; fi
if command -v zsh >/dev/null; then
  if zsh -n "$PREFIX/share/zsh/site-functions/_gxsort"; then pass "zsh -n completion"; else fail "zsh -n completion" "syntax"; fi
else
  skip "zsh -n completion" "zsh is not installed (tools/setup.sh installs it)"
fi

# A separate project on the installed tree only.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if cmake -S "$SOURCE/tests/install/consumer" -B "$WORK/consumer" "${generator[@]}" "${launcher[@]}" \
     -DCMAKE_PREFIX_PATH="$PREFIX" -DGXSORT_EXAMPLE="$SOURCE/examples/sort_array.cpp" \
     -DCMAKE_BUILD_TYPE=Release >"$WORK/consumer.log" 2>&1 &&
   cmake --build "$WORK/consumer" >>"$WORK/consumer.log" 2>&1; then
  pass "find_package(gxsort) project builds"
else
  fail "find_package(gxsort) project builds" "$(grep -m3 -i error "$WORK/consumer.log")"
fi
# Its compile and link lines name the prefix, not the source or build tree's library (text
# files only: the program itself holds the library's source file names, __FILE__).
rules=$(ls "$WORK/consumer/build.ninja" "$WORK/consumer/CMakeFiles/sort_array.dir/flags.make" 2>/dev/null | head -1)
if [[ -z "$rules" ]]; then
  fail "consumer uses the installed tree only" "no build rules"
elif grep -rIq -e "$SOURCE/lib" -e "$BUILD/lib" "$WORK/consumer" || ! grep -rq "$PREFIX/include\|$PREFIX/lib" "$WORK/consumer"; then
  fail "consumer uses the installed tree only" "it names the source or build tree"
else
  pass "consumer uses the installed tree only"
fi
mkdir -p "$WORK/run"
if "$WORK/consumer/sort_array" "$WORK/run" >"$WORK/run.out" 2>&1 &&
   grep -q '^argsort: 6 1 3 4 2 0 5$' "$WORK/run.out" && grep -q '^file (in-memory, 5 records): ' "$WORK/run.out"; then
  pass "installed example runs"
else
  fail "installed example runs" "$(head -3 "$WORK/run.out")"
fi
finish
