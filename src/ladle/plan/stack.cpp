#include "ladle/plan/stack.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

constexpr const char* kStacksFile = "data/hw/stacks.yaml";

[[noreturn]] void bad(const YAML::Node& node, const std::string& path, const std::string& what) {
  throw_input(SourceLocation{kStacksFile, node.Mark().line + 1, node.Mark().column + 1, path}, "{}", what);
}

std::string text(const YAML::Node& node, const std::string& path) {
  if (!node || !node.IsScalar() || node.Scalar().empty()) bad(node, path, "expected text");
  return node.Scalar();
}

// The first "major.minor" in `s` (digits, a dot, digits), as numbers.
std::optional<std::pair<int, int>> version_in(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) || (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))))
      continue;
    size_t j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j + 1 >= s.size() || s[j] != '.' || !std::isdigit(static_cast<unsigned char>(s[j + 1]))) continue;
    size_t k = j + 1;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
    if (j - i > 3 || k - j - 1 > 3) continue;
    return std::pair{std::stoi(std::string(s.substr(i, j - i))), std::stoi(std::string(s.substr(j + 1, k - j - 1)))};
  }
  return std::nullopt;
}

// One row of the transformer_engine_host table: from Transformer Engine `since` on, a module call
// costs the host `ratio` times PyTorch's own op.
struct TeHostRow {
  std::pair<int, int> since;
  double ratio = 1;
};

struct Tables {
  std::vector<StackFeature> features;
  std::vector<StackGeneration> stacks;
  std::vector<TeHostRow> te_host;  // by `since`, ascending
};

// The ratio of the newest row at or before `version`; nullopt before the first row.
std::optional<double> te_ratio(const std::vector<TeHostRow>& rows, std::pair<int, int> version) {
  std::optional<double> ratio;
  for (const TeHostRow& row : rows) {
    if (version >= row.since) ratio = row.ratio;
  }
  return ratio;
}

Tables read_tables() {
  const std::optional<std::string_view> file = util::find_embedded(kStacksFile);
  LADLE_ASSERT(file.has_value(), "the embedded stack table is missing");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(*file));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{kStacksFile, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  Tables t;
  for (size_t i = 0; i < root["transformer_engine_host"].size(); ++i) {
    const YAML::Node row = root["transformer_engine_host"][i];
    const std::string path = "transformer_engine_host[" + std::to_string(i) + "]";
    const auto since = version_in(text(row["since"], path + ".since"));
    if (!since) bad(row["since"], path + ".since", "expected a Transformer Engine release, e.g. '2.11'");
    double ratio = 0;
    if (!row["module_host_ratio"] || !YAML::convert<double>::decode(row["module_host_ratio"], ratio) ||
        !(ratio > 0) || !std::isfinite(ratio)) {
      bad(row["module_host_ratio"], path + ".module_host_ratio", "expected a positive number");
    }
    text(row["source"], path + ".source");
    if (!t.te_host.empty() && !(*since > t.te_host.back().since)) {
      bad(row["since"], path + ".since", "expected releases in ascending order");
    }
    t.te_host.push_back({*since, ratio});
  }
  for (size_t i = 0; i < root["features"].size(); ++i) {
    const YAML::Node f = root["features"][i];
    const std::string path = "features[" + std::to_string(i) + "]";
    StackFeature row{text(f["key"], path + ".key"), text(f["argument"], path + ".argument"),
                     text(f["since"], path + ".since"), text(f["source"], path + ".source")};
    if (!version_in(row.since)) bad(f["since"], path + ".since", "expected a release, e.g. '0.11'");
    t.features.push_back(std::move(row));
  }
  for (size_t i = 0; i < root["stacks"].size(); ++i) {
    const YAML::Node s = root["stacks"][i];
    const std::string path = "stacks[" + std::to_string(i) + "]";
    StackGeneration g;
    g.name = text(s["name"], path + ".name");
    g.tag = text(s["tag"], path + ".tag");
    g.commit = text(s["commit"], path + ".commit");
    g.released = text(s["released"], path + ".released");
    const auto v = version_in(g.name);
    if (!v) bad(s["name"], path + ".name", "expected a release, e.g. '0.16'");
    g.major = v->first;
    g.minor = v->second;
    const YAML::Node scale = s["host_launch_scale"];
    if (scale && scale.IsScalar() && scale.Scalar() == "shared") {
      g.host_launch_scale = 1;
      g.host_launch_shared = true;
    } else {
      double value = 0;
      if (!scale || !scale.IsScalar() || !YAML::convert<double>::decode(scale, value) || !(value > 0) ||
          !std::isfinite(value) || !s["host_launch_source"]) {
        bad(scale, path + ".host_launch_scale", "expected `shared` or a positive number with host_launch_source");
      }
      g.host_launch_scale = value;
      g.host_launch_shared = false;
    }
    g.transformer_engine = text(s["transformer_engine"], path + ".transformer_engine");
    text(s["transformer_engine_source"], path + ".transformer_engine_source");  // required, not used
    const auto te = version_in(g.transformer_engine);
    const std::optional<double> ratio = te ? te_ratio(t.te_host, *te) : std::nullopt;
    if (!ratio) bad(s["transformer_engine"], path + ".transformer_engine", "expected a Transformer Engine release the transformer_engine_host table covers");
    g.te_module_host_ratio = *ratio;
    t.stacks.push_back(std::move(g));
  }
  LADLE_ASSERT(!t.stacks.empty(), "stacks.yaml lists no release");
  return t;
}

const Tables& tables() {
  static const Tables t = read_tables();
  return t;
}

bool newer_or_same(int major, int minor, int other_major, int other_minor) {
  return major > other_major || (major == other_major && minor >= other_minor);
}

}  // namespace

bool StackGeneration::has(std::string_view feature) const {
  for (const StackFeature& f : stack_features()) {
    if (f.key != feature) continue;
    const auto since = version_in(f.since);
    return newer_or_same(major, minor, since->first, since->second);
  }
  LADLE_ASSERT(false, "stacks.yaml: a feature key the code asks for is not in the table");
  return false;
}

const std::vector<StackGeneration>& stack_generations() { return tables().stacks; }
const std::vector<StackFeature>& stack_features() { return tables().features; }

const StackGeneration& newest_stack() {
  const auto& s = stack_generations();
  return *std::max_element(s.begin(), s.end(), [](const StackGeneration& a, const StackGeneration& b) {
    return !newer_or_same(a.major, a.minor, b.major, b.minor);
  });
}

const StackGeneration* find_stack(std::string_view text) {
  const auto v = version_in(text);
  if (!v) return nullptr;
  for (const StackGeneration& g : stack_generations()) {
    if (g.major == v->first && g.minor == v->second) return &g;
  }
  return nullptr;
}

const StackGeneration& require_stack(std::string_view text) {
  if (const StackGeneration* g = find_stack(text)) return *g;
  std::vector<std::string> known;
  for (const StackGeneration& g : stack_generations()) known.push_back(g.name);
  throw_usage("unknown stack '{}': known Megatron-Core releases are {} (data/hw/stacks.yaml)", text,
              util::join(known, ", "));
}

StackChoice choose_stack(std::string_view flag, std::string_view recipe_megatron_lm) {
  if (!flag.empty()) return {&require_stack(flag), "--stack"};
  if (!recipe_megatron_lm.empty()) {
    if (const StackGeneration* g = find_stack(recipe_megatron_lm)) return {g, "the recipe's stack.megatron_lm"};
    return {&newest_stack(), "the newest (the recipe's stack.megatron_lm names no release in data/hw/stacks.yaml)"};
  }
  return {&newest_stack(), "the newest (default)"};
}

std::string stack_label(const StackGeneration& s) { return "Megatron-Core " + s.name + " (" + s.tag + ")"; }

std::string stack_source(const StackGeneration& s, std::string_view origin) {
  return fmt::format("{}; Transformer Engine {}: a module call costs the host {:.2f} times PyTorch's own op{}", origin,
                     s.transformer_engine, s.te_module_host_ratio,
                     s.host_launch_shared ? std::string() : fmt::format("; host cost per operation x{:.2f}", s.host_launch_scale));
}

std::optional<std::string> stack_violation(const Layout& l, const StackGeneration& stack) {
  if (&stack == &newest_stack()) return std::nullopt;  // every feature's release is at most the newest
  const auto lacks = [&](std::string_view key) -> std::optional<std::string> {
    if (stack.has(key)) return std::nullopt;
    for (const StackFeature& f : stack_features()) {
      if (f.key == key) {
        return fmt::format("{} needs Megatron-Core {} or later; the stack is {}", f.argument, f.since,
                           stack_label(stack));
      }
    }
    return std::nullopt;
  };
  std::optional<std::string> v;
  if (l.permute_fusion && (v = lacks("permute_fusion"))) return v;
  if (l.router_fusion && (v = lacks("router_fusion"))) return v;
  if (l.dispatcher == MoeDispatcher::flex && (v = lacks("flex_dispatcher"))) return v;
  if (l.dispatcher == MoeDispatcher::flex && l.flex_backend == FlexBackend::hybridep && (v = lacks("hybridep"))) return v;
  if (l.dispatcher == MoeDispatcher::flex && l.flex_backend == FlexBackend::ncclep && (v = lacks("ncclep"))) return v;
  if (l.ce_fusion && (v = lacks("ce_fusion"))) return v;
  if (l.ce_fusion && l.ce_impl == CrossEntropyImpl::te && (v = lacks("ce_impl_te"))) return v;
  if (l.a2a_overlap && (v = lacks("a2a_overlap"))) return v;
  if (l.act_offload && (v = lacks("act_offload"))) return v;
  if (l.rank_capacity > 0 && (v = lacks("rank_capacity"))) return v;
  if (l.paged_stash && (v = lacks("paged_stash"))) return v;
  return std::nullopt;
}

std::optional<double> transformer_engine_host_ratio(std::string_view version) {
  const auto v = version_in(version);
  return v ? te_ratio(tables().te_host, *v) : std::nullopt;
}

const StackGeneration& workload_stack(const Workload& workload) {
  return workload.stack_generation ? *workload.stack_generation : newest_stack();
}

void apply_stack(Measurement& m, std::string_view flag, std::vector<ValueSource>& sources) {
  const StackChoice choice = choose_stack(flag, m.recipe_stack);
  m.workload.stack_generation = choice.generation;
  const StackGeneration& s = *choice.generation;
  sources.push_back({"stack", stack_label(s), stack_source(s, choice.origin)});
  if (std::optional<std::string> v = stack_violation(m.layout, s)) {
    throw Error(ErrorKind::input, *v, SourceLocation{"", 0, 0, "stack"});
  }
}

}  // namespace ladle::plan
