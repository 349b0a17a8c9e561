#!/usr/bin/env bash
# The library's boundary, kept by CI (ctest lint_library): the code in lib/ and cuda/
# reads and sets no environment variable, prints nothing, never ends the process and
# installs or sends no signal; the front ends (app/) do all of that with what the
# library returns (gxsort::Context brings it what the environment says, Context::trace
# takes its diagnostic lines, a CancelToken the front end's signals: app/signals.cpp). Nor
# does it start a std::thread outside lib/src/parallel/ (parallel/own_thread.hpp:
# OwnThread, start_detached; the pool of parallel_for.hpp, BackgroundTasks). Nor does a
# string of it name an option as the CLI spells it ("--memory"): it writes
# option_ref("memory"), which each front end spells (gxsort/option_ref.hpp). Nor does it
# compare a string to a command's name ("sort", "graph build"): commands are CommandKind
# values (gxsort/plan_report.hpp), command_name() their spelling. Nor does it
# keep process-wide state past a call: a mutable static or namespace-scope variable is
# marked `// process-wide: WHY` (tools/check-statics.py); the rest comes in Context or
# EngineOptions.
#   tools/check-library.sh [repo root]   exit 1 with a line FILE:LINE per breach
#   tools/check-library.sh --self-test   plants breaches in a temp tree: each must be found
set -uo pipefail

# The lines of lib/ and cuda/ that may touch signals, each FILE|TEXT (the line, without
# its leading spaces, exactly) and why. Any other line that does is a breach.
SIGNAL_LINES=(
  # The mapping guard (gxsort/signals.hpp): installed only when a front end calls
  # install_mapping_guard; a SIGBUS of a guarded mapping must be handled where it faults.
  "lib/src/io/mapping_guard.cpp|::sigaction(SIGBUS, &sa, &io::g_previous);"
  # A SIGBUS it does not explain goes back to the action it found: restored...
  "lib/src/io/mapping_guard.cpp|::sigaction(SIGBUS, &g_previous, nullptr);"
  # ...and, a sent one (kill -BUS, not a fault that recurs by itself), sent again to it.
  "lib/src/io/mapping_guard.cpp|if (info->si_code <= 0) ::raise(sig);"
  # kill(pid, 0) sends nothing: whether a temp file's process is alive (gxsort clean).
  "lib/src/io/debris.cpp|bool process_alive(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }"
)

# The lines of lib/ and cuda/ whose strings may hold a CLI flag, each FILE|TEXT and why.
FLAG_LINES=(
  # Advice to run the gxsort tool: a shell command line to type, not an option of this call.
  "lib/src/format/sniff.cpp|return std::string(\"decompress it first, e.g. \`\") + decompressor(kind) + file + \" | gxsort sort - --type u64 ...\`\";"
  "lib/src/format/sniff.cpp|return \"sort its lines with \`gxsort sort --lines\" + file + \"\` (GNU sort's -k, -t, -n, ... imply --lines)\";"
)

# The lines of lib/ and cuda/ that may compare a string to a command's name, each FILE|TEXT and why.
COMMAND_NAME_LINES=(
  # A runs manifest's line "runs <count>" (engine/runs_manifest.hpp): a word of the file format.
  "lib/src/engine/runs_manifest.cpp|if (!(rl >> word >> count) || word != \"runs\" || !rl.eof()) bad(2, \"expected 'runs <count>'\");"
  # RunStats::mode, the stats' word for how the text was sorted ("in-memory", "runs").
  "lib/src/lines/sort_lines.cpp|if (st.mode != \"runs\") return;"
)

# A string compared (==, !=, compare) to a command's name, on either side.
COMMAND_NAMES='"(sort|merge|dedupe|runs|check|reduce|bfs|graph build|gen|plan)"'
COMMAND_COMPARE="(==|!=)\\s*$COMMAND_NAMES|$COMMAND_NAMES\\s*(==|!=)|compare\\s*\\(\\s*$COMMAND_NAMES"

# A line with a string literal that holds "--" and a letter: what comes before it is
# text outside literals (not a // comment), char literals ('"') and whole literals.
FLAG_IN_STRING='^([^"'"'"'/]|/[^/"'"'"']|'"'"'([^'"'"'\\]|\\.)*'"'"'|"([^"\\]|\\.)*")*"([^"\\]|\\.)*--[A-Za-z]'

# forbid ROOT WHAT PATTERN [ALLOWED...]: a code line (not a // comment, nor a * line of a
# block comment) of a source file under ROOT/lib or ROOT/cuda matching PATTERN is a
# breach, unless it is one of ALLOWED (FILE|TEXT, as SIGNAL_LINES) or in the folder
# $EXCEPT_DIR (when set).
forbid() {
  local root=$1 what=$2 pattern=$3 hits; shift 3
  hits=$(cd "$root" && grep -rHnE --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
           --include='*.h' -- "$pattern" lib cuda 2>/dev/null | grep -vE '^[^:]+:[0-9]+:\s*(//|\*|/\*)')
  [[ -n ${EXCEPT_DIR:-} && -n $hits ]] && hits=$(grep -v "^$EXCEPT_DIR/" <<< "$hits")
  hits=$(allowed_out "$hits" "$@")
  [[ -z $hits ]] && return 0
  while IFS= read -r h; do echo "check-library: ${h%%:[^0-9]*}: $what"; done <<< "$(cut -d: -f1,2 <<< "$hits")"
  return 1
}

# allowed_out HITS ALLOWED...: the lines of HITS (FILE:LINE:TEXT) that are not one of ALLOWED.
allowed_out() {
  local hits=$1 h file text a keep; shift
  [[ -z $hits ]] && return 0
  while IFS= read -r h; do
    file=${h%%:*}; text=${h#*:}; text=${text#*:}; text=${text#"${text%%[![:space:]]*}"}
    keep=1
    for a in "$@"; do [[ "$file|$text" == "$a" ]] && keep=0; done
    ((keep)) && printf '%s\n' "$h"
  done <<< "$hits"
}

# A call of NAME, not a member's (x.NAME(, x->NAME(, X::NAME() nor a longer name's:
# NAME(, std::NAME( or ::NAME(.
call() { echo "(^|[^A-Za-z0-9_.>:]|std::|(^|[^A-Za-z0-9_])::)($1)\\s*\\("; }

# mutable_statics ROOT: each unmarked mutable static of ROOT/lib and ROOT/cuda is a breach.
mutable_statics() {
  local hits
  hits=$(python3 "$(dirname "${BASH_SOURCE[0]}")/check-statics.py" "$1") && return 0
  [[ -z $hits ]] && { echo "check-library: tools/check-statics.py failed"; return 1; }
  while IFS= read -r h; do
    echo "check-library: $h: keeps process-wide state (a mutable static): pass it in Context or EngineOptions, or say why it must be (// process-wide: WHY)"
  done <<< "$hits"
  return 1
}

check() {
  local root=$1 bad=0
  forbid "$root" "reads or sets the environment: a front end puts what it needs in gxsort::Context" \
    "$(call 'getenv|secure_getenv|setenv|putenv|unsetenv|clearenv')" || bad=1
  forbid "$root" "prints: a library returns data, or sends a line to a callback (Context::trace, EngineOptions::note)" \
    "$(call 'printf|fprintf|vprintf|vfprintf|puts|fputs|putchar|perror')|std::(cout|cerr|clog)\\b" || bad=1
  forbid "$root" "ends the process: a library throws or returns, the front end exits" \
    "$(call 'exit|_Exit|_exit|quick_exit|abort')" || bad=1
  forbid "$root" "installs or sends a signal: the front end owns them and cancels through a CancelToken" \
    "$(call 'sigaction|signal|raise|kill')" "${SIGNAL_LINES[@]}" || bad=1
  # A std::thread made, held or listed (std::thread( / std::thread t / vector<std::thread>);
  # std::thread::hardware_concurrency and std::this_thread are no threads.
  EXCEPT_DIR=lib/src/parallel forbid "$root" \
    "starts a thread outside lib/src/parallel/: use parallel::OwnThread or start_detached (parallel/own_thread.hpp)" \
    'std::thread([^:A-Za-z0-9_]|$)' || bad=1
  forbid "$root" "names a CLI flag in a string: write option_ref(\"NAME\") (gxsort/option_ref.hpp), which each front end spells" \
    "$FLAG_IN_STRING" "${FLAG_LINES[@]}" || bad=1
  forbid "$root" "compares a string to a command's name: use CommandKind (gxsort/plan_report.hpp)" \
    "$COMMAND_COMPARE" "${COMMAND_NAME_LINES[@]}" || bad=1
  mutable_statics "$root" || bad=1
  return $bad
}

self_test() {
  local tmp rc out
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/lib/src/parallel" "$tmp/cuda"
  cat > "$tmp/lib/src/clean.cpp" <<'CPP'
// std::getenv("X"), printf, exit(1): comments do not count
  /* a block comment's first line: std::cerr << x; */
void f(Comm& c) { c.abort(2); o->exit(); snprintf(b, 8, "x"); my_exit(1); Job::exit(); }
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
  # Signals: each call is a breach, but for the allowed lines, and only in their file.
  mkdir -p "$tmp/lib/src/io"
  cat > "$tmp/lib/src/sig.cpp" <<'CPP'
void s1() { struct sigaction sa; ::sigaction(SIGINT, &sa, nullptr); }
void s2() { std::signal(SIGTERM, SIG_DFL); }
void s3() { raise(SIGTERM); }
void s4() { ::kill(::getpid(), SIGSTOP); }
bool process_alive(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }
CPP
  cat > "$tmp/lib/src/io/mapping_guard.cpp" <<'CPP'
    ::sigaction(SIGBUS, &sa, &io::g_previous);
  if (info->si_code <= 0) ::raise(sig);
  ::sigaction(SIGBUS, &g_previous, nullptr); // and more
CPP
  cat > "$tmp/lib/src/io/debris.cpp" <<'CPP'
// a comment: kill(pid, 0), raise(x), signal(y)
bool process_alive(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }
void f(Sig& s) { s.raise(); p->kill(1); my_signal(2); }
CPP
  # Flags in strings: a literal holding "--" and a letter, wherever it sits on its line.
  mkdir -p "$tmp/lib/src/format"
  cat > "$tmp/lib/src/flags.cpp" <<'CPP'
void a() { fail_usage("--memory is too small"); }
void b() { fail_usage(path + ": raise --memory"); }
           "; --renumber takes any id)");
const char* c = "a" "b --lines";
const char* e = "say \"--x\" here";
void f(char q = '"') { g("then --device cpu"); }
CPP
  cat > "$tmp/lib/src/flags_clean.cpp" <<'CPP'
// a comment: "--memory" is fine here
void h() { fail_usage("raise " + option_ref("memory")); --i; x-- > 0; }
void k() { f("a"); --n; } // then "--memory" in a trailing comment
char q = '"'; int r = --n;
const char* d = "a -- b, x--1, \"--\" ";
CPP
  # Mutable statics: each unmarked one; constants, functions, members, locals and marked ones are not.
  cat > "$tmp/lib/src/statics.cpp" <<'CPP'
int g_count;
static std::mutex g_lock;
void f() { if (x) { static int calls = 0; ++calls; } }
struct S { static int n_; int m_ = 0; static S make(int n); };
thread_local std::vector<int> t_buf;
std::string g_name = make_name(1);
struct sigaction g_old;
std::atomic<bool> g_flag{false};
// a comment, then
Foo::Foo() : a_(1), b_{2} { static Foo* p = new Foo(3); }
CPP
  cat > "$tmp/lib/src/statics_clean.cpp" <<'CPP'
constexpr int kSlots = 8;
const std::string kName = "x; static int y;";
static const char* const kNames[] = {"a", "b"};
int f(int x);
static int g(int x) { static const int k = 2; std::vector<int> v{1, x}; return v[0] + k; }
struct T { static T make(); static constexpr int n = 2; int member = 0; struct In { int x; } in; };
using Alias = int;
namespace alias = std;
extern int g_elsewhere;
// process-wide: a planted registry, marked above,
// in a comment of two lines.
static int g_marked;
std::atomic<int> g_group[2];  // the line above is marked: a group
int g_also_marked;  // process-wide: marked on its line
void h() { for (int i = 0; i < 2; ++i) { auto l = [&] { return i; }; l(); } }
Foo::Foo() : a_(1), b_{2} { int local = 0; }
enum class E : int { a, b };
template <class T> struct Box { T value; };
// static int commented;
CPP
  printf '__device__ unsigned long long d_count;
__constant__ int c_table[4];
__global__ void k() { __shared__ int s[32]; }
' > "$tmp/cuda/statics.cu"
  # Command names compared: a breach on either side, but for the allowed lines in their file.
  mkdir -p "$tmp/lib/src/lines"
  cat > "$tmp/lib/src/names.cpp" <<'CPP'
if (command == "sort") return plan_sort();
  const bool g = "graph build" != c;
bool r(const std::string& w) { return w.compare("runs") == 0; }
if (st.mode != "runs") return;
CPP
  cat > "$tmp/lib/src/names_clean.cpp" <<'CPP'
// if (command == "sort"): a comment
st.command = "sort";
if (dist == "sorted" || k == "bfs2") progress({"merge", 1, 2});
if (command == CommandKind::sort) return command_name(command);
CPP
  printf '%s\n' "${COMMAND_NAME_LINES[1]#*|}" > "$tmp/lib/src/lines/sort_lines.cpp"
  local allowed="${FLAG_LINES[0]#*|}"
  printf '%s\n' "$allowed" > "$tmp/lib/src/format/sniff.cpp"
  printf '%s\n' "$allowed" > "$tmp/lib/src/format/other.cpp"
  out=$(check "$tmp"); rc=$?
  local want=("lib/src/bad.cpp:1: reads" "lib/src/bad.cpp:2: prints" "lib/src/bad.cpp:3: prints"
              "lib/src/bad.cpp:4: ends" "lib/src/bad.cpp:5: ends" "cuda/bad.cu:1: reads" "cuda/bad.cu:1: ends"
              "lib/src/sig.cpp:1: installs" "lib/src/sig.cpp:2: installs" "lib/src/sig.cpp:3: installs"
              "lib/src/sig.cpp:4: installs" "lib/src/sig.cpp:5: installs"
              "lib/src/io/mapping_guard.cpp:3: installs"
              "lib/src/bad.cpp:6: starts" "lib/src/bad.cpp:7: starts" "lib/src/bad.cpp:8: starts"
              "cuda/bad.cu:2: starts"
              "lib/src/flags.cpp:1: names" "lib/src/flags.cpp:2: names" "lib/src/flags.cpp:3: names"
              "lib/src/flags.cpp:4: names" "lib/src/flags.cpp:5: names" "lib/src/flags.cpp:6: names"
              "lib/src/format/other.cpp:1: names"
              "lib/src/statics.cpp:1: keeps" "lib/src/statics.cpp:2: keeps" "lib/src/statics.cpp:3: keeps"
              "lib/src/statics.cpp:4: keeps" "lib/src/statics.cpp:5: keeps" "lib/src/statics.cpp:6: keeps"
              "lib/src/statics.cpp:7: keeps" "lib/src/statics.cpp:8: keeps" "lib/src/statics.cpp:10: keeps"
              "cuda/statics.cu:1: keeps"
              "lib/src/names.cpp:1: compares" "lib/src/names.cpp:2: compares" "lib/src/names.cpp:3: compares"
              "lib/src/names.cpp:4: compares") ok=1
  ((rc == 1)) || { echo "check-library self-test: planted breaches passed (exit $rc)"; ok=0; }
  for w in "${want[@]}"; do
    grep -qF "check-library: $w" <<< "$out" || { echo "check-library self-test: not found: $w"; ok=0; }
  done
  # (Their planted namespace-scope variables are mutable statics: that check may flag them.)
  if grep -v ": keeps process-wide" <<< "$out" |
       grep -qE "check-library: (lib/src/clean.cpp|lib/src/parallel/|lib/src/flags_clean.cpp|lib/src/format/sniff.cpp|lib/src/names_clean.cpp|lib/src/lines/sort_lines.cpp)"; then
    echo "check-library self-test: comments, members, parallel/, option_ref, allowed flag or command lines flagged: $out"; ok=0
  fi
  if grep -qE "check-library: (lib/src/statics_clean.cpp|cuda/statics.cu:[23]:)" <<< "$out"; then
    echo "check-library self-test: constants, functions, members, locals or marked statics flagged: $out"; ok=0
  fi
  if grep -qE "debris.cpp|mapping_guard.cpp:[12]:" <<< "$out"; then
    echo "check-library self-test: allowed signal lines, comments or members flagged: $out"; ok=0
  fi
  ((ok)) && echo "check-library self-test: ok"
  ((ok))
}

if [[ ${1:-} == --self-test ]]; then self_test; exit $?; fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[[ -d $root/lib ]] || { echo "check-library: $root: no lib/ there"; exit 2; }
if check "$root"; then echo "check-library: ok"; exit 0; fi
exit 1
