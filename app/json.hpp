// A JSON object written field by field: what --json prints. Strings are escaped;
// numbers that are not finite are written as strings ("nan", "inf").
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gxsort/gxsort.hpp"

namespace gxsort::cli {

class JsonObject {
 public:
  JsonObject& add(const std::string& key, const std::string& v) { return raw(key, json_quote(v)); }
  JsonObject& add(const std::string& key, const char* v) { return raw(key, json_quote(v)); }
  JsonObject& add(const std::string& key, uint64_t v) { return raw(key, std::to_string(v)); }
  JsonObject& add(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  JsonObject& add(const std::string& key, double v) {
    if (!std::isfinite(v)) return add(key, std::string(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
    char b[64];
    std::snprintf(b, sizeof b, "%.9g", v);
    return raw(key, b);
  }
  // A value that is JSON already (an array, a nested object).
  JsonObject& raw(const std::string& key, const std::string& json) {
    text_ += (text_.empty() ? "{" : ",") + json_quote(key) + ":" + json;
    return *this;
  }
  std::string str() const { return (text_.empty() ? "{" : text_) + "}"; }

 private:
  std::string text_;
};

// "00ff..." (16 hex digits), as the text reports print checksums.
inline std::string hex_of(uint64_t x) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

// Every --json document starts with this: its layout's version.
constexpr uint64_t kJsonFormatVersion = 1;
inline JsonObject json_document(const std::string& command) {
  JsonObject o;
  o.add("format_version", kJsonFormatVersion).add("command", command);
  return o;
}

}  // namespace gxsort::cli
