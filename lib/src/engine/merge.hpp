// Merging sorted runs into a file: one K-way merge (parallel over output ranges cut by
// the multiway co-rank), and the level-by-level merge tree over temp files.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/options.hpp"
#include "gxsort/cancel.hpp"
#include "gxsort/progress.hpp"
#include "io/temp_files.hpp"
#include "engine/run.hpp"

namespace gxsort {

struct Prepared;  // engine/engine.hpp
struct EngineOptions;  // gxsort/gxsort.hpp
struct PhaseStat;      // gxsort/gxsort.hpp

class Backend;
class HostBuffer;  // backend/backend.hpp

struct MergeSetup {
  const Format* format = nullptr;
  Backend* backend = nullptr;     // merges windows on its device when window_records > 0
  MergeKernel merge_kernel = MergeKernel::automatic;
  uint64_t window_records = 0;    // the plan's device windows (Plan::window_records; 0: the CPU merges)
  size_t buffer_bytes = 1 << 20;  // read buffer per run, per thread
  unsigned threads = 1;
  bool verify_sorted = false;     // inputs come from the user: check their order
  bool unique = false;            // keep only the first record of each group of equal keys
  bool direct_output = false;     // CPU merges write the output around the page cache (O_DIRECT)
  bool direct_temp = false;       // the same for the merge tree's temp levels
  ProgressFn progress;
  const CancelToken* cancel = nullptr;  // polled once per output buffer or window
  const char* phase = "merge";
  Context context;                // the call's (merge_tree_to's temp files: their test hooks)
  std::atomic<uint64_t>* done_bytes = nullptr;  // shared progress counter
  uint64_t total_bytes = 0;
  size_t level = 0, levels = 0;   // reported with the progress: level k of N of a merge tree
  // A resumed merge: the records of each run already merged (their output is before
  // out_offset). Null: from the start.
  const std::vector<uint64_t>* start = nullptr;
  // --unique: the record just before this merge's output (records of its key are dropped).
  const unsigned char* unique_after = nullptr;
  // A resumable merge (engine/job.hpp): called in output order whenever the output is
  // whole up to `out_records` (past out_offset) and run i is merged up to cuts[i]: by
  // CPU merges every checkpoint_bytes of input, by device merges after the window that
  // reaches checkpoint_bytes since the last call (and after the last window).
  // The merge then drops nothing it has read (the job does, once a checkpoint is kept).
  std::function<void(const std::vector<uint64_t>& cuts, uint64_t out_records)> checkpoint;
  uint64_t checkpoint_bytes = 0;
  // With `checkpoint`: a merge leaves here, before each call, the checksums of the
  // output since the last one, taken from its output buffers or windows as they are
  // written (the XXH3-64 of each `block` bytes): no read-back of the output. A device
  // merge with -u (or windows smaller than a block) leaves block 0: the job reads its
  // output back.
  struct OutputSums {
    uint64_t block = 0;
    std::vector<uint64_t> sums;
  };
  OutputSums* output_sums = nullptr;
  // Internal to a CPU merge with output_sums: its threads hash the output from byte
  // sum_base in blocks of sum_block into (*sums)[block] (each starts on a block).
  uint64_t sum_base = 0, sum_block = 0;
  std::vector<uint64_t>* sums = nullptr;
  // Device merges add the busy seconds of each stage of their window pipeline here
  // (reading the runs' slices; the merge on the device with its copies; writing the
  // windows; `pipeline`: its wall time): the slowest stage bounds the merge. A resumable
  // last merge adds its checkpoints' busy seconds (journal lines and punching the inputs
  // behind them, on a thread of their own) and the wait for them after the merge; the
  // tree adds the removal of the last level's inputs. Null: not kept.
  struct StageSeconds {
    double setup = 0, teardown = 0;  // the windows' buffers and output range: got, given back
    double read = 0, device = 0, write = 0, pipeline = 0;
    double checkpoints = 0, checkpoint_wait = 0, release = 0;
  };
  StageSeconds* stage_seconds = nullptr;
};

// Merges `runs` (stable: ties go to the earlier run) into `out` from byte out_offset.
// Returns the records written (fewer than the inputs hold with job.unique).
// The merge job of a command: the format, -u and the merge kernel of `opt`, the backend
// and threads of `p`, a device merge's windows (the plan's window_records) and each
// input's read buffer (at least a record). The caller adds its progress counter, totals
// and special flags.
MergeSetup merge_setup_of(const Prepared& p, const EngineOptions& opt, uint64_t window_records, size_t buffer_bytes);

uint64_t merge_runs(const MergeSetup& job, const std::vector<RunRef>& runs, const io::File& out, uint64_t out_offset);
// The same on the CPU into memory: `out` gets every record of the runs (the output
// buffer of each thread is its range of `out`). From the start, without device windows,
// checkpoints or output sums.
uint64_t merge_runs_to_memory(const MergeSetup& job, const std::vector<RunRef>& runs, unsigned char* out);

// A device merge's stages for --stats-json: the windows pinned and the output mapped,
// the busy seconds of reading slices, merging on the device and writing windows, the
// pipeline's wall time, then the unmapping and unpinning; none for a merge on the CPU.
std::vector<PhaseStat> window_stages(const MergeSetup::StageSeconds& s);

// A sorted input to the merge tree: a temp file we own, a user's file, or a run held in
// memory.
struct TreeInput {
  std::shared_ptr<io::TempFile> temp;  // owned run (deleted after it is merged)
  std::shared_ptr<io::File> file;      // a user's sorted file, or a job's piece (resume/),
                                       // deleted with its last owner
  std::shared_ptr<const HostBuffer> held;  // a run held in run formation's buffer (Plan::held_runs),
                                           // freed with its last owner; its records at `mem`
  const unsigned char* mem = nullptr;
  uint64_t records = 0;
  uint64_t offset = 0;                 // its first record's byte in the file (several inputs may
                                       // share one file: the pieces a distributed sort received)
  bool direct = false;                 // the temp was written around the page cache
  // Our own data (a temp run or a job's piece): what the merge has read is punched out
  // (engine/run.hpp). A piece read so by an intermediate merge is damaged for --resume,
  // which forms it again; the last merge punches a job's pieces only behind its
  // checkpoints (MergeSetup::checkpoint).
  bool discardable = false;
  std::string piece;                   // a job's piece: its journal key
  RunRef ref() const;
};

// The outputs of intermediate merges as pieces of a resumable job (engine/job.hpp): a
// merge whose output a killed run left is not done again; a new one is kept.
class MergePieces {
 public:
  virtual ~MergePieces() = default;
  // The verified output of merge `group` of `level` (from 1), or an empty input.
  virtual TreeInput reuse(size_t level, size_t group) = 0;
  // A file to merge it into, and then that file made a journalled piece.
  virtual io::TempFile create(size_t level, size_t group) = 0;
  virtual TreeInput keep(size_t level, size_t group, io::TempFile merged, uint64_t records, bool direct) = 0;
  // The last merge, into `out` from byte out_offset: from where a killed run stopped,
  // and kept at checkpoints as it goes. Returns the records of the whole output.
  virtual uint64_t final_merge(const MergeSetup& job, const std::vector<TreeInput>& inputs, const io::File& out,
                               uint64_t out_offset) = 0;
};

// Merges the inputs with at most `fan_in` at a time, level by level, into temp files
// spread over tmp_dirs (or pieces of `pieces`), until one merge into `final_out` (from
// byte final_offset) remains. Returns the number of levels; *output_records receives
// the records of the output. Each level reports its progress as level k of N, of the
// bytes it merges (job.total_bytes is not used).
size_t merge_tree_to(const MergeSetup& job, std::vector<TreeInput> inputs, size_t fan_in,
                     const std::vector<std::string>& tmp_dirs, const io::File& final_out, uint64_t final_offset,
                     const std::function<void(size_t level, double seconds, uint64_t bytes)>& on_level,
                     uint64_t* output_records, MergePieces* pieces = nullptr);

}  // namespace gxsort
