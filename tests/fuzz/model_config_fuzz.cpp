// model_config_fuzz.cpp: a Hugging Face config.json.
#include "fuzz_common.hpp"
#include "ladle/model/config_json.hpp"
#include "ladle/model/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const ladle::ModelSpec spec = ladle::model::parse_config(text, "config.json", "fuzz");
    (void)ladle::model::count_params(spec);
  });
}
