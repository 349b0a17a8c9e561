// The chunk scheduler: order kept, every byte seen once, errors propagated, cancel.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gxsort/error.hpp"
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
      pipeline::run_chunks(cfg, ptrs, st, [&](const char*, uint64_t d, uint64_t t) { CHECK(t == total); CHECK(d > last_done); last_done = d; });
      REQUIRE(out.size() == total);
      for (uint64_t i = 0; i < total; ++i) CHECK(out[i] == uint8_t((i % 251) ^ 0x5a));
      for (size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i);
      CHECK(last_done == total);
    }
  }
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
  std::atomic<bool> cancel{false};
  size_t written = 0;
  pipeline::Stages st;
  st.write = [&](pipeline::Chunk&) { if (++written == 3) cancel = true; };
  pipeline::Config cfg;
  cfg.total_bytes = 100000;
  cfg.chunk_bytes = 10;
  cfg.cancel = &cancel;
  CHECK_THROWS_AS(pipeline::run_chunks(cfg, ptrs, st, nullptr), Error);
  CHECK(written < 10);
}
