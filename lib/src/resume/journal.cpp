#include "resume/journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "io/temp_files.hpp"

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
  std::thread thread_;  // last: starts once the rest is set
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

namespace {

// Dead jobs that wrote `output` under another digest (its input was touched, or its
// options changed): nothing can resume them now. Their directory goes, and the output
// they kept beside the target (Output::keep_for_job) with it: no debris is left.
void remove_superseded(const std::string& dir, const std::string& keep, const std::string& output) {
  for (const io::TempEntry& t : io::find_temp_files({dir})) {
    if (!t.job_dir || !t.stale || t.path == keep) continue;
    std::ifstream f(t.path + "/output");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (text != output) continue;
    const std::string out = io::job_output_of(t.path);
    if (io::remove_job_dir(t.path) && !out.empty() && io::file_is_unlocked(out)) ::unlink(out.c_str());
  }
}

}  // namespace

// Creates (or finds) one job directory and takes its lock.
std::string JobDir::lock_dir(const std::string& dir, const std::string& digest, const std::string& output, bool resume) {
  const std::string path = dir + "/" + io::kJobPrefix + digest;
  remove_superseded(dir, path, output);
  io::note_debris_dir(dir);  // after a kill -9, `gxsort clean` looks here too
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail_errno(path, "cannot create the job directory", errno);
  io::UniqueFd lock(::open((path + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (lock.get() < 0) fail_errno(path, "cannot create the job's lock", errno);
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
    throw Error(ExitCode::io, path + ": another gxsort is running this same job (same input, options and output)");
  locks_.push_back(std::move(lock));
  paths_.push_back(path);
  // A dead job's pieces: not asked to resume, so they go (the lock stays ours).
  if (!resume) io::remove_dir_files(path, "lock");
  std::ofstream(path + "/output") << output;  // what this job writes (remove_superseded)
  return path;
}

std::map<std::string, Piece> read_journal(const std::string& journal) {
  std::map<std::string, Piece> pieces;
  std::ifstream f(journal);
  std::string line;
  // getline sets eof on a last line without its newline: that line was cut short.
  while (std::getline(f, line) && !f.eof()) {
    Piece p;
    if (parse_entry(line, p)) pieces[p.key()] = p;
  }
  return pieces;
}

JobDir JobDir::peek(const std::vector<std::string>& dirs, const std::string& digest) {
  JobDir j;
  const std::string first = dirs[0] + "/" + io::kJobPrefix + digest;
  struct stat st;
  if (::stat(first.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return j;
  for (const std::string& d : dirs)
    if (std::find(j.dirs_.begin(), j.dirs_.end(), d) == j.dirs_.end()) {
      j.dirs_.push_back(d);
      j.paths_.push_back(d + "/" + io::kJobPrefix + digest);
    }
  const io::UniqueFd lock(::open((first + "/lock").c_str(), O_RDONLY | O_CLOEXEC));
  j.running_ = lock.get() >= 0 && ::flock(lock.get(), LOCK_SH | LOCK_NB) != 0;
  j.pieces_ = read_journal(first + "/journal");
  return j;
}

JobDir JobDir::open(const std::vector<std::string>& dirs, const std::string& digest, bool resume, const std::string& output) {
  JobDir j;
  for (const std::string& d : dirs)
    if (std::find(j.dirs_.begin(), j.dirs_.end(), d) == j.dirs_.end()) {
      j.dirs_.push_back(d);
      j.lock_dir(d, digest, output, resume);
    }
  const std::string journal = j.paths_[0] + "/journal";
  if (resume) j.pieces_ = read_journal(journal);
  j.journal_ = io::UniqueFd(::open(journal.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600));  // read: its last byte (below)
  if (j.journal_.get() < 0) fail_errno(journal, "cannot open the job's journal", errno);
  // A line cut short by a kill must not run into the next entry: end it.
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

std::string JobDir::piece_path(const Piece& p) const {
  // Pieces spread over the job's directories as temp files spread over the -T ones.
  const std::string& dir = paths_[(p.kind == "level" ? p.b : p.a) % paths_.size()];
  char name[64];
  if (p.kind == "level") std::snprintf(name, sizeof name, "level-%02llu-%06llu.bin", (unsigned long long)p.a, (unsigned long long)p.b);
  else std::snprintf(name, sizeof name, "%s-%06llu.bin", p.kind.c_str(), (unsigned long long)p.a);
  return dir + "/" + name;
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
  io::test_stop_at("journal:" + p.kind, true);
}

void JobDir::forget(const std::string& key) { pieces_.erase(key); }

void JobDir::remove() {
  syncer_.reset();  // before its descriptor closes
  journal_ = io::UniqueFd();
  if (!locks_.empty())  // only the job's holder removes it (a peek holds nothing)
    for (const std::string& p : paths_) io::remove_dir_files(p, "", true);  // our flocks hold until they close
  locks_.clear();
  paths_.clear();
}

}  // namespace gxsort::resume
