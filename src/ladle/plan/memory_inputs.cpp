// memory_inputs.cpp: how a layout stores a layer's tensors for backward (see memory_inputs.hpp).
#include "ladle/plan/memory_inputs.hpp"

namespace ladle::plan::mem {

Storage storage_of(const Layout& l) {
  Storage s;
  s.torch = l.fsdp == Fsdp::torch;
  // torchao's Float8Linear (torchtitan's FP8) saves its high-precision input; only TE quantizes it.
  if (l.fp8 != Fp8Format::none && !s.torch) {
    s.fp8 = true;
    s.fp8_second_copy = l.fp8_recipe == Fp8Recipe::delayed;
    switch (l.fp8_recipe) {
      case Fp8Recipe::delayed:
      case Fp8Recipe::tensorwise: s.linear_input = 1.0; break;
      case Fp8Recipe::blockwise: s.linear_input = 1.0 + kFp32 / 128.0; break;
      case Fp8Recipe::mxfp8: s.linear_input = 1.0 + 1.0 / 32.0; break;
    }
  }
  // NVFP4 (Transformer Engine docs/features/low_precision_training/nvfp4/nvfp4.rst): E2M1 values
  // (half a byte) with one E4M3 scale per 16 elements; the input a linear saves for its weight
  // gradient is that quantized copy. Megatron-LM calls set_save_original_input on linear_proj
  // under FP4 as under the non-delayed FP8 recipes (transformer/attention.py at d98e8a64), so no
  // second copy.
  if (l.fp4 != Fp4Format::none && !s.torch) {
    s.fp8 = true;
    s.linear_input = kNvfp4Bytes;
  }
  s.fp8_attention = l.fp8_dpa && s.fp8;
  return s;
}

}  // namespace ladle::plan::mem
