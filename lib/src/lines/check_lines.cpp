// check (sort -c) of text lines: the file streamed once, each line compared with the
// one before it, stopping at the first out of order.
#include "engine/engine.hpp"
#include "lines/line_reader.hpp"
#include "lines/lines_job.hpp"

namespace gxsort {

LinesCheck check_lines(const std::string& path, const LineOrder& order, const EngineOptions& opt) {
  const auto t0 = Clock::now();
  const lines::LinesJob job = lines::lines_job(order, opt, "");
  const io::File file = io::File::open_input(path);
  lines::LineReader r(file, path, job.order.terminator, job.merge_buffer, job.memory);
  LinesCheck c;
  // In order: no line before a smaller one; with -u, none equal by keys to the one before.
  const int worst = job.order.unique ? 0 : 1;
  while (r.next()) {
    ++c.lines;
    if (c.lines % (uint64_t(1) << 16) == 0) throw_if_cancelled(opt.cancel);
    if (c.lines == 1) continue;
    const int cmp = job.order.unique ? compare_line_keys(job.order, r.previous(), r.line())
                                     : compare_lines(job.order, r.previous(), r.line());
    if (cmp >= worst) {
      c.sorted = false;
      c.first_violation = c.lines;
      c.line.assign(r.line());
      break;
    }
  }
  file.check_unchanged();
  c.stats.command = "check";
  c.stats.backend = "cpu";
  c.stats.mode = "stream";
  c.stats.records = c.lines;
  c.stats.input_bytes = r.bytes_read();
  c.stats.seconds = since(t0);
  c.stats.phases.push_back({"check", c.stats.seconds, c.stats.input_bytes, 0});
  if (opt.progress) opt.progress({"check", r.bytes_read(), file.is_stream() ? 0 : file.size(), 0, 0});
  return c;
}

}  // namespace gxsort
