#include "ladle/util/yaml_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "ladle/util/error.hpp"
#include "ladle/util/utf8.hpp"

namespace ladle::util {
namespace {

SourceLocation location_of(const std::string& path, const YAML::Mark& mark) {
  return SourceLocation{path, mark.line + 1, mark.column + 1, ""};
}

// YAML text is Unicode; yaml-cpp passes stray bytes through, and they would reach every page and
// file written from the recipe. Reports the first byte that starts no UTF-8 character.
void reject_invalid_utf8(std::string_view text, const std::string& path) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t length = well_formed_utf8_length(text, i);
    if (length == 0) {
      throw_input(SourceLocation{path, line, static_cast<int>(i - line_start) + 1, ""},
                  "byte 0x{:02X} is not UTF-8: YAML text must be UTF-8",
                  static_cast<unsigned char>(text[i]));
    }
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += length;
  }
}

// Walks the parser's events once, without building nodes: counts the documents and what each
// alias would add if it were copied where it stands, so neither a second document nor an alias
// bomb reaches a reader that walks the node tree.
class DocumentCheck : public YAML::EventHandler {
 public:
  explicit DocumentCheck(const std::string& path) : path_(path) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw_input(
          location_of(path_, mark),
          "a second YAML document: a recipe file holds one (move this one to a file of its own)");
    }
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { leaf(anchor, 0); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    leaf(anchor, static_cast<int64_t>(value.size()));
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = sizes_.find(anchor);
    if (it == sizes_.end()) {
      // yaml-cpp accepts an alias inside the node it names, which makes a cycle.
      throw_input(location_of(path_, mark), "alias *{} refers to a node that contains it",
                  anchor_name(anchor));
    }
    aliased_ = aliased_ + it->second;
    if (aliased_.nodes > kMaxYamlAliasNodes) {
      throw_input(location_of(path_, mark),
                  "aliases expand to more than {} nodes: a recipe needs a few aliases at most",
                  kMaxYamlAliasNodes);
    }
    if (aliased_.bytes > kMaxYamlAliasBytes) {
      throw_input(
          location_of(path_, mark),
          "aliases expand to more than {} bytes of text: a recipe needs a few aliases at most",
          kMaxYamlAliasBytes);
    }
    add(it->second);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open_.push_back({anchor, {1, 0}});
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open_.push_back({anchor, {1, 0}});
  }
  void OnMapEnd() override { close(); }
  void OnAnchor(const YAML::Mark&, const std::string& name) override {
    anchor_names_.push_back(name);
  }

 private:
  // What a node stands for once every alias in it is copied where it stands.
  struct Size {
    int64_t nodes = 0;
    int64_t bytes = 0;  ///< of scalar text
    // Sizes above the limits are all the same answer; capping them keeps sums from overflowing.
    Size operator+(const Size& other) const {
      return {std::min(nodes + other.nodes, kMaxYamlAliasNodes + 1),
              std::min(bytes + other.bytes, kMaxYamlAliasBytes + 1)};
    }
  };
  struct Open {
    YAML::anchor_t anchor;
    Size size;  ///< this collection and everything in it so far
  };

  void leaf(YAML::anchor_t anchor, int64_t bytes) {
    const Size size{1, std::min(bytes, kMaxYamlAliasBytes + 1)};
    if (anchor != YAML::NullAnchor) sizes_[anchor] = size;
    add(size);
  }
  void close() {
    const Open done = open_.back();
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) sizes_[done.anchor] = done.size;
    add(done.size);
  }
  void add(const Size& size) {
    if (!open_.empty()) open_.back().size = open_.back().size + size;
  }
  // yaml-cpp numbers a document's anchors 1, 2, ... in the order it reports their names.
  std::string anchor_name(YAML::anchor_t anchor) const {
    return anchor >= 1 && anchor <= anchor_names_.size() ? anchor_names_[anchor - 1]
                                                         : std::to_string(anchor);
  }

  const std::string& path_;
  int documents_ = 0;
  Size aliased_;  ///< what every alias so far added
  std::vector<Open> open_;
  std::map<YAML::anchor_t, Size> sizes_;
  std::vector<std::string> anchor_names_;
};

}  // namespace

YAML::Node load_yaml_document(std::string_view text, const std::string& path) {
  reject_invalid_utf8(text, path);
  const std::string owned(text);
  try {
    std::istringstream stream(owned);
    YAML::Parser parser(stream);
    DocumentCheck check(path);
    while (parser.HandleNextDocument(check)) {
    }
    return YAML::Load(owned);
  } catch (const YAML::Exception& e) {
    throw_input(location_of(path, e.mark), "malformed YAML: {}", e.msg);
  }
}

}  // namespace ladle::util
