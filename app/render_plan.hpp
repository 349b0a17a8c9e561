// `gxsort plan`: a PlanReport (gxsort/plan_report.hpp) rendered as text for people, as
// the --json document for scripts, or as a dot graph of the merge tree (--dot).
#pragma once
#include <cstdio>
#include <string>

#include "gxsort/options.hpp"
#include "gxsort/plan_report.hpp"

namespace gxsort::cli {

// Refuses (Error usage), before anything is planned, a format the plan has no rendering
// in: --dot draws the merge tree of sort and merge, not a distributed job's. `planned`:
// the command of `plan CMD ARGS` ("" for `plan IN`).
void check_plan_format(CommandKind planned, bool distributed, PlanFormat format);

// The plan in `format`, newline-terminated; print_plan writes it to `out`.
std::string render_plan(const PlanReport& r, PlanFormat format);
void print_plan(FILE* out, const PlanReport& r, PlanFormat format);

// A format in words (Format::describe) with its record width where the words do not
// give it ("u64 keys (8-byte records)"): a user sees that u8 is one byte, u64 eight.
std::string format_with_width(const std::string& words, size_t record_size);

// Each format's renderer (render_plan_text.cpp, render_plan_json.cpp, render_plan.cpp).
std::string plan_text(const PlanReport& r);
std::string plan_json(const PlanReport& r);
std::string plan_dot(const PlanReport& r);

}  // namespace gxsort::cli
