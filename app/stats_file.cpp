#include "stats_file.hpp"

#include <cstdio>

#include "report_json.hpp"

namespace gxsort::cli {

namespace {
constexpr uint64_t kStatsReserve = 64 << 10;  // far more than the JSON of any run
}

StatsFile::StatsFile(const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs, const EngineOptions& opt)
    : path_(path) {
  if (path.empty()) return;
  file_ = std::make_unique<SideOutput>(path, "--stats-json", inputs, outputs, opt, kStatsReserve);
}

void StatsFile::write(const RunStats& s, bool sync) {
  if (path_.empty() || written_) return;
  written_ = true;
  const std::string json = json_text(stats_json(s)) + "\n";
  if (path_ != "-") return file_->commit(json, sync);
  std::fwrite(json.data(), 1, json.size(), stdout);
  std::fflush(stdout);
}

}  // namespace gxsort::cli
