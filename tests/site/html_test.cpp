#include "ladle/site/html.hpp"

#include <gtest/gtest.h>

namespace ladle::site {
namespace {

TEST(EscapeHtml, ReplacesEveryMarkupCharacter) {
  EXPECT_EQ(escape_html("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(escape_html("plain text, 6,178.46 \u00d7"), "plain text, 6,178.46 \u00d7");
  EXPECT_EQ(escape_html("&amp;"), "&amp;amp;");
}

TEST(SafeLinkUrl, AcceptsAbsoluteHttpAndHttps) {
  EXPECT_EQ(safe_link_url("https://arxiv.org/abs/2610.17528"), "https://arxiv.org/abs/2610.17528");
  EXPECT_EQ(safe_link_url("http://example.org/a?b=1&c=2"), "http://example.org/a?b=1&c=2");
  EXPECT_EQ(safe_link_url("HTTPS://Example.org"), "HTTPS://Example.org");
}

TEST(SafeLinkUrl, RefusesEveryOtherScheme) {
  for (const char* url : {"javascript:alert(1)", "JavaScript:alert(1)", " https://x.org", "java\tscript:alert(1)",
                          "https://x.org/\nalert", "data:text/html,<script>alert(1)</script>", "vbscript:x",
                          "//evil.org/x", "/relative/path", "file:///etc/passwd", "https://", "https:///x",
                          "https://a b.org", "", "mailto:a@b.org"}) {
    EXPECT_EQ(safe_link_url(url), std::nullopt) << url;
  }
}

TEST(RenderLink, LinksOnlySafeUrlsAndShowsTheRestAsText) {
  EXPECT_EQ(render_link("https://a.org/?x=\"1\"", "cite <me>"),
            "<a href=\"https://a.org/?x=&quot;1&quot;\">cite &lt;me&gt;</a>");
  EXPECT_EQ(render_link("javascript:alert('x')", "name"), "name (javascript:alert(&#39;x&#39;))");
  EXPECT_EQ(render_link("", "name"), "name");
}

TEST(Slugify, KeepsPlainNamesAndFoldsTheRest) {
  EXPECT_EQ(slugify("GLM-4.7-Flash"), "glm-4.7-flash");
  EXPECT_EQ(slugify("Qwen3 235B / A22B"), "qwen3-235b-a22b");
  EXPECT_EQ(slugify("../../etc/passwd"), "etc-passwd");
  EXPECT_EQ(slugify("<script>"), "script");
  EXPECT_EQ(slugify("..."), "x");
  EXPECT_EQ(slugify(""), "x");
}

}  // namespace
}  // namespace ladle::site
