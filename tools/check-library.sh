#!/usr/bin/env bash
# The library's boundary, kept by CI (ctest lint_library): the code in lib/ and cuda/
# reads and sets no environment variable, prints nothing and never ends the process;
# the front ends (app/) do all of that with what the library returns (gxsort::Context
# brings it what the environment says, Context::trace takes its diagnostic lines). Nor
# does it start a std::thread outside lib/src/parallel/ (parallel/own_thread.hpp:
# OwnThread, start_detached; the pool of parallel_for.hpp, BackgroundTasks).
#   tools/check-library.sh [repo root]   exit 1 with a line FILE:LINE per breach
#   tools/check-library.sh --self-test   plants breaches in a temp tree: each must be found
set -uo pipefail

# forbid ROOT WHAT PATTERN [EXCEPT]: a code line (not a // comment, nor a * line of a block comment) of a
# source file under ROOT/lib or ROOT/cuda matching PATTERN is a breach, except in the folder EXCEPT.
forbid() {
  local root=$1 what=$2 pattern=$3 except=${4:-} hits
  hits=$(cd "$root" && grep -rHnE --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
           --include='*.h' -- "$pattern" lib cuda 2>/dev/null | grep -vE '^[^:]+:[0-9]+:\s*(//|\*|/\*)')
  [[ -n $except ]] && hits=$(grep -v "^$except/" <<< "$hits")
  [[ -z $hits ]] && return 0
  while IFS= read -r h; do echo "check-library: ${h%%:[^0-9]*}: $what"; done <<< "$(cut -d: -f1,2 <<< "$hits")"
  return 1
}

# A call of NAME, not a member's (x.NAME(, x->NAME(, X::NAME() nor a longer name's:
# NAME(, std::NAME( or ::NAME(.
call() { echo "(^|[^A-Za-z0-9_.>:]|std::|(^|[^A-Za-z0-9_])::)($1)\\s*\\("; }

check() {
  local root=$1 bad=0
  forbid "$root" "reads or sets the environment: a front end puts what it needs in gxsort::Context" \
    "$(call 'getenv|secure_getenv|setenv|putenv|unsetenv|clearenv')" || bad=1
  forbid "$root" "prints: a library returns data, or sends a line to a callback (Context::trace, EngineOptions::note)" \
    "$(call 'printf|fprintf|vprintf|vfprintf|puts|fputs|putchar|perror')|std::(cout|cerr|clog)\\b" || bad=1
  forbid "$root" "ends the process: a library throws or returns, the front end exits" \
    "$(call 'exit|_Exit|_exit|quick_exit|abort')" || bad=1
  # A std::thread made, held or listed (std::thread( / std::thread t / vector<std::thread>);
  # std::thread::hardware_concurrency and std::this_thread are no threads.
  forbid "$root" "starts a thread outside lib/src/parallel/: use parallel::OwnThread or start_detached (parallel/own_thread.hpp)" \
    'std::thread([^:A-Za-z0-9_]|$)' lib/src/parallel || bad=1
  return $bad
}

self_test() {
  local tmp rc out
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/lib/src/parallel" "$tmp/cuda"
  cat > "$tmp/lib/src/clean.cpp" <<'CPP'
// std::getenv("X"), printf, exit(1), std::thread t(f): comments do not count
  /* a block comment's first line: std::cerr << x; */
void f(Comm& c) { c.abort(2); o->exit(); snprintf(b, 8, "x"); my_exit(1); PlanRequest::exit(); }
unsigned n() { std::this_thread::yield(); return std::thread::hardware_concurrency(); }
CPP
  printf 'std::vector<std::thread> pool_;\nvoid s() { std::thread(f).detach(); }\n' > "$tmp/lib/src/parallel/pool.hpp"
  cat > "$tmp/lib/src/bad.cpp" <<'CPP'
const char* v = std::getenv("HOME");
void g() { std::fprintf(stderr, "x\n"); }
void h() { std::cerr << "x"; }
void k() { std::_Exit(3); }
void m() { if (x) ::_exit(0); }
void n() { std::thread([] {}).detach(); }
std::vector<std::thread> helpers;
struct Syncer { std::thread thread_; };
CPP
  printf 'void d() { if (e) abort(); setenv("A", "1", 1); }\nstd::thread start() { return {}; }\n' > "$tmp/cuda/bad.cu"
  out=$(check "$tmp"); rc=$?
  local want=("lib/src/bad.cpp:1: reads" "lib/src/bad.cpp:2: prints" "lib/src/bad.cpp:3: prints"
              "lib/src/bad.cpp:4: ends" "lib/src/bad.cpp:5: ends" "cuda/bad.cu:1: reads" "cuda/bad.cu:1: ends"
              "lib/src/bad.cpp:6: starts" "lib/src/bad.cpp:7: starts" "lib/src/bad.cpp:8: starts"
              "cuda/bad.cu:2: starts") ok=1
  ((rc == 1)) || { echo "check-library self-test: planted breaches passed (exit $rc)"; ok=0; }
  for w in "${want[@]}"; do
    grep -qF "check-library: $w" <<< "$out" || { echo "check-library self-test: not found: $w"; ok=0; }
  done
  if grep -qE "check-library: (lib/src/clean.cpp|lib/src/parallel/)" <<< "$out"; then echo "check-library self-test: comments, members or parallel/ flagged: $out"; ok=0; fi
  ((ok)) && echo "check-library self-test: ok"
  ((ok))
}

if [[ ${1:-} == --self-test ]]; then self_test; exit $?; fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[[ -d $root/lib ]] || { echo "check-library: $root: no lib/ there"; exit 2; }
if check "$root"; then echo "check-library: ok"; exit 0; fi
exit 1
