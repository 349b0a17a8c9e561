// A resumable merge's part hashed as it is written (LineWriter::hash_blocks): the same
// checksum the journal's entry was read back with (io::xxh3_blocks_of_file, one
// thread), whatever the size -- none, within one buffer, across the writer's flushes and
// the checksum's 4 MiB blocks, ending on a block's edge -- and with lines longer than the
// writer's buffer (written past it).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "io/checksum.hpp"
#include "io/temp_files.hpp"
#include "lines/write_lines.hpp"

using namespace gxsort;

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kOffset = 100;  // where the part starts in the file
constexpr size_t kBuffer = 4096;   // the writer's buffer: flushed many times

// Lines of `bytes` in all (each with its '\n'): lengths 0..299, every 50th one 10000
// bytes (longer than the buffer), the last cut to end on `bytes` exactly.
std::vector<std::string> lines_of(uint64_t bytes) {
  std::vector<std::string> lines;
  uint64_t seed = 7, total = 0;
  while (total < bytes) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    uint64_t len = lines.size() % 50 == 49 ? 10000 : (seed >> 33) % 300;
    len = std::min(len, bytes - total - 1);
    lines.emplace_back(size_t(len), char('a' + (seed >> 40) % 26));
    total += len + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("lines: a part's checksum hashed as it is written is the read-back one") {
  gxsort_test::TempDir dir("gxsort-unit-partsum");
  REQUIRE(!dir.path.empty());
  for (const uint64_t bytes : {uint64_t(0), uint64_t(1), uint64_t(kBuffer - 1), uint64_t(kBuffer),
                               uint64_t(kBuffer + 1), 4 * kMiB - 1, 4 * kMiB, 4 * kMiB + 1, 9 * kMiB + 123}) {
    CAPTURE(bytes);
    io::TempFile out = io::TempFile::create_unlisted(dir.path, "part");
    const std::string before(kOffset, 'x');
    out.file().write_at(before.data(), before.size(), 0);
    lines::LineWriter w(out.file(), kOffset, '\n', kBuffer, nullptr);
    w.hash_blocks();
    std::string text;
    for (const std::string& line : lines_of(bytes)) {
      w.put(line);
      text += line + '\n';
    }
    w.flush();
    REQUIRE(w.bytes() == bytes);
    REQUIRE(out.file().size() == kOffset + bytes);
    CHECK(w.checksum() == io::xxh3_blocks_of_file(out.file(), bytes, kOffset, 1));
    CHECK(w.checksum() == io::xxh3_blocks(text.data(), text.size(), 1));
  }
}

TEST_CASE("io: Xxh3Blocks fed in any pieces is xxh3_blocks") {
  std::string data(size_t(8 * kMiB + 5), '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = char(i * 2654435761u >> 13);
  for (const size_t piece : {size_t(1) << 20, size_t(4 * kMiB), size_t(4 * kMiB + 3), size_t(999983)}) {
    CAPTURE(piece);
    io::Xxh3Blocks h;
    for (size_t at = 0; at < data.size(); at += piece) h.update(data.data() + at, std::min(piece, data.size() - at));
    CHECK(h.digest() == io::xxh3_blocks(data.data(), data.size(), 2));
    CHECK(h.digest() == h.digest());  // digest() leaves the state as it was
  }
  CHECK(io::Xxh3Blocks().digest() == io::xxh3_blocks(nullptr, 0, 1));
}
