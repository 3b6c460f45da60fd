#pragma once
// Megatron-Bridge model verification cards (examples/model_verification_cards/<model>/card.yaml in
// NVIDIA-NeMo/Megatron-Bridge; the fields are those of skills/create-model-verification-card/
// SKILL.md, docs/cards.md cites them at a commit). import_card turns each verified training leaf
// (items.<task>.<hardware>, and each point of pretrain_weak_scaling) into a ladle recipe, saying in
// its correctness block what the card claims and what it does not; export_card writes a recipe as a
// card of one leaf. import -> export -> import gives the same recipes.

#include <string>
#include <string_view>
#include <vector>

#include "ladle/recipe/recipe.hpp"

namespace ladle::card {

/// One recipe made from a card leaf.
struct CardRecipe {
  std::string task;      ///< the card's item: pretrain, sft, peft, pretrain_performance, ...
  std::string hardware;  ///< the leaf's hardware key: H100, GB200, ...
  std::string claim;     ///< what the card claims: "functional check", "benchmark-only", ...
  std::string file_name; ///< a file name for it: <model>-<task>-<hardware>[-<gpus>].yaml
  Recipe recipe;
};

/// What a card gives: recipes, and one line for each leaf that gives none (not verified, an
/// inference item, a GPU ladle does not know) so nothing is left out silently.
struct CardImport {
  std::string title;
  std::vector<CardRecipe> recipes;
  std::vector<std::string> skipped;
};

/// Reads a card. Throws Error(input) at file:line:col naming the field when the card lacks a field
/// ladle needs (model.hf_id, model.hf_revision, verification_environment.base_container and
/// bridge_commit, and in each verified training leaf its command with the GPU count, last_verified
/// and the metrics last_10_steps_tokens_per_second_per_gpu_avg and last_10_steps_step_time_ms_avg),
/// or a field of the wrong type.
CardImport import_card(std::string_view text, const std::string& path);

/// A card of one leaf for `recipe` (the YAML text). A recipe imported from a card gives back its
/// leaf; any other gives the leaf its measured run would be (task pretrain or sft from its rows).
/// Throws Error(input) for a recipe without a measured result.
std::string export_card(const Recipe& recipe, const std::string& path);

}  // namespace ladle::card
