// SPDX-License-Identifier: Apache-2.0
// check/names.cpp: the listings of the checker's kinds (check/names.hpp).
#include "minifloat/check/names.hpp"

#include "minifloat/check/check.hpp"
#include "minifloat/check/check_block.hpp"
#include "minifloat/check/check_dot.hpp"
#include "minifloat/check/probe_files.hpp"

namespace minifloat::check {

std::vector<NameListing> name_listings() {
  return {listing(name_table(CaseClass{})), listing(name_table(DotClass{})),   listing(name_table(BlockClass{})),
          listing(name_table(Packing{})),   listing(name_table(NanCompare{})), listing(name_table(ProbeKind{}))};
}

}  // namespace minifloat::check
