// SPDX-License-Identifier: Apache-2.0
// names.cpp: the listings of the compiled library's kinds (names.hpp), each module's tables in turn.
#include "minifloat/names.hpp"

#include <span>
#include <utility>

#include "minifloat/accumulate.hpp"
#include "minifloat/mma_vectors.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scale_layout.hpp"
#include "minifloat/scheme.hpp"
#include "minifloat/tables.hpp"

namespace minifloat {

std::vector<NameListing> name_listings() {
  std::vector<NameListing> v;
  const std::span<const NamePattern> patterns = format_patterns();
  NameListing fl{"format", "format", {}, {patterns.begin(), patterns.end()}};
  for (const auto& nf : named_formats())
    if (nf.family != FormatFamily::p3109) fl.names.emplace_back(nf.name, nf.summary);
  v.push_back(std::move(fl));
  v.push_back(listing(name_table(Rounding{})));
  v.push_back(listing(name_table(Overflow{})));
  v.push_back(listing(profile_table()));
  v.push_back(listing(name_table(SrVariant{})));
  v.push_back(listing(scheme_table()));
  v.push_back(listing(name_table(ScaleRule{})));
  v.push_back(listing(name_table(ZeroBlock{})));
  v.push_back(listing(name_table(NanInBlock{})));
  v.push_back(listing(name_table(InfInBlock{})));
  v.push_back(listing(name_table(SubnormalAmax{})));
  v.push_back(listing(name_table(Mxint8Min{})));
  v.push_back(listing(name_table(Fp32ScaleOrder{})));
  v.push_back(listing(name_table(BlockAxis{})));
  v.push_back(listing(name_table(MxQuirks{})));
  v.push_back(listing(name_table(ScaleLayout{})));
  v.push_back(listing(dot_model_table()));
  v.push_back(listing(tensor_core_table()));
  v.push_back(listing(name_table(MmaCRule{})));
  v.push_back(listing(name_table(OperandRound{})));
  v.push_back(listing(name_table(TableStyle{})));
  v.push_back(listing(name_table(TablePart{})));
  v.push_back(listing(name_table(CatalogueStyle{})));
  v.push_back(listing(decode_target_table()));
  v.push_back(listing(name_table(CodeDtype{})));
  return v;
}

}  // namespace minifloat
