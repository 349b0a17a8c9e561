// A merge with checkpoints, resumed from each of them (the last merge of a resumable
// job, engine/job.cpp), against the same merge in one go. Shared by the unit suite (CPU
// merge) and the GPU suite (windowed device merge).
#pragma once
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "engine/merge.hpp"
#include "io/checksum.hpp"

namespace gxsort_test {

struct Checkpoint {
  std::vector<uint64_t> cuts;
  uint64_t out_records;
  gxsort::MergeSetup::OutputSums sums;  // what the merge left for this checkpoint
};

// What went wrong ("" when nothing): merges `runs` with job (its backend, threads,
// unique) in one go, then with checkpoints every `checkpoint_bytes`, and from each
// checkpoint again into a copy of the output up to it. Every output must be the first's.
// The checkpointed merge is asked for its output sums (MergeSetup::output_sums): those it
// leaves must be the XXH3-64s of the output's blocks since the checkpoint before;
// *hashed (when given) counts the checkpoints that had them.
inline std::string check_resumable_merge(gxsort::MergeSetup job, const std::vector<gxsort::RunRef>& runs,
                                         uint64_t checkpoint_bytes, size_t* hashed = nullptr) {
  using namespace gxsort;
  const size_t rs = job.format->record_size;
  auto read_all = [&](const io::File& f, uint64_t records) {
    std::vector<unsigned char> b(records * rs);
    if (!b.empty()) f.read_at(b.data(), b.size(), 0);
    return b;
  };
  io::TempFile plain = io::TempFile::create({}, "/tmp", "gxsort-test-merge");
  const auto want = read_all(plain.file(), merge_runs(job, runs, plain.file(), 0));

  std::vector<Checkpoint> checkpoints;
  MergeSetup kept = job;
  kept.checkpoint_bytes = checkpoint_bytes;
  MergeSetup::OutputSums sums;
  kept.output_sums = &sums;
  kept.checkpoint = [&](const std::vector<uint64_t>& cuts, uint64_t out) {
    checkpoints.push_back({cuts, out, {}});
    std::swap(checkpoints.back().sums, sums);  // taken, as the job takes them
  };
  io::TempFile whole = io::TempFile::create({}, "/tmp", "gxsort-test-merge");
  if (read_all(whole.file(), merge_runs(kept, runs, whole.file(), 0)) != want) return "the merge with checkpoints differs";
  if (checkpoints.empty()) return "no checkpoint";
  uint64_t total = 0;
  for (const RunRef& r : runs) total += r.records;
  const Checkpoint& last = checkpoints.back();
  if (std::accumulate(last.cuts.begin(), last.cuts.end(), uint64_t(0)) != total || last.out_records * rs != want.size())
    return "the last checkpoint is not the end";
  for (size_t c = 0; c < checkpoints.size(); ++c) {
    const Checkpoint& cp = checkpoints[c];
    const uint64_t from = c > 0 ? checkpoints[c - 1].out_records : 0;
    if (cp.out_records < from) return "checkpoints go back";
    if (cp.sums.block) {
      if (hashed) ++*hashed;
      if (cp.sums.sums != io::block_sums(want.data() + from * rs, size_t((cp.out_records - from) * rs), cp.sums.block, 2))
        return "the sums of checkpoint " + std::to_string(c) + " are not its output's";
    }
    // A killed run's output up to the checkpoint, garbage after it.
    io::TempFile resumed = io::TempFile::create({}, "/tmp", "gxsort-test-merge");
    std::vector<unsigned char> before = want;
    for (size_t i = cp.out_records * rs; i < before.size(); ++i) before[i] = 0xa5;
    if (!before.empty()) resumed.file().write_at(before.data(), before.size(), 0);
    MergeSetup again = kept;
    again.checkpoint = [](const std::vector<uint64_t>&, uint64_t) {};
    again.start = &cp.cuts;
    std::vector<unsigned char> last_record(rs);
    if (job.unique && cp.out_records) {
      std::memcpy(last_record.data(), &want[(cp.out_records - 1) * rs], rs);
      again.unique_after = last_record.data();
    }
    const uint64_t n = merge_runs(again, runs, resumed.file(), cp.out_records * rs);
    if (read_all(resumed.file(), cp.out_records + n) != want)
      return "resumed from checkpoint " + std::to_string(c) + " of " + std::to_string(checkpoints.size()) + " differs";
  }
  return "";
}

}  // namespace gxsort_test
