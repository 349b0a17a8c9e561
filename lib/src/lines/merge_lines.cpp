// merge (sort -m) of sorted text files: a k-way merge of the inputs (more than the fan-in
// the budget allows: in passes through temp files, lines/merge.hpp merge_inputs), each
// checked to be in order as it is read (an input out of order fails the command, nothing
// written: GNU sort -m would write its lines out of order). A runs directory of text
// lines (form_line_runs) stands for its runs, checked against its manifest.
#include <sys/stat.h>

#include "commands/stream_inputs.hpp"
#include "engine/engine.hpp"
#include "lines/line_runs_dir.hpp"
#include "lines/lines_job.hpp"
#include "lines/merge.hpp"
#include "lines/merge_inputs.hpp"

namespace gxsort {
namespace lines {

MergeInputs open_merge_inputs(const std::vector<std::string>& args, const LineOrder& order) {
  refuse_stream_named_twice(args);
  MergeInputs in;
  for (const std::string& path : args) {
    struct stat st;
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      in.runs_dirs.push_back(path);
      for (ListedRun& run : open_listed_runs(path, runs_format_of(order))) {
        in.files.push_back(run.file);
        in.labels.push_back(run.file->path());
        in.listed.push_back(std::move(run));
      }
      continue;
    }
    in.files.push_back(std::make_shared<io::File>(io::File::open_input(path)));
    in.labels.push_back(path);
  }
  return in;
}

}  // namespace lines

RunStats merge_lines(const std::vector<std::string>& inputs, const std::string& output, const LineOrder& order,
                     const EngineOptions& opt) {
  const auto t0 = Clock::now();
  const lines::LinesJob job = lines::lines_job(order, opt, output);
  if (inputs.empty()) fail_usage("no input given");
  const lines::MergeInputs in = lines::open_merge_inputs(inputs, job.order);
  refuse_output_in_runs_dir(output, in.runs_dirs);
  io::Output out = io::Output::open(opt.context, output, job.tmp_dirs[0], "out");
  out.start_write_behind(opt.fsync, opt.cancel);
  std::vector<lines::MergeRun> runs(in.files.size());
  for (size_t k = 0; k < in.files.size(); ++k) {
    runs[k].input = in.files[k].get();
    runs[k].label = in.labels[k];
  }
  RunStats st;
  st.command = "merge";
  st.backend = "cpu";
  st.mode = "merge";
  lines::MergeSetup setup = lines::merge_setup(job, opt, true);
  uint64_t total = 0;
  for (const auto& f : in.files) total += f->is_stream() ? 0 : f->size();
  if (opt.progress) setup.progress = [&](uint64_t read) { opt.progress({"merge", read, total, 0, 0}); };
  RunVerifier verifier(in.listed);
  const lines::MergeCounts n = lines::merge_inputs(std::move(runs), out.file(), lines::budget_fan_in(job), job.tmp_dirs,
                                                   opt.context, setup, st.merge_levels);
  st.input_bytes = n.input_bytes;
  verifier.finish();
  for (const auto& f : in.files) f->check_unchanged();
  st.records = n.lines;
  st.output_bytes = n.bytes;
  st.runs = in.files.size();
  st.phases.push_back({"merge", since(t0), st.input_bytes, n.bytes});
  throw_if_cancelled(opt.cancel);  // the last boundary: nothing replaced yet
  commit_outputs({&out}, st, t0, opt);
  return st;
}

}  // namespace gxsort
