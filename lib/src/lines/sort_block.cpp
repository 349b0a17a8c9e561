#include "lines/sort_block.hpp"

#include <algorithm>

#include "engine/engine.hpp"
#include "gxsort/timeline.hpp"
#include "lines/sort_in_memory.hpp"
#include "lines/write_lines.hpp"

namespace gxsort::lines {

BlockOrder order_block(const LineRefs& lines, const LinesJob& job, const ProgressFn& progress) {
  BlockOrder o;
  o.perm = sorted_permutation(lines, job.order, job.sort_options);
  throw_if_cancelled(job.sort_options.cancel);
  if (progress) {
    const uint64_t bytes = written_bytes(lines.data(), lines.size(), job.threads);
    progress({"sort", bytes, bytes, 0, 0});
  }
  if (job.order.unique) o.keep = unique_flags(lines, o.perm, job.order, job.threads);
  timeline(job.sort_options.context, "lines: sorted");
  return o;
}

Written sort_block(const LineRefs& lines, const io::File& out, const LinesJob& job,
                   const ProgressFn& progress, RunIndex* index) {
  const BlockOrder o = order_block(lines, job, progress);
  const Permutation& perm = o.perm;
  const KeepFlags& keep = o.keep;
  Written w;
  w.bytes = write_sorted(out, 0, lines, perm, keep, job.order.terminator, job.threads, job.gather_buffer, index);
  w.lines = keep.empty() ? lines.size() : size_t(std::count(keep.begin(), keep.end(), uint8_t(1)));
  timeline(job.sort_options.context, "lines: written");
  if (progress) progress({"write", w.bytes, w.bytes, 0, 0});
  return w;
}

}  // namespace gxsort::lines
