// A sort's runs as merge inputs (Plan::run_files): each written run cut into `files`
// parts of consecutive records, each a file and a merge input of its own; a run held in
// memory (from hold_from on) is one input. Inputs are in run order, a run's parts in
// record order, so the merge (ties to the earlier input) gives the same bytes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "plan/plan.hpp"

namespace gxsort {

struct RunParts {
  size_t files = 1;
  size_t hold_from = SIZE_MAX;  // runs from here on are held in memory (SIZE_MAX: none)

  size_t parts(size_t run) const { return run < hold_from ? files : 1; }
  // The merge input of run's part 0; first_input(runs) is the count of inputs.
  size_t first_input(size_t run) const { return run < hold_from ? run * files : hold_from * files + (run - hold_from); }
  size_t run_of_input(size_t input) const {
    return hold_from == SIZE_MAX || input < hold_from * files ? input / files : hold_from + (input - hold_from * files);
  }
  // Part j of a run of `records` records starts at this record (part `parts` ends it).
  static uint64_t part_begin(uint64_t records, size_t parts, size_t j) {
    return uint64_t((unsigned __int128)records * j / parts);
  }
  // The plan's: Plan::run_files, and its last Plan::held_runs runs held.
  static RunParts of(const Plan& plan) { return {plan.run_files, plan.held_runs ? plan.runs - plan.held_runs : SIZE_MAX}; }
};

}  // namespace gxsort
