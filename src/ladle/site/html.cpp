#include "ladle/site/html.hpp"

#include "ladle/util/text.hpp"

namespace ladle::site {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::optional<std::string> safe_link_url(std::string_view url) {
  const std::string lower = util::to_lower(url.substr(0, 8));
  size_t host_start = 0;
  if (lower.starts_with("https://")) {
    host_start = 8;
  } else if (lower.starts_with("http://")) {
    host_start = 7;
  } else {
    return std::nullopt;
  }
  if (url.size() <= host_start || url[host_start] == '/') return std::nullopt;
  for (const char c : url) {
    const auto byte = static_cast<unsigned char>(c);
    // Whitespace and control characters never belong in a URL; browsers strip some of them,
    // which is how "java\tscript:" tricks work, so refuse rather than repair.
    if (byte <= 0x20 || byte == 0x7f) return std::nullopt;
  }
  return std::string(url);
}

std::string render_link(std::string_view url, std::string_view text) {
  if (const auto safe = safe_link_url(url)) {
    return "<a href=\"" + escape_html(*safe) + "\">" + escape_html(text) + "</a>";
  }
  if (url.empty()) return escape_html(text);
  return escape_html(text) + " (" + escape_html(url) + ")";
}

std::string slugify(std::string_view text) {
  std::string out;
  bool pending_dash = false;
  for (const char raw : text) {
    char c = raw;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
    if (!keep) {
      pending_dash = true;
      continue;
    }
    if (c == '.' && out.empty()) continue;  // no hidden files, no "..": a slug is one plain name
    if (pending_dash && !out.empty()) out += '-';
    pending_dash = false;
    out += c;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == '-')) out.pop_back();
  return out.empty() ? "x" : out;
}

}  // namespace ladle::site
