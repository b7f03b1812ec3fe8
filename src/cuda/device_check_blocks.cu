// SPDX-License-Identifier: Apache-2.0
// device_check_blocks.cu: stage S4 of minifloat_device_check — the block-quantizer kernels
// (cuda/blocks.hpp through the device API cuda/cuda.hpp quantize_blocks) on the device vs the
// reference, minifloat::quantize (quant.hpp) on this machine's CPU: codes, scale codes, FP32
// scales and NVFP4 tensor scales, for every named scheme, every E8M0 rule on the MX elements and the
// UE8M0 FP8 tiles, the special-block policies, both block axes and SR; on a generated tensor
// (Gaussian rows at exponents −20..20, 1024×1024; --quick 256×256) and an adversarial one (one NaN,
// one Inf, all-zero, FP32-subnormal amax, amax = max·2^k and just above, elements on scaled
// midpoints); issue 25's steps (tensor-scale, amax-scope row on both axes, 4over6 mse/mae, the rht16
// transform on both axes: one run each, row scales and 4over6 choices compared too); then FP4/FP6
// packing and the 128×4 swizzle on the device vs pack.hpp.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device_check_blocks.hpp"
#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"

namespace minifloat::cuda {
namespace {

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("S4: ") + what + ": " + cudaGetErrorString(e));
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
std::string hex(unsigned long long v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", v);
  return b;
}
std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// A device buffer freed at scope exit.
template <class T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(std::size_t n) {
    if (n) ck(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T)), "cudaMalloc");
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

std::vector<float> generated(std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-20, 20);
  std::vector<float> x(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const int k = ex(g);
    for (std::size_t c = 0; c < cols; ++c) x[r * cols + c] = std::ldexp(nd(g), k);
  }
  return x;
}

std::vector<float> adversarial(std::size_t rows, std::size_t cols, const Scheme& s, unsigned seed) {
  std::vector<float> x = generated(rows, cols, seed);
  std::mt19937 g(seed + 1);
  const double emax = element_max(s.element);
  std::vector<double> grid;
  for (int c = 0; c < 256; ++c) {
    if (s.element.kind == ElementKind::floating && c >= (1 << s.element.format.bits)) break;
    const double v = element_value(s.element, static_cast<std::uint8_t>(c));
    if (std::isfinite(v) && v > 0) grid.push_back(v);
  }
  std::sort(grid.begin(), grid.end());
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = &x[r * cols];
    const int k = static_cast<int>(r % 41) - 20;
    const std::size_t j = (r * 7 + 3) % cols;
    switch (r % 9) {
      case 1: row[j] = static_cast<float>(std::ldexp(emax, k)); break;
      case 2: row[j] = std::nextafter(static_cast<float>(std::ldexp(emax, k)), 1e30f); break;
      case 3: row[j] = std::nanf(""); break;
      case 4: row[j] = (r & 1) ? INFINITY : -INFINITY; break;
      case 5:
        for (std::size_t c = 0; c < cols; ++c) row[c] = 0.0f;
        break;
      case 6:
        for (std::size_t c = 0; c < cols; ++c) row[c] = std::ldexp(row[c], -135 - k);
        break;
      case 7:
        for (std::size_t c = 0; c + 1 < cols && grid.size() > 1; ++c) {
          const std::size_t m = g() % (grid.size() - 1);
          const double mid = (grid[m] + grid[m + 1]) / 2;
          row[c] = static_cast<float>(std::ldexp((g() & 1) ? mid : -mid, k));
        }
        row[cols - 1] = static_cast<float>(std::ldexp(emax, k));
        break;
      default: break;
    }
  }
  return x;
}

struct Run {
  std::string label;
  Scheme scheme;
  QuantOptions opt;
};

std::vector<Run> runs() {
  std::vector<Run> v;
  for (const auto& e : scheme_table().entries) v.push_back({std::string(e.name), e.value, {}});
  for (const char* base :
       {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8", "fp8_1x128_ue8m0"})
    for (const ScaleRule r : rules_in(ScaleFamily::e8m0)) {
      Scheme s = find_scheme(base);
      if (s.rule == r) continue;
      s.rule = r;
      v.push_back({std::string(base) + "/" + std::string(name(r)), s, {}});
    }
  const BlockPolicy lenient{.zero = ZeroBlock::unit_scale,
                            .nan = NanInBlock::element_only,
                            .inf = InfInBlock::max_scale,
                            .subnormal = SubnormalAmax::flush_block,
                            .amax_epsilon = 1e-10f};
  for (const char* base : {"mxfp8_e4m3", "mxfp4", "fp8_1x128", "fp8_row"}) {
    Scheme s = find_scheme(base);
    s.policy = lenient;
    v.push_back({std::string(base) + "/lenient", s, {}});
    s.policy = BlockPolicy{.zero = ZeroBlock::nan};
    v.push_back({std::string(base) + "/zero-nan", s, {}});
  }
  {
    Scheme s = find_scheme("nvfp4");
    s.policy =
        BlockPolicy{.nan = NanInBlock::element_only, .inf = InfInBlock::max_scale, .fp32_order = Fp32ScaleOrder::exact};
    v.push_back({"nvfp4/lenient-exact", s, {}});
    v.push_back({"fp8_1x128/divide", parse_scheme("e4m3fn/1x128/f32:fp32_amax/fp32-order=divide"), {}});
    v.push_back({"fp8_1x128/pow2", parse_scheme("e4m3fn/1x128/f32:fp32_pow2"), {}});
    v.push_back({"mxint8/symmetric", parse_scheme("mxint8/1x32/e8m0fnu:ocp_floor/mxint8-min=symmetric"), {}});
  }
  for (const char* base : {"mxfp8_e4m3", "nvfp4", "nvfp4_16x16", "fp8_128x128"}) {
    QuantOptions o;
    o.axis = BlockAxis::first;
    v.push_back({std::string(base) + "/axis-first", find_scheme(base), o});
    o.axis = BlockAxis::last;
    o.rounding = {Rounding::sr, Overflow::satfinite};
    o.rounding.sr_bits = 13;
    o.sr_seed = 0x9e3779b97f4a7c15ull;
    o.sr_stream = 2;
    o.sr_step = 7;
    v.push_back({std::string(base) + "/sr", find_scheme(base), o});
  }
  {  // issue 25 item 9: one run per step of the CUDA block body
    QuantOptions first;
    first.axis = BlockAxis::first;
    Scheme s = find_scheme("nvfp4");
    s.tensor_scale = 64.0f;
    v.push_back({"nvfp4/tensor-scale=64", s, {}});
    s = find_scheme("nvfp4");
    s.amax_scope = AmaxScope::row;
    v.push_back({"nvfp4/amax-scope=row", s, {}});
    v.push_back({"nvfp4/amax-scope=row/axis-first", s, first});
    for (const ScaleSelect sel : {ScaleSelect::four_over_six_mse, ScaleSelect::four_over_six_mae}) {
      s = find_scheme("nvfp4");
      s.scale_select = sel;
      v.push_back({"nvfp4/scale-select=" + std::string(name(sel)), s, {}});
    }
    s = find_scheme("nvfp4");
    s.transform = parse_transform("rht16:te");
    v.push_back({"nvfp4/transform=rht16:te", s, {}});
    v.push_back({"nvfp4/transform=rht16:te/axis-first", s, first});
    s = find_scheme("mxfp8_e4m3");
    s.transform = parse_transform("rht16:torchao");
    v.push_back({"mxfp8_e4m3/transform=rht16:torchao", s, {}});
  }
  return v;
}

void compare_bytes(BlockStageResult& r, const std::string& what, const std::vector<std::uint8_t>& got,
                   const std::vector<std::uint8_t>& want) {
  r.inputs += want.size();
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      ++r.mismatches;
      if (r.first.size() < 16)
        r.first.push_back(what + " " + std::to_string(i) + " got " + hex(got[i]) + " want " + hex(want[i]));
    }
}

void one(BlockStageResult& r, const Run& run, const std::vector<float>& x, const std::vector<std::size_t>& shape,
         const std::string& data) {
  const QuantizedTensor want = quantize(x, shape, run.scheme, run.opt);
  const std::size_t n = x.size(), tiles = want.scale_rows * want.scale_cols, rows = want.row_encode_scales.size();
  DevBuf<float> din(n), dscales(tiles), dtensor(3), drow_enc(rows), drow_dec(rows);
  DevBuf<std::uint8_t> dcodes(n), dscodes(tiles), dchoice(want.scale_select.size());
  ck(cudaMemcpy(din.p, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  DeviceBlockOutputs out{dcodes.p, dscodes.p, dscales.p, dtensor.p, nullptr, drow_enc.p, drow_dec.p, dchoice.p};
  quantize_blocks(din.p, shape, run.scheme, run.opt, out, nullptr);
  ck(cudaDeviceSynchronize(), "block kernels");
  std::vector<std::uint8_t> codes(n), scodes(tiles);
  std::vector<float> scales(tiles), tensor(3);
  ck(cudaMemcpy(codes.data(), dcodes.p, n, cudaMemcpyDeviceToHost), "cudaMemcpy");
  ck(cudaMemcpy(scodes.data(), dscodes.p, tiles, cudaMemcpyDeviceToHost), "cudaMemcpy");
  ck(cudaMemcpy(scales.data(), dscales.p, tiles * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  ck(cudaMemcpy(tensor.data(), dtensor.p, 3 * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  const std::string tag = run.label + " " + data;
  compare_bytes(r, tag + " code", codes, want.codes);
  if (!want.scale_select.empty()) {
    std::vector<std::uint8_t> choice(want.scale_select.size());
    ck(cudaMemcpy(choice.data(), dchoice.p, choice.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    compare_bytes(r, tag + " 4over6 choice", choice, want.scale_select);
  }
  if (rows != 0) {
    std::vector<float> enc(rows), dec(rows);
    ck(cudaMemcpy(enc.data(), drow_enc.p, rows * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    ck(cudaMemcpy(dec.data(), drow_dec.p, rows * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    r.inputs += rows;
    for (std::size_t k = 0; k < rows; ++k)
      if (fbits(enc[k]) != fbits(want.row_encode_scales[k]) || fbits(dec[k]) != fbits(want.row_decode_scales[k])) {
        ++r.mismatches;
        if (r.first.size() < 16)
          r.first.push_back(tag + " row scale " + std::to_string(k) + " got " + hex(fbits(enc[k])) + " want " +
                            hex(fbits(want.row_encode_scales[k])));
      }
  }
  if (!want.scale_codes.empty()) compare_bytes(r, tag + " scale code", scodes, want.scale_codes);
  if (!want.scales.empty()) {
    r.inputs += tiles;
    for (std::size_t t = 0; t < tiles; ++t)
      if (fbits(scales[t]) != fbits(want.scales[t])) {
        ++r.mismatches;
        if (r.first.size() < 16)
          r.first.push_back(tag + " FP32 scale " + std::to_string(t) + " got " + hex(fbits(scales[t])) + " want " +
                            hex(fbits(want.scales[t])));
      }
  }
  if (is_nvfp4_rule(run.scheme.rule) || run.scheme.rule == ScaleRule::nvfp4_v2_gs) {
    r.inputs += 2;
    if (fbits(tensor[0]) != fbits(want.tensor_encode_scale) || fbits(tensor[1]) != fbits(want.tensor_decode_scale)) {
      ++r.mismatches;
      if (r.first.size() < 16)
        r.first.push_back(tag + " tensor scale got " + hex(fbits(tensor[0])) + " want " +
                          hex(fbits(want.tensor_encode_scale)));
    }
  }
}

}  // namespace

BlockStageResult device_check_blocks(bool quick) {
  BlockStageResult r;
  const double t0 = now();
  const std::size_t side = quick ? 256 : 1024;
  const std::vector<float> gen = generated(side, side, 2024);
  std::size_t count = 0;
  for (const Run& run : runs()) {
    one(r, run, gen, {side, side}, "generated");
    // the transform needs the block axis a multiple of 16 (both axes: 272 rows, 288 columns)
    const bool t = run.scheme.transform.rht16;
    const std::vector<float> adv = adversarial(t ? 272 : 267, t ? 288 : 280, run.scheme, 77);
    one(r, run, adv, {t ? 272u : 267u, t ? 288u : 280u}, "adversarial");
    ++count;
  }
  // packing and swizzle vs pack.hpp
  std::mt19937 g(3);
  const std::size_t n = 100001;
  std::vector<std::uint8_t> c4(n), c6(n), sc(300 * 37);
  for (auto& c : c4) c = static_cast<std::uint8_t>(g() & 0xf);
  for (auto& c : c6) c = static_cast<std::uint8_t>(g() & 0x3f);
  for (auto& c : sc) c = static_cast<std::uint8_t>(g());
  DevBuf<std::uint8_t> d4(n), d6(n), dsc(sc.size()), o4(fp4_packed_bytes(n)), o6(fp6_packed_bytes(n)),
      osw(swizzled_bytes(300, 37));
  ck(cudaMemcpy(d4.p, c4.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy");
  ck(cudaMemcpy(d6.p, c6.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy");
  ck(cudaMemcpy(dsc.p, sc.data(), sc.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  pack_fp4(d4.p, n, o4.p, nullptr);
  pack_fp6_dense(d6.p, n, o6.p, nullptr);
  swizzle_scales_128x4(dsc.p, 300, 37, 0x7f, osw.p, nullptr);
  ck(cudaDeviceSynchronize(), "pack kernels");
  std::vector<std::uint8_t> h4(fp4_packed_bytes(n)), h6(fp6_packed_bytes(n)), hsw(swizzled_bytes(300, 37));
  ck(cudaMemcpy(h4.data(), o4.p, h4.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  ck(cudaMemcpy(h6.data(), o6.p, h6.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  ck(cudaMemcpy(hsw.data(), osw.p, hsw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  compare_bytes(r, "pack_fp4 byte", h4, minifloat::pack_fp4(c4));
  compare_bytes(r, "pack_fp6 dense byte", h6, minifloat::pack_fp6(c6, Fp6Packing::dense));
  compare_bytes(r, "swizzle 128x4 byte", hsw, minifloat::swizzle_scales_128x4(sc, 300, 37, 0x7f));
  r.status = r.mismatches ? "MISMATCH" : "ok";
  r.note = std::to_string(count) + " scheme runs x (generated " + std::to_string(side) + "x" + std::to_string(side) +
           " + adversarial 267x280); pack/swizzle";
  r.seconds = now() - t0;
  return r;
}

}  // namespace minifloat::cuda
