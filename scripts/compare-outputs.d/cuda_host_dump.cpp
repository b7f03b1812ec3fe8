// SPDX-License-Identifier: Apache-2.0
// scripts/compare-outputs.d/cuda_host_dump.cpp — the CUDA kernels' bodies on the CPU launcher
// (cuda/api.hpp cpu::), dumped to files for scripts/compare-outputs. Built by that script against each
// build's static libraries (libminifloat_cuda_host.a, libminifloat.a) with the include/ of the same
// tree, so it uses only the public API that BASE has (cuda/api.hpp, registry.hpp parse_format,
// scheme.hpp parse_scheme).
//   cuda_host_dump INPUTS_DIR GOLDEN_DIGESTS OUT_DIR
// writes OUT_DIR/engine_<from>_<to>.bin (codes then flags of every mode x overflow x profile x threads
// case, each case's refusal text instead when validate() refuses it), hardware_<op>.bin (every PTX cvt
// model, .relu off/on), sweep_digests.txt (the chunk digests of every golden line over a strided and
// the structured sampling), blocks_<scheme>_<input>.bin (cpu::quantize_blocks: codes, scales, tensor
// scales, counts) and pack.bin (pack_fp4, pack_fp6_dense, swizzle_scales_128x4).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/cuda/api.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"

namespace mf = minifloat;
namespace mc = minifloat::cuda;

namespace {

struct Npy {
  std::string descr;
  std::vector<std::size_t> shape;
  std::vector<char> data;
};

// A minimal .npy v1/v2 reader (little-endian, C order): the inputs are numpy's own files.
Npy read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::vector<char> all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const unsigned major = static_cast<unsigned char>(all.at(6));
  std::size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = static_cast<unsigned char>(all[8]) | static_cast<std::size_t>(static_cast<unsigned char>(all[9])) << 8;
    off = 10;
  } else {
    for (int i = 0; i < 4; ++i) hlen |= static_cast<std::size_t>(static_cast<unsigned char>(all[8 + i])) << (8 * i);
    off = 12;
  }
  const std::string h(all.begin() + static_cast<long>(off), all.begin() + static_cast<long>(off + hlen));
  Npy a;
  const auto d = h.find("'descr': '");
  a.descr = h.substr(d + 10, h.find('\'', d + 10) - d - 10);
  const auto s = h.find("'shape': (");
  std::stringstream ss(h.substr(s + 10, h.find(')', s) - s - 10));
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (tok.find_first_not_of(' ') != std::string::npos) a.shape.push_back(std::stoull(tok));
  a.data.assign(all.begin() + static_cast<long>(off + hlen), all.end());
  return a;
}

struct Out {
  std::ofstream f;
  explicit Out(const std::string& p) : f(p, std::ios::binary) {
    if (!f) throw std::runtime_error("cannot write " + p);
  }
  void bytes(const void* p, std::size_t n) { f.write(static_cast<const char*>(p), static_cast<std::streamsize>(n)); }
  template <class T>
  void vec(const std::vector<T>& v) {
    const std::uint64_t n = v.size();
    bytes(&n, 8);
    if (n) bytes(v.data(), n * sizeof(T));
  }
  void text(const std::string& s) {
    f << s << '\n';
  }
};

const mf::Rounding kModes[] = {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz, mf::Rounding::rtp,
                               mf::Rounding::rtn, mf::Rounding::rto, mf::Rounding::sr};
const char* const kModeNames[] = {"rne", "rna", "rtz", "rtp", "rtn", "rto", "sr"};
const mf::Overflow kOverflows[] = {mf::Overflow::nonsat, mf::Overflow::satfinite, mf::Overflow::satpropagate};

void engine(const std::string& tag, const void* in, std::size_t n, mf::Format from, mf::Format to, const std::string& out_dir) {
  Out o(out_dir + "/engine_" + tag + ".bin");
  const unsigned bytes = mc::storage_bytes(to);
  std::vector<std::uint8_t> codes(n * bytes), flags(n);
  int k = 0;
  for (int m = 0; m < 7; ++m)
    for (const mf::Overflow ov : kOverflows)
      for (const bool nv : {false, true}) {
        mc::ConvertRequest r;
        r.from = from;
        r.to = to;
        r.spec.rounding = kModes[m];
        r.spec.overflow = ov;
        r.profile = nv ? mf::profiles::nvidia : mf::profiles::ocp;
        if (kModes[m] == mf::Rounding::sr) {  // the variants in turn, each with its own stream
          const mf::SrVariant vs[] = {mf::SrVariant::exact, mf::SrVariant::a, mf::SrVariant::b, mf::SrVariant::c,
                                      mf::SrVariant::equal};
          r.spec.sr_variant = vs[k % 5];
          r.spec.sr_bits = static_cast<std::uint8_t>(4 + 5 * (k % 6));
          r.sr = mc::SrCounter{.seed = 0x9e3779b97f4a7c15ull + static_cast<unsigned>(k), .stream = static_cast<std::uint32_t>(k),
                               .step = 3, .index_base = 17};
        }
        const unsigned threads = 1 + static_cast<unsigned>(k % 3);
        ++k;
        o.text(std::string("case ") + kModeNames[m] + " " + std::to_string(static_cast<int>(ov)) + (nv ? " nvidia" : " ocp") +
               " threads " + std::to_string(threads));
        try {
          mc::cpu::convert(in, codes.data(), flags.data(), n, r, threads);
          o.bytes(codes.data(), codes.size());
          o.bytes(flags.data(), flags.size());
        } catch (const std::exception& e) {
          o.text(std::string("refused: ") + e.what());
        }
      }
}

struct Hw {
  const char* name;
  mf::Format from, to;
  mf::Rounding rounding;
  mf::Overflow overflow;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: cuda_host_dump INPUTS_DIR GOLDEN_DIGESTS OUT_DIR\n";
    return 2;
  }
  const std::string in_dir = argv[1], golden = argv[2], out_dir = argv[3];
  try {
    const Npy f32 = read_npy(in_dir + "/values_f32.npy"), f64 = read_npy(in_dir + "/values_f64.npy"),
              f16 = read_npy(in_dir + "/values_f16.npy"), bf16 = read_npy(in_dir + "/values_bf16.npy"),
              u8 = read_npy(in_dir + "/codes_u8.npy"), u16 = read_npy(in_dir + "/codes_u16.npy");
    // ---- engine path: every source kind into every named format of at most 16 bits (and back)
    const char* targets[] = {"e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e4m3", "e3m4", "e3m2fn", "e2m3fn",
                             "e2m1fn", "e8m0fnu", "ue4m3", "bf16", "f16", "Binary8p3se", "Binary8p5uf", "Binary6p3sf",
                             "Binary12p7se"};
    struct Src {
      const char* name;
      const Npy* a;
      mf::Format f;
    };
    const Src srcs[] = {{"f32", &f32, mf::formats::f32}, {"f64", &f64, mf::formats::f64}, {"f16", &f16, mf::formats::f16},
                        {"bf16", &bf16, mf::formats::bf16}};
    for (const Src& s : srcs)
      for (const char* t : targets) {
        const std::size_t n = s.a->data.size() / (s.f.bits / 8);
        engine(std::string(s.name) + "_" + t, s.a->data.data(), n, s.f, mf::parse_format(t), out_dir);
      }
    // decoding: every code of each format into f32, f16, bf16 (codes of <= 8 bits from the byte ramp, masked)
    for (const char* t : targets) {
      const mf::Format f = mf::parse_format(t);
      std::vector<std::uint8_t> c8;
      std::vector<std::uint16_t> c16;
      if (f.bits <= 8) {
        for (char c : u8.data) c8.push_back(static_cast<std::uint8_t>(static_cast<unsigned char>(c) & ((1u << f.bits) - 1)));
      } else {
        c16.resize(u16.data.size() / 2);
        std::memcpy(c16.data(), u16.data.data(), u16.data.size());
        for (auto& c : c16) c = static_cast<std::uint16_t>(c & ((1u << f.bits) - 1));
      }
      const void* p = f.bits <= 8 ? static_cast<const void*>(c8.data()) : c16.data();
      const std::size_t n = f.bits <= 8 ? c8.size() : c16.size();
      for (const char* to : {"f32", "f16", "bf16"}) engine(std::string("codes_") + t + "_" + to, p, n, f, mf::parse_format(to), out_dir);
    }
    // ---- hardware path: each PTX cvt model, .relu off and on
    using R = mf::Rounding;
    using O = mf::Overflow;
    const mf::Format e4 = mf::formats::e4m3fn, e5 = mf::formats::e5m2, e21 = mf::formats::e2m1fn, e23 = mf::formats::e2m3fn,
                     e32 = mf::formats::e3m2fn, e8 = mf::formats::e8m0fnu, F32 = mf::formats::f32, F16 = mf::formats::f16,
                     BF = mf::formats::bf16;
    const Hw hws[] = {{"e4m3x2_f32_rn_satfinite", F32, e4, R::rne, O::satfinite},
                      {"e5m2x2_f32_rn_satfinite", F32, e5, R::rne, O::satfinite},
                      {"e4m3x2_f16x2_rn_satfinite", F16, e4, R::rne, O::satfinite},
                      {"e5m2x2_f16x2_rn_satfinite", F16, e5, R::rne, O::satfinite},
                      {"e2m1x2_f32_rn_satfinite", F32, e21, R::rne, O::satfinite},
                      {"e2m3x2_f32_rn_satfinite", F32, e23, R::rne, O::satfinite},
                      {"e3m2x2_f32_rn_satfinite", F32, e32, R::rne, O::satfinite},
                      {"ue8m0x2_f32_rz", F32, e8, R::rtz, O::nonsat},
                      {"ue8m0x2_f32_rz_satfinite", F32, e8, R::rtz, O::satfinite},
                      {"ue8m0x2_f32_rp", F32, e8, R::rtp, O::nonsat},
                      {"ue8m0x2_f32_rp_satfinite", F32, e8, R::rtp, O::satfinite},
                      {"ue8m0x2_bf16x2_rp_satfinite", BF, e8, R::rtp, O::satfinite}};
    for (const Hw& h : hws) {
      Out o(out_dir + "/hardware_" + h.name + ".bin");
      const Npy& a = h.from == F32 ? f32 : h.from == F16 ? f16 : bf16;
      const std::size_t n = a.data.size() / (h.from.bits / 8);
      std::vector<std::uint8_t> codes(n), flags(n);
      for (const mc::Relu relu : {mc::Relu::off, mc::Relu::on}) {
        mc::ConvertRequest r;
        r.from = h.from;
        r.to = h.to;
        r.spec = {h.rounding, h.overflow};
        r.profile = mf::profiles::nvidia;
        r.path = mc::Path::hardware;
        r.relu = relu;
        try {
          o.text(std::string(mc::ptx_name(mc::hardware_cvt(r))) + " " + std::string(mc::hw_architectures(mc::hardware_cvt(r))));
          mc::cpu::convert(a.data.data(), codes.data(), nullptr, n, r, relu == mc::Relu::on ? 3 : 2);
          o.bytes(codes.data(), n);
        } catch (const std::exception& e) {
          o.text(std::string("refused: ") + e.what());
        }
      }
    }
    // ---- the sweep's chunk digests for every combination of the golden file
    {
      Out o(out_dir + "/sweep_digests.txt");
      std::ifstream g(golden);
      std::string line;
      while (std::getline(g, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string fmt, mode, ovf;
        ls >> fmt >> mode >> ovf;
        mf::RoundingSpec spec;
        for (int m = 0; m < 7; ++m)
          if (mode == kModeNames[m]) spec.rounding = kModes[m];
        spec.overflow = ovf == "satfinite" ? O::satfinite : ovf == "satpropagate" ? O::satpropagate : O::nonsat;
        for (const auto& [sampling, stride] : {std::pair{mf::SweepSampling::strided, std::uint64_t{4099}},
                                               std::pair{mf::SweepSampling::structured, std::uint64_t{1}}}) {
          std::vector<std::uint64_t> d(mc::sweep_chunks(sampling, stride));
          mc::cpu::sweep_chunk_digests(mf::parse_format(fmt), spec, mf::profiles::ocp, sampling, stride, d.data(), 2);
          std::string s = fmt + " " + mode + " " + ovf + (sampling == mf::SweepSampling::structured ? " structured" : " strided4099");
          char buf[20];
          for (const std::uint64_t x : d) {
            std::snprintf(buf, sizeof buf, " %016llx", static_cast<unsigned long long>(x));
            s += buf;
          }
          o.text(s);
        }
      }
    }
    // ---- block quantization by the block kernels' bodies
    {
      const Npy m2 = read_npy(in_dir + "/values_2d.npy"), w = read_npy(in_dir + "/minilm_0.npy");
      const char* schemes[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8", "nvfp4",
                               "nvfp4_16x16", "fp8_tensor", "fp8_row", "fp8_channel", "fp8_1x128", "fp8_128x128",
                               "fp8_1x128_ue8m0", "fp8_128x128_ue8m0", "e2m3fn/1x16/e8m0fnu:rceil", "e4m3fn/1x64/f32:fp32_pow2"};
      struct In {
        const char* name;
        const Npy* a;
      };
      for (const char* sn : schemes)
        for (const In& in : {In{"2d", &m2}, In{"minilm0", &w}}) {
          std::string tag = sn;
          for (char& c : tag)
            if (c == '/' || c == ':') c = '_';
          Out o(out_dir + "/blocks_" + tag + "_" + in.name + ".bin");
          std::vector<float> x(in.a->data.size() / 4);
          std::memcpy(x.data(), in.a->data.data(), in.a->data.size());
          int k = 0;
          for (const mf::Rounding rm : {mf::Rounding::rne, mf::Rounding::rtz, mf::Rounding::sr})
            for (const mf::BlockAxis axis : {mf::BlockAxis::last, mf::BlockAxis::first}) {
              mf::QuantOptions q;
              q.rounding.rounding = rm;
              q.axis = axis;
              q.sr_seed = 12345;
              const unsigned threads = 1 + static_cast<unsigned>(k++ % 3);
              o.text(std::string("case ") + std::to_string(static_cast<int>(rm)) + " axis " + std::to_string(static_cast<int>(axis)));
              try {
                const mf::QuantizedTensor t = mc::cpu::quantize_blocks(x, in.a->shape, mf::parse_scheme(sn), q, threads);
                o.text(t.scheme);
                o.vec(t.codes);
                o.vec(t.scale_codes);
                o.vec(t.scales);
                o.vec(t.scale_shape);
                o.bytes(&t.tensor_encode_scale, 4);
                o.bytes(&t.tensor_decode_scale, 4);
                o.bytes(&t.saturated, 8);
                o.bytes(&t.flushed, 8);
              } catch (const std::exception& e) {
                o.text(std::string("refused: ") + e.what());
              }
            }
        }
    }
    // ---- packing and the scale swizzle
    {
      Out o(out_dir + "/pack.bin");
      std::vector<std::uint8_t> c4, c6, sc;
      for (std::size_t i = 0; i < 4096; ++i) {
        c4.push_back(static_cast<std::uint8_t>(static_cast<unsigned char>(u8.data[i % 256]) & 0xf));
        c6.push_back(static_cast<std::uint8_t>((i * 37 + 11) & 0x3f));
        sc.push_back(static_cast<std::uint8_t>((i * 91 + 5) & 0xff));
      }
      o.vec(mc::cpu::pack_fp4(c4, 2));
      o.vec(mc::cpu::pack_fp6_dense(c6, 3));
      o.vec(mc::cpu::swizzle_scales_128x4(std::span<const std::uint8_t>(sc.data(), 200 * 9), 200, 9, 0x7f, 2));
      o.vec(mc::cpu::swizzle_scales_128x4(std::span<const std::uint8_t>(sc.data(), 128 * 4), 128, 4, 0, 1));
      try {
        c4[5] = 0x1f;
        o.vec(mc::cpu::pack_fp4(c4, 1));
      } catch (const std::exception& e) {
        o.text(std::string("refused: ") + e.what());
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "cuda_host_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
