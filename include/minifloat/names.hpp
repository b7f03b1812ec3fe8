// SPDX-License-Identifier: Apache-2.0
// names.hpp: the listing of every kind the compiled library names (`minifloat names`, the README
// test). Each module defines its own tables (registry.hpp: the core's kinds; scheme.hpp, quant.hpp,
// accumulate.hpp, tables.hpp: theirs); each layer above exports its own listings the same way
// (check/names.hpp, train/study.hpp, cuda/names.hpp), and the apps concatenate them.
#pragma once
#include <vector>

#include "registry.hpp"

namespace minifloat {

/// Every kind the compiled library names, in this order: format (the named formats of
/// named_formats() that are not P3109, then the patterns), rounding, overflow, profile,
/// sr-variant, scheme (scheme.hpp's table and spec pattern), scale-rule, zero-block, nan-block, inf-block,
/// subnormal-amax, mxint8-min, fp32-order, block-axis and mx-quirks (quant.hpp), scale-layout
/// (scale_layout.hpp), accumulation and
/// tensor-core (accumulate.hpp), table-style, table-part, catalogue-style (tables.hpp), decode-target,
/// code-dtype (npy.hpp).
/// The checker adds probe-class, dot-class, block-class, probe-packing, nan-compare and probe-kind
/// (check/names.hpp), the training layer recipe and train-model (train/study.hpp), the CUDA layer
/// cuda-path, cuda-relu and hw-cvt (cuda/names.hpp).
std::vector<NameListing> name_listings();

}  // namespace minifloat
