// SPDX-License-Identifier: Apache-2.0
// cuda/names.hpp: the names of the CUDA layer's enums in the one registry's form (registry.hpp
// NameTable: parse<E>, name, names, accepted-list errors). Plain C++ (target minifloat_cuda_host).
#pragma once
#include <vector>

#include "../registry.hpp"
#include "api.hpp"

namespace minifloat::cuda {

const NameTable<Path>& name_table(Path);  ///< "cuda-path": engine hardware
const NameTable<Relu>& name_table(Relu);  ///< "cuda-relu": off on
const NameTable<HwCvt>& name_table(
    HwCvt);  ///< "hw-cvt": the PTX spelling of every cvt form (cvt.rn.satfinite.e4m3x2.f32 …; PTX ISA 9.0 §9.7.9.21)

/// The listings of `minifloat names` for the kinds above (the CLI appends them to names.hpp's).
std::vector<NameListing> name_listings();

}  // namespace minifloat::cuda
