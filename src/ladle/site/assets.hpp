#pragma once
// The site's one style sheet and one script, written beside the pages as assets/site.css and
// assets/site.js. Pages read fully without the script; it adds sorting, filters and copy buttons.

#include <string_view>

namespace ladle::site {

/// The style sheet: readable from a 320px phone to a wide screen, prints cleanly.
std::string_view site_css();

/// The script: sortable index columns, model/GPU/status filters, copy buttons. Plain ES2015, no
/// network, no dependencies.
std::string_view site_js();

}  // namespace ladle::site
