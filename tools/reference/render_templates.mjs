// Reference renderings of the families' published chat templates for ladle's template tests, by
// @huggingface/jinja (the Jinja implementation transformers.js uses). Usage:
//   node render_templates.mjs CONVERSATIONS_JSONL > golden.json
// Templates are read from templates/<family>.jinja beside this script (sources in README.md).
import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";

const here = new URL(".", import.meta.url).pathname;
const families = {
  glm5: {},
  qwen3: {},
  llama3: { bos_token: "<|begin_of_text|>" },
  deepseek_v3: { bos_token: "<｜begin▁of▁sentence｜>" },
};
const lines = readFileSync(process.argv[2], "utf8").split("\n").filter((l) => l.length > 0);
const conversations = lines.map((l) => JSON.parse(l));
const out = { generator: "tools/reference/render_templates.mjs (@huggingface/jinja 0.5.11)" };
for (const [family, extra] of Object.entries(families)) {
  const template = new Template(readFileSync(`${here}templates/${family}.jinja`, "utf8"));
  out[family] = conversations.map((c) =>
    template.render({ messages: c.messages, add_generation_prompt: false, ...extra }),
  );
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
