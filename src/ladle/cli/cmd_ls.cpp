// cmd_ls.cpp: `ladle ls`, the catalog as a table.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/catalog.hpp"
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
  const auto a = model::find_model(recipe_model);
  const auto b = model::find_model(wanted);
  return a && b && a->name == b->name;
}

int run_ls(const LsOptions& opt, Io& io) {
  std::vector<recipe::LoadedRecipe> recipes =
      opt.recipes_dir.empty() ? recipe::load_embedded_catalog() : recipe::load_catalog_dir(opt.recipes_dir);
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
    return kExitOk;
  }
  if (recipes.empty()) {
    io.err << "ladle: no recipe matches" << (opt.model.empty() ? "" : " --model " + opt.model)
           << (opt.gpu.empty() ? "" : " --gpu " + opt.gpu) << "\n";
    return kExitOk;
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
      ->check(CLI::IsMember({"tokens", "cost", "mfu"}));
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_ls(*opt, io); });
}

}  // namespace ladle::cli
