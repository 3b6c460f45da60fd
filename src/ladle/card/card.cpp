#include "ladle/card/card.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <regex>

#include "ladle/plan/cluster.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"
#include "ladle/util/yaml_document.hpp"

namespace ladle::card {
namespace {

// The training items of a card, keyed by hardware (SKILL.md, "hardware-scoped names"); the
// inference item sft_export_inference is keyed the same way but has no training metrics.
constexpr const char* kTrainingItems[] = {"pretrain",         "sft",                "sft_long_context",
                                          "peft",             "checkpoint_resume",  "pretrain_performance",
                                          "pretrain_fsdp",    "pretrain_weak_scaling"};
constexpr const char* kTokensMetric = "last_10_steps_tokens_per_second_per_gpu_avg";
constexpr const char* kStepMetric = "last_10_steps_step_time_ms_avg";
constexpr const char* kMetricNames[] = {"initial_loss", "final_loss", kStepMetric,
                                        "last_10_steps_model_tflops_per_gpu_avg", kTokensMetric};
constexpr int64_t kWindowSteps = 10;  // the card's metrics average the last 10 optimizer steps
constexpr const char* kNotesMetricsHeading = "Card metrics, as the card records them:";
constexpr const char* kNotesExpectedHeading = "Expected result, as the card states it:";
constexpr const char* kReferencePrefix = "Megatron-Bridge model verification card ";

// A file name of lower-case letters, digits and '-'.
std::string slugify(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (keep || (c >= 'A' && c <= 'Z')) {
      out += lower;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string trimmed(std::string s);

SourceLocation at(const std::string& path, const YAML::Node& node, const std::string& field) {
  const YAML::Mark m = node.Mark();
  return SourceLocation{path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, field};
}

struct Reader {
  const std::string& path;

  // A scalar field that must be there: its text.
  std::string text(const YAML::Node& map, const std::string& key, const std::string& field) const {
    const YAML::Node v = map[key];
    if (!v || v.IsNull()) throw_input(at(path, map, field), "missing; ladle needs it to write a recipe");
    if (!v.IsScalar()) throw_input(at(path, v, field), "expected a scalar");
    return v.Scalar();
  }
  std::optional<std::string> optional_text(const YAML::Node& map, const std::string& key,
                                           const std::string& field) const {
    const YAML::Node v = map[key];
    if (!v || v.IsNull()) return std::nullopt;
    if (!v.IsScalar()) throw_input(at(path, v, field), "expected a scalar");
    return v.Scalar();
  }
  double number(const YAML::Node& map, const std::string& key, const std::string& field) const {
    const std::string t = text(map, key, field);
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v) || v <= 0) {
      throw_input(at(path, map[key], field), "expected a positive number, got '{}'", t);
    }
    return v;
  }
};

std::vector<std::string> words(const std::string& command) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : command) {
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// The value after `--flag` (or `--flag=value`) in a command, under any of its spellings.
std::optional<std::string> flag(const std::vector<std::string>& w, std::initializer_list<const char*> names) {
  for (size_t i = 0; i < w.size(); ++i) {
    for (const char* name : names) {
      if (w[i] == name && i + 1 < w.size()) return w[i + 1];
      if (w[i].starts_with(std::string(name) + "=")) return w[i].substr(std::string(name).size() + 1);
    }
  }
  return std::nullopt;
}

std::optional<int64_t> to_int(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  std::string t = *s;
  t.erase(std::remove(t.begin(), t.end(), ','), t.end());
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || v <= 0) return std::nullopt;
  return v;
}

std::optional<int64_t> match_int(const std::string& text, const std::regex& re, size_t group = 1) {
  std::smatch m;
  if (!std::regex_search(text, m, re) || !m[group].matched) return std::nullopt;
  return to_int(m[group].str());
}

std::string claim_of(const std::string& task, const std::string& text) {
  if (text.find("benchmark-only") != std::string::npos) return "benchmark-only";
  if (task == "pretrain_performance") return "performance benchmark";
  if (task == "pretrain_weak_scaling") return "weak-scaling benchmark";
  return "functional check";
}

std::string claim_sentence(const std::string& claim, const std::string& task, const std::string& hw, int64_t gpus) {
  const std::string run = fmt::format("{} on {} x {}", task, gpus, hw);
  if (claim == "benchmark-only") {
    return "The card claims this " + run + " run completed as its expected result states, as benchmark-only "
           "evidence: its losses and checkpoints are not convergence evidence. It does not claim convergence, "
           "a reference comparison or anything ladle's check rules test.";
  }
  if (claim == "performance benchmark" || claim == "weak-scaling benchmark") {
    return "The card claims this " + run + " " + claim + " completed as its expected result states, with the "
           "throughput it records. It does not claim convergence (the benchmark may use mock data or forced "
           "load balancing) or anything ladle's check rules test.";
  }
  return "The card claims this " + run + " run completed as its expected result states (finite losses, no "
         "skipped or NaN iterations). It does not claim tuned performance (its timing and throughput are sanity "
         "checks), convergence against a reference, or anything ladle's check rules test.";
}

// The parallel sizes the card states: --tp/--pp/... in the command, else TPa/PPb/CPc/EPd/ETPe and
// DPn in its expected result.
struct CardLayout {
  int64_t tp = 0, pp = 0, cp = 1, ep = 1, etp = 1, dp = 0;
};
std::optional<CardLayout> card_layout(const std::vector<std::string>& w, const std::string& expected, int64_t gpus) {
  CardLayout l;
  static const std::regex kSizes(R"(TP(\d+)/PP(\d+)(?:/CP(\d+))?(?:/EP(\d+))?(?:/ETP(\d+))?)");
  static const std::regex kDp(R"(\bDP(\d+)\b)");
  std::smatch m;
  if (std::regex_search(expected, m, kSizes)) {
    l.tp = *to_int(m[1].str());
    l.pp = *to_int(m[2].str());
    if (m[3].matched) l.cp = *to_int(m[3].str());
    if (m[4].matched) l.ep = *to_int(m[4].str());
    if (m[5].matched) l.etp = *to_int(m[5].str());
  } else if (const auto tp = to_int(flag(w, {"--tp"}))) {
    l.tp = *tp;
    l.pp = to_int(flag(w, {"--pp"})).value_or(1);
    l.ep = to_int(flag(w, {"--ep"})).value_or(1);
    l.cp = to_int(flag(w, {"--cp"})).value_or(1);
  } else {
    return std::nullopt;
  }
  l.dp = match_int(expected, kDp).value_or(0);
  if (l.dp == 0 && gpus % (l.tp * l.pp * l.cp) == 0) l.dp = gpus / (l.tp * l.pp * l.cp);
  if (l.dp == 0) return std::nullopt;
  return l;
}

std::string layout_label(const CardLayout& l) {
  std::string out = fmt::format("TP{} PP{}", l.tp, l.pp);
  if (l.cp > 1) out += fmt::format(" CP{}", l.cp);
  if (l.ep > 1) out += fmt::format(" EP{}", l.ep);
  if (l.etp > 1) out += fmt::format(" ETP{}", l.etp);
  return out + fmt::format(" DP{}", l.dp);
}

struct Leaf {
  std::string task;
  std::string hardware;
  std::string field;  // items.<task>.<hardware>[.points[i]]
  YAML::Node node;    // the leaf (or the point)
  YAML::Node parent;  // the leaf of a weak-scaling point
  bool point = false; // a point of pretrain_weak_scaling (then `parent` is its leaf)
};

struct CardFacts {
  std::string title;
  std::string hf_id;
  std::string hf_revision;
  std::string container;
  std::string bridge_commit;
};

// A recipe for one verified leaf; nullopt with `why` when the leaf cannot give one.
std::optional<CardRecipe> leaf_recipe(const Reader& rd, const CardFacts& card, const Leaf& leaf, std::string& why) {
  const YAML::Node& n = leaf.node;
  const YAML::Node& owner = leaf.point ? leaf.parent : n;  // status, precision, date, expected result
  const std::string f = leaf.field;
  const std::string parent_field = leaf.point ? f.substr(0, f.rfind(".points")) : f;
  if (!n["command"] && n["commands"]) {
    why = fmt::format("{}: an ordered list of commands, not one run: no recipe", f);
    return std::nullopt;
  }
  const std::string command = trimmed(rd.text(n, "command", f + ".command"));
  const YAML::Node metrics = n["metrics"];
  if (!metrics || !metrics.IsMap()) throw_input(at(rd.path, n, f + ".metrics"), "missing; ladle needs the card's training metrics");
  const double tps = rd.number(metrics, kTokensMetric, f + ".metrics." + kTokensMetric);
  const double step_ms = rd.number(metrics, kStepMetric, f + ".metrics." + kStepMetric);
  const std::string date = rd.text(owner, "last_verified", parent_field + ".last_verified");
  const std::string precision = rd.text(owner, "precision", parent_field + ".precision");
  const std::string expected =
      trimmed(rd.optional_text(owner, "expected_result", parent_field + ".expected_result").value_or(""));
  const std::string bridge_commit =
      rd.optional_text(owner, "bridge_commit", parent_field + ".bridge_commit").value_or(card.bridge_commit);
  const std::vector<std::string> w = words(command);
  const auto nodes = to_int(flag(w, {"--nodes"}));
  const auto per_node = to_int(flag(w, {"--gpus-per-node"}));
  static const std::regex kOnGpus(R"((\d+)x\s+([A-Z][A-Z0-9]+))");
  int64_t gpus = 0;
  int64_t gpus_per_node = 0;
  if (nodes && per_node) {
    gpus = *nodes * *per_node;
    gpus_per_node = *per_node;
  } else if (const auto stated = match_int(expected, kOnGpus)) {
    gpus = *stated;
  } else {
    throw_input(at(rd.path, n["command"], f + ".command"),
                "expected --nodes N --gpus-per-node M (or 'On Nx GPU' in its expected result): ladle needs the GPU count");
  }
  if (std::string p = util::to_lower(precision); p != "bf16" && !p.starts_with("fp8")) {
    why = fmt::format("{}: precision '{}' is neither bf16 nor fp8: no recipe", f, precision);
    return std::nullopt;
  }
  plan::Cluster cluster;
  try {
    cluster = plan::make_cluster(leaf.hardware, gpus);
  } catch (const Error&) {
    why = fmt::format("{}: GPU '{}' is not in ladle's hardware catalog: no recipe", f, leaf.hardware);
    return std::nullopt;
  }
  if (gpus_per_node == 0) gpus_per_node = cluster.gpus_per_node();
  const std::optional<CardLayout> layout = card_layout(w, expected, gpus);
  if (!layout) {
    why = fmt::format("{}: neither its command (--tp ...) nor its expected result (TPa/PPb/...) states the layout: no recipe", f);
    return std::nullopt;
  }
  static const std::regex kSeq(R"(sequence length (\d[\d,]*))");
  static const std::regex kGbs(R"(GBS/MBS (\d[\d,]*)/(\d+))");
  std::optional<int64_t> seq = to_int(flag(w, {"--seq_length", "--seq-length"}));
  if (!seq) seq = match_int(expected, kSeq);
  if (!seq) {
    why = fmt::format("{}: neither --seq_length nor 'sequence length N' is stated: no recipe", f);
    return std::nullopt;
  }
  std::vector<std::string> derived;
  std::optional<int64_t> gbs = to_int(flag(w, {"--global_batch_size", "--global-batch-size"}));
  if (!gbs) gbs = match_int(expected, kGbs);
  if (!gbs) {
    // SKILL.md: tokens/s per GPU = row length x GBS / (step time x GPUs); GBS follows.
    const double rows = tps * step_ms / 1000.0 * static_cast<double>(gpus) / static_cast<double>(*seq);
    gbs = static_cast<int64_t>(std::llround(rows));
    derived.push_back(fmt::format("global batch {} derived from the card's tokens/s per GPU, step time and GPU count "
                                  "(the card states none)", *gbs));
  }
  const int64_t mbs = match_int(expected, kGbs, 2).value_or(1);
  const int64_t steps = to_int(flag(w, {"--max_steps", "--max-steps"})).value_or(0);

  CardRecipe out;
  out.task = leaf.task;
  out.hardware = leaf.hardware;
  out.claim = claim_of(leaf.task, expected + " " + command);
  const std::string model = card.hf_id.substr(card.hf_id.rfind('/') + 1);
  out.file_name = slugify(model + "-" + leaf.task + "-" + leaf.hardware + (leaf.point ? "-" + std::to_string(gpus) : "")) + ".yaml";
  Recipe& r = out.recipe;
  r.header_comments = {"A ladle recipe imported from a Megatron-Bridge model verification card (ladle card import)."};
  r.model = model;
  r.gpu = RecipeGpu{leaf.hardware, static_cast<int64_t>(std::llround(cluster.gpu.hbm_gb)), gpus, gpus_per_node,
                    "not stated by the card"};
  r.author = RecipeAuthor{"NVIDIA-NeMo/Megatron-Bridge model verification card", "https://github.com/NVIDIA-NeMo/Megatron-Bridge"};
  r.status = "measured";
  const std::string in_container = "as installed in " + card.container;
  r.stack = RecipeStack{"Megatron-Bridge commit " + bridge_commit, in_container, in_container, in_container,
                        in_container, in_container, in_container, in_container, "not stated by the card",
                        "the card's verification_environment (base_container, bridge_commit)"};
  r.workload.row_tokens = *seq;
  r.workload.rows = leaf.task + " rows" + (flag(w, {"--dataset"}) ? " (" + *flag(w, {"--dataset"}) + ")" : "");
  r.workload.global_batch = *gbs;
  r.workload.precision = util::to_lower(precision).starts_with("fp8") ? "fp8" : "bf16";
  r.workload.dataset = RecipeDataset{flag(w, {"--dataset"}).value_or("not stated by the card"), "the card's command",
                                     "", "", "", std::nullopt};
  r.layout.label = layout_label(*layout);
  r.layout.summary = fmt::format("TP {}, PP {}, CP {}, EP {}, ETP {}, DP {}, as the card states it", layout->tp,
                                 layout->pp, layout->cp, layout->ep, layout->etp, layout->dp);
  r.layout.highlights = "from a Megatron-Bridge verification card";
  r.layout.tp = layout->tp;
  r.layout.pp = layout->pp;
  r.layout.cp = layout->cp;
  r.layout.ep = layout->ep;
  r.layout.etp = layout->etp;
  r.layout.dp = layout->dp;
  r.layout.max_tokens_per_gpu = *seq * mbs;
  r.layout.rows_per_microbatch = mbs;
  r.layout.dispatcher = "alltoall";
  derived.push_back("dispatcher written as alltoall (the card's enabled_features name the dispatcher it used)");
  RecipeResult res;
  res.tokens_per_s_per_gpu = tps;
  const double usd_per_gpu_hour = cluster.instance.usd_per_gpu_hour();
  res.usd_per_million_tokens = usd_per_gpu_hour > 0 ? usd_per_gpu_hour / (tps * 3600.0) * 1e6 : 0;
  derived.push_back(fmt::format("$ per 1M tokens priced at {}'s on-demand price from ladle's hardware catalog "
                                "(${:.2f} per GPU-hour; the card states no price)",
                                cluster.instance.name, usd_per_gpu_hour));
  res.step_time_cv_percent = 0;
  derived.push_back("step_time_cv_percent written as 0: the card records the last 10 steps' mean only");
  const std::optional<std::string> tflops =
      rd.optional_text(metrics, "last_10_steps_model_tflops_per_gpu_avg", f + ".metrics");
  double tflops_value = 0;
  if (tflops) std::from_chars(tflops->data(), tflops->data() + tflops->size(), tflops_value);
  res.mfu = tflops_value > 0 && cluster.gpu.bf16_dense_tflops > 0 ? tflops_value / cluster.gpu.bf16_dense_tflops : 0;
  res.mfu_note = "the card's model TFLOP/s per GPU (Megatron-Bridge's FLOP count) over the GPU's dense BF16 peak";
  if (tflops_value <= 0) {
    why = fmt::format("{}: no last_10_steps_model_tflops_per_gpu_avg, which ladle needs for N and MFU: no recipe", f);
    return std::nullopt;
  }
  // N from the card's own FLOP rate: 6 N tokens/s = TFLOP/s. Megatron-Bridge's count includes
  // attention, so this N is an upper bound on the parameters a token multiplies through.
  const auto active_n = static_cast<int64_t>(std::llround(tflops_value * 1e12 / (6.0 * tps)));
  derived.push_back(fmt::format("active_params.count {} = the card's model TFLOP/s per GPU / (6 x tokens/s per GPU); "
                                "the card's FLOP count includes attention, so this is an upper bound",
                                active_n));
  res.active_params = ActiveParams{active_n, "https://huggingface.co/" + card.hf_id, card.hf_revision};
  res.measured = date;
  res.steps_per_run = steps;
  if (steps >= kWindowSteps) res.window = {steps - kWindowSteps + 1, steps};
  res.window_tokens = kWindowSteps * *gbs * *seq;
  res.runs = 1;
  res.profiler = false;
  res.gpu_hours = 0;
  res.gpu_hours_note = "not stated by the card";
  r.result = res;
  Correctness c;
  c.result = "pending";
  c.summary = claim_sentence(out.claim, leaf.task, leaf.hardware, gpus);
  c.reference = kReferencePrefix + ("'" + card.title + "', item " + leaf.task + "." + leaf.hardware);
  c.configuration = "pending";
  c.rules = "the card's own gates (Megatron-Bridge skills/create-model-verification-card/SKILL.md); ladle's R1-R19 not run";
  r.correctness = c;
  r.run = command + "\n";
  std::string notes = "Imported from the Megatron-Bridge model verification card '" + card.title + "', item `" +
                      leaf.task + "." + leaf.hardware + "` (" + out.claim + ").\n\n" + kNotesMetricsHeading + "\n\n";
  for (const char* name : kMetricNames) {
    const std::optional<std::string> v = rd.optional_text(metrics, name, f + ".metrics." + name);
    notes += fmt::format("- {}: {}\n", name, v.value_or("null"));
  }
  notes += std::string("\n") + kNotesExpectedHeading + "\n\n> " + expected + "\n\nWhat ladle derived:\n\n";
  for (const std::string& d : derived) notes += "- " + d + "\n";
  r.notes = notes;
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

CardImport import_card(std::string_view text, const std::string& path) {
  const YAML::Node doc = util::load_yaml_document(text, path);
  const Reader rd{path};
  if (!doc.IsMap()) throw_input(SourceLocation{path, 1, 1, "card"}, "expected a verification card (a mapping)");
  CardFacts card;
  CardImport out;
  card.title = rd.text(doc, "title", "title");
  const YAML::Node model = doc["model"];
  if (!model || !model.IsMap()) throw_input(at(path, doc, "model"), "missing; ladle needs model.hf_id and hf_revision");
  card.hf_id = rd.text(model, "hf_id", "model.hf_id");
  card.hf_revision = rd.text(model, "hf_revision", "model.hf_revision");
  const YAML::Node env = doc["verification_environment"];
  if (!env || !env.IsMap()) {
    throw_input(at(path, doc, "verification_environment"), "missing; ladle needs base_container and bridge_commit");
  }
  card.container = rd.text(env, "base_container", "verification_environment.base_container");
  card.bridge_commit = rd.text(env, "bridge_commit", "verification_environment.bridge_commit");
  out.title = card.title;
  const YAML::Node items = doc["items"];
  if (!items || !items.IsMap()) throw_input(at(path, doc, "items"), "missing; ladle needs the card's items");
  for (const auto& item : items) {
    const std::string task = item.first.Scalar();
    const YAML::Node body = item.second;
    const bool training = std::find(std::begin(kTrainingItems), std::end(kTrainingItems), task) != std::end(kTrainingItems);
    if (!training) {
      out.skipped.push_back(fmt::format("items.{}: not a training item (conversion or inference): no recipe", task));
      continue;
    }
    if (!body.IsMap()) throw_input(at(path, body, "items." + task), "expected a mapping of hardware keys");
    for (const auto& hw : body) {
      const std::string hardware = hw.first.Scalar();
      const YAML::Node leaf = hw.second;
      const std::string field = "items." + task + "." + hardware;
      if (!leaf.IsMap()) throw_input(at(path, leaf, field), "expected a mapping");
      const std::string status = rd.text(leaf, "status", field + ".status");
      if (status != "verified") {
        out.skipped.push_back(fmt::format("{}: status {}: no recipe", field, status));
        continue;
      }
      std::vector<Leaf> leaves;
      if (task == "pretrain_weak_scaling") {
        const YAML::Node points = leaf["points"];
        if (!points || !points.IsSequence()) throw_input(at(path, leaf, field + ".points"), "missing; expected a list of points");
        for (size_t i = 0; i < points.size(); ++i) {
          leaves.push_back({task, hardware, fmt::format("{}.points[{}]", field, i), points[i], leaf, true});
        }
      } else {
        leaves.push_back({task, hardware, field, leaf, YAML::Node(), false});
      }
      for (const Leaf& l : leaves) {
        std::string why;
        if (std::optional<CardRecipe> r = leaf_recipe(rd, card, l, why)) {
          out.recipes.push_back(std::move(*r));
        } else {
          out.skipped.push_back(why);
        }
      }
    }
  }
  return out;
}

namespace {

// The text after `heading` in notes up to the next blank-line-separated heading.
std::vector<std::string> note_lines(const std::string& notes, const std::string& heading) {
  std::vector<std::string> out;
  const size_t at = notes.find(heading);
  if (at == std::string::npos) return out;
  bool started = false;
  for (const std::string& line : util::split(notes.substr(at + heading.size()), '\n')) {
    if (line.empty()) {
      if (started) break;
      continue;
    }
    started = true;
    out.push_back(line);
  }
  return out;
}

void emit_folded(YAML::Emitter& e, const std::string& key, const std::string& text) {
  e << YAML::Key << key << YAML::Value << YAML::Literal << text;
}

}  // namespace

std::string export_card(const Recipe& r, const std::string& path) {
  if (!r.result) throw_input(SourceLocation{path, 0, 0, "result"}, "missing; a card records a measured run");
  const RecipeResult& m = *r.result;
  std::string task = util::to_lower(r.workload.rows).find("sft") != std::string::npos ? "sft" : "pretrain";
  std::string hardware = r.gpu.type;
  std::string title = slugify(r.model);
  if (r.correctness && r.correctness->reference.starts_with(kReferencePrefix)) {
    // A recipe imported from a card: its title and leaf.
    static const std::regex kRef(R"('(.*)', item ([a-z_]+)\.([A-Za-z0-9]+)$)");
    std::smatch match;
    if (std::regex_search(r.correctness->reference, match, kRef)) {
      title = match[1].str();
      task = match[2].str();
      hardware = match[3].str();
    }
  }
  std::string hf_id = m.active_params.source;
  if (const std::string hf = "https://huggingface.co/"; hf_id.starts_with(hf)) hf_id = hf_id.substr(hf.size());
  // An imported recipe keeps the card's two environment facts in its stack; any other recipe has
  // no container or Megatron-Bridge commit to give, and says what ran instead.
  std::string commit = "none: the run used " + r.stack.framework;
  if (const std::string p = "Megatron-Bridge commit "; r.stack.framework.starts_with(p)) {
    commit = r.stack.framework.substr(p.size());
  }
  std::string container = "none recorded; Megatron-LM " + r.stack.megatron_lm;
  if (const std::string p = "as installed in "; r.stack.megatron_lm.starts_with(p)) {
    container = r.stack.megatron_lm.substr(p.size());
  }

  // Metrics: the card's own text where the recipe was imported, else from the measured result.
  std::vector<std::pair<std::string, std::string>> metrics;
  for (const std::string& line : note_lines(r.notes, kNotesMetricsHeading)) {
    if (!line.starts_with("- ")) continue;
    const size_t colon = line.find(": ");
    if (colon != std::string::npos) metrics.emplace_back(line.substr(2, colon - 2), line.substr(colon + 2));
  }
  if (metrics.empty()) {
    const double step_ms = static_cast<double>(r.workload.global_batch * r.workload.row_tokens) /
                           (m.tokens_per_s_per_gpu * static_cast<double>(r.gpu.count)) * 1000.0;
    metrics = {{"initial_loss", "null"},
               {"final_loss", "null"},
               {kStepMetric, fmt::format("{:.3f}", step_ms)},
               {"last_10_steps_model_tflops_per_gpu_avg", "null"},
               {kTokensMetric, fmt::format("{:.3f}", m.tokens_per_s_per_gpu)}};
  }
  std::string expected;
  for (const std::string& line : note_lines(r.notes, kNotesExpectedHeading)) {
    expected += (expected.empty() ? "" : " ") + (line.starts_with("> ") ? line.substr(2) : line);
  }
  if (expected.empty()) {
    expected = fmt::format("On {}x {}, the run completes with {}, GBS/MBS {}/{}, and sequence length {}; ladle measured "
                           "{:.2f} tokens/s per GPU ({}).",
                           r.gpu.count, r.gpu.type,
                           fmt::format("TP{}/PP{}/CP{}/EP{}/ETP{}, DP{}", r.layout.tp, r.layout.pp, r.layout.cp,
                                       r.layout.ep, r.layout.etp, r.layout.dp),
                           r.workload.global_batch, r.layout.rows_per_microbatch, r.workload.row_tokens,
                           m.tokens_per_s_per_gpu, r.status);
  }
  std::string command = r.run;
  while (!command.empty() && command.back() == '\n') command.pop_back();
  const bool verified = r.status == "verified" || (r.correctness && r.correctness->reference.starts_with(kReferencePrefix));

  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "title" << YAML::Value << title;
  emit_folded(e, "summary", r.correctness ? r.correctness->summary : std::string("Written by ladle card export."));
  e << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "hf_id" << YAML::Value << hf_id;
  e << YAML::Key << "hf_revision" << YAML::Value << m.active_params.revision;
  e << YAML::EndMap;
  e << YAML::Key << "verification_environment" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "base_container" << YAML::Value << container;
  e << YAML::Key << "bridge_commit" << YAML::Value << commit;
  e << YAML::EndMap;
  e << YAML::Key << "items" << YAML::Value << YAML::BeginMap << YAML::Key << task << YAML::Value << YAML::BeginMap;
  e << YAML::Key << hardware << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "status" << YAML::Value << (verified ? "verified" : "unverified");
  e << YAML::Key << "precision" << YAML::Value << r.workload.precision;
  emit_folded(e, "command", command);
  e << YAML::Key << "last_verified" << YAML::Value << m.measured;
  e << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : metrics) {
    e << YAML::Key << k << YAML::Value;
    if (v == "null") {
      e << YAML::Null;
    } else {
      e << v;
    }
  }
  e << YAML::EndMap;
  emit_folded(e, "expected_result", expected);
  e << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return "# Agent-readable model verification card, written by ladle card export (one leaf).\n"
         "# status: unverified | verified | unsupported | not_applicable\n" +
         std::string(e.c_str()) + "\n";
}

}  // namespace ladle::card
