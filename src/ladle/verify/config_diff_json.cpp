// config_diff_json.cpp: the JSON form of ConfigDiff.
#include "ladle/verify/config_diff_json.hpp"

#include <fmt/format.h>

namespace ladle::verify {
namespace {

nlohmann::ordered_json value_source(const std::string& file, const std::string& script, int line) {
  return line > 0 ? nlohmann::ordered_json(fmt::format("{}:{}", file.empty() ? script : file, line)) : nullptr;
}

}  // namespace

nlohmann::ordered_json to_json(const ArgDifference& d, const std::string& a_script, const std::string& b_script) {
  nlohmann::ordered_json j;
  j["flag"] = d.flag;
  j["section"] = d.section;
  j["launch"] = d.launch;
  j["a"] = d.a ? nlohmann::ordered_json(*d.a) : nullptr;
  j["b"] = d.b ? nlohmann::ordered_json(*d.b) : nullptr;
  j["class"] = to_string(d.arg_class);
  j["reason"] = d.reason;
  j["line_a"] = d.line_a;
  j["line_b"] = d.line_b;
  j["source_a"] = value_source(d.file_a, a_script, d.line_a);
  j["source_b"] = value_source(d.file_b, b_script, d.line_b);
  return j;
}

nlohmann::ordered_json to_json(const ConfigDiff& diff) {
  nlohmann::ordered_json out;
  out["a"] = diff.a_path;
  out["b"] = diff.b_path;
  out["flags_compared"] = diff.flags_compared;
  out["launches_a"] = diff.launches_a;
  out["launches_b"] = diff.launches_b;
  nlohmann::ordered_json differences = nlohmann::ordered_json::array();
  for (const ArgDifference& d : diff.differences) differences.push_back(to_json(d, diff.a_path, diff.b_path));
  out["differences"] = std::move(differences);
  nlohmann::ordered_json unresolved = nlohmann::ordered_json::array();
  for (const ArgDifference& d : diff.unresolved) unresolved.push_back(to_json(d, diff.a_path, diff.b_path));
  out["unresolved"] = std::move(unresolved);
  out["worst"] = diff.worst ? nlohmann::ordered_json(to_string(*diff.worst)) : nullptr;
  out["configuration"] = diff.configuration;
  out["verdict"] = diff.verdict;
  out["notes"] = diff.notes;
  return out;
}

}  // namespace ladle::verify
