// What a front end tells the library once about the process it runs in: every fact the
// library would otherwise read from the environment, and the sinks of its diagnostic
// lines. The library reads no environment variable, keeps no process-wide state past a
// call, and prints nothing: it gets all of that here (the CLI fills it from the
// environment: app/context_from_env.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gxsort {

// Points where the tests stop or change what a command does (tests/cli); all off by default.
struct TestHooks {
  // Called at each named point a test may stop the process at (a temp file kind once
  // that file exists, "in-place", "journal:KIND": io/temp_files.hpp: test_stop_at);
  // every_time false: the hook acts on the first time only. Null: no stops.
  std::function<void(const std::string& point, bool every_time)> stop_at;
  // Called by a sort that reads its source twice, between the reads
  // (kernels/radix_sort.hpp), so that a test changes the input in between. Null: none.
  std::function<void()> between_passes;
  // A distributed sort's rank that acts as one that cannot open the others' files
  // (ranks in containers with their own /tmp); -1: none.
  long no_peer_files_rank = -1;
  bool skip_space_check = false;  // no free-space check before writing (io/space.hpp)
  // Non-empty: the memory limit's cgroup files are read from DIR/cgroup and DIR/root
  // instead of /proc/self/cgroup and /sys/fs/cgroup (plan/sizes.hpp).
  std::string cgroup_dir;
  // Every job runs as one that cannot resume (no job directory, journal or checkpoints):
  // a benchmark switch measuring what journalling costs; refused with --resume.
  bool no_journal = false;
  // The sync of a `runs` directory once its manifest is in place fails (EIO).
  bool fail_runs_dir_sync = false;
};

// Tuning overrides for benchmark runs (tools/bench/bfs_bench.sh, lines.sh); unset: the defaults.
struct Tuning {
  std::optional<double> bfs_alpha, bfs_beta;       // the BFS direction switch (graph/direction.hpp)
  std::optional<uint64_t> bfs_min_bottom_up;       // the CPU's smallest frontier that goes bottom-up
  std::optional<bool> bfs_bitmap;                  // GPU: the bitmap bottom-up kernel (false: level array)
  std::optional<bool> bfs_copy_partitions;         // GPU: stream partitions where host memory could be read in place
  bool bfs_profile = false;                        // each BFS level's mode, frontier and time to `trace`
  // Out-of-core sort of lines (lib/src/lines/sort_lines.cpp): the last chunk kept in
  // memory for the last merge (false: written as a run), and the threads that write a
  // run while the next chunk is read and sorted (lines_job.cpp: the default).
  std::optional<bool> lines_keep_last;
  std::optional<unsigned> lines_run_writers;
  // A synced sort's output and runs (tools/bench/fsync_floor.sh): the runs' bytes whose
  // writeback starts as they form (Plan::early_writeback_bytes), and the bytes its output
  // may be written ahead of the disk (engine/sort.cpp; 0: no limit).
  std::optional<uint64_t> runs_early_writeback;
  std::optional<uint64_t> output_backlog;
  // The external sort's runs held in memory for its merge (Plan::held_runs): this many,
  // at most the formation's slots and never every run (0: every run written).
  std::optional<size_t> sort_held_runs;
  // The files each of its written runs is cut into (Plan::run_files): this many where
  // the plan allows it (1: one file a run).
  std::optional<size_t> sort_run_files;
};

// The directories a process's temp files and jobs went to that `gxsort clean` does not
// look in by default, and the temp file that lists them for it (io/temp_files.hpp:
// note_debris_dir). A front end makes one (new_debris_list) for its Context.
struct DebrisList;
std::shared_ptr<DebrisList> new_debris_list();

struct Context {
  // The user's temp directory ($TMPDIR); empty: none given (a command's temp files go
  // beside its output, `gxsort clean` looks in /tmp).
  std::string temp_dir;
  // A line at each step of the process's life with the seconds since its exec (issues 19
  // and 20: where a job's wall time goes), sent to `trace`; `rank` names the MPI rank
  // in it (empty: not a rank of a job).
  bool timeline = false;
  std::string rank;
  // Where diagnostic lines go (timeline, BFS profile): the CLI prints them on stderr.
  // Null: dropped.
  std::function<void(const std::string& line)> trace;
  Tuning tuning;
  TestHooks test;
  // Where the directories `gxsort clean` must look in after a kill -9 are noted: copies
  // of a Context share it, and it lives as long as they do (the CLI: the process). Null:
  // none noted.
  std::shared_ptr<DebrisList> debris_list;

  // $TMPDIR, else /tmp: where `gxsort clean` looks, and temp files go without an output's directory.
  std::string temp_dir_or_tmp() const { return temp_dir.empty() ? std::string("/tmp") : temp_dir; }
};

}  // namespace gxsort
