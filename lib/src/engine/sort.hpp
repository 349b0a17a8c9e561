// The sort engine's entry: the sort of an input already open, as its Plan says (the
// sort command, dedupe and the in-memory API's spill reach it through sort_file or here).
#pragma once
#include <string>

#include "engine/engine.hpp"
#include "gxsort/gxsort.hpp"
#include "io/file.hpp"

namespace gxsort {

// sort_file on an input already open (a stream can be opened only once): dedupe and
// graph build sort through it.
RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt);
// The same, on a command's Prepared whose plan holds the sort's (dedupe's): one backend.
RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p);

}  // namespace gxsort
