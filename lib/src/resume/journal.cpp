#include "resume/journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "io/file.hpp"
#include "io/safe_dir.hpp"
#include "io/temp_files.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort::resume {
namespace {

std::string entry_text(const Piece& p) {
  std::ostringstream o;
  o << p.kind << " " << p.a << " " << p.b << " " << p.records << " " << p.bytes << " " << io::hex64(p.checksum) << " "
    << p.block << " " << p.list.size();
  for (uint64_t v : p.list) o << " " << v;
  const std::string body = o.str();
  return body + " " + io::hex64(io::xxh3_64(body.data(), body.size())) + "\n";
}

// A journal line, or false for one cut short or damaged (ignored: the process died
// while it was written, or the disk lost it).
bool parse_entry(const std::string& line, Piece& p) {
  const size_t last = line.find_last_of(' ');
  if (last == std::string::npos) return false;
  const std::string body = line.substr(0, last);
  uint64_t sum = 0;
  if (!io::parse_hex64(line.substr(last + 1), sum) || sum != io::xxh3_64(body.data(), body.size())) return false;
  std::istringstream in(body);
  std::string hex;
  size_t n = 0;
  if (!(in >> p.kind >> p.a >> p.b >> p.records >> p.bytes >> hex >> p.block >> n) || !io::parse_hex64(hex, p.checksum))
    return false;
  p.list.resize(n);
  for (uint64_t& v : p.list)
    if (!(in >> v)) return false;
  return true;
}

void fsync_or_fail(int fd, const std::string& what) {
  if (::fsync(fd) != 0) fail_errno(what, "fsync failed", errno);
}

}  // namespace

// Fsyncs a journal on a thread of its own, behind the lines written (JobDir::record).
class JournalSyncer {
 public:
  JournalSyncer(int fd, std::string what) : fd_(fd), what_(std::move(what)), thread_([this] { loop(); }) {}
  ~JournalSyncer() {
    { std::lock_guard<std::mutex> l(m_); stop_ = true; }
    cv_.notify_all();
    thread_.join();
  }
  void request() {
    { std::lock_guard<std::mutex> l(m_); ++requested_; }
    cv_.notify_all();
  }
  // Throws the error an fsync met (the lines before it may be lost).
  void check() {
    std::lock_guard<std::mutex> l(m_);
    if (error_) fail_errno(what_, "fsync failed", error_);
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> l(m_);
    while (true) {
      cv_.wait(l, [this] { return stop_ || synced_ < requested_; });
      if (synced_ == requested_) return;  // stopping, nothing left
      const uint64_t upto = requested_;
      l.unlock();
      const int err = ::fsync(fd_) == 0 ? 0 : errno;
      l.lock();
      synced_ = upto;
      if (err && !error_) error_ = err;
    }
  }
  const int fd_;
  const std::string what_;
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t requested_ = 0, synced_ = 0;
  int error_ = 0;
  bool stop_ = false;
  parallel::OwnThread thread_;  // last: starts once the rest is set
};

uint64_t piece_block_bytes(uint64_t bytes) {
  uint64_t block = uint64_t(4) << 20;
  while (bytes / block > 1024) block *= 2;
  return block;
}

std::string job_digest(const std::vector<std::string>& parts) {
  io::Xxh3 h;
  for (const std::string& s : parts) {
    const uint64_t n = s.size();
    h.update(&n, sizeof n);  // lengths first: ("ab", "c") and ("a", "bc") differ
    h.update(s.data(), s.size());
  }
  return io::hex64(h.digest());
}

std::vector<std::string> input_parts(const io::File& in) {
  char* real = ::realpath(in.path().c_str(), nullptr);
  const std::string path = real ? real : in.path();
  std::free(real);
  struct stat st;
  if (::fstat(in.fd(), &st) != 0) fail_errno(in.path(), "cannot stat", errno);
  const int64_t ctime_ns = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return {path, std::to_string(in.open_size()), std::to_string(in.open_mtime_ns()), std::to_string(ctime_ns),
          std::to_string(uint64_t(st.st_dev)), std::to_string(uint64_t(st.st_ino))};
}

namespace {

// The whole of a file opened for reading (pread from 0: an O_APPEND descriptor too).
std::string read_all(int fd) {
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::pread(fd, buf, sizeof buf, off_t(text.size()))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, size_t(n));
  }
  return text;
}

// A journal's entries: each whole line (a last one without its newline was cut short by
// a kill) whose checksum matches.
std::map<std::string, Piece> parse_journal(const std::string& text) {
  std::map<std::string, Piece> pieces;
  for (size_t b = 0, e; (e = text.find('\n', b)) != std::string::npos; b = e + 1) {
    Piece p;
    if (parse_entry(text.substr(b, e - b), p)) pieces[p.key()] = p;
  }
  return pieces;
}

// The file `name` of the job directory `dir` (named `path`), opened for `flags` when it
// is the caller's own regular file (or made now, with O_CREAT); Error(io) otherwise.
io::UniqueFd own_file(int dir, const std::string& name, const std::string& path, int flags, const std::string& what) {
  io::UniqueFd fd(io::open_own_file_at(dir, name, flags));
  if (!fd) throw Error(ExitCode::io, io::own_file_refusal(dir, name, path + "/" + name, what, errno));
  return fd;
}

// Removes the output a dead job kept beside its target (Output::keep_for_job), when it
// is the caller's own regular file and no process holds it.
void remove_dead_output(const std::string& out) {
  const size_t slash = out.find_last_of('/');
  const io::UniqueFd dir(::open(out.substr(0, slash).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const std::string name = out.substr(slash + 1);
  const io::UniqueFd fd(dir ? io::open_own_file_at(dir.get(), name, O_RDONLY) : -1);
  if (fd && ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) ::unlinkat(dir.get(), name.c_str(), 0);
}

// Dead jobs of the caller's that wrote `output` under another digest (its input was
// touched, or its options changed): nothing can resume them now. Their directory goes,
// and the output they kept beside the target with it: no debris is left. Another user's
// directory is not looked into.
void remove_superseded(int parent, const std::string& dir, const std::string& keep, const std::string& output) {
  for (const io::TempEntry& t : io::find_temp_files({dir})) {
    const std::string name = t.path.substr(t.path.find_last_of('/') + 1);
    if (!t.job_dir || !t.stale || name == keep) continue;
    const io::UniqueFd job(io::open_dir_at(parent, name));
    struct stat st;
    if (!job || ::fstat(job.get(), &st) != 0 || !io::not_own_private_dir(st, t.path).empty()) continue;
    const io::UniqueFd written(io::open_own_file_at(job.get(), "output", O_RDONLY));
    if (!written || read_all(written.get()) != output) continue;
    const std::string out = io::job_output_of(t.path);
    if (io::remove_job_dir(t.path) && !out.empty()) remove_dead_output(out);
  }
}

std::string job_name(const std::string& digest) { return io::kJobPrefix + digest; }

}  // namespace

bool dirs_can_keep_job(const std::vector<std::string>& dirs, bool resume,
                       const std::function<void(const std::string&)>& note) {
  for (const std::string& dir : dirs) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) continue;  // JobDir::open names the error
    const std::string unsafe = io::entries_not_safe_in(st, dir);
    if (unsafe.empty()) continue;
    if (resume)
      throw Error(ExitCode::io, unsafe + ": " + option_ref("resume") + " keeps no job there (use a directory of your own, or a sticky one "
                                         "such as /tmp: -T DIR)");
    if (note) note(unsafe + ": this job keeps no pieces there for " + option_ref("resume") + " (-T DIR of your own allows it)");
    return false;
  }
  return true;
}

// Creates (or finds) one job directory and takes its lock.
void JobDir::lock_dir(const std::string& dir, const std::string& digest, const std::string& output, bool resume) {
  const std::string name = job_name(digest), path = dir + "/" + name;
  io::UniqueFd parent(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent) fail_errno(dir, "cannot open the temporary directory", errno);
  struct stat ps;
  if (::fstat(parent.get(), &ps) != 0) fail_errno(dir, "cannot stat the temporary directory", errno);
  const std::string unsafe = io::entries_not_safe_in(ps, dir);
  if (!unsafe.empty())
    throw Error(ExitCode::io, unsafe + ": a resumable job's directory is not kept there (use a directory of your own, or "
                                       "a sticky one such as /tmp: -T DIR)");
  remove_superseded(parent.get(), dir, name, output);
  io::note_debris_dir(context_, dir);  // after a kill -9, `gxsort clean` looks here too
  auto fd = std::make_shared<io::UniqueFd>(io::make_private_dir(parent.get(), name, path));
  // Pieces are created and renamed into the directory by path (io::TempFile): the path
  // must name this directory, the caller's own 0700 one, whose entry in `dir` no other
  // user can rename or remove (entries_not_safe_in, above).
  struct stat by_fd, by_path;
  if (::fstat(fd->get(), &by_fd) != 0 || ::lstat(path.c_str(), &by_path) != 0 || by_fd.st_dev != by_path.st_dev ||
      by_fd.st_ino != by_path.st_ino)
    throw Error(ExitCode::io, path + ": the job's directory was replaced while it was opened");
  io::UniqueFd lock = own_file(fd->get(), "lock", path, O_RDWR | O_CREAT, "cannot create the job's lock");
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
    throw Error(ExitCode::io, path + ": another gxsort is running this same job (same input, options and output)");
  // A dead job's pieces: not asked to resume, so they go (the lock stays ours).
  if (!resume) io::remove_own_entries(fd->get(), "lock");
  // What this job writes (remove_superseded), made anew.
  if (::unlinkat(fd->get(), "output", 0) != 0 && errno != ENOENT) fail_errno(path + "/output", "cannot remove", errno);
  const io::UniqueFd out = own_file(fd->get(), "output", path, O_WRONLY | O_CREAT | O_EXCL, "cannot create");
  if (::write(out.get(), output.data(), output.size()) != ssize_t(output.size()))
    fail_errno(path + "/output", "cannot write", errno);
  dirs_.push_back(dir);
  paths_.push_back(path);
  parents_.push_back(std::move(parent));
  fds_.push_back(std::move(fd));
  locks_.push_back(std::move(lock));
}

std::map<std::string, Piece> read_journal(const std::string& journal) {
  const io::UniqueFd fd(io::open_own_file_at(AT_FDCWD, journal, O_RDONLY));
  return fd ? parse_journal(read_all(fd.get())) : std::map<std::string, Piece>{};
}

JobDir JobDir::peek(const std::vector<std::string>& dirs, const std::string& digest) {
  JobDir j;
  const std::string name = job_name(digest);
  for (const std::string& d : dirs) {
    if (std::find(j.dirs_.begin(), j.dirs_.end(), d) != j.dirs_.end()) continue;
    io::UniqueFd parent(::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    io::UniqueFd fd = parent ? io::open_private_dir(parent.get(), name, d + "/" + name) : io::UniqueFd();
    if (j.dirs_.empty() && !fd) return j;  // no job left its journal here
    j.dirs_.push_back(d);
    j.paths_.push_back(d + "/" + name);
    j.parents_.push_back(std::move(parent));
    j.fds_.push_back(fd ? std::make_shared<io::UniqueFd>(std::move(fd)) : nullptr);
  }
  const int first = j.fds_[0]->get();
  const io::UniqueFd lock(io::open_own_file_at(first, "lock", O_RDONLY));
  j.running_ = lock && ::flock(lock.get(), LOCK_SH | LOCK_NB) != 0;
  const io::UniqueFd journal(io::open_own_file_at(first, "journal", O_RDONLY));
  if (journal) j.pieces_ = parse_journal(read_all(journal.get()));
  return j;
}

JobDir JobDir::open(const Context& context, const std::vector<std::string>& dirs, const std::string& digest,
                    bool resume, const std::string& output) {
  JobDir j;
  j.context_ = context;
  for (const std::string& d : dirs)
    if (std::find(j.dirs_.begin(), j.dirs_.end(), d) == j.dirs_.end()) j.lock_dir(d, digest, output, resume);
  const std::string path = j.paths_[0];
  j.journal_ = own_file(j.fds_[0]->get(), "journal", path, O_RDWR | O_CREAT | O_APPEND, "cannot open the job's journal");
  if (resume) j.pieces_ = parse_journal(read_all(j.journal_.get()));
  // A line cut short by a kill must not run into the next entry: end it.
  const std::string journal = path + "/journal";
  const off_t end = ::lseek(j.journal_.get(), 0, SEEK_END);
  if (end > 0) {
    char last = '\n';
    if (::pread(j.journal_.get(), &last, 1, end - 1) == 1 && last != '\n' && ::write(j.journal_.get(), "\n", 1) != 1)
      fail_errno(journal, "cannot write the job's journal", errno);
  }
  return j;
}

JobDir::JobDir() = default;
JobDir::~JobDir() { syncer_.reset(); }
JobDir::JobDir(JobDir&&) noexcept = default;
JobDir& JobDir::operator=(JobDir&&) noexcept = default;

size_t JobDir::place(const Piece& p) const {
  // Pieces spread over the job's directories as temp files spread over the -T ones.
  return size_t((p.kind == "level" ? p.b : p.a) % paths_.size());
}

namespace {

std::string piece_name(const Piece& p) {
  char name[64];
  if (p.kind == "level") std::snprintf(name, sizeof name, "level-%02llu-%06llu.bin", (unsigned long long)p.a, (unsigned long long)p.b);
  else if (p.kind == "run" && p.b) std::snprintf(name, sizeof name, "%s-%06llu-%llu.bin", p.kind.c_str(), (unsigned long long)p.a, (unsigned long long)p.b);  // a run's part (Plan::run_files)
  else std::snprintf(name, sizeof name, "%s-%06llu.bin", p.kind.c_str(), (unsigned long long)p.a);
  return name;
}

}  // namespace

std::string JobDir::piece_path(const Piece& p) const { return paths_[place(p)] + "/" + piece_name(p); }

bool JobDir::piece_stat(const Piece& p, struct stat& st) const {
  const auto& dir = fds_[place(p)];
  return dir && ::fstatat(dir->get(), piece_name(p).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
         st.st_uid == ::geteuid();
}

io::File JobDir::open_piece(const Piece& p) const {
  const auto& dir = fds_[place(p)];
  if (!dir) fail_errno(piece_path(p), "cannot open for writing", ENOENT);
  const int fd = io::open_own_file_at(dir->get(), piece_name(p), O_RDWR);
  if (fd < 0) throw Error(ExitCode::io, io::own_file_refusal(dir->get(), piece_name(p), piece_path(p), "cannot open for writing", errno));
  return io::File::adopt_fd(fd, piece_path(p));
}

io::TempFile JobDir::adopt_piece(const Piece& p) const {
  const auto& dir = fds_[place(p)];
  if (!dir) fail_errno(piece_path(p), "cannot open for writing", ENOENT);
  io::TempFile t = io::TempFile::adopt(dir->get(), piece_name(p), piece_path(p));
  t.keep_on_signals(cancel_);
  return t;
}

std::shared_ptr<io::File> JobDir::shared_piece(const Piece& p) const {
  // The last owner removes it, through the directory it was opened in (which it keeps
  // open: the job may be gone by then).
  std::shared_ptr<io::UniqueFd> dir = fds_[place(p)];
  const std::string name = piece_name(p);
  const CancelToken* cancel = cancel_;
  return std::shared_ptr<io::File>(new io::File(open_piece(p)), [dir, name, cancel](io::File* f) {
    delete f;
    if (!cancel || !cancel->cancelled()) ::unlinkat(dir->get(), name.c_str(), 0);
  });
}

void JobDir::remove_piece(const Piece& p) const {
  if (const auto& dir = fds_[place(p)]) ::unlinkat(dir->get(), piece_name(p).c_str(), 0);
}

const Piece* JobDir::find(const std::string& key) const {
  const auto it = pieces_.find(key);
  return it == pieces_.end() ? nullptr : &it->second;
}

void JobDir::record(const Piece& p, bool behind) {
  const std::string journal = paths_[0] + "/journal";
  if (syncer_) syncer_->check();
  const std::string line = entry_text(p);
  if (::write(journal_.get(), line.data(), line.size()) != ssize_t(line.size()))
    fail_errno(journal, "cannot write the job's journal", errno);
  if (sync_ && behind) {
    if (!syncer_) syncer_ = std::make_unique<JournalSyncer>(journal_.get(), journal);
    syncer_->request();
  } else if (sync_) {
    fsync_or_fail(journal_.get(), journal);
  }
  pieces_[p.key()] = p;
  io::test_stop_at(context_, "journal:" + p.kind, true);
}

void JobDir::forget(const std::string& key) { pieces_.erase(key); }

void JobDir::remove() {
  if (cancel_ && cancel_->cancelled() && std::uncaught_exceptions() > 0) return;  // kept for --resume
  syncer_.reset();  // before its descriptor closes
  journal_ = io::UniqueFd();
  // Only the job's holder removes it (a peek holds nothing): what is in each directory,
  // through its descriptor (a staged job's inner job directories too), then the
  // directory; our flocks hold until they close.
  if (!locks_.empty())
    for (size_t i = 0; i < paths_.size(); ++i)
      if (io::remove_own_entries(fds_[i]->get()) == 0) {
        const std::string name = paths_[i].substr(paths_[i].find_last_of('/') + 1);
        ::unlinkat(parents_[i].get(), name.c_str(), AT_REMOVEDIR);
      }
  locks_.clear();
  paths_.clear();
  fds_.clear();
  parents_.clear();
}

}  // namespace gxsort::resume
