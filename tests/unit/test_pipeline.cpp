// The chunk scheduler: order kept, every byte seen once, errors propagated, cancel;
// and the io helpers the pipelines use (write-behind, discard).
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gxsort/cancel.hpp"
#include "gxsort/error.hpp"
#include "io/early_writeback.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"

using namespace gxsort;

TEST_CASE("chunks pass read, compute and write in order, with 1 to 4 slots") {
  for (size_t slots : {1, 2, 3, 4}) {
    for (uint64_t total : {0ULL, 1ULL, 999ULL, 1000ULL, 12345ULL}) {
      std::vector<std::vector<unsigned char>> bufs(slots, std::vector<unsigned char>(100));
      std::vector<unsigned char*> ptrs;
      for (auto& b : bufs) ptrs.push_back(b.data());
      std::vector<unsigned char> out;
      std::vector<size_t> order;
      pipeline::Stages st;
      st.read = [](pipeline::Chunk& c) {
        for (size_t i = 0; i < c.bytes; ++i) c.data[i] = uint8_t((c.offset + i) % 251);
        std::this_thread::sleep_for(std::chrono::microseconds(c.index % 3 * 100));
      };
      st.compute = [](pipeline::Chunk& c) { for (size_t i = 0; i < c.bytes; ++i) c.data[i] ^= 0x5a; };
      st.write = [&](pipeline::Chunk& c) {
        order.push_back(c.index);
        out.insert(out.end(), c.data, c.data + c.bytes);
      };
      pipeline::Config cfg;
      cfg.total_bytes = total;
      cfg.chunk_bytes = 100;
      uint64_t last_done = 0;
      pipeline::run_chunks(cfg, ptrs, st, [&](const Progress& p) { CHECK(p.total == total); CHECK(p.done > last_done); last_done = p.done; });
      REQUIRE(out.size() == total);
      for (uint64_t i = 0; i < total; ++i) CHECK(out[i] == uint8_t((i % 251) ^ 0x5a));
      for (size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i);
      CHECK(last_done == total);
    }
  }
}

TEST_CASE("the busy seconds of each stage are its functions' time, the writers' summed") {
  // Each stage sleeps a known time per chunk: 10 chunks, read 2 ms, compute 4 ms, write
  // 6 ms (on 1 or 2 writer threads: the sum is the same).
  for (unsigned writers : {1u, 2u}) {
    std::vector<std::vector<unsigned char>> bufs(3, std::vector<unsigned char>(10));
    std::vector<unsigned char*> ptrs;
    for (auto& b : bufs) ptrs.push_back(b.data());
    auto nap = [](int ms) { return [ms](pipeline::Chunk&) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }; };
    pipeline::Stages st;
    st.read = nap(2);
    st.compute = nap(4);
    st.write = nap(6);
    pipeline::Busy busy;
    pipeline::Config cfg;
    cfg.total_bytes = 100;
    cfg.chunk_bytes = 10;
    cfg.write_threads = writers;
    cfg.busy = &busy;
    const auto t0 = std::chrono::steady_clock::now();
    pipeline::run_chunks(cfg, ptrs, st, nullptr);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CAPTURE(writers);
    CHECK(busy.read >= 0.020);
    CHECK(busy.compute >= 0.040);
    CHECK(busy.write >= 0.060);
    // Sleeps overshoot by what the load makes them, so no upper bound in seconds: a
    // stage's time lies within the pipeline's (the writers' sum within theirs).
    CHECK(busy.read <= wall);
    CHECK(busy.compute <= wall);
    CHECK(busy.write <= wall * writers);
  }
}

TEST_CASE("a chunk the write stage holds keeps its slot: no later chunk is read into it") {
  // 4 chunks in 3 slots, the last 3 held, 2 writers. Chunk 0's write waits until chunks
  // 1 and 2 (held) are written by the other writer, so the held chunks' writes end first:
  // chunk 3 must still be read into chunk 0's slot, the only one released (a FIFO of
  // released slots gave it chunk 1's, overwriting a held run: the bug this guards against).
  std::vector<std::vector<unsigned char>> bufs(3, std::vector<unsigned char>(10));
  std::vector<unsigned char*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.data());
  std::mutex m;
  std::condition_variable cv;
  size_t held_written = 0;
  std::vector<size_t> slot_of(4, 99);
  std::vector<unsigned char> first_byte(4, 0);
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) {
    std::memset(c.data, int(c.index + 1), c.bytes);
    std::lock_guard<std::mutex> l(m);
    slot_of[c.index] = c.slot;
  };
  st.write = [&](pipeline::Chunk& c) {
    std::unique_lock<std::mutex> l(m);
    if (c.index == 0) cv.wait(l, [&] { return held_written == 2; });
    c.held = c.index >= 1;
    if (c.index == 1 || c.index == 2) ++held_written;
    cv.notify_all();
  };
  pipeline::Config cfg;
  cfg.total_bytes = 40;
  cfg.chunk_bytes = 10;
  cfg.write_threads = 2;
  pipeline::run_chunks(cfg, ptrs, st, nullptr);
  CHECK(slot_of[3] == slot_of[0]);
  for (size_t i = 1; i < 4; ++i) CHECK(ptrs[slot_of[i]][0] == i + 1);  // each held chunk's data intact
}

TEST_CASE("an error in any stage stops the pipeline and is rethrown") {
  for (int stage = 0; stage < 3; ++stage) {
    std::vector<std::vector<unsigned char>> bufs(3, std::vector<unsigned char>(10));
    std::vector<unsigned char*> ptrs;
    for (auto& b : bufs) ptrs.push_back(b.data());
    std::atomic<size_t> written{0};
    auto boom = [stage](int here, pipeline::Chunk& c) {
      if (here == stage && c.index == 5) throw Error(ExitCode::io, "stage failed");
    };
    pipeline::Stages st;
    st.read = [&](pipeline::Chunk& c) { boom(0, c); };
    st.compute = [&](pipeline::Chunk& c) { boom(1, c); };
    st.write = [&](pipeline::Chunk& c) { boom(2, c); ++written; };
    pipeline::Config cfg;
    cfg.total_bytes = 1000;
    cfg.chunk_bytes = 10;
    CHECK_THROWS_WITH_AS(pipeline::run_chunks(cfg, ptrs, st, nullptr), "stage failed", Error);
    CHECK(written.load() <= 5);
  }
}

TEST_CASE("cancellation stops early") {
  std::vector<std::vector<unsigned char>> bufs(2, std::vector<unsigned char>(10));
  std::vector<unsigned char*> ptrs{bufs[0].data(), bufs[1].data()};
  CancelToken cancel;
  size_t written = 0;
  pipeline::Stages st;
  st.write = [&](pipeline::Chunk&) { if (++written == 3) cancel.cancel(); };
  pipeline::Config cfg;
  cfg.total_bytes = 100000;
  cfg.chunk_bytes = 10;
  cfg.cancel = &cancel;
  CHECK_THROWS_AS(pipeline::run_chunks(cfg, ptrs, st, nullptr), Cancelled);
  CHECK(written < 10);
}

// ---- io helpers the pipelines use: parallel tasks, write-behind, discard ----

namespace {
std::string unit_temp_path() {
  char p[] = "/tmp/gxsort-unit-io-XXXXXX";
  int fd = mkstemp(p);
  close(fd);
  unlink(p);
  return p;
}
}  // namespace

TEST_CASE("a write-behind file reads back what was written, also in parallel pieces") {
  const std::string path = unit_temp_path();
  std::vector<unsigned char> data(size_t(9) << 20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  {
    io::File f = io::File::create_new(path);
    f.start_write_behind();
    f.write_at(data.data(), 4097, 0);                         // an odd first piece
    f.write_at_parallel(data.data() + 4097, data.size() - 4097, 4097, 3);
    f.sync();
    io::File moved = std::move(f);                            // the write-behind moves with it
    moved.write_at(data.data(), 10, 0);
    moved.close();
  }
  io::File r = io::File::open_read(path);
  REQUIRE(r.size() == data.size());
  std::vector<unsigned char> got(data.size());
  r.read_at_parallel(got.data(), got.size(), 0, 4);
  CHECK(got == data);
  unlink(path.c_str());
}

TEST_CASE("write-behind with a backlog limit: writers wait for the disk, the bytes are the same") {
  // A limit of one page: every write (one thread's and three at once) waits until the
  // write-behind thread has handed what is queued to the disk. A backlog that is never
  // worked off hangs here (ctest's timeout).
  const std::string path = unit_temp_path();
  std::vector<unsigned char> data(size_t(9) << 20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 2654435761u >> 9);
  {
    io::File f = io::File::create_new(path);
    f.start_write_behind(4096);
    f.write_at(data.data(), 4097, 0);
    f.write_at_parallel(data.data() + 4097, data.size() - 4097, 4097, 3);
    f.written_elsewhere(0, data.size());  // a mapping's writer: the same wait
    f.sync();
    f.close();
  }
  io::File r = io::File::open_read(path);
  std::vector<unsigned char> got(data.size());
  r.read_at(got.data(), got.size(), 0);
  CHECK(got == data);
  unlink(path.c_str());
}

namespace {
// A disk that starts no writeback until released: a write-behind handing its ranges to
// it keeps its backlog until then. Shared with the write-behind's detached thread.
struct StalledDisk {
  std::mutex m;
  std::condition_variable cv;
  bool entered = false, released = false;
  void hand_on() {
    std::unique_lock<std::mutex> l(m);
    entered = true;
    cv.notify_all();
    cv.wait(l, [&] { return released; });
  }
  void wait_entered() {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return entered; });
  }
  void release() {
    { std::lock_guard<std::mutex> l(m); released = true; }
    cv.notify_all();
  }
};
}  // namespace

TEST_CASE("a write waiting for a stalled disk's backlog throws Cancelled once its call's token is set") {
  const std::string path = unit_temp_path();
  auto disk = std::make_shared<StalledDisk>();
  CancelToken token;
  io::File f = io::File::create_new(path);
  f.start_write_behind(1, &token, [disk](int, uint64_t, uint64_t) { disk->hand_on(); });
  std::vector<unsigned char> data(8192, 0x5a);
  auto writer = std::async(std::launch::async, [&] { f.write_at(data.data(), data.size(), 0); });
  // The thread takes a range only once the writer let go of the lock, in its wait for room.
  disk->wait_entered();
  token.cancel();
  const bool stopped = writer.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  disk->release();  // a writer that ignores the token returns only now, throwing nothing
  CHECK(stopped);
  CHECK_THROWS_AS(writer.get(), Cancelled);
  f.close();
  unlink(path.c_str());
}

TEST_CASE("early writeback: files queued in order while the budget lasts, their bytes untouched") {
  const std::string a = unit_temp_path(), b = unit_temp_path() + "b", c = unit_temp_path() + "c";
  std::vector<unsigned char> data(size_t(3) << 20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 2654435761u >> 7);
  io::File fa = io::File::create_new(a), fb = io::File::create_new(b), fc = io::File::create_new(c);
  for (io::File* f : {&fa, &fb, &fc}) f->write_at(data.data(), data.size(), 0);
  {
    io::EarlyWriteback none(0);
    CHECK(none.add(fa, data.size()) == 0);  // no budget: nothing queued, no thread
    io::EarlyWriteback early(data.size() + 4096);
    CHECK(early.add(fa, data.size()) == data.size());
    CHECK(early.add(fb, data.size()) == 4096);  // what is left of the budget
    CHECK(early.add(fc, data.size()) == 0);
    fb.close();  // its writeback goes on through a descriptor of its own
    CHECK(early.started() <= data.size() + 4096);
  }  // stops: what was not handed on stays dirty
  for (const std::string* p : {&a, &b, &c}) {
    io::File r = io::File::open_read(*p);
    std::vector<unsigned char> got(data.size());
    r.read_at(got.data(), got.size(), 0);
    CHECK(got == data);
    unlink(p->c_str());
  }
}

TEST_CASE("discard keeps the size and the bytes outside the whole pages it drops") {
  const std::string path = unit_temp_path();
  std::vector<unsigned char> data(5 * 4096 + 100, 0xab);
  io::File f = io::File::create_new(path);
  f.write_at(data.data(), data.size(), 0);
  f.discard(100, 3 * 4096);  // drops pages 1 and 2 at most (shrunk inward to whole pages)
  CHECK(f.size() == data.size());
  std::vector<unsigned char> got(data.size());
  f.read_at(got.data(), got.size(), 0);
  for (size_t i = 0; i < 4096; ++i) REQUIRE(got[i] == 0xab);
  for (size_t i = 3 * 4096; i < got.size(); ++i) REQUIRE(got[i] == 0xab);
  for (size_t i = 4096; i < 3 * 4096; ++i) REQUIRE((got[i] == 0xab || got[i] == 0));  // no hole punching: kept
  unlink(path.c_str());
}

TEST_CASE("write_direct_at writes every byte: aligned, unaligned source, offset and tail") {
  const std::string path = unit_temp_path();
  const size_t n = (size_t(3) << 20) + 4096 * 5 + 123;  // whole blocks and a tail
  // An aligned source: the blocks go direct where the file system takes O_DIRECT.
  std::vector<unsigned char> storage(n + 2 * 4096);
  unsigned char* aligned = storage.data() + (4096 - reinterpret_cast<uintptr_t>(storage.data()) % 4096) % 4096;
  for (size_t i = 0; i < n; ++i) aligned[i] = static_cast<unsigned char>(i * 2654435761u >> 11);
  std::vector<unsigned char> expect(aligned, aligned + n);
  io::File f = io::File::create_new(path);
  f.start_write_behind();
  const bool direct = f.write_direct_at(aligned, n, 0, 2);
  if (!direct) MESSAGE("O_DIRECT not available for " << path << ": write_direct_at went through the page cache");
  // Unaligned source, unaligned offset and a short write: always through the cache.
  CHECK_FALSE(f.write_direct_at(aligned + 1, 4096, 4096, 1));
  std::copy(aligned + 1, aligned + 1 + 4096, expect.begin() + 4096);
  CHECK_FALSE(f.write_direct_at(aligned, 8192, 100, 1));
  std::copy(aligned, aligned + 8192, expect.begin() + 100);
  CHECK_FALSE(f.write_direct_at(aligned, 100, 8192, 1));
  std::copy(aligned, aligned + 100, expect.begin() + 8192);
  // Direct again over data written through the cache: the cache must not go stale.
  CHECK(f.write_direct_at(aligned, 4096, 4096, 1) == direct);
  std::copy(aligned, aligned + 4096, expect.begin() + 4096);
  f.sync();
  std::vector<unsigned char> got(n);
  REQUIRE(f.size() == n);
  f.read_at(got.data(), n, 0);
  CHECK(got == expect);
  unlink(path.c_str());
}
