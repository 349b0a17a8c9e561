// gxsort gen: deterministic test data. Record i depends only on (seed, i), so the same
// seed gives the same bytes whatever the chunking.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "commands/command_plan.hpp"
#include "gxsort/gxsort.hpp"
#include "io/space.hpp"
#include "io/output.hpp"
#include "parallel/parallel_for.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "platform/sizes.hpp"
#include "engine/engine.hpp"
#include "kernels/record_hash.hpp"

namespace gxsort {
namespace {

using Dist = GenDist;

uint64_t rnd(uint64_t seed, uint64_t i, uint64_t stream) { return mix64(mix64(seed * 0x9e3779b97f4a7c15ULL + stream) ^ i); }

// The key of record i as an unsigned "rank" in [0, 2^64) before conversion to the type;
// for ordered distributions the rank grows with i.
uint64_t key_rank(Dist d, uint64_t seed, uint64_t i, uint64_t n) {
  switch (d) {
    case Dist::uniform: case Dist::bits: return rnd(seed, i, 1);
    case Dist::sorted: return i;
    case Dist::reverse: return n - 1 - i;
    case Dist::few_unique: return rnd(seed, i, 1) % 16;
    case Dist::all_equal: return 42;
    case Dist::zipf: {
      // P(k) ~ 1/k on [1, n]: the continuous approximation k = floor((n+1)^u).
      double u = double(rnd(seed, i, 1) >> 11) * (1.0 / 9007199254740992.0);
      return uint64_t(std::floor(std::pow(double(n) + 1.0, u)));
    }
  }
  return 0;
}

// Writes the key of rank v at k. Uniform floats are uniform in [-1e6, 1e6); `bits`
// writes raw random bits (NaNs, infinities, subnormals and signed zeros included).
void put_key(const Format& f, Dist d, uint64_t v, unsigned char* k) {
  const bool ordered = d == Dist::sorted || d == Dist::reverse;
  switch (f.key_type) {
    case KeyType::u8: case KeyType::u16: case KeyType::i8: case KeyType::i16: break;  // composite keys: put_composite_key
    case KeyType::u32: {
      // Random ranks use their high half; small ranks (ordered, few-unique, zipf) their low half.
      uint32_t x = uint32_t((d == Dist::uniform || d == Dist::bits) ? v >> 32 : v);
      std::memcpy(k, &x, 4);
      break;
    }
    case KeyType::i32: { int32_t x = (d == Dist::uniform || d == Dist::bits) ? int32_t(uint32_t(v >> 32)) : int32_t(v) - (ordered ? 0 : 8); std::memcpy(k, &x, 4); break; }
    case KeyType::u64: { uint64_t x = v; std::memcpy(k, &x, 8); break; }
    case KeyType::i64: { int64_t x = (d == Dist::uniform || d == Dist::bits) ? int64_t(v) : int64_t(v) - (ordered ? 0 : 8); std::memcpy(k, &x, 8); break; }
    case KeyType::f32: {
      float x;
      if (d == Dist::bits) { uint32_t b = uint32_t(v >> 32); std::memcpy(&x, &b, 4); }
      else if (d == Dist::uniform) x = float(double(v >> 11) * (2e6 / 9007199254740992.0) - 1e6);
      else x = float(double(v) * 0.5 - (ordered ? 0.0 : 4.0));
      std::memcpy(k, &x, 4);
      break;
    }
    case KeyType::f64: {
      double x;
      if (d == Dist::bits) std::memcpy(&x, &v, 8);
      else if (d == Dist::uniform) x = double(v >> 11) * (2e6 / 9007199254740992.0) - 1e6;
      else x = double(v) * 0.5 - (ordered ? 0.0 : 4.0);
      std::memcpy(k, &x, 8);
      break;
    }
    case KeyType::bytes: {
      // Ordered ranks go big-endian into the last 8 key bytes; random keys fill all bytes.
      std::memset(k, 0, f.key_bytes);
      if (d == Dist::uniform || d == Dist::bits) {
        for (size_t b = 0; b < f.key_bytes; ++b) k[b] = uint8_t(mix64(v + b * 0x9e3779b97f4a7c15ULL) >> 56);
      } else {
        for (size_t b = 0; b < 8 && b < f.key_bytes; ++b) k[f.key_bytes - 1 - b] = uint8_t(v >> (8 * b));
      }
      break;
    }
  }
}

// A composite key: the distribution's rank is its normalized key (random bytes for the
// random distributions, else big-endian in its last 8 bytes), written back into the
// fields; so --dist sorted is sorted by the fields and their own directions.
void put_composite_key(const Format& f, Dist d, uint64_t v, unsigned char* rec) {
  unsigned char norm[kMaxKeyFields * 8 + 64];
  std::vector<unsigned char> wide;
  unsigned char* k = norm;
  if (f.key_bytes > sizeof norm) {
    wide.resize(f.key_bytes);
    k = wide.data();
  }
  std::memset(k, 0, f.key_bytes);
  if (d == Dist::uniform || d == Dist::bits) {
    for (size_t b = 0; b < f.key_bytes; ++b) k[b] = uint8_t(mix64(v + b * 0x9e3779b97f4a7c15ULL) >> 56);
  } else {
    for (size_t b = 0; b < 8 && b < f.key_bytes; ++b) k[f.key_bytes - 1 - b] = uint8_t(v >> (8 * b));
  }
  set_normalized_key(f, k, rec);
}

void gen_record(const Format& f, Dist d, uint64_t seed, uint64_t i, uint64_t n, unsigned char* rec) {
  const size_t rs = f.record_size;
  if (f.record_size == 100 && f.key_offset == 0 && f.key_bytes == 10 && f.key_type == KeyType::bytes) {
    // gensort layout: 10-byte key, 2 bytes, 32 hex digits of the row id, 4 bytes,
    // 48 bytes of filler, 4 bytes.
    static const char hex[] = "0123456789ABCDEF";
    put_key(f, d, key_rank(d, seed, i, n), rec);
    rec[10] = 0x00; rec[11] = 0x11;
    for (int b = 0; b < 32; ++b) rec[12 + b] = uint8_t(hex[b < 16 ? 0 : (i >> (4 * (31 - b))) & 0xf]);
    rec[44] = 0x88; rec[45] = 0x99; rec[46] = 0xAA; rec[47] = 0xBB;
    for (int b = 0; b < 48; ++b) rec[48 + b] = uint8_t(hex[(i + uint64_t(b)) & 0xf]);
    rec[96] = 0xCC; rec[97] = 0xDD; rec[98] = 0xEE; rec[99] = 0xFF;
    return;
  }
  // Payload: the record index, then hash bytes, so stability is visible in the output.
  for (size_t b = 0; b < rs; b += 8) {
    uint64_t w = b == 0 ? i : rnd(seed, i, 2 + b);
    std::memcpy(rec + b, &w, std::min<size_t>(8, rs - b));
  }
  if (f.composite()) put_composite_key(f, d, key_rank(d, seed, i, n), rec);
  else put_key(f, d, key_rank(d, seed, i, n), rec + f.key_offset);
}

}  // namespace

// A gen plan's parts: the request checked, and where the output's temp file goes.
template <>
struct CommandPlan<GenRequest>::State : PlanStateBase<GenRequest> {
  std::string temp_dir;
  uint64_t bytes = 0;
};

PlanReport report_of(const CommandPlan<GenRequest>::State& s) {
  const GenRequest& r = s.request;
  PlanReport p;
  p.command = CommandKind::gen;
  p.output = r.output;
  p.backend = "cpu";
  p.format = r.format.describe();
  p.threads = std::max(1u, r.options.threads);
  p.records = r.gen.count;
  p.record_size = r.format.record_size;
  p.temp_dirs = {s.temp_dir};
  return p;
}

template class CommandPlan<GenRequest>;

CommandPlan<GenRequest> plan(GenRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<GenRequest>::State>();
  s->request = std::move(request);
  const GenRequest& r = s->request;
  r.format.validate();
  const size_t rs = r.format.record_size;
  if (r.gen.count > UINT64_MAX / rs)
    fail_usage(option_ref("count", std::to_string(r.gen.count)) + " of " + std::to_string(rs) + "-byte records is more than 2^64 bytes");
  s->bytes = r.gen.count * rs;
  s->temp_dir = temp_dirs(r.options, default_temp_dir(r.output))[0];
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<GenRequest>(std::move(s));
}

RunStats run(CommandPlan<GenRequest> plan) {
  CommandPlan<GenRequest>::State& s = PlanAccess::state(plan);
  const auto t0 = Clock::now() - s.planning;
  const Format& f = s.request.format;
  const GenOptions& g = s.request.gen;
  const EngineOptions& opt = s.request.options;
  const Dist d = g.dist;
  const size_t rs = f.record_size;
  const uint64_t bytes = s.bytes;
  io::Output out = io::Output::open(opt.context, s.request.output, s.temp_dir, "gen", output_header(opt, f.record_size));
  io::check_space(opt.context, {{out.space_dir(), bytes, "the output"}});
  const size_t chunk_records = size_t(std::max<uint64_t>(1, std::min<uint64_t>((size_t(32) << 20) / rs, g.count)));
  std::vector<std::vector<unsigned char>> buffers(3, std::vector<unsigned char>(chunk_records * rs));
  std::vector<unsigned char*> slots;
  for (auto& b : buffers) slots.push_back(b.data());
  pipeline::Stages st;
  // Records depend only on their index: the threads each fill a stretch of the chunk.
  const unsigned threads = std::max(1u, opt.threads);
  st.compute = [&](pipeline::Chunk& c) {
    const uint64_t first = c.offset / rs;
    const size_t n = c.bytes / rs;
    const unsigned parts = unsigned(std::min<size_t>(threads, (n + 4095) / 4096));  // no thread for a handful of records
    parallel::parallel_for_ranges(n, parts, [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i) gen_record(f, d, g.seed, first + i, g.count, c.data + i * rs);
    });
  };
  st.write = [&](pipeline::Chunk& c) { out.file().write_at(c.data, c.bytes, c.offset); };
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = chunk_records * rs;
  cfg.phase = "generate";
  cfg.cancel = opt.cancel;
  pipeline::run_chunks(cfg, slots, st, opt.progress);
  RunStats stats;
  stats.command = command_name(CommandKind::gen);
  stats.backend = "cpu";
  stats.records = g.count;
  stats.output_bytes = bytes;
  stats.phases.push_back({"generate", since(t0), 0, bytes});
  commit_outputs({&out}, stats, t0, opt);
  return stats;
}

RunStats gen_file(const std::string& output, const Format& f, const GenOptions& g, const EngineOptions& opt) {
  return run(plan(GenRequest{output, f, g, opt}));
}

}  // namespace gxsort
