// merge (sort -m) of sorted text files: one k-way merge of the inputs, each checked to
// be in order as it is read (an input out of order fails the command, nothing written:
// GNU sort -m would write its lines out of order).
#include "commands/stream_inputs.hpp"
#include "engine/engine.hpp"
#include "lines/lines_job.hpp"
#include "lines/merge.hpp"

namespace gxsort {

RunStats merge_lines(const std::vector<std::string>& inputs, const std::string& output, const LineOrder& order,
                     const EngineOptions& opt) {
  const auto t0 = Clock::now();
  const lines::LinesJob job = lines::lines_job(order, opt, output);
  if (inputs.empty()) fail_usage("no input given");
  refuse_stream_named_twice(inputs);
  std::vector<io::File> files;
  for (const std::string& path : inputs) files.push_back(io::File::open_input(path));
  io::Output out = io::Output::open(opt.context, output, job.tmp_dirs[0], "out");
  if (!out.streamed()) out.file().start_write_behind();
  std::vector<std::unique_ptr<lines::LineReader>> readers;
  for (size_t k = 0; k < files.size(); ++k)
    readers.push_back(std::make_unique<lines::LineReader>(files[k], inputs[k], job.order.terminator,
                                                          job.merge_buffer, job.memory));
  RunStats st;
  st.command = "merge";
  st.backend = "cpu";
  st.mode = "merge";
  lines::MergeSetup setup = lines::merge_setup(job, opt, true);
  uint64_t total = 0;
  for (const io::File& f : files) total += f.is_stream() ? 0 : f.size();
  if (opt.progress) setup.progress = [&](uint64_t read) { opt.progress({"merge", read, total, 0, 0}); };
  lines::LineWriter w(out.file(), 0, job.order.terminator, job.merge_buffer, opt.cancel);
  const lines::MergeCounts n = lines::merge_lines_into(readers, w, setup);
  for (const auto& r : readers) st.input_bytes += r->bytes_read();
  for (const io::File& f : files) f.check_unchanged();
  st.records = n.lines;
  st.output_bytes = n.bytes;
  st.runs = inputs.size();
  st.merge_levels = 1;
  st.phases.push_back({"merge", since(t0), st.input_bytes, n.bytes});
  throw_if_cancelled(opt.cancel);  // the last boundary: nothing replaced yet
  commit_outputs({&out}, st, t0, opt);
  return st;
}

}  // namespace gxsort
