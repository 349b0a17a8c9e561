#include "resume/staged_job.hpp"

#include <sys/stat.h>

#include "io/checksum.hpp"
#include "io/file.hpp"

namespace gxsort::resume {
namespace {

Piece stage_piece(const std::string& kind) {
  Piece p;
  p.kind = kind;
  return p;
}

}  // namespace

StagedJob::StagedJob(const Context& context, const std::vector<std::string>& dirs, const std::string& digest,
                     bool resume, const std::string& output, unsigned threads, Note note)
    : dir_(JobDir::open(context, dirs, digest, resume, output)), digest_(digest), threads_(threads), resuming_(resume),
      note_(std::move(note)) {}

StagedJob::~StagedJob() { dir_.remove(); }

std::string StagedJob::path(const std::string& kind) const { return dir_.piece_path(stage_piece(kind)); }

const Piece* StagedJob::kept(const std::string& kind, const std::string& what) {
  const Piece* p = dir_.find(stage_piece(kind).key());
  if (!p) return nullptr;
  const std::string file = path(kind);
  struct stat st;
  std::string why;
  if (!dir_.piece_stat(*p, st)) why = "its file is missing";
  else if (uint64_t(st.st_size) != p->bytes)
    why = "its file holds " + std::to_string(st.st_size) + " bytes, the journal says " + std::to_string(p->bytes);
  else if (io::xxh3_blocks_of_file(dir_.open_piece(*p), p->bytes, 0, threads_) != p->checksum)
    why = "its XXH3 is not the journal's";
  if (why.empty()) {
    reused_.push_back(what);
    return p;
  }
  // A file that does not check out is made again (a disk that lost data, or a file
  // someone changed): the user is told which and why.
  dir_.remove_piece(*p);
  ++discarded_;
  if (note_) note_("resume: " + what + " (" + file + ") discarded: " + why + "; made again");
  dir_.forget(p->key());
  return nullptr;
}

void StagedJob::record(const std::string& kind, uint64_t records, std::vector<uint64_t> values) {
  Piece p = stage_piece(kind);
  const io::File f = dir_.open_piece(p);
  p.records = records;
  p.bytes = f.size();
  // Read back on every thread: a stage's file was written by a pass (a sort, a parse)
  // whose buffers are gone, and it is still in the page cache.
  p.checksum = io::xxh3_blocks_of_file(f, p.bytes, 0, threads_);
  p.list = std::move(values);
  dir_.record(p);
}

std::string StagedJob::summary(const std::string& inner) const {
  if (!resuming_) return "";
  std::string s;
  for (const std::string& r : reused_) s += (s.empty() ? "" : ", ") + r + " kept";
  if (discarded_) s += (s.empty() ? "" : ", ") + std::to_string(discarded_) + " discarded (failed verification)";
  const std::string prefix = "resumed: ";
  if (inner.rfind(prefix, 0) == 0) s += (s.empty() ? "" : "; ") + std::string("sort: ") + inner.substr(prefix.size());
  return prefix + (s.empty() ? "nothing kept" : s);
}

void StagedJob::finish() { dir_.remove(); }

StagesFound::StagesFound(const std::vector<std::string>& dirs, const std::string& digest)
    : dir_(JobDir::peek(dirs, digest)) {}

std::string StagesFound::path(const std::string& kind) const { return dir_.piece_path(stage_piece(kind)); }

bool StagesFound::kept(const std::string& kind) const {
  if (!found()) return false;
  const Piece* p = dir_.find(stage_piece(kind).key());
  struct stat st;
  return p && dir_.piece_stat(*p, st) && uint64_t(st.st_size) == p->bytes;
}

}  // namespace gxsort::resume
