// SPDX-License-Identifier: Apache-2.0
// quant_args.hpp: minifloat.quantize's arguments as the library's request (quant_ext.cpp), shared by the
// array door (quantize_array) and the tensor door of minifloat.torch (device_ext.cpp), so both take the
// same names, the same checks and the same errors.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/scheme.hpp"

namespace minifloat::python {

/// The Scheme (the named scheme or spec, `rule`, the block policies, amax_epsilon, transform, tensor_scale,
/// scale_select, transform_gemm, amax_scope; validated) and the QuantOptions (rounding, profile, axis, SR
/// stream (seed, stream, step), mx_quirks; check_options) of minifloat.quantize's arguments. Throws
/// minifloat::Error naming the argument ("scale_select: ...").
std::pair<Scheme, QuantOptions> quant_request(
    std::string_view scheme, std::optional<std::string_view> rule, const RoundingSpec& spec, const Profile& profile,
    std::string_view axis, std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> sr,
    const std::vector<std::pair<std::string, std::string>>& policies, const std::optional<std::string>& amax_epsilon,
    const std::optional<std::string_view>& mx_quirks, const std::optional<std::string>& transform,
    const std::optional<std::string>& tensor_scale, const std::optional<std::string_view>& scale_select,
    const std::optional<std::string>& transform_gemm, const std::optional<std::string_view>& amax_scope);

/// q (a BlockQuantizer's result, without scales) given the scales as a caller holds them: uint8 scale codes (the
/// E8M0, UE4M3 and UE5M3 rules) or float32 decode scales (the FP32 rules), one per tile in q's scale order, and the
/// FP32 tensor decode scale the nvfp4 rules and nvfp4_v2_gs need. Throws minifloat::Error naming the argument
/// (scales, tensor_scale) and what the scheme needs.
void set_scales(QuantizedTensor& q, std::optional<std::span<const std::uint8_t>> scale_codes,
                std::optional<std::span<const float>> scales_f32, std::optional<float> tensor_decode_scale);

}  // namespace minifloat::python
