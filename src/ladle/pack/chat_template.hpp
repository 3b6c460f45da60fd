#pragma once
// Chat templates of the model families ladle packs for, rendered natively (no Jinja engine) to the
// exact text of each family's published template, with the byte spans whose tokens are supervised.
//
// Loss-mask rules (which tokens are training targets), per family. A token is supervised when its
// first byte lies in a supervised span; everything else (system, user and tool turns, role headers,
// template glue) has mask 0.
//
// - qwen3 (ChatML): an assistant turn renders as `<|im_start|>assistant\n` BODY `<|im_end|>\n`.
//   Supervised: BODY and `<|im_end|>`. BODY includes the `<think>\n...\n</think>\n\n` block when the
//   template renders one (turns after the last user query). `<|im_end|>` is the token Qwen3 stops on,
//   so the model must learn it; the `\n` after it is glue the model never generates.
// - llama3: `<|start_header_id|>assistant<|end_header_id|>\n\n` CONTENT `<|eot_id|>`. Supervised:
//   CONTENT (trimmed, as the template trims it) and `<|eot_id|>`, Llama 3's end-of-turn token.
// - deepseek_v3: `<｜Assistant｜>` CONTENT `<｜end▁of▁sentence｜>` (after tool outputs the opener
//   is `<｜tool▁outputs▁end｜>`). Supervised: CONTENT and `<｜end▁of▁sentence｜>`, the token that ends
//   an assistant turn in DeepSeek-V3.
// - glm5 (GLM-4.7 / GLM-5 form): `<|assistant|>` THINK CONTENT, where THINK is
//   `<think>...</think>` or the bare `</think>` the template writes for turns without reasoning.
//   Supervised: THINK and CONTENT (the model generates both after `<|assistant|>`), and the token that
//   ends the turn: GLM has no end-of-turn token of its own but stops on `<|user|>`,
//   `<|observation|>` or `<|endoftext|>`, so the next message's `<|user|>` or `<|observation|>` is
//   supervised, and when the conversation ends with the assistant the packer's `<|endoftext|>`
//   separator after it is supervised. A following `<|system|>` or `<|assistant|>` is not (GLM does
//   not stop on them).
//
// Other families' separators (the EOS the packer writes between conversations) are never
// supervised: their end-of-turn token is already part of the turn.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/pack/conversation.hpp"
#include "ladle/pack/tokenizer.hpp"

namespace ladle::pack {

/// A chat-template family; spelled as in `--template` and in the manifest's `loss_mask`.
enum class TemplateFamily { glm5, qwen3, llama3, deepseek_v3 };

/// "glm5", "qwen3", "llama3" or "deepseek_v3".
std::string_view to_string(TemplateFamily family);
/// The family named `name`. Throws Error(usage) listing the valid names (with "did you mean").
TemplateFamily parse_template_family(std::string_view name);

/// A half-open byte range [begin, end) of a rendered text.
struct Span {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const Span&) const = default;
};

/// The text a family's template renders for a conversation (no generation prompt), and the spans
/// whose tokens are supervised, in order and not overlapping.
struct RenderedConversation {
  std::string text;
  std::vector<Span> supervised;
  bool ends_with_assistant = false;
  bool operator==(const RenderedConversation&) const = default;
};

/// Renders `conversation` with `family`'s template. Message texts go in as they are (callers
/// normalize them first where the tokenizer normalizes, see encode_conversation).
RenderedConversation render_conversation(TemplateFamily family, const Conversation& conversation);

/// The separator token the packer writes between conversations: `<|endoftext|>` (glm5, qwen3),
/// `<|end_of_text|>` (llama3), `<｜end▁of▁sentence｜>` (deepseek_v3).
std::string_view separator_token(TemplateFamily family);

/// Whether the separator after a conversation that ends with an assistant turn is supervised
/// (true for glm5 only, see the rules above).
bool separator_closes_turn(TemplateFamily family);

class JinjaTemplate;

/// A model's own chat template, as its tokenizer files give it.
struct ModelChatTemplate {
  std::string source;  ///< the file it came from
  std::string text;    ///< the Jinja source
  std::string bos_token;  ///< tokenizer_config.json's bos_token ("" when absent)
  std::string eos_token;  ///< tokenizer_config.json's eos_token ("" when absent)
  /// `text` parsed (find_model_chat_template fills it; render_with_model_template parses `text`
  /// when it is empty). Rendering from several threads at once is safe.
  std::shared_ptr<const JinjaTemplate> parsed;
};

/// The chat template beside `tokenizer_path` (a tokenizer.json): chat_template.jinja in the same
/// folder, else tokenizer_config.json's `chat_template` (a string, or the entry named "default" of
/// a list of {name, template}); nullopt when the folder holds neither. Throws Error(input) for a
/// tokenizer_config.json that is not JSON or whose chat_template has another shape.
std::optional<ModelChatTemplate> find_model_chat_template(const std::string& tokenizer_path);

/// Renders `conversation` with a model's own template (jinja.hpp), as transformers'
/// apply_chat_template(tokenize=False, add_generation_prompt=False) would. Throws Error(input)
/// for a template error.
std::string render_with_model_template(const ModelChatTemplate& chat_template, const Conversation& conversation);

/// Where the model's own template and `family`'s rule render `conversation` differently: a line
/// naming the first differing byte and both texts around it; nullopt when they agree byte for
/// byte (then the family's loss-mask spans apply to the model's template as they are). Llama 3's
/// published template always appends an assistant header; that trailing generation prompt is not
/// a difference.
std::optional<std::string> model_template_mismatch(const ModelChatTemplate& chat_template, TemplateFamily family,
                                                   const Conversation& conversation);

/// Token ids of a rendered conversation and a 0/1 mask of the same length.
struct TokenizedConversation {
  std::vector<int32_t> ids;
  std::vector<uint8_t> mask;
  bool ends_with_assistant = false;
  bool operator==(const TokenizedConversation&) const = default;
};

/// Renders and tokenizes `conversation`: message texts are normalized with the tokenizer's
/// normalizer first (so the rendered text is already normal and token offsets map onto the spans),
/// the whole text is encoded as Hugging Face would encode the template's output, and each token's
/// mask says whether its first byte is in a supervised span. With `own`, the model's own template
/// renders the text and must agree byte for byte with `family`'s rule, whose spans give the mask
/// (else Error(input) naming the first difference). Throws Error(input) when the text needs a
/// token the tokenizer lacks.
TokenizedConversation encode_conversation(const Tokenizer& tokenizer, TemplateFamily family,
                                          const Conversation& conversation,
                                          const ModelChatTemplate* own = nullptr);

}  // namespace ladle::pack
