#pragma once
// Escaping for the site's HTML: every value that comes from a recipe goes through one of these
// before it reaches a page, chosen by the context it lands in (text, attribute, link).

#include <optional>
#include <string>
#include <string_view>

namespace ladle::site {

/// `text` with &, <, >, " and ' replaced by character references. Safe as HTML text and as the
/// value of a double- or single-quoted attribute; never as an unquoted attribute or inside <script>.
std::string escape_html(std::string_view text);

/// `url` when it is an absolute http:// or https:// URL (scheme case-insensitive) with a host and
/// no whitespace or control characters; nullopt for anything else (javascript:, data:, relative
/// paths, leading spaces). Only such URLs become links on the site.
std::optional<std::string> safe_link_url(std::string_view url);

/// `<a href="url">text</a>` (both escaped) when `url` passes safe_link_url, otherwise the escaped
/// `text`, followed by the escaped URL in parentheses when the URL is not empty, so nothing a
/// recipe says is hidden.
std::string render_link(std::string_view url, std::string_view text);

/// A lowercase name for a file or fragment: ASCII letters, digits, '.', '-' only, other runs
/// become one '-', no leading or trailing '-' or '.'; "x" when nothing is left.
std::string slugify(std::string_view text);

}  // namespace ladle::site
