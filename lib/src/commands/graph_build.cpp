// gxsort graph build: an edge list (SNAP text, Matrix Market coordinate, binary u32/u64
// pairs) to a CSR file, in three streaming passes:
//   1. parse the input into a temp file of 16-byte records (big-endian src, dst), adding
//      reversed edges (--symmetrize, symmetric .mtx) and dropping self loops;
//   2. sort_file on that temp file with a 16-byte byte key (unique unless
//      --keep-duplicates): the external sort engine, so graphs larger than RAM work;
//   3. one pass over the sorted edges writing the neighbors and counting degrees, then
//      the offsets; the output is a temp file renamed into place at the end.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <unistd.h>
#include <cerrno>

#include "graph/edge_bytes.hpp"
#include "graph/edge_input.hpp"
#include "graph/graph.hpp"
#include "graph/graph_files.hpp"
#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "io/space.hpp"
#include "io/checksum.hpp"
#include "io/output.hpp"
#include "io/temp_files.hpp"
#include "io/debris.hpp"
#include "resume/staged_job.hpp"
#include "parallel/parallel_for.hpp"
#include "commands/command_plan.hpp"
#include "commands/command_plans.hpp"
#include "commands/graph_renumber.hpp"
#include "commands/resume_plan.hpp"
#include "engine/job.hpp"
#include "engine/engine.hpp"
#include "platform/sizes.hpp"

namespace gxsort {
namespace {

using graph::kCsrHeaderBytes;
constexpr uint64_t kMaxId = (uint64_t(1) << 40) - 2;  // n = max id + 1 stays below 2^40
constexpr size_t kBlock = size_t(8) << 20;

// Appends (src, dst) as 16-byte big-endian records; with --renumber, every input
// edge's two ids also go to `ids` as (id, position) records, positions counted from 0.
class EdgeWriter {
 public:
  EdgeWriter(const io::File& f, bool symmetrize, bool keep_loops, const io::File* ids)
      : w_(f, 0, kBlock), sym_(symmetrize), loops_(keep_loops) {
    if (!ids) return;
    ids_.emplace(*ids, 0, kBlock);
    seen_ids_.assign(kSeenSlots, 0);
    seen_used_.assign(kSeenSlots, 0);
  }
  void add(uint64_t s, uint64_t d) {
    max_id_ = std::max(max_id_, std::max(s, d));
    any_ = true;
    if (ids_) { put_id(s); put_id(d); }
    if (s == d && !loops_) return;
    put(s, d);
    if (sym_ && s != d) put(d, s);
  }
  void put(uint64_t s, uint64_t d) {
    uint64_t r[2] = {__builtin_bswap64(s), __builtin_bswap64(d)};
    w_.write(r, 16);
    records_++;
  }
  // Appends records built elsewhere (the parallel binary parser) and merges their ids.
  void put_records(const uint64_t* r, uint64_t records, uint64_t max_id, bool any) {
    w_.write(r, size_t(16 * records));
    records_ += records;
    if (any) { max_id_ = std::max(max_id_, max_id); any_ = true; }
  }
  void put_ids(const std::vector<uint64_t>& ids) { for (uint64_t id : ids) put_id(id); }
  bool symmetrize() const { return sym_; }
  bool keep_loops() const { return loops_; }
  bool renumbers() const { return ids_.has_value(); }
  void flush() {
    w_.flush();
    if (ids_) ids_->flush();
  }
  uint64_t records() const { return records_; }
  uint64_t id_records() const { return id_records_; }
  uint64_t vertices() const { return any_ ? max_id_ + 1 : 0; }

 private:
  // An id met lately (a direct-mapped table by its Fibonacci hash) is not written again:
  // its first position is in the file already, which the sort keeps. Hubs' repeats
  // mostly stop here, so the ids file is far smaller than two records an edge.
  static constexpr unsigned kSeenBits = 16;
  static constexpr size_t kSeenSlots = size_t(1) << kSeenBits;
  void put_id(uint64_t id) {
    const size_t slot = size_t((id * 0x9e3779b97f4a7c15ULL) >> (64 - kSeenBits));
    const uint64_t position = position_++;
    if (seen_used_[slot] && seen_ids_[slot] == id) return;
    seen_used_[slot] = 1;
    seen_ids_[slot] = id;
    const uint64_t r[2] = {__builtin_bswap64(id), __builtin_bswap64(position)};
    ids_->write(r, 16);
    ++id_records_;
  }
  io::BufferedWriter w_;
  std::optional<io::BufferedWriter> ids_;
  std::vector<uint64_t> seen_ids_;
  std::vector<unsigned char> seen_used_;
  bool sym_, loops_;
  uint64_t max_id_ = 0, records_ = 0, position_ = 0, id_records_ = 0;
  bool any_ = false;
};

// --input-format, or from the file name's extension: .mtx, .bin32/.u32, .bin64/.u64, else snap.
EdgeFormat resolve_format(EdgeFormat f, const std::string& path) {
  if (f != EdgeFormat::automatic) return f;
  auto ends = [&](const char* e) { size_t n = std::strlen(e); return path.size() >= n && path.compare(path.size() - n, n, e) == 0; };
  if (ends(".mtx")) return EdgeFormat::mtx;
  if (ends(".bin32") || ends(".u32")) return EdgeFormat::bin32;
  if (ends(".bin64") || ends(".u64")) return EdgeFormat::bin64;
  return EdgeFormat::snap;
}

// Reads a text file line by line (any size), numbering lines from 1.
class LineReader {
 public:
  LineReader(graph::EdgeBytes& f, const ProgressFn& p) : f_(f), size_(f.in_order() ? 0 : f.file().size()), progress_(p) {}
  bool next(std::string& line) {
    for (;;) {
      size_t nl = buf_.find('\n', pos_);
      if (nl != std::string::npos) {
        line.assign(buf_, pos_, nl - pos_);
        pos_ = nl + 1;
        ++lineno_;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
      }
      if (ended_) {
        if (pos_ >= buf_.size()) return false;
        line.assign(buf_, pos_, std::string::npos);
        pos_ = buf_.size();
        ++lineno_;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
      }
      buf_.erase(0, pos_);
      pos_ = 0;
      const size_t old = buf_.size();
      buf_.resize(old + kBlock);
      size_t n;
      if (f_.in_order()) {
        n = f_.next(&buf_[old], kBlock);
        ended_ = n < kBlock;
      } else {
        n = size_t(std::min<uint64_t>(kBlock, size_ - off_));
        f_.file().read_at(&buf_[old], n, off_);
        ended_ = off_ + n >= size_;
      }
      buf_.resize(old + n);
      off_ += n;
      if (progress_) progress_({"read edges", off_, size_});
    }
  }
  uint64_t bytes_read() const { return off_; }
  uint64_t lineno() const { return lineno_; }

 private:
  graph::EdgeBytes& f_;
  uint64_t size_, off_ = 0, lineno_ = 0;
  bool ended_ = false;
  std::string buf_;
  size_t pos_ = 0;
  const ProgressFn& progress_;
};

// Splits on blanks and tabs.
size_t split(const std::string& line, std::string_view* tok, size_t max) {
  size_t n = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (n < max) tok[n] = std::string_view(line.data() + i, j - i);
    ++n;
    i = j;
  }
  return n;
}

std::string shown(std::string_view text) { return graph::quoted_bytes(text); }

struct Where {
  const std::string& path;
  uint64_t line;
  [[noreturn]] void fail(const std::string& what) const { fail_usage(path + ":" + std::to_string(line) + ": " + what); }
};

uint64_t parse_id(std::string_view t, const Where& w, const char* what) {
  if (t.empty() || t.find_first_not_of("0123456789") != std::string_view::npos)
    w.fail(std::string(what) + " '" + graph::quoted_bytes(t, 40) + "' is not a non-negative integer");
  uint64_t x = 0;
  for (char c : t) {
    const uint64_t digit = uint64_t(c - '0');
    if (x > (~uint64_t(0) - digit) / 10) w.fail(std::string(what) + " '" + graph::quoted_bytes(t, 40) + "' is 2^64 or more");
    x = x * 10 + digit;
  }
  return x;
}

// Without --renumber an id is an index into the CSR's offsets.
void check_id(uint64_t x, const Where& w, const EdgeWriter& out) {
  if (x > kMaxId && !out.renumbers())
    w.fail("vertex id " + std::to_string(x) + " is out of range (at most " + std::to_string(kMaxId) +
           "; " + option_ref("renumber") + " takes any id below 2^64)");
}

// --skip-header: line 1 is skipped, unless it is an edge (dropping it would lose one).
// Without it, a first line of fields that are not all ids reads as a header.
uint64_t parse_snap(graph::EdgeBytes& in, const std::string& path, EdgeWriter& out, uint64_t& entries, bool skip_header,
                    const ProgressFn& p) {
  LineReader r(in, p);
  std::string line;
  std::string_view tok[3];
  bool first = true;
  while (r.next(line)) {
    const Where w{path, r.lineno()};
    if (skip_header && r.lineno() == 1) {
      if (graph::is_edge_line(line)) w.fail("'" + shown(line) + "' is an edge, not a header (drop " + option_ref("skip-header") + ")");
      continue;
    }
    const size_t k = graph::edge_line_fields(line, tok, 3);
    if (k == 0) continue;
    if (first && graph::has_non_id_field(tok, std::min<size_t>(k, 3)))
      w.fail(r.lineno() == 1 ? "not an edge (a header? use " + option_ref("skip-header") + ")"
                             : "not an edge (a header? make it a comment: start it with #)");
    first = false;
    if (k != 2) w.fail("expected two vertex ids, got '" + shown(line) + "'");
    uint64_t s = parse_id(tok[0], w, "vertex id"), d = parse_id(tok[1], w, "vertex id");
    check_id(s, w, out);
    check_id(d, w, out);
    out.add(s, d);
    ++entries;
  }
  return r.bytes_read();
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = char(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

// Returns whether the matrix is symmetric (mirrored entries were added); `bytes` gets
// the bytes read.
bool parse_mtx(graph::EdgeBytes& in, const std::string& path, EdgeWriter& out, uint64_t& entries, uint64_t& bytes,
               const ProgressFn& p) {
  LineReader r(in, p);
  std::string line;
  std::string_view tok[6];
  if (!r.next(line)) Where{path, 1}.fail("empty file: not a Matrix Market file");
  size_t k = split(line, tok, 6);
  const Where w1{path, 1};
  if (k == 0 || lower(tok[0]) != "%%matrixmarket") w1.fail("not a Matrix Market file (no %%MatrixMarket header)");
  if (k < 5) w1.fail("incomplete %%MatrixMarket header: '" + shown(line) + "'");
  if (lower(tok[1]) != "matrix") w1.fail("not a matrix: object '" + shown(tok[1]) + "'");
  if (lower(tok[2]) != "coordinate") w1.fail("not a coordinate Matrix Market file (format '" + shown(tok[2]) + "')");
  const std::string field = lower(tok[3]), sym = lower(tok[4]);
  if (field != "pattern" && field != "real" && field != "integer" && field != "complex")
    w1.fail("unknown field '" + shown(tok[3]) + "'");
  if (sym != "general" && sym != "symmetric" && sym != "skew-symmetric" && sym != "hermitian")
    w1.fail("unknown symmetry '" + shown(tok[4]) + "'");
  const bool symmetric = sym != "general";
  const size_t want_tokens = field == "pattern" ? 2 : field == "complex" ? 4 : 3;
  uint64_t rows = 0, cols = 0, nnz = 0, seen = 0;
  bool have_size = false;
  while (r.next(line)) {
    const Where w{path, r.lineno()};
    k = split(line, tok, 4);
    if (k == 0 || tok[0][0] == '%') continue;
    if (!have_size) {
      if (k != 3) w.fail("expected the size line 'rows cols entries', got '" + shown(line) + "'");
      rows = parse_id(tok[0], w, "row count");
      cols = parse_id(tok[1], w, "column count");
      nnz = parse_id(tok[2], w, "entry count");
      have_size = true;
      continue;
    }
    if (k != want_tokens)
      w.fail("expected " + std::to_string(want_tokens) + " fields for a " + field + " matrix, got '" + shown(line) + "'");
    const uint64_t i = parse_id(tok[0], w, "row index"), j = parse_id(tok[1], w, "column index");
    if (i < 1 || i > rows) w.fail("row index " + std::to_string(i) + " is out of range 1.." + std::to_string(rows));
    if (j < 1 || j > cols) w.fail("column index " + std::to_string(j) + " is out of range 1.." + std::to_string(cols));
    if (++seen > nnz) w.fail("more entries than the " + std::to_string(nnz) + " the size line declares");
    check_id(i - 1, w, out);
    check_id(j - 1, w, out);
    out.add(i - 1, j - 1);
    if (symmetric && i != j) out.put(j - 1, i - 1);
    ++entries;
  }
  if (!have_size) Where{path, r.lineno()}.fail("no size line");
  if (seen != nnz)
    Where{path, r.lineno()}.fail("expected " + std::to_string(nnz) + " entries, found " + std::to_string(seen));
  bytes = r.bytes_read();
  return symmetric;
}

// Binary edge lists are parsed in parallel: blocks of input bytes (the plan's) are read
// with several threads, each thread turns its slice into 16-byte records (and finds its
// largest id and its first bad edge), then the slices are appended in order.
struct BinarySlice {
  std::vector<uint64_t> out;  // records, two u64 each
  std::vector<uint64_t> ids;  // --renumber: the ids of every edge, in order
  uint64_t max_id = 0, first_bad = ~uint64_t(0);
  bool any = false;
};

// With --renumber (`ids`) every id is taken, and listed.
void convert_slice(const unsigned char* p, size_t bytes, size_t w, uint64_t first_edge, const EdgeWriter& edges,
                   BinarySlice& sl) {
  const bool sym = edges.symmetrize(), loops = edges.keep_loops(), ids = edges.renumbers();
  sl.out.clear();
  sl.out.reserve(bytes / (2 * w) * (sym ? 4 : 2));
  sl.ids.clear();
  sl.first_bad = ~uint64_t(0);
  for (size_t b = 0, i = 0; b < bytes; b += 2 * w, ++i) {
    uint64_t s = 0, d = 0;
    std::memcpy(&s, p + b, w);
    std::memcpy(&d, p + b + w, w);
    const bool bad = w == 4 ? (s == 0xFFFFFFFFull || d == 0xFFFFFFFFull) : (s > kMaxId || d > kMaxId);
    if (bad && !ids) { sl.first_bad = first_edge + i; return; }
    sl.max_id = std::max(sl.max_id, std::max(s, d));
    sl.any = true;
    if (ids) { sl.ids.push_back(s); sl.ids.push_back(d); }
    if (s == d && !loops) continue;
    sl.out.push_back(__builtin_bswap64(s));
    sl.out.push_back(__builtin_bswap64(d));
    if (sym && s != d) { sl.out.push_back(__builtin_bswap64(d)); sl.out.push_back(__builtin_bswap64(s)); }
  }
}

// Returns the bytes read.
uint64_t parse_binary(graph::EdgeBytes& in, const std::string& path, size_t w, EdgeWriter& out, uint64_t& entries,
                      unsigned threads, size_t block, const ProgressFn& p) {
  const bool stream = in.in_order();
  const uint64_t size = stream ? 0 : in.file().size();
  auto not_pairs = [&](uint64_t bytes) {
    fail_usage(path + (in.decompresses() ? ": decompressed size " : ": size ") + std::to_string(bytes) +
               " is not a multiple of " + std::to_string(2 * w) + " bytes (" + (w == 4 ? "u32" : "u64") + " pairs)");
  };
  if (size % (2 * w) != 0) not_pairs(size);
  std::vector<unsigned char> buf(stream ? block : size_t(std::min<uint64_t>(block, size)));
  std::vector<BinarySlice> slices(threads);
  uint64_t off = 0;
  for (;;) {
    size_t n;
    if (stream) {
      n = in.next(buf.data(), block);
      if (n % (2 * w)) not_pairs(off + n);
    } else {
      n = size_t(std::min<uint64_t>(block, size - off));
      in.file().read_at_parallel(buf.data(), n, off, threads);
    }
    if (n == 0) break;
    parallel::parallel_for_ranges(n / (2 * w), threads, [&](size_t e0, size_t e1, unsigned t) {
      convert_slice(buf.data() + e0 * 2 * w, (e1 - e0) * 2 * w, w, off / (2 * w) + e0, out, slices[t]);
    });
    for (const BinarySlice& sl : slices) {
      if (sl.first_bad == ~uint64_t(0)) continue;  // slices are in edge order: the first bad one is the file's
      const uint64_t edge = sl.first_bad, at = edge * 2 * w;
      uint64_t ids[2] = {0, 0};
      std::memcpy(&ids[0], &buf[at - off], w);
      std::memcpy(&ids[1], &buf[at - off + w], w);
      fail_usage(path + ":edge " + std::to_string(edge) + " (byte " + std::to_string(at) + "): vertex id " +
                 std::to_string(std::max(ids[0], ids[1])) + " is out of range for " +
                 (w == 4 ? "bin32 (0xFFFFFFFF is reserved" : "bin64 (at most " + std::to_string(kMaxId)) +
                 "; " + option_ref("renumber") + " takes any id)");
    }
    for (const BinarySlice& sl : slices) {
      out.put_records(sl.out.data(), sl.out.size() / 2, sl.max_id, sl.any);
      out.put_ids(sl.ids);
    }
    off += n;
    if (p) p({"read edges", off, size});
    if (stream ? n < block : off >= size) break;
  }
  entries = off / (2 * w);
  return off;
}

}  // namespace

namespace {

// 2. Sorts (and deduplicates) the 16-byte edge records of `edges` into `sorted` (the
// same file for a stream's job: in place) with the sort engine, its temp files in
// `tmp_dirs`; returns the edges left.
EngineOptions edge_sort_options(const GraphBuildOptions& g, const EngineOptions& opt, const std::vector<std::string>& tmp_dirs) {
  EngineOptions so = opt;
  so.format = Format();
  so.format.record_size = 16;
  so.format.key_type = KeyType::bytes;
  so.format.key_bytes = 16;
  so.unique = !g.keep_duplicates;
  so.fsync = false;
  so.before_commit = nullptr;  // the sort of a temp file: its stats are not the command's
  so.tmp_dirs = tmp_dirs;
  return so;
}

uint64_t sort_edges(const std::string& edges, const std::string& sorted, uint64_t records, const GraphBuildOptions& g,
                    const EngineOptions& opt, const std::vector<std::string>& tmp_dirs, RunStats& stats) {
  if (records > 1) {
    const RunStats ss = sort_file(edges, sorted, edge_sort_options(g, opt, tmp_dirs));
    stats.backend = ss.backend;
    stats.mode = ss.mode;
    stats.runs = ss.runs;
    stats.merge_levels = ss.merge_levels;
    stats.resumed = ss.resumed;
    stats.discarded = ss.discarded;
  } else if (edges != sorted && ::rename(edges.c_str(), sorted.c_str()) != 0) {
    fail_errno(sorted, "cannot rename the parsed edges", errno);
  }
  return records > 0 ? io::file_size(sorted) / 16 : 0;
}

// 3. Record i of the sorted file is neighbor i: blocks are converted by several threads
// (degrees counted with relaxed atomics: only slices' end vertices are shared) and
// written at their own offsets. Fills offsets[v + 1] with the degrees; returns the
// neighbors' XXH3-64 (block by block, in file order).
uint64_t write_neighbors(const std::string& edges, uint64_t m, uint32_t idb, uint64_t nb_off, const io::File& out,
                         std::vector<uint64_t>& offsets, const Plan& plan, const EngineOptions& opt) {
  io::Xxh3 hash;
  const unsigned threads = plan.threads;
  io::File sorted = io::File::open_read(edges);
  const size_t block = plan.graph.csr_block_bytes;  // of 16-byte records
  std::vector<unsigned char> buf(size_t(std::min<uint64_t>(block, m * 16)));
  std::vector<unsigned char> nbuf(buf.size() / 16 * idb);
  for (uint64_t off = 0; off < m * 16; off += block) {
    const size_t len = size_t(std::min<uint64_t>(block, m * 16 - off));
    sorted.read_at_parallel(buf.data(), len, off, threads);
    parallel::parallel_for_ranges(len / 16, threads, [&](size_t lo, size_t hi, unsigned) {
      for (size_t i = lo; i < hi; ++i) {
        uint64_t r[2];
        std::memcpy(r, &buf[16 * i], 16);
        const uint64_t s = __builtin_bswap64(r[0]), d = __builtin_bswap64(r[1]);
        __atomic_fetch_add(&offsets[s + 1], uint64_t(1), __ATOMIC_RELAXED);
        if (idb == 4) { const uint32_t x = uint32_t(d); std::memcpy(&nbuf[4 * i], &x, 4); }
        else std::memcpy(&nbuf[8 * i], &d, 8);
      }
    });
    out.write_at_parallel(nbuf.data(), len / 16 * idb, nb_off + off / 16 * idb, threads);
    hash.update(nbuf.data(), len / 16 * idb);
    if (opt.progress) opt.progress({"write CSR", off + len, m * 16});
  }
  return hash.digest();
}

// The CSR's header and offsets, once the neighbors are written; `renumbered`: the id
// map's flag and hash.
void write_header_and_offsets(const io::File& out, uint64_t n, uint64_t m, uint32_t idb, bool symmetric,
                              std::vector<uint64_t>& offsets, uint64_t neighbors_hash, const RenumberStage* renumbered) {
  for (uint64_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  graph::CsrHeader h{};
  std::memcpy(h.magic, graph::kCsrMagic, 8);
  h.version = graph::kCsrVersion;
  h.id_bytes = idb;
  h.n = n;
  h.m = m;
  h.flags = (symmetric ? graph::kFlagSymmetric : 0) | (renumbered ? graph::kFlagRenumbered : 0);
  h.ids_hash = renumbered ? renumbered->ids_hash : 0;
  h.checksum = graph::csr_checksum(h, io::xxh3_64(offsets.data(), 8 * (n + 1)), neighbors_hash);
  out.write_at(&h, sizeof h, 0);
  out.write_at(offsets.data(), 8 * (n + 1), kCsrHeaderBytes);
}

}  // namespace

Plan plan_graph_build(const io::File& in, const std::string& input, const GraphBuildOptions& g,
                      const EngineOptions& opt) {
  PlanRequest job = plan_request(CommandKind::graph_build, opt, in.is_stream() ? 0 : in.size(), in.is_stream(), in.path());
  job.sort.record_size = 16;  // the edge records the sort takes
  job.edge_format = resolve_format(g.input_format, input);
  job.symmetrize = g.symmetrize;
  return make_plan(job);
}

namespace {

// What the parse leaves the later stages (journalled with the edges: a resume that
// skips the parse has them).
struct Parsed {
  uint64_t records = 0, vertices = 0, input_bytes = 0, input_edges = 0;
  uint64_t id_records = 0;  // --renumber (no job): the ids file's records
  bool symmetric = false;
  std::vector<uint64_t> values() const { return {vertices, input_bytes, input_edges, symmetric ? 1u : 0u}; }
  static Parsed of(const resume::Piece& p) {
    Parsed r;
    r.records = p.records;
    if (p.list.size() == 4) { r.vertices = p.list[0]; r.input_bytes = p.list[1]; r.input_edges = p.list[2]; r.symmetric = p.list[3]; }
    return r;
  }
};

// 1. Parses the input's edges into `edges` (a new file), and with --renumber their ids
// into `ids`.
Parsed parse_edges(io::File& in, EdgeFormat fmt, const GraphBuildOptions& g, const Plan& plan, io::TempFile& edges,
                   io::TempFile* ids, const EngineOptions& opt) {
  Parsed r;
  r.symmetric = g.symmetrize;
  {
    EdgeWriter w(edges.file(), g.symmetrize, g.keep_self_loops, ids ? &ids->file() : nullptr);
    graph::EdgeBytes bytes(in);  // gzip: decompressed
    if (fmt == EdgeFormat::snap) r.input_bytes = parse_snap(bytes, in.path(), w, r.input_edges, g.skip_header, opt.progress);
    else if (fmt == EdgeFormat::mtx) r.symmetric = parse_mtx(bytes, in.path(), w, r.input_edges, r.input_bytes, opt.progress) || r.symmetric;
    else r.input_bytes = parse_binary(bytes, in.path(), fmt == EdgeFormat::bin32 ? 4 : 8, w, r.input_edges, plan.threads,
                                      plan.graph.parse_block_bytes, opt.progress);
    w.flush();
    r.records = w.records();
    r.vertices = w.vertices();
    r.id_records = w.id_records();
  }
  in.check_unchanged();
  edges.file().close();
  if (ids) ids->file().close();
  return r;
}

// What defines a graph build's result (its job's digest).
std::string graph_digest(const io::File& in, EdgeFormat fmt, const GraphBuildOptions& g, const std::string& output) {
  std::vector<std::string> parts{"gxsort graph build job 1"};
  for (const std::string& s : resume::input_parts(in)) parts.push_back(s);
  parts.push_back(std::to_string(int(fmt)));
  parts.push_back(std::string(g.symmetrize ? "s" : "-") + (g.keep_self_loops ? "l" : "-") + (g.keep_duplicates ? "d" : "-") +
                  (g.skip_header ? "h" : ""));
  parts.push_back(io::output_key(output));
  return resume::job_digest(parts);
}

// The stages a killed run of the job kept (the sorted edges, else the parsed ones), or
// the parse done now: the parsed edges' file and what the parse found. Without a job (a
// stream, --renumber) the edges go to `temp`; with --renumber their ids to `ids`.
Parsed parsed_stage(io::File& in, EdgeFormat fmt, const GraphBuildOptions& g, const Plan& plan, resume::StagedJob* job,
                    std::optional<io::TempFile>& temp, io::TempFile* ids, const std::string& tmp_dir,
                    const EngineOptions& opt, const resume::Piece*& sorted) {
  sorted = job ? job->kept("sorted", "the sorted edges") : nullptr;
  if (sorted) return Parsed::of(*sorted);
  if (const resume::Piece* kept = job ? job->kept("edges", "the parsed edges") : nullptr) return Parsed::of(*kept);
  temp.emplace(io::TempFile::create(opt.context, job ? job->dirs()[0] : tmp_dir, "edges"));
  const Parsed r = parse_edges(in, fmt, g, plan, *temp, ids, opt);
  if (job) {
    temp->move_to(job->path("edges"));  // whole: it gets its stage name, then its journal entry
    temp->release();
    temp.reset();
    job->record("edges", r.records, r.values());
  }
  return r;
}

}  // namespace

ResumeReport graph_build_resume(const io::File& in, const std::string& input, const std::string& output,
                               const GraphBuildOptions& g, const EngineOptions& opt) {
  if (in.is_stream() || g.renumber != Renumber::none) return {};  // no job (open_job)
  const resume::StagesFound found(temp_dirs(opt, default_temp_dir(output)),
                                  graph_digest(in, resolve_format(g.input_format, input), g, output));
  StagedResume r = staged_resume(found, {"write the CSR"});
  if (found.found()) {
    if (found.kept("sorted")) {
      r.kept = {"the sorted edges"};
    } else if (found.kept("edges")) {
      r.kept = {"the parsed edges"};
      r.sort_of = "the edges";
      const std::string edges = found.path("edges"), sorted = found.path("sorted");
      const EngineOptions so = edge_sort_options(g, opt, found.dirs());
      const io::File e = io::File::open_read(edges);
      if (e.size() > 16)  // one edge or none: renamed, not sorted (sort_edges)
        r.sort = SortJob::inspect(prepare(so, e.size(), default_temp_dir(sorted), e.path()), e, sorted, so);
    } else {
      r.left.insert(r.left.begin(), {"parse the edges", "sort them"});
    }
  }
  return resume_report(r);
}

namespace {

// The options' own mistakes, found before the input is opened (a FIFO's open waits for
// its writer); the edge format.
EdgeFormat checked_options(const std::string& input, const GraphBuildOptions& g, const EngineOptions& opt) {
  const EdgeFormat fmt = resolve_format(g.input_format, input);
  if (g.skip_header && fmt != EdgeFormat::snap)
    fail_usage("graph build: " + option_ref("skip-header") + " applies to text edge lists (snap, CSV, TSV), not " +
               std::string(fmt == EdgeFormat::mtx ? "Matrix Market files (their header is read)" : "binary ones"));
  if (g.renumber == Renumber::none && !g.ids_output.empty()) fail_usage("graph build: " + option_ref("ids") + " names the id map of " + option_ref("renumber"));
  if (g.renumber != Renumber::none && opt.resume)
    fail_usage("graph build " + option_ref("renumber") + " is not resumable: run it without " + option_ref("resume"));
  return fmt;
}

// The request's mistakes a run finds before it writes (a plan needs no output).
EdgeFormat checked_request(const std::string& input, const std::string& output, const GraphBuildOptions& g,
                           const EngineOptions& opt) {
  if (output.empty()) fail_usage("graph build: the output is required: -o GRAPH");
  if (!io::input_named_by(output, {input}).empty())
    fail_usage(output + ": names the input; the graph goes to another file (it would replace the edges)");
  return checked_options(input, g, opt);
}

// --renumber's id map: --ids, else GRAPH.ids; "" without --renumber.
std::string id_map_path(const std::string& input, const std::string& output, const GraphBuildOptions& g) {
  if (g.renumber == Renumber::none) return "";
  if (g.ids_output.empty() && output == "-") fail_usage("graph build " + option_ref("renumber") + " into stdout: name the id map with " + option_ref("ids", "FILE"));
  const std::string path = g.ids_output.empty() ? graph::default_ids_path(output) : g.ids_output;
  if (io::same_target(path, false, output, false)) fail_usage(path + ": names the graph; the id map goes to another file");
  if (!io::input_named_by(path, {input}).empty()) fail_usage(path + ": names the input; the id map goes to another file");
  return path;
}

// A regular input makes the build a resumable job (resume/staged_job.hpp): the parsed
// edges and the sorted edges are its stages, the sort's runs its sort's pieces. Not
// with --renumber (its id stages are not journalled).
std::unique_ptr<resume::StagedJob> open_job(const io::File& in, EdgeFormat fmt, const GraphBuildOptions& g,
                                            const std::string& output, io::Output& out, const std::vector<std::string>& tmp_dirs,
                                            const Plan& plan, const EngineOptions& opt) {
  if (in.is_stream() || g.renumber != Renumber::none || !io::output_can_resume(output, opt.resume) ||
      !resume::dirs_can_keep_job(tmp_dirs, opt.resume, opt.note))  // (into a pipe: engine/job.cpp's can_resume)
    return nullptr;
  auto job = std::make_unique<resume::StagedJob>(opt.context, tmp_dirs, graph_digest(in, fmt, g, output), opt.resume,
                                                 io::output_key(output), plan.threads, opt.note);
  job->keep_if_cancelled(opt.cancel);
  if (!out.streamed()) out.keep_for_job(io::kJobPrefix + job->digest() + ".out", false, opt.cancel);  // a stable name: no debris
  return job;
}

// The CSR's offsets are built in memory: 8 bytes a vertex.
void check_offsets_memory(const std::string& input, const Parsed& parsed, bool renumbered, uint64_t memory) {
  const uint64_t offsets_bytes = 8 * (parsed.vertices + 1);
  if (offsets_bytes > memory)
    throw Error(ExitCode::io, input + ": the CSR offsets of " + std::to_string(parsed.vertices) + " vertices" +
                                  (renumbered ? "" : " (largest id + 1)") + " need " + format_bytes(offsets_bytes) +
                                  " of memory, more than the " + option_ref("memory") + " budget of " + format_bytes(memory) + " (raise " + option_ref("memory") +
                                  (renumbered ? ")" : ", or give " + option_ref("renumber") + ": vertices numbered densely)"));
}

// 3. The CSR of the n vertices and m sorted edges into `out`; returns its size.
uint64_t write_csr(const std::string& sorted, uint64_t n, uint64_t m, bool symmetric, const RenumberStage* renumbered,
                   io::Output& out, const Plan& plan, const EngineOptions& opt) {
  const uint32_t idb = graph::id_bytes_for(n);
  const uint64_t nb_off = kCsrHeaderBytes + 8 * (n + 1);
  const uint64_t out_bytes = nb_off + idb * m;
  io::check_space(opt.context, {{out.space_dir(), out_bytes, "the output"}});
  std::vector<uint64_t> offsets(n + 1, 0);
  const uint64_t nb_hash = write_neighbors(sorted, m, idb, nb_off, out.file(), offsets, plan, opt);
  write_header_and_offsets(out.file(), n, m, idb, symmetric, offsets, nb_hash, renumbered);
  return out_bytes;
}

// --renumber's files: the ids of the parse, and the map (opened before any work).
struct Renumbered {
  std::string map_path;
  std::optional<io::TempFile> ids;
  io::Output map;
  RenumberStage stage;
};

void open_renumbered(Renumbered& r, const std::string& map_path, const std::string& tmp_dir, const EngineOptions& opt) {
  r.map_path = map_path;
  if (map_path.empty()) return;
  r.map = io::Output::open(opt.context, map_path, temp_dirs(opt, default_temp_dir(map_path))[0], "out",
                           graph::npy_array_header(map_path, 8), option_ref("ids"));
  r.ids.emplace(io::TempFile::create(opt.context, tmp_dir, "ids"));
}

}  // namespace

// A graph build's plan's parts: the input plan() opened; its Plan (prepared.plan) has
// no backend (the edge sort makes its own once the edges are counted).
template <>
struct CommandPlan<GraphBuildRequest>::State : PlanStateBase<GraphBuildRequest> {
  io::File in;
};

PlanReport report_of(const CommandPlan<GraphBuildRequest>::State& s) {
  const GraphBuildRequest& req = s.request;
  PlanReport r = plan_report(s.prepared.plan);
  if (req.options.resume) r.resume = graph_build_resume(s.in, req.input, req.output, req.build, req.options);
  r.input = req.input;
  r.format = req.options.format.describe();
  return r;
}

template class CommandPlan<GraphBuildRequest>;

CommandPlan<GraphBuildRequest> plan(GraphBuildRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<GraphBuildRequest>::State>();
  s->request = std::move(request);
  checked_options(s->request.input, s->request.build, s->request.options);
  s->in = io::File::open_input(s->request.input);
  s->prepared.plan = plan_graph_build(s->in, s->request.input, s->request.build, s->request.options);
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<GraphBuildRequest>(std::move(s));
}

GraphBuildResult run(CommandPlan<GraphBuildRequest> planned) {
  CommandPlan<GraphBuildRequest>::State& s = PlanAccess::state(planned);
  const auto t0 = Clock::now() - s.planning;
  const std::string &input = s.request.input, &output = s.request.output;
  const GraphBuildOptions& g = s.request.build;
  const EngineOptions& opt = s.request.options;
  const EdgeFormat fmt = checked_request(input, output, g, opt);
  const std::string map_path = id_map_path(input, output, g);
  io::File& in = s.in;
  graph::refuse_compressed_edges(in);
  if (opt.resume && in.is_stream()) fail_usage(in.path() + ": " + option_ref("resume") + " needs a regular input file (a stream cannot be read again)");
  const std::vector<std::string> tmp_dirs = temp_dirs(opt, default_temp_dir(output));
  for (const std::string& d : tmp_dirs) io::require_writable_dir(d, "temporary");
  // Checked (and the outputs' temp files made) before any work.
  io::Output out = io::Output::open(opt.context, output, tmp_dirs[0]);
  Renumbered renumbered;
  open_renumbered(renumbered, map_path, tmp_dirs[0], opt);
  const Plan& plan = s.prepared.plan;
  std::unique_ptr<resume::StagedJob> job = open_job(in, fmt, g, output, out, tmp_dirs, plan, opt);
  GraphBuildResult res;
  res.stats.command = "graph build";
  std::optional<io::TempFile> temp;
  const resume::Piece* sorted_kept = nullptr;
  io::TempFile* ids = renumbered.ids ? &*renumbered.ids : nullptr;
  Parsed parsed = parsed_stage(in, fmt, g, plan, job.get(), temp, ids, tmp_dirs[0], opt, sorted_kept);
  res.input_edges = parsed.input_edges;
  res.stats.phases.push_back({"parse", since(t0), parsed.input_bytes, parsed.records * 16});
  const std::string edges = job ? job->path("edges") : temp->path(), sorted = job ? job->path("sorted") : edges;
  if (ids) {
    const auto tr = std::chrono::steady_clock::now();
    renumbered.stage = renumber_edges(ids->path(), parsed.id_records, edges, parsed.records, g.renumber, renumbered.map,
                                      plan, opt, tmp_dirs);
    ids->remove();
    parsed.vertices = renumbered.stage.vertices;
    res.ids_output = map_path;
    res.stats.phases.push_back({"renumber", since(tr), parsed.id_records * 16, 8 * parsed.vertices});
  }
  check_offsets_memory(in.path(), parsed, ids != nullptr, plan.graph.offsets_budget);
  const auto t1 = std::chrono::steady_clock::now();
  uint64_t m = sorted_kept ? sorted_kept->records : 0;
  if (!sorted_kept) {
    m = sort_edges(edges, sorted, parsed.records, g, opt, job ? job->dirs() : tmp_dirs, res.stats);
    if (job) {
      job->record("sorted", m, parsed.values());
      ::unlink(edges.c_str());  // the sorted edges stand for it now
    }
  }
  res.stats.phases.push_back({"sort", since(t1), parsed.records * 16, m * 16});
  const auto t2 = std::chrono::steady_clock::now();
  res.vertices = parsed.vertices;
  res.edges = res.stats.records = m;
  res.stats.input_bytes = parsed.input_bytes;
  res.stats.output_bytes = write_csr(sorted, parsed.vertices, m, parsed.symmetric, ids ? &renumbered.stage : nullptr, out, plan, opt);
  res.stats.phases.push_back({"csr", since(t2), m * 16, res.stats.output_bytes});
  if (job) {
    res.stats.resumed = job->summary(res.stats.resumed);
    res.stats.discarded += job->discarded();
  }
  if (res.stats.backend.empty()) res.stats.backend = "cpu";
  std::vector<io::Output*> outputs{&out};
  if (ids) outputs.push_back(&renumbered.map);
  commit_outputs(outputs, res.stats, t0, opt);
  if (job) job->finish();  // after the commit: killed in between, a resume writes the CSR again
  return res;
}

GraphBuildResult graph_build(const std::string& input, const std::string& output, const GraphBuildOptions& g,
                             const EngineOptions& opt) {
  return run(plan(GraphBuildRequest{input, output, g, opt}));
}

}  // namespace gxsort
