#include "ladle/launch/engines.hpp"

#include <yaml-cpp/yaml.h>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"

namespace ladle::launch {

namespace {

constexpr const char* kTableFile = "data/launch/engines.yaml";

SourceLocation where(const std::string& file, const YAML::Node& node, const std::string& field) {
  return SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, field};
}

std::string required(const YAML::Node& node, const char* key, const std::string& file,
                     const std::string& field) {
  if (!node[key] || !node[key].IsScalar())
    throw_input(where(file, node, field + "." + key), "missing (required)");
  return node[key].as<std::string>();
}

}  // namespace

const EngineInfo& EngineTable::engine(layout::Engine engine) const {
  const auto it = engines.find(layout::to_string(engine));
  LADLE_ASSERT(it != engines.end(), "every engine has a row in data/launch/engines.yaml");
  return it->second;
}

std::optional<std::string> EngineTable::model_name(const std::string& model,
                                                   layout::Engine engine) const {
  const auto it = models.find(model);
  if (it == models.end()) return std::nullopt;
  const auto name = it->second.find(layout::to_string(engine));
  if (name == it->second.end()) return std::nullopt;
  return name->second;
}

const BridgeKey* EngineTable::bridge_key(const std::string& flag) const {
  for (const BridgeKey& k : bridge) {
    if (k.flag == flag) return &k;
  }
  return nullptr;
}

const BridgeKey* EngineTable::bridge_flag(const std::string& key) const {
  for (const BridgeKey& k : bridge) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

EngineTable parse_engine_table(const std::string& yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  EngineTable t;
  for (const char* key : {"engines", "models", "inputs", "precision", "bridge"}) {
    if (!root[key]) throw_input(SourceLocation{file, 1, 1, key}, "missing (required)");
  }
  for (const auto& entry : root["engines"]) {
    const std::string name = entry.first.as<std::string>();
    const std::string field = "engines." + name;
    EngineInfo info;
    info.family = required(entry.second, "family", file, field);
    info.checkout = required(entry.second, "checkout", file, field);
    info.repository = required(entry.second, "repository", file, field);
    info.entry = required(entry.second, "entry", file, field);
    info.model_args = required(entry.second, "model_args", file, field);
    info.source = required(entry.second, "source", file, field);
    for (const auto& word : entry.second["defaults"])
      info.defaults.push_back(word.as<std::string>());
    t.engines[name] = std::move(info);
  }
  for (const auto& entry : root["models"]) {
    for (const auto& name : entry.second) {
      t.models[entry.first.as<std::string>()][name.first.as<std::string>()] =
          name.second.as<std::string>();
    }
  }
  for (const auto& entry : root["inputs"]) {
    const std::string field = "inputs." + entry.first.as<std::string>();
    InputInfo input{required(entry.second, "what", file, field),
                    required(entry.second, "kind", file, field), ""};
    if (input.kind == "derived") input.command = required(entry.second, "command", file, field);
    t.inputs[entry.first.as<std::string>()] = std::move(input);
  }
  for (const auto& word : root["precision"]["fp8"]) t.fp8_flags.push_back(word.as<std::string>());
  // A list of keys: the first is written (the others are read, bridge_args.hpp).
  for (const auto& entry : root["bridge"]) {
    const YAML::Node key = entry.second.IsSequence() ? entry.second[0] : entry.second;
    t.bridge.push_back({entry.first.as<std::string>(), key.as<std::string>()});
  }
  return t;
}

const EngineTable& engine_table() {
  static const EngineTable table = [] {
    const auto text = util::find_embedded(kTableFile);
    LADLE_ASSERT(text.has_value(), "data/launch/engines.yaml is embedded");
    return parse_engine_table(std::string(*text), kTableFile);
  }();
  return table;
}

}  // namespace ladle::launch
