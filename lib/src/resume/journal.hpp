// The job directory of a resumable out-of-core job (issue 17: a killed job resumes
// where it stopped). <first -T dir>/.gxsort-job.<digest>/ holds the job's pieces (runs,
// merge-level outputs, buckets) under stable names and a journal of the finished ones.
// The digest covers what defines the result (input paths, sizes and mtimes, format and
// order, -u/--keep, the output path): another input or other options never find this
// directory. A piece is written, fsync'd and renamed to its name before its journal
// entry is appended and fsync'd: a piece half-written when the process died is never in
// the journal, and an entry half-written (no newline, or a line whose own checksum does
// not match) is ignored. The directory is locked (flock) while a process runs the job:
// a second one refuses, and `gxsort clean` knows a dead job's directory by its free lock.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/output.hpp"

namespace gxsort::resume {

// One finished piece: "run 3", "level 1 2", "bucket 7", "out 7".
struct Piece {
  std::string kind;        // run | level | bucket | out
  uint64_t a = 0, b = 0;   // run: index, first record; level: level, group; bucket/out: index, offset
  uint64_t records = 0;    // out: the segment's offset in the output
  uint64_t bytes = 0;
  uint64_t checksum = 0;   // XXH3-64 of the piece's bytes
  std::string key() const { return kind + " " + std::to_string(a) + " " + std::to_string(b); }
};

class JobDir {
 public:
  JobDir() = default;
  // Opens (creates) <dir>/.gxsort-job.<digest>. Without `resume`, what a dead job left
  // there is removed first; with it, the journal's entries are read (pieces() lists
  // them; none is verified yet). Throws Error(io) when a live process holds the job.
  // `output` names what the job writes: a dead job of the same output whose digest
  // differs (its input changed, or its options) can never be resumed, and is removed.
  // One job directory in each of `dirs` (the -T directories; pieces spread over them),
  // the journal in the first.
  static JobDir open(const std::vector<std::string>& dirs, const std::string& digest, bool resume,
                     const std::string& output);
  JobDir(JobDir&&) noexcept = default;
  JobDir& operator=(JobDir&&) noexcept = default;
  ~JobDir();

  bool active() const { return !paths_.empty(); }
  const std::string& path() const { return paths_[0]; }
  // The directory a piece goes to, and its stable file name there.
  std::string piece_dir(const Piece& p) const { return piece_path(p).substr(0, piece_path(p).find_last_of('/')); }
  std::string piece_path(const Piece& p) const;
  // The journalled piece with this key, or null.
  const Piece* find(const std::string& key) const;
  const std::map<std::string, Piece>& pieces() const { return pieces_; }
  // Appends `p` to the journal and fsyncs it (its file must be complete and synced).
  void record(const Piece& p);
  // Forgets a journalled piece (it failed verification): a later record() replaces it.
  void forget(const std::string& key);
  // The job is done: the directory and everything in it go.
  void remove();

 private:
  std::string lock_dir(const std::string& dir, const std::string& digest, const std::string& output, bool resume);
  void read_journal(const std::string& journal);
  std::vector<std::string> dirs_, paths_;
  std::vector<io::UniqueFd> locks_;
  io::UniqueFd journal_;
  std::map<std::string, Piece> pieces_;
};

// The digest of the strings that define a job's result: 16 hex digits.
std::string job_digest(const std::vector<std::string>& parts);

}  // namespace gxsort::resume
