// The bytes of an edge list as graph build's parsers read them: a regular file's at any
// offset, a stream's in order, or a gzip file's (file or stream) decompressed in order
// with zlib. Other compressed inputs (zstd, xz, bzip2; gzip where gxsort was built
// without zlib) are refused by name (graph/edge_input.hpp): a regular file by
// refuse_compressed_edges before any work, a stream when this reads its first bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/file.hpp"

namespace gxsort::graph {

bool reads_gzip();  // built with zlib: gzip edge lists are read, not refused

class EdgeBytes {
 public:
  explicit EdgeBytes(const io::File& in);
  ~EdgeBytes();
  EdgeBytes(const EdgeBytes&) = delete;
  EdgeBytes& operator=(const EdgeBytes&) = delete;
  // Read in order with next() (a stream, or gzip data); else the file's bytes are read
  // where they are (file().read_at...), and the file's size is theirs.
  bool in_order() const { return in_order_; }
  // Up to n of the next bytes (decompressed); fewer only at the end. Error(usage) naming
  // the file for gzip data that is damaged or ends early.
  size_t next(void* dst, size_t n);
  const io::File& file() const { return in_; }
  bool decompresses() const { return inflater_ != nullptr; }

 private:
  struct Inflater;
  size_t raw_next(unsigned char* dst, size_t n);  // the file's own bytes, in order
  size_t inflate_next(unsigned char* dst, size_t n);
  const io::File& in_;
  bool in_order_ = false;
  std::string head_;          // a stream's first bytes, read to sniff it, handed out first
  size_t head_used_ = 0;
  uint64_t file_offset_ = 0;  // a regular gzip file: its bytes read so far
  std::unique_ptr<Inflater> inflater_;
};

}  // namespace gxsort::graph
