// SPDX-License-Identifier: Apache-2.0
// device_check_blocks.hpp: stage S4 of minifloat_device_check (src/cuda/device_check_blocks.cu), the
// block-quantizer kernels on the device vs quant.hpp on this machine's CPU.
#pragma once
#include <string>
#include <vector>

namespace minifloat::cuda {

/// What S4 found: status "ok" or "MISMATCH", the elements + scales compared, the mismatching ones,
/// the first mismatches ("scheme ... code i got 0x.. want 0x.."), seconds.
struct BlockStageResult {
  std::string status = "ok", note;
  unsigned long long inputs = 0, mismatches = 0;
  double seconds = 0;
  std::vector<std::string> first;
};
/// The dry-run line of S4.
inline constexpr const char* kBlockStageLine =
    "S4  block kernels vs quant.hpp (CPU): every named scheme, every E8M0 rule, the special-block policies, both axes, "
    "SR; "
    "generated 1024x1024 (--quick 256x256) and adversarial tensors; issue 25's tensor-scale, amax-scope row, 4over6 "
    "and rht16 transform; FP4/FP6 packing and the 128x4 swizzle";
/// Run S4 (throws minifloat::Error on a CUDA failure).
BlockStageResult device_check_blocks(bool quick);

}  // namespace minifloat::cuda
