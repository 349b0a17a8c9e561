// The JSON of each report (--json, --stats-json): nlohmann's ordered_json, so that the
// keys keep the order they are written in.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gxsort/gxsort.hpp"

namespace gxsort::cli {

using Json = nlohmann::ordered_json;

// Every --json document starts with this: its layout's version.
constexpr uint64_t kJsonFormatVersion = 1;
Json json_document(const std::string& command);

// `v` with `digits` significant digits, as printf's %g writes it: a whole number as an
// integer, one that is not finite as a string ("nan", "inf", "-inf").
Json json_number(double v, int digits = 9);

// One line of JSON (compact; bytes of a name that are not UTF-8 become U+FFFD).
std::string json_text(const Json& j);

// "00ff..." (16 hex digits), as the text reports print checksums.
std::string hex_of(uint64_t x);

Json check_json(const std::string& path, const CheckResult& r);
Json reduce_json(const std::string& path, const ReduceResult& r);
Json graph_build_json(const std::string& graph, const GraphBuildResult& r);
Json bfs_json(const std::string& graph, const BfsResult& r);
Json clean_json(const std::vector<CleanEntry>& entries);
Json info_json(const InfoReport& r);
// The --stats-json document (no format_version: its layout predates them).
Json stats_json(const RunStats& s);

}  // namespace gxsort::cli
