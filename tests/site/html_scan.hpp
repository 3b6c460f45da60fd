#pragma once
// A small scanner over the HTML the site writes, for tests: every tag with its attributes, and the
// visible text with tags stripped and character references decoded. Not a general HTML parser: it
// reads what ladle writes and fails loudly on anything else.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ladle::site::test {

struct Tag {
  std::string name;  ///< lowercase, "/name" for an end tag, "!doctype" for the doctype
  std::map<std::string, std::string> attrs;  ///< values with references left as written
};

inline std::vector<Tag> scan_tags(const std::string& html) {
  std::vector<Tag> tags;
  size_t at = 0;
  while ((at = html.find('<', at)) != std::string::npos) {
    size_t i = at + 1;
    Tag tag;
    while (i < html.size() && html[i] != ' ' && html[i] != '>' && html[i] != '\n') tag.name += static_cast<char>(std::tolower(html[i++]));
    while (i < html.size() && html[i] != '>') {
      while (i < html.size() && (html[i] == ' ' || html[i] == '\n' || html[i] == '/')) ++i;
      std::string name;
      while (i < html.size() && html[i] != '=' && html[i] != ' ' && html[i] != '>' && html[i] != '\n') name += html[i++];
      std::string value;
      if (i < html.size() && html[i] == '=') {
        ++i;
        const char quote = html[i];
        if (quote != '"' && quote != '\'') {
          ADD_FAILURE() << "unquoted attribute " << name << " in " << html.substr(at, 80);
          return tags;
        }
        const size_t end = html.find(quote, i + 1);
        value = html.substr(i + 1, end - i - 1);
        i = end + 1;
      }
      if (!name.empty()) tag.attrs[name] = value;
    }
    tags.push_back(std::move(tag));
    at = i;
  }
  return tags;
}

inline std::string decode_entities(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t end = s.find(';', i);
    const std::string name = s.substr(i + 1, end - i - 1);
    static const std::map<std::string, std::string> kNames{
        {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"#39", "'"}};
    const auto it = kNames.find(name);
    if (it == kNames.end()) {
      ADD_FAILURE() << "unknown reference &" << name << ";";
      out += s[i];
      continue;
    }
    out += it->second;
    i = end;
  }
  return out;
}

/// Text without tags, references decoded.
inline std::string visible_text(const std::string& html) {
  std::string text;
  bool in_tag = false;
  for (const char c : html) {
    if (c == '<') in_tag = true;
    else if (c == '>') in_tag = false;
    else if (!in_tag) text += c;
  }
  return decode_entities(text);
}

}  // namespace ladle::site::test
