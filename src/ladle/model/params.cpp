#include "ladle/model/params.hpp"

#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::model {
namespace {

struct ConventionRow {
  ParamConvention convention;
  const char* name;
  const char* description;  // one cell of the `ladle model` table: short enough for 120 columns
};

constexpr ConventionRow kConventions[] = {
    {ParamConvention::n, "n", "N for MFU: weight matrices a token multiplies, output head included"},
    {ParamConvention::active, "active",
     "active per token: N + input embedding, norms, biases; no MTP"},
    {ParamConvention::total, "total", "every parameter of the model without MTP layers"},
    {ParamConvention::total_without_embedding, "total_without_embedding",
     "total less the input embedding table"},
    {ParamConvention::checkpoint, "checkpoint",
     "every BF16 checkpoint tensor: total + MTP + correction biases"},
    {ParamConvention::checkpoint_without_correction_bias, "checkpoint_without_correction_bias",
     "checkpoint less the router correction biases"},
    {ParamConvention::mtp, "mtp", "the MTP layers alone, with any embedding/head copies they store"},
    {ParamConvention::embedding, "embedding", "the input embedding table"},
};

const ConventionRow& row_of(ParamConvention convention) {
  for (const ConventionRow& row : kConventions) {
    if (row.convention == convention) return row;
  }
  LADLE_ASSERT(false, "every ParamConvention has a row in kConventions");
  return kConventions[0];
}

}  // namespace

int64_t ParamCounts::get(ParamConvention convention) const {
  switch (convention) {
    case ParamConvention::n:
      return n;
    case ParamConvention::active:
      return active;
    case ParamConvention::total:
      return total;
    case ParamConvention::total_without_embedding:
      return total_without_embedding;
    case ParamConvention::checkpoint:
      return checkpoint;
    case ParamConvention::checkpoint_without_correction_bias:
      return checkpoint_without_correction_bias;
    case ParamConvention::mtp:
      return mtp;
    case ParamConvention::embedding:
      return embedding;
  }
  return 0;
}

ParamCounts count_params(const ModelSpec& spec) {
  ParamCounts c;
  int64_t correction_biases = 0;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    const int64_t all = t.total_numel();
    // Model cards count the whole embedding table as active (Mixtral's 12.9B, DeepSeek-V3's 37B).
    const int64_t used = t.numel() * t.active_copies;
    if (t.role == TensorRole::correction_bias) correction_biases += all;
    if (t.section == TensorSection::mtp) {
      c.mtp += all;
      continue;
    }
    c.total += all;
    if (t.section == TensorSection::embedding) {
      c.embedding += all;
    } else if (t.is_matrix()) {
      c.n += used;
    }
    c.active += used;
    switch (t.role) {
      case TensorRole::attention:
        c.attention += all;
        break;
      case TensorRole::indexer:
        c.indexer += all;
        break;
      case TensorRole::dense_mlp:
        c.dense_mlp += all;
        break;
      case TensorRole::expert:
        c.routed_experts += all;
        break;
      case TensorRole::shared_expert:
        c.shared_experts += all;
        break;
      case TensorRole::router:
      case TensorRole::correction_bias:
        c.router += all;
        break;
      case TensorRole::norm:
        c.norms += all;
        break;
      case TensorRole::head:
        c.head += all;
        break;
      case TensorRole::hyper_connection:
        c.hyper_connections += all;
        break;
      case TensorRole::latent_projection:
        c.latent_projections += all;
        break;
      case TensorRole::attention_residual:
        c.attention_residuals += all;
        break;
      case TensorRole::embedding:
      case TensorRole::mtp_projection:
        break;
    }
  }
  // A tied head still multiplies every token through the embedding matrix.
  if (spec.tie_word_embeddings) c.n += spec.vocab_size * spec.hidden_size;
  c.vision = spec.vision_params;
  c.total_without_embedding = c.total - c.embedding;
  c.checkpoint = c.total + c.mtp;
  c.checkpoint_without_correction_bias = c.checkpoint - correction_biases;
  return c;
}

int64_t active_params(const ModelSpec& spec) { return count_params(spec).n; }

std::vector<ParamConvention> param_conventions() {
  std::vector<ParamConvention> out;
  for (const ConventionRow& row : kConventions) out.push_back(row.convention);
  return out;
}

const char* to_string(ParamConvention convention) { return row_of(convention).name; }

const char* describe(ParamConvention convention) { return row_of(convention).description; }

ParamConvention parse_param_convention(std::string_view name) {
  std::string key = util::to_lower(util::trim(name));
  for (char& ch : key) {
    if (ch == '-') ch = '_';
  }
  std::vector<std::string> names;
  for (const ConventionRow& row : kConventions) {
    if (key == row.name) return row.convention;
    names.push_back(row.name);
  }
  throw_usage("unknown parameter convention '{}'{}; known: {}", name, util::did_you_mean(key, names),
              util::join(names, ", "));
}

}  // namespace ladle::model
