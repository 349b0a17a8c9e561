// The job directory of a resumable out-of-core job (issue 17: a killed job resumes
// where it stopped). <first -T dir>/.gxsort-job.<digest>/ holds the job's pieces (runs,
// merge-level outputs, buckets) under stable names and a journal of the finished ones.
// The digest covers what defines the result (input paths, sizes and mtimes, format and
// order, -u/--keep, the output path): another input or other options never find this
// directory. A piece is written and renamed to its name before its journal entry is
// appended and fsync'd: a piece half-written when the process died is never in the
// journal, and an entry half-written (no newline, or a line whose own checksum does not
// match) is ignored. Pieces themselves are not fsync'd (that would write to the disk
// runs the merge otherwise takes from the page cache and drops): a kill -9 loses nothing
// of them, and a piece a reboot cut short fails its checksums and is formed again. The
// directory is locked (flock) while a process runs the job: a second one refuses, and
// `gxsort clean` knows a dead job's directory by its free lock.
//
// The directory's name is a digest anyone can compute, in a directory others may write
// to (a 1777 /tmp): it is the caller's own private directory (0700), made or checked
// through a descriptor (io/safe_dir.hpp), and what is in it (lock, journal, output,
// pieces) is opened, looked at and removed through that descriptor, no link followed,
// and only when it is the caller's own regular file. An entry of the job's name that is
// not the caller's own private directory (another user's, a link, a file, a directory
// others may write to) is never entered, removed or trusted: the job stops (Error(io),
// one line naming it and its owner).
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/cancel.hpp"
#include "io/temp_files.hpp"
#include "io/unique_fd.hpp"

namespace gxsort::io { class File; }

namespace gxsort::resume {

class JournalSyncer;

// One journal entry: a finished piece ("run 3", "level 1 2", "bucket 7"), a bucket's
// segment of the output ("out 7"), a checkpoint of the final merge ("final 4") or an
// intermediate merge that started ("merging 1 2": it punches its inputs as it reads them).
struct Piece {
  std::string kind;        // run | level | bucket | out | final | merging
  uint64_t a = 0, b = 0;   // run, bucket, out, final: index; level, merging: level, group
  uint64_t records = 0;    // out: the segment's offset in the output; final: output records so far
  uint64_t bytes = 0;      // final: bytes of the output segment since the last checkpoint;
                           // merging: 0 while its inputs are consumed, 1 once void (run again)
  uint64_t checksum = 0;   // bucket: XXH3-64 of its bytes; out, final: io::xxh3_blocks of the
                           // output segment (the XXH3-64 of its 4 MiB blocks' XXH3-64s)
  // A run held in memory (Plan::held_runs) has a line with its records and no file
  // (bytes 0): a resume whose last checkpoint covers it whole knows it is in the output.
  // run, level: XXH3-64 of each `block` bytes of the piece (the last block may be short),
  // so that a piece the final merge has partly consumed (punched) is verified from there;
  // final: the records of each input of the final merge consumed so far.
  uint64_t block = 0;
  std::vector<uint64_t> list;
  std::string key() const { return kind + " " + std::to_string(a) + " " + std::to_string(b); }
};

// The block size of a run or level piece of `bytes` bytes: 4 MiB, or larger powers of
// two for pieces of more than 1024 such blocks (journal lines stay short).
uint64_t piece_block_bytes(uint64_t bytes);

class JobDir {
 public:
  JobDir();
  // Opens (creates) <dir>/.gxsort-job.<digest>. Without `resume`, what a dead job left
  // there is removed first; with it, the journal's entries are read (pieces() lists
  // them; none is verified yet). Throws Error(io) when a live process holds the job,
  // when the entry of that name is not the caller's own private directory, and when
  // `dir` lets other users rename what is in it (io::entries_not_safe_in).
  // `output` names what the job writes: a dead job of the same output whose digest
  // differs (its input changed, or its options) can never be resumed, and is removed.
  // One job directory in each of `dirs` (the -T directories; pieces spread over them),
  // the journal in the first. `context`: the call's (test hooks, where clean looks).
  static JobDir open(const Context& context, const std::vector<std::string>& dirs, const std::string& digest,
                     bool resume, const std::string& output);
  // The job's directories as a killed (or running) process left them, read without
  // taking them (plan --resume): pieces() lists the journal's entries. Not active()
  // when there are none. An entry that is not the caller's own private directory is
  // refused as open() refuses it.
  static JobDir peek(const std::vector<std::string>& dirs, const std::string& digest);
  bool running() const { return running_; }  // peek: a live process holds the job
  JobDir(JobDir&&) noexcept;
  JobDir& operator=(JobDir&&) noexcept;
  ~JobDir();

  bool active() const { return !paths_.empty(); }
  const Context& context() const { return context_; }  // open()'s
  // Whether record() fsyncs the journal after each entry (the default). A job run with
  // --no-fsync does not: its kept pieces are never fsync'd either, so a synced entry
  // would not make them survive a power loss (resume verifies every piece and makes a
  // lost one again), and each fsync of the journal made the file system commit, which
  // waited for the writeback of everything else written meanwhile.
  void sync_entries(bool on) { sync_ = on; }
  const std::string& path() const { return paths_[0]; }
  const std::vector<std::string>& paths() const { return paths_; }  // one in each -T directory
  // The directory a piece goes to, and its stable file name there. New pieces are
  // created and renamed there by these paths (io::TempFile): open() checked that each
  // path names the very directory its descriptor holds, the caller's own 0700 one, in a
  // directory where no other user can rename it (io::entries_not_safe_in).
  std::string piece_dir(const Piece& p) const { return piece_path(p).substr(0, piece_path(p).find_last_of('/')); }
  std::string piece_path(const Piece& p) const;
  // A piece's file, through its directory's descriptor: its stat when it is the
  // caller's own regular file (false: missing, or not one of this job's); opened
  // read-write (Error(io) naming it when it is not the caller's own regular file, or
  // missing); as a TempFile (removed when done with); shared by a merge's inputs
  // (removed when the last owner lets it go); removed.
  bool piece_stat(const Piece& p, struct stat& st) const;
  io::File open_piece(const Piece& p) const;
  io::TempFile adopt_piece(const Piece& p) const;
  std::shared_ptr<io::File> shared_piece(const Piece& p) const;
  void remove_piece(const Piece& p) const;
  // The journalled piece with this key, or null.
  const Piece* find(const std::string& key) const;
  const std::map<std::string, Piece>& pieces() const { return pieces_; }
  // Appends `p` to the journal and fsyncs it (its file must be complete). `behind`: the
  // fsync runs on the journal's own thread, behind the line (a writer of pieces that
  // gates nothing on the entry goes on: each fsync waited for the file system's commit,
  // which waited for the data written meanwhile); an error it meets is thrown by the
  // next record(). A record() in line syncs every line before it too.
  void record(const Piece& p, bool behind = false);
  // Forgets a journalled piece (it failed verification): a later record() replaces it.
  void forget(const std::string& key);
  // The job is done: the directory and everything in it go (not for a peek). Not while
  // a call that `cancel` cancelled unwinds: then the job and its pieces are kept for
  // --resume, as a signal keeps them (the pieces' owners keep their files too).
  void remove();
  void keep_if_cancelled(const CancelToken* cancel) { cancel_ = cancel; }

 private:
  void lock_dir(const std::string& dir, const std::string& digest, const std::string& output, bool resume);
  size_t place(const Piece& p) const;  // the index of the directory that holds it
  Context context_;
  std::vector<std::string> dirs_, paths_;
  std::vector<io::UniqueFd> parents_;                // the directories that hold the job's
  std::vector<std::shared_ptr<io::UniqueFd>> fds_;   // the job's directories, checked (null: none, in a peek)
  std::vector<io::UniqueFd> locks_;
  io::UniqueFd journal_;
  std::map<std::string, Piece> pieces_;
  bool running_ = false;
  bool sync_ = true;
  const CancelToken* cancel_ = nullptr;  // keep_if_cancelled
  std::unique_ptr<JournalSyncer> syncer_;  // record(p, behind): started on first use
};

// Whether a job's directories may be kept in `dirs` (the -T directories): not where
// another user may rename what is in them (io::entries_not_safe_in: a directory of
// theirs, or one they may write to without the sticky bit, as a group's project
// directory often is), since new pieces are made there by path. Such a job runs as one
// that cannot resume (its pieces are private temp files, removed on any exit), and
// `note` says why; with `resume` it is refused (Error(io), one line).
bool dirs_can_keep_job(const std::vector<std::string>& dirs, bool resume,
                       const std::function<void(const std::string&)>& note);

// A journal's entries (a line cut short or damaged left out).
std::map<std::string, Piece> read_journal(const std::string& journal);

// The digest of the strings that define a job's result: 16 hex digits.
std::string job_digest(const std::vector<std::string>& parts);

// What identifies an input in a job's digest: its real path, size and modification time
// as it was opened, and its change time, device and inode (a touched input is another
// job; so is one whose bytes changed with its size and mtime put back, as touch -r does).
std::vector<std::string> input_parts(const io::File& in);

}  // namespace gxsort::resume
