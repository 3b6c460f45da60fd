#include "ladle/site/recipe_facts.hpp"

#include <fmt/format.h>

#include "ladle/site/html.hpp"
#include "ladle/util/text.hpp"

namespace ladle::site {
namespace {

// Shortest text that reads back as the same double, as the seeds print their figures.
std::string shortest(double v) { return fmt::format("{}", v); }

std::string note_html(const std::optional<std::string>& note) {
  if (!note || note->empty()) return "";
  return "<br><span class=\"note\">" + escape_html(*note) + "</span>";
}

}  // namespace

std::string format_percent(double percent) { return shortest(percent) + "%"; }

std::string gpu_count_label(const Recipe& recipe) {
  return fmt::format("{} \u00d7 {}", recipe.gpu.count, recipe.gpu.type);
}

// The facts are the recipe page's (recipe::build_page); the site only dresses them in HTML.
std::vector<Fact> recipe_facts(const Recipe& recipe) {
  std::vector<Fact> facts;
  const std::string& hash = recipe.workload.dataset.rows_sha256;
  for (const recipe::PageFact& f : recipe::build_page(recipe).facts) {
    if (f.key == "predicted") continue;  // the page's "predicted against measured" table shows it
    std::string html = escape_html(f.value);
    if (f.url) {
      html += " (" + (safe_link_url(*f.url) ? render_link(*f.url, "cite") : escape_html(*f.url)) + ")";
    }
    if (f.result) {
      html = "<span class=\"result result-" + slugify(*f.result) + "\">" + escape_html(*f.result) + "</span> " + html;
    }
    if (f.key == "rows" && !hash.empty()) {
      const std::string escaped = escape_html(hash);
      const size_t at = html.find(escaped);
      if (at != std::string::npos) html.replace(at, escaped.size(), "<code class=\"hash\">" + escaped + "</code>");
    }
    facts.push_back({f.key, f.label, html + note_html(f.note)});
  }
  return facts;
}

}  // namespace ladle::site
