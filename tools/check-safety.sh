#!/usr/bin/env bash
# What issue 35 promises of files in shared places, kept by CI (a ctest case): the code
# that walks, removes and trusts entries of directories other users can write to does so
# through descriptors (io/safe_dir.hpp), and no file is created with a mode others can read.
#   tools/check-safety.sh [repo root]   exit 1 with a line per breach
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
bad=0
breach() { echo "check-safety: $1"; bad=1; }
# forbid WHAT PATTERN FILES...: a code line (not a comment) matching PATTERN is a breach.
forbid() {
  local what=$1 pattern=$2; shift 2
  local hits
  hits=$(grep -HnE -- "$pattern" "$@" 2>/dev/null | grep -vE '^[^:]+:[0-9]+:\s*//')
  [[ -z $hits ]] || while IFS= read -r h; do breach "$h: $what"; done <<< "$hits"
}
# Where gxsort finds what it did not make (temp directories, job directories, a runs
# directory's job): nothing is walked by path. Nor removed by path where another user's
# entry may lie (the runs directory is the user's output: its own run names are unlinked).
shared_walkers=(lib/src/io/debris.cpp lib/src/commands/clean.cpp lib/src/resume/journal.cpp lib/src/resume/staged_job.cpp)
forbid "walks a shared directory by path (opendir follows a link): open it with io::open_dir_at" \
  '::opendir\(' "${shared_walkers[@]}" lib/src/commands/runs_merge.cpp
forbid "removes by path in a shared directory: unlinkat/remove_own_* through the checked descriptor" \
  '(^|[^A-Za-z0-9_])::(unlink|rmdir|remove)\(' "${shared_walkers[@]}"
forbid "std::ofstream creates a file following a link, with the umask's mode: io::open_own_file_at or File::create_new" \
  'std::ofstream' $(git ls-files 'lib/src/*.cpp' 'lib/src/*.hpp' 'app/*.cpp')
forbid "a file created readable by others: temp files and job files are 0600 (io::new_file_mode gives an output its mode at commit)" \
  'O_CREAT[^;]*0[0-7]?[4-7][4-7]\b' $(git ls-files 'lib/src/*.cpp' 'app/*.cpp' 'cuda/*.cu')
((bad)) || echo "check-safety: ok"
exit $bad
