#include "engine/runs_manifest.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"

namespace gxsort {

std::string run_file_name(size_t index) {
  char name[64];
  std::snprintf(name, sizeof name, "run-%06zu.bin", index);
  return name;
}

namespace {

// A composite key is its --key list: "format <record size> keys 0:u16be,4:f32:desc <reverse>".
std::string format_line(const Format& f) {
  if (f.composite()) return "format " + std::to_string(f.record_size) + " keys " + f.key_text() + " " + (f.reverse ? "1" : "0");
  return "format " + std::to_string(f.record_size) + " " + std::to_string(f.key_offset) + " " +
         key_type_name(f.key_type) + " " + std::to_string(f.key_bytes) + " " + (f.reverse ? "1" : "0");
}

const std::string kLinesFormat = "format lines ";

// What a format line says, for a message.
std::string describe_format_line(const std::string& line) {
  if (line.rfind(kLinesFormat, 0) == 0) return "text lines, " + line.substr(kLinesFormat.size());
  std::istringstream fl(line.substr(7));
  size_t rs = 0, off = 0, kb = 0;
  std::string kt, keys;
  int rev = 0;
  fl >> rs >> kt;
  std::string what = "record size " + std::to_string(rs) + ", key ";
  if (kt == "keys") {
    fl >> keys >> rev;
    what += keys;
  } else {
    off = std::strtoull(kt.c_str(), nullptr, 10);
    fl >> kt >> kb >> rev;
    what += kt + " of " + std::to_string(kb) + " bytes at offset " + std::to_string(off);
  }
  return what + (rev ? ", reversed" : "");
}

// Refuses runs of another format: text lines as records or records as text lines
// (saying which they are), or another record format or order of lines.
void check_format_line(const std::string& dir, const std::string& line, const RunsFormat& f) {
  const bool of_lines = line.rfind(kLinesFormat, 0) == 0;
  if (of_lines != (f.record_size == 0))
    fail_usage(dir + (of_lines ? ": holds runs of text lines; merge them with " + option_ref("lines") + " (and the options they were sorted by)"
                               : ": holds runs of binary records (" + describe_format_line(line) +
                                     "); merge them without " + option_ref("lines")));
  if (line == f.line) return;
  if (of_lines)
    fail_usage(dir + ": runs were made with another order (" + describe_format_line(line) + "; these options give " +
               f.line.substr(kLinesFormat.size()) + "); give the same ordering options");
  fail_usage(dir + ": runs were made with another format (" + describe_format_line(line) +
             "); give the same format options");
}

}  // namespace

std::set<std::string> run_files_in(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() > 8 && n.compare(0, 4, "run-") == 0 && n.compare(n.size() - 4, 4, ".bin") == 0) names.insert(n);
  }
  ::closedir(d);
  return names;
}

RunsFormat runs_format(const Format& f) { return {format_line(f), f.record_size}; }

RunsFormat line_runs_format(const std::string& order_text) { return {kLinesFormat + order_text, 0}; }

std::string runs_manifest_text(const Format& f, const std::vector<ManifestRun>& runs) {
  return runs_manifest_text(runs_format(f), runs);
}

std::string runs_manifest_text(const RunsFormat& f, const std::vector<ManifestRun>& runs) {
  std::ostringstream m;
  m << "gxsort-runs " << kRunsManifestVersion << "\n" << f.line << "\nruns " << runs.size() << "\n";
  for (size_t i = 0; i < runs.size(); ++i)
    m << run_file_name(i) << " " << runs[i].records << " " << runs[i].bytes << " " << io::hex64(runs[i].checksum) << "\n";
  std::string text = m.str();
  return text + "end " + io::hex64(io::xxh3_64(text.data(), text.size())) + "\n";
}

std::vector<ManifestRun> read_runs_manifest(const std::string& dir, const Format& f) {
  return read_runs_manifest(dir, runs_format(f));
}

std::vector<ManifestRun> read_runs_manifest(const std::string& dir, const RunsFormat& f) {
  const std::string path = dir + "/manifest.txt";
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_usage(dir + ": is a directory without a manifest.txt (not a `gxsort runs` directory)");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto bad = [&](size_t line, const std::string& what) -> void {
    fail_usage(path + ":" + std::to_string(line + 1) + ": " + what + " (not an intact `gxsort runs` manifest)");
  };
  if (lines.empty() || lines[0].rfind("gxsort-runs ", 0) != 0) bad(0, "no 'gxsort-runs' header");
  if (lines[0] != "gxsort-runs " + std::to_string(kRunsManifestVersion))
    fail_usage(path + ": manifest version '" + lines[0].substr(12) + "' is not supported (this gxsort reads version " +
               std::to_string(kRunsManifestVersion) + "; run `gxsort runs` again)");
  // The end line: the checksum of everything before it, and nothing after it.
  size_t end = 0;
  std::string body;
  for (; end < lines.size() && lines[end].rfind("end ", 0) != 0; ++end) body += lines[end] + "\n";
  if (end == lines.size()) bad(end - 1, "no 'end' line (truncated?)");
  if (end + 1 != lines.size()) bad(end + 1, "lines after the 'end' line");
  uint64_t sum = 0;
  if (!io::parse_hex64(lines[end].substr(4), sum)) bad(end, "the 'end' line holds no checksum");
  if (sum != io::xxh3_64(body.data(), body.size()))
    fail_usage(path + ": the manifest's checksum does not match its text (was it edited?)");

  if (lines.size() < 4) bad(lines.size() - 1, "too short");
  if (lines[1].rfind("format ", 0) != 0) bad(1, "expected the 'format' line");
  check_format_line(dir, lines[1], f);
  std::istringstream rl(lines[2]);
  std::string word;
  uint64_t count = 0;
  if (!(rl >> word >> count) || word != "runs" || !rl.eof()) bad(2, "expected 'runs <count>'");
  if (count != end - 3) bad(2, "says " + std::to_string(count) + " runs, lists " + std::to_string(end - 3));

  std::vector<ManifestRun> runs;
  std::set<std::string> listed;
  for (size_t i = 0; i < count; ++i) {
    std::istringstream ls(lines[3 + i]);
    std::string name, hex;
    ManifestRun r;
    if (!(ls >> name >> r.records >> r.bytes >> hex) || !ls.eof() || !io::parse_hex64(hex, r.checksum))
      bad(3 + i, "expected 'run-NNNNNN.bin <records> <bytes> <checksum>'");
    if (name != run_file_name(i)) bad(3 + i, "expected run " + run_file_name(i) + ", found '" + name + "'");
    const bool sizes_agree = f.record_size ? r.bytes == r.records * f.record_size && r.records <= r.bytes
                                           : r.records <= r.bytes && (r.records > 0) == (r.bytes > 0);
    if (!sizes_agree)
      bad(3 + i, std::to_string(r.records) + (f.record_size ? " records" : " lines") + " do not make " + std::to_string(r.bytes) + " bytes");
    r.path = dir + "/" + name;
    struct stat st;
    if (::stat(r.path.c_str(), &st) != 0) fail_usage(r.path + ": run file is missing (listed in " + path + ")");
    if (uint64_t(st.st_size) != r.bytes)
      fail_usage(r.path + ": run file is " + std::to_string(st.st_size) + " bytes, the manifest says " +
                 std::to_string(r.bytes) + " (truncated or replaced?)");
    listed.insert(name);
    runs.push_back(r);
  }
  for (const std::string& n : run_files_in(dir))
    if (!listed.count(n)) fail_usage(dir + "/" + n + ": run file is not in the manifest (extra run; remove it or run `gxsort runs` again)");
  return runs;
}

}  // namespace gxsort
