// The sort engine's entry: the sort of an input already open, as its Plan says (the
// sort command, dedupe and the in-memory API's spill reach it through sort_file or here).
#pragma once
#include <string>

#include "engine/engine.hpp"
#include "gxsort/gxsort.hpp"
#include "io/file.hpp"

namespace gxsort {

// The sort of `in` prepared (its backend, budgets and Plan; a stream's: its runs' size),
// temp files by default in default_tmp_dir. A regular file's first 256 MiB are asked
// into the page cache first: a cold disk starts on them while the device starts.
Prepared prepare_sort(io::File& in, const EngineOptions& opt, const std::string& default_tmp_dir);
// Runs the sort `p` plans of `in` into `output`; t_start: when its preparation began (the
// stats count it).
RunStats sort_prepared(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p,
                       Clock::time_point t_start);

// sort_file on an input already open (a stream can be opened only once): dedupe and
// graph build sort through it.
RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt);
// The same, on a command's Prepared whose plan holds the sort's (dedupe's): one backend.
RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p);

}  // namespace gxsort
