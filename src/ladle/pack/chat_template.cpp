#include "ladle/pack/chat_template.hpp"

#include <fmt/format.h>

#include <array>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "ladle/pack/jinja.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::pack {

namespace {

constexpr std::array<std::string_view, 4> kFamilyNames = {"glm5", "qwen3", "llama3", "deepseek_v3"};

// The text being rendered, with the supervised spans.
struct Builder {
  RenderedConversation out;
  void plain(std::string_view s) { out.text.append(s); }
  void supervised(std::string_view s) {
    if (s.empty()) return;
    const size_t begin = out.text.size();
    out.text.append(s);
    if (!out.supervised.empty() && out.supervised.back().end == begin) {
      out.supervised.back().end = out.text.size();
    } else {
      out.supervised.push_back(Span{begin, out.text.size()});
    }
  }
};

std::string_view lstrip_chars(std::string_view s, std::string_view chars) {
  const size_t i = s.find_first_not_of(chars);
  return i == std::string_view::npos ? std::string_view() : s.substr(i);
}
std::string_view rstrip_chars(std::string_view s, std::string_view chars) {
  const size_t i = s.find_last_not_of(chars);
  return i == std::string_view::npos ? std::string_view() : s.substr(0, i + 1);
}
std::string_view strip_chars(std::string_view s, std::string_view chars) {
  return rstrip_chars(lstrip_chars(s, chars), chars);
}

// The length of the Python-whitespace character (str.isspace) at the start/end of `s`, or 0.
size_t space_at_front(std::string_view s) {
  if (s.empty()) return 0;
  const auto c = static_cast<unsigned char>(s[0]);
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
  static constexpr std::array<std::string_view, 19> kWide = {
      "\u0085", "\u00A0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003",
      "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200A",
      "\u2028", "\u2029", "\u202F", "\u205F", "\u3000"};
  for (std::string_view w : kWide) {
    if (s.substr(0, w.size()) == w) return w.size();
  }
  return 0;
}
size_t space_at_back(std::string_view s) {
  for (size_t len = 1; len <= 3 && len <= s.size(); ++len) {
    const std::string_view tail = s.substr(s.size() - len);
    if ((static_cast<unsigned char>(tail[0]) & 0xC0) == 0x80) continue;  // not a lead byte
    return space_at_front(tail) == len ? len : 0;
  }
  return 0;
}

// Python's str.strip() with no argument (Unicode whitespace), as Jinja's `trim` and `.strip()`.
std::string_view py_strip(std::string_view s) {
  while (size_t n = space_at_front(s)) s.remove_prefix(n);
  while (size_t n = space_at_back(s)) s.remove_suffix(n);
  return s;
}

// `s.split(sep)[0]` and `s.split(sep)[-1]` in Python.
std::string_view before_first(std::string_view s, std::string_view sep) {
  const size_t i = s.find(sep);
  return i == std::string_view::npos ? s : s.substr(0, i);
}
std::string_view after_last(std::string_view s, std::string_view sep) {
  const size_t i = s.rfind(sep);
  return i == std::string_view::npos ? s : s.substr(i + sep.size());
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Reasoning and answer of an assistant message the way the Qwen3 and GLM templates split them:
// an explicit reasoning_content wins; otherwise text before `</think>` (after `<think>`) is the
// reasoning and the text after the last `</think>` the answer.
struct Split {
  std::string reasoning;
  std::string content;
};
Split split_reasoning(const Message& m) {
  Split s;
  s.content = m.content;
  if (m.reasoning_content) {
    s.reasoning = *m.reasoning_content;
  } else if (m.content.find("</think>") != std::string::npos) {
    const std::string_view c = m.content;
    s.content = std::string(lstrip_chars(after_last(c, "</think>"), "\n"));
    s.reasoning = std::string(
        lstrip_chars(after_last(rstrip_chars(before_first(c, "</think>"), "\n"), "<think>"), "\n"));
  }
  return s;
}

RenderedConversation render_qwen3(const Conversation& c) {
  Builder b;
  const auto& ms = c.messages;
  if (ms.front().role == Role::system) {
    b.plain("<|im_start|>system\n" + ms.front().content + "<|im_end|>\n");
  }
  size_t last_query = ms.size() - 1;
  for (size_t k = ms.size(); k-- > 0;) {
    const Message& m = ms[k];
    if (m.role == Role::user &&
        !(starts_with(m.content, "<tool_response>") && ends_with(m.content, "</tool_response>"))) {
      last_query = k;
      break;
    }
  }
  for (size_t i = 0; i < ms.size(); ++i) {
    const Message& m = ms[i];
    const bool last = i + 1 == ms.size();
    if (m.role == Role::user || (m.role == Role::system && i > 0)) {
      b.plain(fmt::format("<|im_start|>{}\n{}<|im_end|>\n", to_string(m.role), m.content));
    } else if (m.role == Role::assistant) {
      const Split s = split_reasoning(m);
      b.plain("<|im_start|>assistant\n");
      if (i > last_query && (last || !s.reasoning.empty())) {
        b.supervised("<think>\n" + std::string(strip_chars(s.reasoning, "\n")) + "\n</think>\n\n" +
                     std::string(lstrip_chars(s.content, "\n")));
      } else {
        b.supervised(s.content);
      }
      b.supervised("<|im_end|>");
      b.plain("\n");
    } else if (m.role == Role::tool) {
      if (i == 0 || ms[i - 1].role != Role::tool) b.plain("<|im_start|>user");
      b.plain("\n<tool_response>\n" + m.content + "\n</tool_response>");
      if (last || ms[i + 1].role != Role::tool) b.plain("<|im_end|>\n");
    }
  }
  return std::move(b.out);
}

RenderedConversation render_llama3(const Conversation& c) {
  Builder b;
  for (size_t i = 0; i < c.messages.size(); ++i) {
    const Message& m = c.messages[i];
    if (i == 0) b.plain("<|begin_of_text|>");
    b.plain(fmt::format("<|start_header_id|>{}<|end_header_id|>\n\n", to_string(m.role)));
    if (m.role == Role::assistant) {
      b.supervised(py_strip(m.content));
      b.supervised("<|eot_id|>");
    } else {
      b.plain(py_strip(m.content));
      b.plain("<|eot_id|>");
    }
  }
  return std::move(b.out);
}

RenderedConversation render_deepseek_v3(const Conversation& c) {
  Builder b;
  std::string system;
  bool first_system = true;
  for (const Message& m : c.messages) {
    if (m.role != Role::system) continue;
    if (!first_system) system += "\n\n";
    system += m.content;
    first_system = false;
  }
  b.plain("<｜begin▁of▁sentence｜>" + system);
  bool is_tool = false;
  bool output_first = true;
  for (const Message& m : c.messages) {
    if (m.role == Role::user) {
      is_tool = false;
      b.plain("<｜User｜>" + m.content);
    } else if (m.role == Role::assistant) {
      b.plain(is_tool ? "<｜tool▁outputs▁end｜>" : "<｜Assistant｜>");
      is_tool = false;
      b.supervised(m.content);
      b.supervised("<｜end▁of▁sentence｜>");
    } else if (m.role == Role::tool) {
      is_tool = true;
      if (output_first) {
        b.plain("<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>" + m.content + "<｜tool▁output▁end｜>");
        output_first = false;
      } else {
        b.plain("\n<｜tool▁output▁begin｜>" + m.content + "<｜tool▁output▁end｜>");
      }
    }
  }
  if (is_tool) b.plain("<｜tool▁outputs▁end｜>");
  return std::move(b.out);
}

RenderedConversation render_glm5(const Conversation& c) {
  Builder b;
  const auto& ms = c.messages;
  b.plain("[gMASK]<sop>");
  int64_t last_user = -1;
  for (size_t i = 0; i < ms.size(); ++i) {
    if (ms[i].role == Role::user) last_user = static_cast<int64_t>(i);
  }
  bool close_turn = false;  // the previous message was an assistant turn
  for (size_t i = 0; i < ms.size(); ++i) {
    const Message& m = ms[i];
    const bool prev_tool = i > 0 && ms[i - 1].role == Role::tool;
    // The marker that opens this message; it ends a preceding assistant turn.
    auto marker = [&](std::string_view token, bool stops_generation) {
      if (close_turn && stops_generation) {
        b.supervised(token);
      } else {
        b.plain(token);
      }
    };
    if (m.role == Role::user) {
      marker("<|user|>", true);
      b.plain(m.content);
    } else if (m.role == Role::assistant) {
      marker("<|assistant|>", false);
      const Split s = split_reasoning(m);
      if (static_cast<int64_t>(i) > last_user && !s.reasoning.empty()) {
        b.supervised("<think>" + std::string(py_strip(s.reasoning)) + "</think>");
      } else {
        b.supervised("</think>");
      }
      b.supervised(py_strip(s.content));
    } else if (m.role == Role::tool) {
      if (i == 0 || !prev_tool) marker("<|observation|>", true);
      b.plain("<tool_response>" + m.content + "</tool_response>");
    } else if (m.role == Role::system) {
      marker("<|system|>", false);
      b.plain(m.content);
    }
    close_turn = m.role == Role::assistant;
  }
  return std::move(b.out);
}

}  // namespace

std::string_view to_string(TemplateFamily family) {
  return kFamilyNames[static_cast<size_t>(family)];
}

TemplateFamily parse_template_family(std::string_view name) {
  for (size_t i = 0; i < kFamilyNames.size(); ++i) {
    if (name == kFamilyNames[i]) return static_cast<TemplateFamily>(i);
  }
  const std::vector<std::string> names(kFamilyNames.begin(), kFamilyNames.end());
  throw_usage("unknown template '{}' (expected glm5, qwen3, llama3 or deepseek_v3){}", name,
              util::did_you_mean(name, names));
}

RenderedConversation render_conversation(TemplateFamily family, const Conversation& conversation) {
  LADLE_ASSERT(!conversation.messages.empty(), "parse_conversation rejects empty conversations");
  RenderedConversation out;
  switch (family) {
    case TemplateFamily::glm5:
      out = render_glm5(conversation);
      break;
    case TemplateFamily::qwen3:
      out = render_qwen3(conversation);
      break;
    case TemplateFamily::llama3:
      out = render_llama3(conversation);
      break;
    case TemplateFamily::deepseek_v3:
      out = render_deepseek_v3(conversation);
      break;
  }
  out.ends_with_assistant = conversation.messages.back().role == Role::assistant;
  return out;
}

std::string_view separator_token(TemplateFamily family) {
  switch (family) {
    case TemplateFamily::glm5:
    case TemplateFamily::qwen3:
      return "<|endoftext|>";
    case TemplateFamily::llama3:
      return "<|end_of_text|>";
    case TemplateFamily::deepseek_v3:
      return "<｜end▁of▁sentence｜>";
  }
  return "";
}

bool separator_closes_turn(TemplateFamily family) { return family == TemplateFamily::glm5; }

TokenizedConversation encode_conversation(const Tokenizer& tokenizer, TemplateFamily family,
                                          const Conversation& conversation, const ModelChatTemplate* own) {
  Conversation normal = conversation;
  for (Message& m : normal.messages) {
    m.content = tokenizer.normalize(m.content);
    if (m.reasoning_content) m.reasoning_content = tokenizer.normalize(*m.reasoning_content);
  }
  const RenderedConversation rendered = render_conversation(family, normal);
  // The model's own template renders the text; the family rule's spans hold only for the same text.
  if (own != nullptr) {
    if (const auto mismatch = model_template_mismatch(*own, family, normal)) {
      throw Error(ErrorKind::input, fmt::format("the model's chat template {} renders this conversation unlike "
                                                "ladle's {} rule, whose loss mask pack applies ({})",
                                                own->source, to_string(family), *mismatch));
    }
  }
  const Encoding enc = tokenizer.encode(rendered.text);
  TokenizedConversation out;
  out.ids = enc.ids;
  out.mask.assign(enc.ids.size(), 0);
  size_t span = 0;
  for (size_t i = 0; i < enc.ids.size(); ++i) {
    const size_t at = enc.offsets[i];
    while (span < rendered.supervised.size() && rendered.supervised[span].end <= at) ++span;
    if (span < rendered.supervised.size() && rendered.supervised[span].begin <= at) out.mask[i] = 1;
  }
  out.ends_with_assistant = rendered.ends_with_assistant;
  return out;
}


std::optional<ModelChatTemplate> find_model_chat_template(const std::string& tokenizer_path) {
  const std::filesystem::path folder = std::filesystem::path(tokenizer_path).parent_path();
  std::error_code ec;
  ModelChatTemplate out;
  const std::filesystem::path config_path = folder / "tokenizer_config.json";
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  if (std::filesystem::is_regular_file(config_path, ec)) {
    const std::string text = util::read_file(config_path.string());
    try {
      config = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw_input(SourceLocation{config_path.string(), 1, 1, ""}, "not valid JSON: {}", e.what());
    }
    // Special tokens are a string or an AddedToken object {"content": ...}.
    const auto token = [&](const char* key) -> std::string {
      if (!config.contains(key)) return "";
      const auto& v = config[key];
      if (v.is_string()) return v.get<std::string>();
      if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
      return "";
    };
    out.bos_token = token("bos_token");
    out.eos_token = token("eos_token");
  }
  const std::filesystem::path jinja_path = folder / "chat_template.jinja";
  if (std::filesystem::is_regular_file(jinja_path, ec)) {
    out.source = jinja_path.string();
    out.text = util::read_file(out.source);
    out.parsed = std::make_shared<const JinjaTemplate>(out.text, out.source);
    return out;
  }
  if (!config.contains("chat_template")) return std::nullopt;
  const auto& t = config["chat_template"];
  out.source = config_path.string();
  if (t.is_string()) {
    out.text = t.get<std::string>();
    out.parsed = std::make_shared<const JinjaTemplate>(out.text, out.source);
    return out;
  }
  if (t.is_array()) {
    for (const auto& entry : t) {
      if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
          entry["template"].is_string()) {
        out.text = entry["template"].get<std::string>();
        out.parsed = std::make_shared<const JinjaTemplate>(out.text, out.source);
        return out;
      }
    }
  }
  throw_input(SourceLocation{config_path.string(), 1, 1, "chat_template"},
              "expected a template string or a list holding one named 'default'");
}

std::string render_with_model_template(const ModelChatTemplate& chat_template, const Conversation& conversation) {
  std::shared_ptr<const JinjaTemplate> t = chat_template.parsed;
  if (!t) t = std::make_shared<const JinjaTemplate>(chat_template.text, chat_template.source);
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const Message& m : conversation.messages) {
    nlohmann::ordered_json j;
    j["role"] = std::string(to_string(m.role));
    j["content"] = m.content;
    if (m.reasoning_content) j["reasoning_content"] = *m.reasoning_content;
    messages.push_back(std::move(j));
  }
  nlohmann::ordered_json context;
  context["messages"] = std::move(messages);
  context["add_generation_prompt"] = false;
  context["bos_token"] = chat_template.bos_token;
  context["eos_token"] = chat_template.eos_token;
  return t->render(context);
}

std::optional<std::string> model_template_mismatch(const ModelChatTemplate& chat_template, TemplateFamily family,
                                                   const Conversation& conversation) {
  std::string theirs = render_with_model_template(chat_template, conversation);
  const std::string ours = render_conversation(family, conversation).text;
  const std::string prompt = "<|start_header_id|>assistant<|end_header_id|>\n\n";
  if (family == TemplateFamily::llama3 && theirs.ends_with(prompt) && !ours.ends_with(prompt)) {
    theirs.resize(theirs.size() - prompt.size());
  }
  if (theirs == ours) return std::nullopt;
  std::size_t at = 0;
  while (at < theirs.size() && at < ours.size() && theirs[at] == ours[at]) ++at;
  const auto around = [&](const std::string& text) {
    const std::size_t from = at > 20 ? at - 20 : 0;
    nlohmann::json quoted = text.substr(from, 60);
    return quoted.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  return fmt::format("byte {}: the model's template gives {}, ladle's {} rule {}", at, around(theirs),
                     to_string(family), around(ours));
}

}  // namespace ladle::pack
