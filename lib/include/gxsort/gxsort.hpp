// The public host API of gxsort: one call per CLI subcommand. No CUDA types here.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/cancel.hpp"
#include "gxsort/context.hpp"
#include "gxsort/error.hpp"
#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "gxsort/plan_report.hpp"
#include "gxsort/progress.hpp"
#include "gxsort/reduce_value.hpp"

namespace gxsort {

// gxsort dedupe (docs/dedupe.md). Equality is by the key's totalOrder bits: -0.0 and
// +0.0 are distinct keys, NaNs with identical bits are equal.
struct DedupeOptions {
  bool assume_sorted = false;     // stream an adjacent unique; exit 1 at the first unsorted record
  bool count = false;             // each kept record followed by its group size (little-endian u64)
  bool keep_last = false;         // keep the last record of each group (input order), not the first
  DedupeStrategy strategy = DedupeStrategy::automatic;
};

// Options of the graph commands (docs/graph.md); functions at the end of this file.
struct GraphBuildOptions {
  EdgeFormat input_format = EdgeFormat::automatic;  // automatic: from the extension
  bool symmetrize = false;            // add (dst, src) for every edge
  bool keep_self_loops = false;
  bool keep_duplicates = false;
  bool skip_header = false;           // text: line 1 is a header (refused if it is an edge)
  Renumber renumber = Renumber::none;  // ids compacted to 0..n-1, any id below 2^64 taken
  std::string ids_output;             // --renumber: the id map (new id -> original id); "" = GRAPH.ids
};
struct GraphGenOptions {
  GraphKind kind = GraphKind::none;  // none: gen writes records, not a graph
  unsigned scale = 0;
  uint64_t edge_factor = 16;
  uint64_t seed = 1;
};
struct BfsOptions {
  uint64_t source = 0;
  uint64_t random_sources = 0;  // > 0: that many random sources with degree > 0 (seeded), stats only
  uint64_t seed = 1;
  std::string levels_output;    // -o
  std::string parents_output;   // --parents
  std::string ids_input;        // a renumbered graph's id map; "" = GRAPH.ids
};
struct GraphOptions {
  GraphBuildOptions build;  // graph build
  GraphGenOptions gen;      // gen --graph (gen.kind empty: not a graph)
  BfsOptions bfs;           // bfs
};

struct RunStats;

// A .npy stream npy_input opened and read the header of (engine/engine.cpp).
struct NpyStream;
using NpyStreams = std::vector<std::shared_ptr<NpyStream>>;

struct EngineOptions {
  Format format;
  SizeOption memory;                  // host budget (--memory); not given: half of the memory limit (RAM, or the cgroup's when lower)
  std::vector<std::string> tmp_dirs;  // --tmp-dir; empty = $TMPDIR, else the output's directory
  size_t fan_in = 0;                  // --fan-in; 0 = choose
  unsigned threads = default_threads();  // --threads; resolved here, once
  Device device = Device::automatic;
  unsigned device_index = 0;          // the GPU: device_index mod the GPUs visible (a distributed
                                      // sort gives each rank its rank on its host)
  SizeOption device_memory;           // --device-memory; not given: 80% of free device memory
  MergeKernel merge_kernel = MergeKernel::automatic;
  bool unique = false;                // -u: keep the first record of each group of equal keys
  bool fsync = true;                  // fsync the output before renaming it into place
  DirectIo direct_io = DirectIo::automatic;  // --direct-io (plan.hpp says when auto goes direct)
  std::string npy_descr;              // non-empty: outputs are .npy files of this dtype (npy_output_descr)
  NpyStreams npy_streams;             // the command's .npy streams npy_input opened (NpyInput::stream)
  bool resume = false;                // --resume: reuse the pieces a killed run of the same job left
  OocMethod ooc = OocMethod::automatic;       // --ooc
  // --exchange of a distributed sort: auto reads the others' records where every rank is
  // on one host (from their GPUs, or from their run files); mpi sends them all with
  // MPI_Alltoallv, as ranks on several hosts do.
  Exchange exchange = Exchange::automatic;
  DedupeOptions dedupe;               // the dedupe command's options
  GraphOptions graph;                 // graph build, gen --graph, bfs
  ProgressFn progress;
  // Set by the front end to stop the command (gxsort/cancel.hpp): it throws Cancelled at
  // the next chunk, run, window or phase boundary. Null: not cancellable.
  const CancelToken* cancel = nullptr;
  // A line for the user about what the command found and did about it (a piece of a
  // killed job discarded because it failed verification): the CLI prints it on stderr
  // ("gxsort: note: ...") unless -q. Null: not told.
  std::function<void(const std::string&)> note;
  // Called with a command's finished stats after its outputs are ready and before they
  // replace anything (the CLI writes --stats-json there): what fails in it fails the
  // command with every file the user had untouched. Commands that sort through another
  // (dedupe, graph build) do not pass it on.
  std::function<void(const RunStats&)> before_commit;
  // What the front end tells the library about the process (gxsort/context.hpp).
  Context context;
};

struct PhaseStat {
  std::string name;
  double seconds = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
};

// One rank of a distributed sort (docs/distributed.md), in RunStats::ranks.
struct RankStats {
  int rank = 0;
  std::string backend;
  std::string local;             // how it sorted its slice: in memory, runs in memory, run files
  uint64_t slice_records = 0;
  uint64_t runs = 0;
  uint64_t sent = 0;             // records it sent to other ranks
  uint64_t received = 0;         // records it received from other ranks
  uint64_t kept = 0;             // records of its slice that stayed with it
  uint64_t output_records = 0;   // records of its range of the output
  bool received_in_memory = true;
  uint64_t rounds = 0;
  // mpi_seconds: in MPI_Alltoallv, once every rank was there (the exchange's waits excluded).
  double sort_seconds = 0, splitters_seconds = 0, exchange_seconds = 0, mpi_seconds = 0, merge_seconds = 0;
  double seconds = 0;
  // Where its own time went, unlike the steps above without waits for other ranks: its
  // run formation's and its last merge's stages (RunStats::run_stages, merge_stages).
  std::vector<PhaseStat> stages;
};

struct RunStats {
  std::string command;
  std::string backend;
  std::string mode;
  uint64_t records = 0;
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
  size_t runs = 0;
  size_t merge_levels = 0;
  size_t buckets = 0;  // the partition sort's (plan.hpp: PlanMode::partition)
  std::string resumed; // --resume: "resumed: 12 of 17 runs, 0 of 1 merge outputs"
  size_t discarded = 0;  // --resume: the killed job's pieces that failed verification (redone)
  double seconds = 0;
  std::vector<PhaseStat> phases;
  // Run formation: its buffers' allocation, then the busy seconds of each of its
  // overlapped stages (read, sort, write runs).
  std::vector<PhaseStat> run_stages;
  // A merge on the device: the busy seconds of each stage of its window pipeline (read
  // the runs' slices, merge on the device with the copies, write the windows), summed
  // over its levels. The stages overlap: the slowest bounds the merge.
  std::vector<PhaseStat> merge_stages;
  // A distributed sort (rank 0's stats): every rank's part, the records a round moved
  // at most from or to one rank, and the largest range against the average one (1: even)
  // with the bound regular sampling guarantees.
  std::vector<RankStats> ranks;
  uint64_t round_records = 0;
  double imbalance = 0, imbalance_bound = 0;
};
// A JSON string literal of s (quotes and escapes included): the plans' JSON, until
// plans are data the app renders.
std::string json_quote(const std::string& s);

// A file a front end writes beside a command's outputs (the CLI's --stats-json):
// checked, and its temp file made with `room` bytes reserved, before any work (refused,
// exit 2, when it names an input or an output: `option PATH: names an input or an
// output of the command; give another file`, "-" while an output is "-" too); commit()
// makes `bytes` the file as an output is made (io/output.hpp: nothing replaced unless
// whole). "-" is checked only: the front end writes its standard output itself.
class SideOutput {
 public:
  SideOutput(const std::string& path, const std::string& option, const std::vector<std::string>& inputs,
             const std::vector<std::string>& outputs, const EngineOptions& opt, uint64_t room);
  ~SideOutput();
  void commit(const std::string& bytes, bool sync);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Starts the GPU's runtime on a background thread (making its context takes ~0.4 s), to
// overlap the option parsing, file opening and planning that come before a command's
// first device call; the destructor waits for that start, so make one around a command
// that may use the GPU. Does nothing for --device cpu or without the CUDA backend.
class EarlyDeviceStart {
 public:
  explicit EarlyDeviceStart(const EngineOptions& opt);
  ~EarlyDeviceStart();
  EarlyDeviceStart(const EarlyDeviceStart&) = delete;
  EarlyDeviceStart& operator=(const EarlyDeviceStart&) = delete;

 private:
  struct Start;  // the runtime's start on a thread of its own
  std::unique_ptr<Start> start_;  // null when nothing was started
};

// gxsort clean: what dead gxsort processes left in `dirs` (default: context.temp_dir
// ($TMPDIR) or /tmp, and the current directory) and in the other directories they
// listed there (io/debris.hpp): their temp files and the pieces of their jobs, removed unless
// dry_run; the complete output of an in-place rewrite a kill -9 cut short, named (with
// how to restore it), never removed. Only the caller's own entries are removed (and
// only the caller's lists followed) unless all_users: another user's are listed.
struct CleanEntry {
  std::string path;
  uint64_t bytes = 0;     // on the disk
  long pid = 0;
  std::string host;
  std::string owner;      // the user name of its owner
  bool removed = false;   // false: kept (its process runs, another host's or user's, a kept output, or dry run)
  std::string why;        // why it was kept or removed
};
std::vector<CleanEntry> clean_temp_files(const Context& context, std::vector<std::string> dirs, bool dry_run,
                                         bool all_users = false);
// What the caller's dead gxsort processes left in `dirs`, as a note for the user (""
// when nothing): a command looks before it starts.
std::string stale_temp_note(const std::vector<std::string>& dirs);
// Where a command looks for that: its temp directories (--tmp-dir, else $TMPDIR, else
// the output's directory) and its output's directory.
std::vector<std::string> command_debris_dirs(const EngineOptions& opt, const std::string& output);

// .npy files (docs in README): the format a .npy input's header gives (`given`, the
// format options when the user gave some, must agree; `keys`, the --key texts: names of
// fields of a structured dtype with an optional ":desc", or OFFSET:TYPE fields), and the
// dtype its outputs get: the input's, or `format`'s. --reverse is not applied.
// A .npy stream (a FIFO named *.npy) can be opened and read once: npy_input hands it
// back opened, its header read, in `stream` (null for a regular file), which the front
// end adds to EngineOptions::npy_streams; the command's open of that path reads on from
// there (a second open would wait for another writer, or read the data as a header).
struct NpyInput {
  Format format;
  std::string descr;
  std::shared_ptr<NpyStream> stream;
};
NpyInput npy_input(const std::string& path, const Format* given, const std::vector<std::string>& keys);
// Whether a path names a .npy file (ends in ".npy"): how every command tells them apart.
bool has_npy_name(const std::string& path);
std::string npy_descr_for(const Format& format);

// gxsort sort IN -o OUT: a stable sort of the records of IN into OUT (which may be IN):
// run(plan(SortRequest{input, output, opt})) (gxsort/sort_request.hpp).
RunStats sort_file(const std::string& input, const std::string& output, const EngineOptions& opt);

// Whether command `command` (sort or dedupe) of the one input `input` may use the
// GPU: the device choice the command itself makes (--device auto gives an in-memory sort
// of records wider than 64 bytes on 16 threads or more to the CPU backend, faster there;
// docs/benchmarks.md), made from the input's size without planning on any backend. True
// for any other command unless --device cpu, and for an input that is not a regular file
// or that the command itself would refuse. The app skips the GPU's early start when false.
bool may_use_gpu(CommandKind command, const std::string& input, const EngineOptions& opt);

// gxsort plan IN: what sort_file would do (with opt.resume, what a resume of its job
// would find): plan(SortRequest{input, output, opt}).report().
PlanReport plan_sort(const std::string& input, const std::string& output, const EngineOptions& opt);

// gxsort plan CMD ARGS: what command CMD (sort, runs, merge, dedupe, check, reduce,
// graph_build, bfs; gen has no such plan) would do with these inputs, output and options: the plan it runs
// from (sizes, threads, strategy); of dedupe, runs, merge, check and reduce the report of
// plan(XRequest) (gxsort/requests.hpp: each file function below is run(plan(XRequest))).
PlanReport plan_command(CommandKind command, const std::vector<std::string>& inputs, const std::string& output,
                        const EngineOptions& opt);

// gxsort runs IN -o DIR: sorted run files DIR/run-NNNNNN.bin and DIR/manifest.txt.
RunStats form_runs(const std::string& input, const std::string& out_dir, const EngineOptions& opt);

// gxsort merge FILE... -o OUT: a stable merge (ties by argument order) of sorted files.
// A directory argument holding a manifest.txt stands for its runs, in order.
RunStats merge_files(const std::vector<std::string>& inputs, const std::string& output, const EngineOptions& opt);

struct CheckResult {
  uint64_t records = 0;
  bool sorted = true;
  uint64_t first_violation = 0;  // index of the first record smaller than its predecessor
  uint64_t duplicates = 0;       // records whose key equals the previous record's key
  uint64_t checksum = 0;         // order-independent: sum of a 64-bit hash of each record
  uint64_t xxh3 = 0;             // XXH3-64 of the file's bytes in order (Python: xxhash.xxh3_64)
  RunStats stats;
};
CheckResult check_file(const std::string& path, const EngineOptions& opt);

struct GenOptions {
  uint64_t count = 0;
  GenDist dist = GenDist::uniform;
  uint64_t seed = 1;
};
RunStats gen_file(const std::string& output, const Format& f, const GenOptions& g, const EngineOptions& opt);

// gxsort reduce FILE --op OP: a reduction of the records' typed keys, streamed through
// the chunk scheduler. Returns the op's values (one; minmax: min and max).
// algo: the GPU kernels (the CPU has one).
struct ReduceResult {
  ReduceOp op = ReduceOp::sum;
  std::vector<ReduceValue> values;
  RunStats stats;
};
ReduceResult reduce_file(const std::string& path, ReduceOp op, ReduceAlgo algo, const EngineOptions& opt);

// gxsort dedupe IN -o OUT: the records of IN sorted, one per distinct key (opt.dedupe;
// with --count each followed by its group size as a little-endian u64).
RunStats dedupe_file(const std::string& input, const std::string& output, const EngineOptions& opt);

// gxsort info: version, build options, threads, memory, devices.
struct GpuInfo {
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  uint64_t total_memory = 0, free_memory = 0;
  uint64_t budget = 0;  // the device memory budget a command would use (--device-memory)
};
struct InfoReport {
  std::string version;
  bool cuda_built = false, mpi_built = false;
  unsigned threads = 0;       // --threads, else cpus_allowed
  unsigned cpus_allowed = 0;  // the CPUs this process may run on (sched_getaffinity)
  unsigned cpus_online = 0;
  uint64_t physical_memory = 0;
  uint64_t memory_limit = 0;  // the smaller of RAM and the cgroup's limit
  std::string memory_limit_source;
  uint64_t memory_default = 0;  // --memory's default: half of the limit
  uint64_t memory_budget = 0;   // what --memory gives (its default when not given)
  bool memory_given = false;
  std::vector<GpuInfo> gpus;  // usable ones (none without the CUDA backend)
};
InfoReport info(const EngineOptions& opt);

// ---- graphs (docs/graph.md) ----

// gxsort graph build IN -o GRAPH: an edge list (snap text, Matrix Market coordinate,
// binary u32 or u64 pairs) to a CSR file. Edges are sorted and deduplicated by the
// external sort engine (sort_file on 16-byte big-endian (src, dst) records), so graphs
// larger than RAM can be built; engine options (--memory, --tmp-dir, --device) apply.
struct GraphBuildResult {
  uint64_t input_edges = 0;     // edges read (entries of the file)
  uint64_t vertices = 0;        // max id + 1 (--renumber: distinct ids)
  uint64_t edges = 0;           // edges in the CSR
  std::string ids_output;       // --renumber: the id map written beside the CSR
  RunStats stats;
};
GraphBuildResult graph_build(const std::string& input, const std::string& output, const GraphBuildOptions& g,
                             const EngineOptions& opt);

// gxsort gen --graph rmat|uniform --scale S --edge-factor E: E * 2^S edges over 2^S
// vertices as binary u32 pairs (scale < 32) or u64 pairs; edge i depends on (seed, i) only.
RunStats gen_graph(const std::string& output, const GraphGenOptions& g, const EngineOptions& opt);

// gxsort bfs GRAPH --source S: BFS levels (u32, unreachable 0xFFFFFFFF) and parents
// (the CSR's id width; the source is its own parent; unreachable all ones).
struct BfsSearch {
  uint64_t source = 0;
  uint32_t depth = 0;            // levels (max level + 1)
  uint64_t reached = 0;
  uint64_t edges_traversed = 0;  // sum of the out-degrees of the reached vertices
  double seconds = 0;            // the search only (graph loaded, on the device for cuda)
  double gteps = 0;              // edges_traversed / seconds / 1e9
  uint64_t graph500_edges = 0;   // Graph500 count: input edges in the component (symmetric: edges_traversed / 2)
  double graph500_gteps = 0;     // graph500_edges / seconds / 1e9
  uint64_t streamed_bytes = 0;   // cuda with the neighbors streamed: bytes copied to the device
  uint64_t partitions_streamed = 0;
  bool neighbors_host_mapped = false;  // cuda: the neighbors read in place from pinned host memory
};
struct BfsResult {
  std::string backend;
  uint64_t vertices = 0, edges = 0;
  bool symmetric = false;
  double load_seconds = 0;       // reading the CSR (and copying it to the device)
  std::vector<BfsSearch> searches;
  RunStats stats;
};
BfsResult bfs_file(const std::string& graph, const BfsOptions& b, const EngineOptions& opt);

}  // namespace gxsort

// The commands as requests, plans and runs (they need EngineOptions and RunStats).
#include "gxsort/sort_request.hpp"
#include "gxsort/requests.hpp"
