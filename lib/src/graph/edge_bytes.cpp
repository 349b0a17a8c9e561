#include "graph/edge_bytes.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "format/sniff.hpp"
#include "graph/edge_input.hpp"
#include "gxsort/error.hpp"

#if GXSORT_HAVE_ZLIB
#include <zlib.h>
#endif

namespace gxsort::graph {

namespace {
constexpr size_t kHeadBytes = 16;  // enough for every signature sniff.hpp knows but text
}

#if GXSORT_HAVE_ZLIB
bool reads_gzip() { return true; }

// gzip members one after another (`cat a.gz b.gz` is one gzip file), each inflated whole.
struct EdgeBytes::Inflater {
  z_stream z{};
  std::vector<unsigned char> input = std::vector<unsigned char>(size_t(1) << 20);
  bool input_ended = false;   // the file's bytes are all in `input` or inflated
  bool member_ended = false;  // the last member was whole (the data may end here)
  Inflater() {
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw Error(ExitCode::io, "zlib: cannot start inflating (out of memory?)");
  }
  ~Inflater() { inflateEnd(&z); }
};

size_t EdgeBytes::inflate_next(unsigned char* dst, size_t n) {
  Inflater& f = *inflater_;
  size_t got = 0;
  while (got < n) {
    if (f.z.avail_in == 0 && !f.input_ended) {
      const size_t k = raw_next(f.input.data(), f.input.size());
      f.input_ended = k < f.input.size();
      f.z.next_in = f.input.data();
      f.z.avail_in = uInt(k);
    }
    if (f.z.avail_in == 0 && f.input_ended) {
      if (!f.member_ended) fail_usage(in_.path() + ": the gzip data ends early (a truncated file?)");
      break;
    }
    if (f.member_ended) {  // more bytes after a member: the next member
      inflateReset(&f.z);
      f.member_ended = false;
    }
    f.z.next_out = dst + got;
    f.z.avail_out = uInt(std::min<size_t>(n - got, UINT_MAX));
    const int rc = inflate(&f.z, Z_NO_FLUSH);
    got = size_t(f.z.next_out - dst);
    if (rc == Z_STREAM_END) f.member_ended = true;
    else if (rc != Z_OK && rc != Z_BUF_ERROR)  // Z_BUF_ERROR: it needs more input
      fail_usage(in_.path() + ": the gzip data is damaged (zlib: " + quoted_bytes(f.z.msg ? std::string(f.z.msg) : "error " + std::to_string(rc)) + ")");
  }
  return got;
}
#else
bool reads_gzip() { return false; }
struct EdgeBytes::Inflater {};
size_t EdgeBytes::inflate_next(unsigned char*, size_t) { return 0; }
#endif

EdgeBytes::EdgeBytes(const io::File& in) : in_(in), in_order_(in.is_stream()) {
  head_.resize(kHeadBytes);
  size_t n = 0;
  if (in.is_stream()) n = in.read_stream(&head_[0], kHeadBytes);
  else if ((n = size_t(std::min<uint64_t>(kHeadBytes, in.size())))) in.read_at(&head_[0], n, 0);
  head_.resize(n);
  const auto* head = reinterpret_cast<const unsigned char*>(head_.data());
  const std::string refusal = compressed_edges_message(in.path(), head, n);
  if (!refusal.empty()) fail_usage(refusal);
  if (what_file_looks_like(head, n) == FileKind::gzip) {
    inflater_ = std::make_unique<Inflater>();
    in_order_ = true;
  }
  if (!in.is_stream()) head_.clear();  // a regular file is read from its start again
}

EdgeBytes::~EdgeBytes() = default;

size_t EdgeBytes::raw_next(unsigned char* dst, size_t n) {
  size_t got = std::min(n, head_.size() - head_used_);
  std::memcpy(dst, head_.data() + head_used_, got);
  head_used_ += got;
  if (got == n) return got;
  if (in_.is_stream()) return got + in_.read_stream(dst + got, n - got);
  const size_t k = size_t(std::min<uint64_t>(n - got, in_.size() - file_offset_));
  if (k) in_.read_at(dst + got, k, file_offset_);
  file_offset_ += k;
  return got + k;
}

size_t EdgeBytes::next(void* dst, size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  return inflater_ ? inflate_next(out, n) : raw_next(out, n);
}

}  // namespace gxsort::graph
