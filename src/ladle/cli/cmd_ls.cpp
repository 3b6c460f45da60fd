// cmd_ls.cpp: `ladle ls`, the catalog as a table.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/hw/catalog.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {

struct LsOptions {
  std::string recipes_dir;
  std::string model;
  std::string gpu;
  std::string sort = "tokens";
  bool json = false;
};

// Whether a recipe's model is `wanted`, by name or any alias of the catalog model.
bool same_model(const std::string& recipe_model, const std::string& wanted) {
  if (util::to_lower(recipe_model) == util::to_lower(wanted)) return true;
  const auto a = model::canonical_model_name(recipe_model);
  const auto b = model::canonical_model_name(wanted);
  return a && b && *a == *b;
}

// A --model or --gpu that names nothing in the catalog (nor among the embedded models or GPUs) is
// a typo, not an empty answer: refuse it with the nearest name.
void check_filter(const char* flag, const std::string& wanted, std::vector<std::string> known,
                  const std::function<bool(const std::string&)>& is_known) {
  if (wanted.empty() || is_known(wanted)) return;
  std::vector<std::string> unique;
  for (const std::string& name : known) {
    if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
  }
  known = std::move(unique);
  // Suggest from every accepted spelling, compared without case.
  std::vector<std::string> spellings = model::model_names();
  for (const std::string& name : known) spellings.push_back(util::to_lower(name));
  throw_usage("{}: unknown {} '{}'{}; known: {}", flag, flag + 2, wanted,
              util::did_you_mean(util::to_lower(wanted), spellings), util::join(known, ", "));
}

int run_ls(const LsOptions& opt, Io& io) {
  std::vector<recipe::LoadedRecipe> recipes =
      opt.recipes_dir.empty() ? recipe::load_embedded_catalog() : recipe::load_catalog_dir(opt.recipes_dir);
  // Known models: as the recipes spell them, then the embedded models no recipe names, spelt the
  // same way (their display names).
  std::vector<std::string> models;
  std::vector<std::string> gpus;
  for (const auto& l : recipes) {
    models.push_back(l.recipe.model);
    gpus.push_back(util::to_lower(l.recipe.gpu.type));
  }
  for (const std::string& name : model::model_names()) {
    if (std::none_of(recipes.begin(), recipes.end(), [&](const auto& l) { return same_model(l.recipe.model, name); })) {
      models.push_back(model::model_display_name(name));
    }
  }
  check_filter("--model", opt.model, models, [&](const std::string& m) {
    return model::canonical_model_name(m).has_value() ||
           std::any_of(recipes.begin(), recipes.end(), [&](const auto& l) { return same_model(l.recipe.model, m); });
  });
  check_filter("--gpu", opt.gpu, gpus, [&](const std::string& g) {
    return std::find(gpus.begin(), gpus.end(), util::to_lower(g)) != gpus.end() || hw::find_gpu(g).has_value();
  });
  std::erase_if(recipes, [&](const recipe::LoadedRecipe& l) {
    return (!opt.model.empty() && !same_model(l.recipe.model, opt.model)) ||
           (!opt.gpu.empty() && util::to_lower(l.recipe.gpu.type) != util::to_lower(opt.gpu));
  });
  // Sort key: higher tokens/s and MFU first, lower cost first; recipes without a result last.
  const auto key = [&](const recipe::LoadedRecipe& l) {
    if (!l.recipe.result) return -1e300;
    const auto& r = *l.recipe.result;
    if (opt.sort == "cost") return -r.usd_per_million_tokens;
    if (opt.sort == "mfu") return r.mfu;
    return r.tokens_per_s_per_gpu;
  };
  std::stable_sort(recipes.begin(), recipes.end(), [&](const auto& a, const auto& b) { return key(a) > key(b); });
  if (opt.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& l : recipes) {
      const auto& r = l.recipe;
      nlohmann::ordered_json row = {{"file", l.path}, {"model", r.model}, {"gpu", r.gpu.type}, {"gpus", r.gpu.count},
                                    {"layout", r.layout.label}, {"status", r.status}};
      if (r.result) {
        row["tokens_per_s_per_gpu"] = r.result->tokens_per_s_per_gpu;
        row["usd_per_million_tokens"] = r.result->usd_per_million_tokens;
        row["mfu"] = r.result->mfu;
        row["step_time_cv_percent"] = r.result->step_time_cv_percent;
      }
      j.push_back(row);
    }
    io.out << j.dump(2) << "\n";
    return recipes.empty() ? kExitNo : kExitOk;
  }
  if (recipes.empty()) {
    // A known name with no recipe: the answer to "which recipes?" is none.
    io.err << "ladle: no recipe matches" << (opt.model.empty() ? "" : " --model " + opt.model)
           << (opt.gpu.empty() ? "" : " --gpu " + opt.gpu) << "\n";
    return kExitNo;
  }
  util::Table table{{"model", "GPUs", "layout", "tokens/s/GPU", "$/1M", "MFU", "CV", "status"}, {}};
  for (const auto& l : recipes) {
    const auto& r = l.recipe;
    std::vector<std::string> row = {r.model, fmt::format("{} x {}", r.gpu.count, r.gpu.type), r.layout.label};
    if (r.result) {
      row.push_back(util::format_grouped(r.result->tokens_per_s_per_gpu, 2));
      row.push_back(fmt::format("${:.2f}", r.result->usd_per_million_tokens));
      row.push_back(fmt::format("{:.1f}%", r.result->mfu * 100));
      row.push_back(fmt::format("{:.2f}%", r.result->step_time_cv_percent));
    } else {
      row.insert(row.end(), {"-", "-", "-", "-"});
    }
    row.push_back(r.status);
    table.rows.push_back(std::move(row));
  }
  io.out << table.render();
  return kExitOk;
}

}  // namespace

void add_ls_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<LsOptions>();
  command.add_option("--recipes", opt->recipes_dir, "a catalog folder instead of the embedded catalog");
  command.add_option("--model", opt->model, "only recipes of this model (name or alias)");
  command.add_option("--gpu", opt->gpu, "only recipes on this GPU type");
  command.add_option("--sort", opt->sort, "order by tokens (tokens/s per GPU), cost ($ per 1M tokens) or mfu")
      ->check(one_of({"tokens", "cost", "mfu"}));
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_ls(*opt, io); });
}

}  // namespace ladle::cli
