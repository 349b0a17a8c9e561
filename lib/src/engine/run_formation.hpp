// Run formation: the input read in chunks of a run's size, each chunk sorted on the
// backend and written to a file of its own; read, sort and write overlap in the chunk
// scheduler. Serves the external sort, `gxsort runs`, and streams (whose length is
// known only at their end).
#pragma once
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/merge.hpp"
#include "engine/run_parts.hpp"
#include "pipeline/chunk_scheduler.hpp"

namespace gxsort { class SortJob; }

namespace gxsort {

// The chunk buffers and the sort scratch of run formation (host memory of the backend:
// pinned on a device).
struct RunBuffers {
  std::vector<HostBuffer> slots;
  HostBuffer scratch;
  size_t run_bytes = 0;
  RunBuffers(Backend& b, const Format& f, size_t run_records, size_t slots);
};

struct RunSource {
  uint64_t total_bytes = 0;     // pipeline::kUntilEnd for a stream
  size_t run_records = 0;
  bool direct_io = false;       // runs written around the page cache
  size_t preloaded_bytes = 0;   // bytes of the first run already read into slot 0 (streams)
  std::string keep_dir;         // `gxsort runs`: run files named run-NNNNNN in this directory
  bool unique = false;          // -u: each run's duplicates dropped before it is written
  uint64_t early_writeback = 0; // bytes of the runs whose writeback starts as they form (those
                                // written through the cache: a direct one is on the disk already)
  SortJob* job = nullptr;       // a resumable job: its runs are pieces, and those a killed
                                // run left (or a kept merge output covers) are not formed
  // The runs from parts.hold_from on stay in their chunk buffers, unwritten
  // (Plan::held_runs: the last ones, at most the slots; Chunk::held keeps later chunks out
  // of their buffers); a job journals their records without a file
  // (SortJob::keep_held_run), and a resume forms them again unless the last merge's
  // checkpoint covers them. Each written run is cut into parts.files files
  // (Plan::run_files), written at once on threads of their own; a job journals each as a
  // run's part. The default: every run written, one file each.
  RunParts parts;
};

struct RunFormation {
  std::vector<TreeInput> runs;        // the merge's inputs in input order (ties keep it): a
                                      // run's parts in order (RunSource::parts)
  std::vector<uint64_t> checksums;    // XXH3-64 of each run file (keep_dir runs only)
  uint64_t input_bytes = 0;           // bytes read (a stream's length)
  uint64_t written_back_early = 0;    // bytes of the runs handed to the disk as they formed
  uint64_t held_bytes = 0;            // bytes of the runs held in memory (RunSource::parts)
  double seconds = 0;
  pipeline::Busy busy;                // the seconds each stage worked (they overlap)
};

RunFormation form_run_files(Prepared& p, RunBuffers& buffers, const RunSource& src, const io::File& in,
                            const Format& f, const ProgressFn& progress);

// Where run formation's time went, for --stats-json's run_stages: the buffers' allocation
// (pinned memory on a device, before the stream), then each overlapped stage's seconds.
std::vector<PhaseStat> run_stages(double allocate_seconds, const RunFormation& rf);

}  // namespace gxsort
