// SPDX-License-Identifier: Apache-2.0
// quant_args.hpp: minifloat.quantize's arguments as the library's request (quant_ext.cpp), shared by the
// array door (quantize_array) and the tensor door of minifloat.torch (device_ext.cpp), so both take the
// same names, the same checks and the same errors.
#pragma once
#include <cstdint>
#include <optional>
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

}  // namespace minifloat::python
