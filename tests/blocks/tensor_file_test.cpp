// SPDX-License-Identifier: Apache-2.0
// tensor_file_test.cpp: .npy and .safetensors round trips, NumPy/ml_dtypes-written headers, and
// malformed files (truncated, garbage, bad offsets): always a clear minifloat::Error, never a crash.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <type_traits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "minifloat/npy.hpp"
#include "minifloat/safetensors.hpp"
#include "minifloat/tensor_file.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

namespace {
fs::path tmpdir() {
  const fs::path p = fs::temp_directory_path() / ("minifloat_blocks_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}
void write_bytes(const fs::path& p, const std::string& s) {
  std::ofstream o(p, std::ios::binary);
  o.write(s.data(), static_cast<std::streamsize>(s.size()));
}
std::string read_bytes(const fs::path& p) {
  std::ifstream i(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(i), {}};
}
// The exact bytes numpy 2.2 writes for np.save(f, np.array([1, 2], dtype)) with a 2-byte dtype.
std::string numpy_v1(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string s = "\x93NUMPY";
  s += '\x01';
  s += '\x00';
  s += static_cast<char>(h.size() & 0xff);
  s += static_cast<char>(h.size() >> 8);
  return s + h + data;
}
}  // namespace

TEST(Npy, RoundTripEveryDtype) {
  const fs::path d = tmpdir();
  const auto a = make_npy_f32({2, 3}, {1, 2, 3, 4, 5, -6.5f});
  write_npy(d / "a.npy", a);
  const auto b = read_npy(d / "a.npy");
  EXPECT_EQ(b.dtype, "<f4");
  EXPECT_EQ(b.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(npy_as_f32(b), (std::vector<float>{1, 2, 3, 4, 5, -6.5f}));
  write_npy(d / "u.npy", make_npy_u8({4}, {0, 0x7f, 0x80, 0xff}));
  EXPECT_EQ(npy_as_f64(read_npy(d / "u.npy")), (std::vector<double>{0, 127, 128, 255}));
  write_npy(d / "z.npy", make_npy_f64({}, {2.5}));
  const auto z = read_npy(d / "z.npy");
  EXPECT_TRUE(z.shape.empty());
  EXPECT_EQ(npy_as_f64(z), std::vector<double>{2.5});
  // the header ends on a 64-byte boundary, as numpy writes it
  EXPECT_EQ((read_bytes(d / "a.npy").find('\n') + 1) % 64, 0u);
}

TEST(Npy, ReadsNumpyAndMlDtypesHeaders) {
  // f16 1.0, 2.0 = 0x3c00, 0x4000; bf16 (ml_dtypes writes '<V2') 1.0, −2.0 = 0x3f80, 0xc000
  const std::string h16 = numpy_v1("<f2", "(2,)", std::string("\x00\x3c\x00\x40", 4));
  auto f16 = parse_npy(reinterpret_cast<const std::byte*>(h16.data()), h16.size());
  EXPECT_EQ(npy_as_f32(f16), (std::vector<float>{1.0f, 2.0f}));
  const std::string bf = numpy_v1("<V2", "(2,)", std::string("\x80\x3f\x00\xc0", 4));
  auto b = parse_npy(reinterpret_cast<const std::byte*>(bf.data()), bf.size());
  EXPECT_EQ(b.dtype, "<V2");
  EXPECT_EQ(npy_as_f32(b), (std::vector<float>{1.0f, -2.0f}));
}

TEST(Npy, MalformedFilesGiveClearErrors) {
  const fs::path d = tmpdir();
  write_npy(d / "ok.npy", make_npy_f32({8}, std::vector<float>(8, 1.0f)));
  const std::string good = read_bytes(d / "ok.npy");
  auto expect_parse_error = [&](const std::string& bytes, const char* what) {
    write_bytes(d / "bad.npy", bytes);
    try {
      read_npy(d / "bad.npy");
      ADD_FAILURE() << "no error for " << what;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.npy"), std::string::npos) << e.what();
    }
  };
  for (std::size_t n = 0; n < good.size(); n += 7) expect_parse_error(good.substr(0, n), "truncation");
  expect_parse_error(good + "xx", "trailing bytes");
  expect_parse_error("garbage garbage garbage garbage", "garbage");
  std::string g = good;
  g[6] = 9;
  expect_parse_error(g, "version");
  std::string fo = numpy_v1("<f4", "(2,)", std::string(8, '\0'));
  fo.replace(fo.find("False"), 5, "True ");
  expect_parse_error(fo, "fortran");
  expect_parse_error(numpy_v1(">f4", "(2,)", std::string(8, '\0')), "big endian");
  expect_parse_error(numpy_v1("<c8", "(2,)", std::string(16, '\0')), "dtype");
  expect_parse_error(numpy_v1("<f4", "(99999999999999999999,)", ""), "huge dim");
  expect_parse_error(numpy_v1("<f4", "(4294967296, 4294967296, 4294967296)", ""), "overflow");
  // random garbage after a valid magic never crashes
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string s = good;
    for (int k = 0; k < 4; ++k) s[8 + rng() % (s.size() - 8)] = static_cast<char>(rng());
    write_bytes(d / "fuzz.npy", s);
    try {
      (void)read_npy(d / "fuzz.npy");
    } catch (const Error&) {
    }
  }
  EXPECT_THROW(read_npy(d / "does_not_exist.npy"), IoError);
  EXPECT_THROW(write_npy(d / "x.npy", NpyArray{"<f4", {3}, std::vector<std::byte>(4)}), ParseError);
}

// TensorReader::read of element ranges [first, first + k) equals those elements of the whole array decoded by
// npy_as_f32 / npy_as_f64 (the oracle: decode_values, one element at a time), bit for bit, for .npy and
// .safetensors tensors of <f4 (read straight into the destination), <f8 and <f2, into float and double;
// NaN payloads and signed zeros included.
TEST(TensorReader, EveryRangeEqualsTheWholeArrayDecoded) {
  const fs::path d = tmpdir();
  std::mt19937 rng(17);
  const std::size_t n = 97;
  std::vector<float> f(n);
  std::vector<double> g(n);
  for (std::size_t i = 0; i < n; ++i) {
    f[i] = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    g[i] = std::bit_cast<double>((static_cast<std::uint64_t>(rng()) << 32) | rng());
  }
  f[5] = -0.0f;
  g[6] = -0.0;
  NpyArray h{"<f2", {n}, {}};
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = static_cast<std::uint16_t>(rng());
    h.data.push_back(static_cast<std::byte>(w & 0xff));
    h.data.push_back(static_cast<std::byte>(w >> 8));
  }
  const std::vector<NpyArray> arrays = {make_npy_f32({n}, f), make_npy_f64({n}, g), h};
  write_safetensors(d / "r.safetensors", {{"f", arrays[0]}, {"g", arrays[1]}, {"h", arrays[2]}}, {});
  const SafetensorsFile sf = read_safetensors_header(d / "r.safetensors");
  auto bits = [](auto v) {
    using U = std::conditional_t<sizeof(v) == 4, std::uint32_t, std::uint64_t>;
    return std::bit_cast<U>(v);
  };
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    write_npy(d / "r.npy", arrays[a]);
    const std::vector<float> whole_f = npy_as_f32(arrays[a]);
    const std::vector<double> whole_d = npy_as_f64(arrays[a]);
    for (const TensorLocation& loc : {locate_npy(d / "r.npy"), locate_safetensor(sf, sf.tensors[a])}) {
      const TensorReader rd(loc);
      std::vector<std::byte> scratch;
      for (const std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}, n - 3})
        for (const std::size_t k : {std::size_t{1}, std::size_t{3}, n - first}) {
          if (first + k > n) continue;
          std::vector<float> of(k);
          std::vector<double> od(k);
          rd.read(first, std::span<float>(of), scratch);
          rd.read(first, std::span<double>(od), scratch);
          for (std::size_t i = 0; i < k; ++i) {
            ASSERT_EQ(bits(of[i]), bits(whole_f[first + i])) << arrays[a].dtype << " first " << first << " i " << i;
            ASSERT_EQ(bits(od[i]), bits(whole_d[first + i])) << arrays[a].dtype << " first " << first << " i " << i;
          }
        }
    }
  }
}

TEST(Safetensors, RoundTripWithMetadata) {
  const fs::path d = tmpdir();
  write_safetensors(d / "t.safetensors",
                    {{"codes", make_npy_u8({2, 2}, {1, 2, 3, 4})}, {"w", make_npy_f32({3}, {1.5f, -2, 0})}},
                    {{"scheme", "mxfp4"}, {"rule", "ocp_floor"}});
  const auto f = read_safetensors_header(d / "t.safetensors");
  EXPECT_EQ(f.metadata.at("scheme"), "mxfp4");
  ASSERT_EQ(f.tensors.size(), 2u);
  EXPECT_EQ(f.tensors[0].name, "codes");
  EXPECT_EQ(f.tensors[0].dtype, "U8");
  EXPECT_EQ(npy_as_f32(read_safetensor(f, "w")), (std::vector<float>{1.5f, -2, 0}));
  EXPECT_EQ((8 + (f.data_start - 8)) % 8, 0u);
  EXPECT_THROW(read_safetensor(f, "nope"), NameError);
}

TEST(Safetensors, MalformedFilesGiveClearErrors) {
  const fs::path d = tmpdir();
  write_safetensors(d / "ok.safetensors", {{"w", make_npy_f32({4}, {1, 2, 3, 4})}});
  const std::string good = read_bytes(d / "ok.safetensors");
  auto bad = [&](const std::string& bytes, const char* what) {
    write_bytes(d / "bad.safetensors", bytes);
    EXPECT_THROW(read_safetensors_header(d / "bad.safetensors"), ParseError) << what;
  };
  for (std::size_t n = 0; n + 1 < good.size(); n += 5) bad(good.substr(0, n), "truncated");
  bad(std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}", "huge header length");
  auto with_header = [](const std::string& h, const std::string& data) {
    std::string s(8, '\0');
    for (int k = 0; k < 8; ++k) s[k] = static_cast<char>((h.size() >> (8 * k)) & 0xff);
    return s + h + data;
  };
  bad(with_header("{not json", ""), "json");
  bad(with_header("[1,2]", ""), "not an object");
  bad(with_header(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", std::string(8, '\0')), "offsets past end");
  bad(with_header(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", std::string(16, '\0')), "size mismatch");
  bad(with_header(R"({"w":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", std::string(16, '\0')), "negative dim");
  bad(with_header(R"({"w":{"shape":[4],"data_offsets":[0,16]}})", std::string(16, '\0')), "no dtype");
  bad(with_header(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                  std::string(16, '\0')),
      "overlap");
  // an I64 tensor is listed but not readable as numbers
  write_bytes(d / "i64.safetensors", with_header(R"({"p":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", std::string(16, '\0')));
  const auto f = read_safetensors_header(d / "i64.safetensors");
  EXPECT_FALSE(safetensors_dtype_is_numeric(f.tensors.at(0).dtype));
  EXPECT_THROW(read_safetensor(f, "p"), ParseError);
  // the refusal names the file, as every other one does (it began with "tensor 'p'": found by a new-user test)
  for (const auto& refuse : {std::function<void()>([&] { (void)read_safetensor(f, "p"); }),
                             std::function<void()>([&] { (void)locate_safetensor(f, f.tensors.at(0)); })}) {
    try {
      refuse();
      ADD_FAILURE() << "I64 read as numbers";
    } catch (const ParseError& e) {
      EXPECT_EQ(std::string(e.what()).rfind((d / "i64.safetensors").string() + ": tensor 'p' has dtype I64; ", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(read_safetensors_header(d / "missing.safetensors"), IoError);
}

}  // namespace minifloat_test
