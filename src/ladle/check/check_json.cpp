// check_json.cpp: the JSON form of Finding and CheckReport.
#include "ladle/check/check_json.hpp"

namespace ladle::check {

nlohmann::ordered_json to_json(const recipe::Finding& f) {
  return {{"rule", f.rule}, {"line", f.line}, {"field", f.field}, {"message", f.message}};
}

nlohmann::ordered_json to_json(const CheckReport& report) {
  nlohmann::ordered_json r;
  r["file"] = report.file;
  r["ok"] = report.findings.empty();
  r["expert_data_parallel"] = report.expert_data_parallel ? nlohmann::ordered_json(*report.expert_data_parallel)
                                                          : nlohmann::ordered_json();
  r["findings"] = nlohmann::ordered_json::array();
  for (const recipe::Finding& f : report.findings) r["findings"].push_back(to_json(f));
  r["skipped"] = report.skipped;
  return r;
}

}  // namespace ladle::check
