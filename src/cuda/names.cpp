// SPDX-License-Identifier: Apache-2.0
// src/cuda/names.cpp: the CUDA layer's names (cuda/names.hpp), kept in the CUDA layer so that the
// compiled library's registry does not include from above it; the CLI and the docs test add them.
#include "minifloat/cuda/names.hpp"

#include <array>

namespace minifloat::cuda {
namespace {
// The CUDA layer's enums (cuda/api.hpp, cuda/ptx.hpp: header-only, no CUDA header). HwCvt's names are
// the PTX spellings (PTX ISA 9.0 §9.7.9.21; ptx_name returns them); the .relu form is Relu::on.
constexpr std::array<NameEntry<Path>, 2> kCudaPath{{
    {Path::engine, "engine",
     "minifloat's engine on the device: any format <= 16 bits, any mode (SR included), policy, profile"},
    {Path::hardware, "hardware", "one PTX cvt instruction: profile nvidia, only the instruction's mode and policy"},
}};
constexpr std::array<NameEntry<Relu>, 2> kCudaRelu{{
    {Relu::off, "off", "no .relu post-op"},
    {Relu::on, "on", "the cvt's .relu post-op (FP8/FP6/FP4 forms): a negative result becomes +0, NaN stays NaN"},
}};
constexpr std::array<NameEntry<HwCvt>, kHwCvtCount> kHwCvt{{
    {HwCvt::e4m3x2_f32_rn_satfinite, "cvt.rn.satfinite.e4m3x2.f32", "f32 pair -> e4m3fn x2, rne satfinite (sm_89+)"},
    {HwCvt::e5m2x2_f32_rn_satfinite, "cvt.rn.satfinite.e5m2x2.f32", "f32 pair -> e5m2 x2, rne satfinite (sm_89+)"},
    {HwCvt::e4m3x2_f16x2_rn_satfinite, "cvt.rn.satfinite.e4m3x2.f16x2", "f16x2 -> e4m3fn x2, rne satfinite (sm_89+)"},
    {HwCvt::e5m2x2_f16x2_rn_satfinite, "cvt.rn.satfinite.e5m2x2.f16x2", "f16x2 -> e5m2 x2, rne satfinite (sm_89+)"},
    {HwCvt::e2m1x2_f32_rn_satfinite, "cvt.rn.satfinite.e2m1x2.f32",
     "f32 pair -> e2m1fn x2 (one byte), rne satfinite (sm_100a family)"},
    {HwCvt::e2m3x2_f32_rn_satfinite, "cvt.rn.satfinite.e2m3x2.f32",
     "f32 pair -> e2m3fn x2, rne satfinite (sm_100a family)"},
    {HwCvt::e3m2x2_f32_rn_satfinite, "cvt.rn.satfinite.e3m2x2.f32",
     "f32 pair -> e3m2fn x2, rne satfinite (sm_100a family)"},
    {HwCvt::ue8m0x2_f32_rz, "cvt.rz.ue8m0x2.f32", "f32 pair -> e8m0fnu x2, rtz nonsat (sm_100a family)"},
    {HwCvt::ue8m0x2_f32_rz_satfinite, "cvt.rz.satfinite.ue8m0x2.f32",
     "f32 pair -> e8m0fnu x2, rtz satfinite (sm_100a family)"},
    {HwCvt::ue8m0x2_f32_rp, "cvt.rp.ue8m0x2.f32", "f32 pair -> e8m0fnu x2, rtp nonsat (sm_100a family)"},
    {HwCvt::ue8m0x2_f32_rp_satfinite, "cvt.rp.satfinite.ue8m0x2.f32",
     "f32 pair -> e8m0fnu x2, rtp satfinite (sm_100a family)"},
    {HwCvt::ue8m0x2_bf16x2_rp_satfinite, "cvt.rp.satfinite.ue8m0x2.bf16x2",
     "bf16x2 -> e8m0fnu x2, rtp satfinite (sm_100a family)"},
}};

}  // namespace

const NameTable<Path>& name_table(Path) {
  static constexpr NameTable<Path> t{"cuda-path", "CUDA conversion path", kCudaPath};
  return t;
}
const NameTable<Relu>& name_table(Relu) {
  static constexpr NameTable<Relu> t{"cuda-relu", ".relu post-op", kCudaRelu};
  return t;
}
const NameTable<HwCvt>& name_table(HwCvt) {
  static constexpr NameTable<HwCvt> t{"hw-cvt", "PTX cvt form", kHwCvt};
  return t;
}

std::vector<NameListing> name_listings() {
  return {listing(name_table(Path{})), listing(name_table(Relu{})), listing(name_table(HwCvt{}))};
}

}  // namespace minifloat::cuda
