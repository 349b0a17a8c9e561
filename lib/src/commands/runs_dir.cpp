#include "commands/runs_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "io/output.hpp"
#include "io/safe_dir.hpp"
#include "io/space.hpp"

namespace gxsort {

CreatedDir::CreatedDir(const std::string& dir) : dir_(dir) {
  // "-" names standard output elsewhere: a directory of that name would be read back as
  // standard input by a merge.
  if (dir == "-") fail_usage("-o -: runs go into a directory, not to standard output (-o DIR)");
  created_ = ::mkdir(dir.c_str(), 0755) == 0;
  if (!created_ && errno != EEXIST) fail_errno(dir, "cannot create directory", errno);
}

CreatedDir::~CreatedDir() {
  if (created_ && !kept_) ::rmdir(dir_.c_str());
}

namespace {

// A `runs` killed after its runs got their names and before its manifest left those
// names as hard links to its job's pieces (same inode): they go, so that the directory
// holds no runs again and the job can resume (or start afresh). Nothing else is touched.
void unlink_job_links(const std::string& out_dir) {
  std::set<std::pair<dev_t, ino_t>> pieces;
  for (const io::TempEntry& t : io::find_temp_files({out_dir})) {
    if (!t.job_dir || !t.stale) continue;
    // Looked into through a descriptor of the directory itself (no link followed), ours only.
    const io::UniqueFd dir(io::open_dir_at(AT_FDCWD, t.path));
    struct stat ds, st;
    std::vector<std::string> names;
    if (!dir || ::fstat(dir.get(), &ds) != 0 || ds.st_uid != ::geteuid() || !io::entry_names(dir.get(), names)) continue;
    for (const std::string& n : names)
      if (::fstatat(dir.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) pieces.insert({st.st_dev, st.st_ino});
  }
  struct stat st;
  for (const std::string& name : run_files_in(out_dir)) {
    const std::string path = out_dir + "/" + name;
    if (::lstat(path.c_str(), &st) == 0 && pieces.count({st.st_dev, st.st_ino})) ::unlink(path.c_str());
  }
}

}  // namespace

void check_runs_dir_empty(const std::string& out_dir) {
  io::require_writable_dir(out_dir, "output");
  struct stat existing;
  if (::stat((out_dir + "/manifest.txt").c_str(), &existing) == 0)
    fail_usage(out_dir + ": already holds a manifest.txt; choose an empty directory");
  unlink_job_links(out_dir);
  if (!run_files_in(out_dir).empty())
    fail_usage(out_dir + ": already holds run files (" + *run_files_in(out_dir).begin() + "); choose an empty directory");
}

std::vector<ListedRun> open_listed_runs(const std::string& dir, const RunsFormat& f) {
  std::vector<ListedRun> runs;
  for (const ManifestRun& r : read_runs_manifest(dir, f)) {
    ListedRun run{std::make_shared<io::File>(io::File::open_read(r.path)), r.checksum};
    if (run.file->size() != r.bytes)
      fail_usage(r.path + ": run file is " + std::to_string(run.file->size()) + " bytes, the manifest says " +
                 std::to_string(r.bytes));
    runs.push_back(std::move(run));
  }
  return runs;
}

void sync_runs_dir(const std::string& out_dir, const Context& context) {
  if (context.test.fail_runs_dir_sync) fail_errno(out_dir, "cannot sync the directory after the rename", EIO);
  io::sync_directory(out_dir);
}

void refuse_output_in_runs_dir(const std::string& output, const std::vector<std::string>& runs_dirs) {
  if (output == "-") return;
  const std::string out_dir = io::directory_of(io::resolve_symlinks(output));
  for (const auto& d : runs_dirs)
    if (io::same_file(out_dir, d))
      fail_usage(output + ": the output is inside the runs directory " + d +
                 " being merged (a later merge of it would take the output for a run); write it elsewhere");
}

RunVerifier::RunVerifier(std::vector<ListedRun> runs) : runs_(std::move(runs)) {
  if (!runs_.empty()) thread_ = parallel::OwnThread([this] { run(); });
}

RunVerifier::~RunVerifier() {
  stop_ = true;
  thread_.join();
}

void RunVerifier::finish() {
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

void RunVerifier::run() {
  try {
    std::vector<unsigned char> buf(size_t(8) << 20);
    for (const ListedRun& r : runs_) {
      const uint64_t n = r.file->size();
      io::Xxh3 h;
      for (uint64_t off = 0; off < n && !stop_; off += buf.size()) {
        const size_t len = size_t(std::min<uint64_t>(buf.size(), n - off));
        r.file->read_at(buf.data(), len, off);
        h.update(buf.data(), len);
      }
      if (stop_) return;
      if (h.digest() != r.checksum)
        fail_usage(r.file->path() + ": run file does not match its checksum in the manifest (" + io::hex64(r.checksum) +
                   ", the file hashes to " + io::hex64(h.digest()) + "): it changed after `gxsort runs` wrote it");
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

}  // namespace gxsort
