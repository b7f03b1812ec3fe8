// SPDX-License-Identifier: Apache-2.0
// check/names.hpp: the listings of the checker's kinds for `minifloat names` (the apps append them to
// names.hpp's, as they do train/study.hpp's and cuda/names.hpp's). The tables themselves are declared
// next to their enums: probe-class, probe-packing and nan-compare (check.hpp), dot-class (check_dot.hpp),
// block-class (check_block.hpp), probe-kind (probe_files.hpp).
#pragma once
#include <vector>

#include "../registry.hpp"

namespace minifloat::check {

/// probe-class, dot-class, block-class, probe-packing, nan-compare, probe-kind, in this order.
std::vector<NameListing> name_listings();

}  // namespace minifloat::check
