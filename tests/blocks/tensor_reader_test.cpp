// SPDX-License-Identifier: Apache-2.0
// tensor_reader_test.cpp: the rejection rules of the .npy and .safetensors readers (issue 9
// item 6): trailing bytes, gaps, overlapping or reversed offsets, duplicate keys, each refused
// with one ParseError line naming the file, the tensor and the offsets; F8_E4M3 / F8_E5M2 /
// F8_E8M0 tensors read as one-byte codes with their format, never as uint8 numbers. Expected
// values are the Hugging Face reader's rule (tensors tile the data section in offset order)
// and NumPy's format spec (versions 1.0/2.0/3.0, a dict of exactly descr, fortran_order, shape).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/safetensors.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

namespace {

const std::byte* bytes_of(const std::string& s) { return reinterpret_cast<const std::byte*>(s.data()); }

/// The ParseError message of parsing `file` (a failure when it is accepted), checked to be one line.
template <class Parse>
std::string error_of(Parse parse) {
  try {
    parse();
  } catch (const ParseError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_LT(m.size(), 400u) << m;
    return m;
  }
  ADD_FAILURE() << "accepted";
  return "";
}

std::string st_error(const std::string& file) {
  return error_of([&] { (void)parse_safetensors(bytes_of(file), file.size(), "m.safetensors"); });
}
std::string npy_error(const std::string& file) {
  return error_of([&] { (void)parse_npy(bytes_of(file), file.size(), "a.npy"); });
}

/// A .safetensors file with this JSON header and data.
std::string st(const std::string& header, const std::string& data) {
  std::string s(8, '\0');
  for (int k = 0; k < 8; ++k) s[static_cast<std::size_t>(k)] = static_cast<char>((header.size() >> (8 * k)) & 0xff);
  return s + header + data;
}
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape, std::size_t b,
                  std::size_t e) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + std::to_string(b) +
         "," + std::to_string(e) + "]}";
}

/// A version-1.0 .npy file with this header dict.
std::string npy(const std::string& dict, const std::string& data, unsigned char major = 1, unsigned char minor = 0) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += static_cast<char>(minor);
  s += static_cast<char>(h.size() & 0xff);
  s += static_cast<char>(h.size() >> 8);
  return s + h + data;
}
const std::string kDict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

// ---- .npy ---------------------------------------------------------------------------------------

TEST(NpyReader, RejectsTrailingBytes) {
  const std::string ok = npy(kDict, std::string(8, '\1'));
  EXPECT_EQ(parse_npy(bytes_of(ok), ok.size()).data.size(), 8u);
  const std::string m = npy_error(ok + "ab");
  EXPECT_TRUE(has(m, "a.npy") && has(m, "2 trailing bytes after the data")) << m;
}

TEST(NpyReader, RejectsVersionsOtherThan1_2_3Point0) {
  EXPECT_TRUE(has(npy_error(npy(kDict, std::string(8, '\0'), 1, 1)), "version 1.1")) << "minor version";
  EXPECT_TRUE(has(npy_error(npy(kDict, std::string(8, '\0'), 4, 0)), "version 4.0"));
}

TEST(NpyReader, RejectsDuplicateKeysAndTextAfterTheDict) {
  const std::string dup = npy("{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0'));
  EXPECT_TRUE(has(npy_error(dup), "header key 'descr' appears twice")) << npy_error(dup);
  const std::string after = npy(kDict + " junk", std::string(8, '\0'));
  EXPECT_TRUE(has(npy_error(after), "after the closing '}'")) << npy_error(after);
}

TEST(NpyReader, ErrorsQuoteAShortPrefixOfHostileText) {
  // a 60000-byte key with a newline in it: the message stays one short line
  const std::string key(60000, 'k');
  const std::string m = npy_error(npy("{'" + key + "\nx': 1}", ""));
  EXPECT_TRUE(has(m, "unexpected header key 'kkkk") && has(m, "…")) << m.substr(0, 300);
}

TEST(NpyReader, CodeArraysAreNotNumbers) {
  NpyArray a = make_npy_u8({2}, {0x38, 0x7e});
  EXPECT_EQ(npy_as_f32(a), (std::vector<float>{56, 126}));  // plain uint8: numbers
  a.code_format = formats::e4m3fn;
  EXPECT_THROW(npy_as_f32(a), ParseError);
  EXPECT_THROW(npy_as_f64(a), ParseError);
}

// ---- .safetensors ---------------------------------------------------------------------------------

TEST(SafetensorsReader, AcceptsAnExactTilingInAnyJsonOrder) {
  const std::string f = st("{" + entry("b", "F32", "[2]", 8, 16) + "," + entry("a", "F32", "[2]", 0, 8) + "}", std::string(16, '\0'));
  const SafetensorsFile h = parse_safetensors(bytes_of(f), f.size());
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[0].name, "a");  // offset order
  EXPECT_EQ(h.tensors[1].begin, 8u);
}

TEST(SafetensorsReader, RejectsTrailingBytesAfterTheLastTensor) {
  const std::string m = st_error(st("{" + entry("w", "F32", "[2]", 0, 8) + "}", std::string(12, '\0')));
  EXPECT_TRUE(has(m, "m.safetensors") && has(m, "4 trailing bytes after the last tensor 'w'") && has(m, "ends at 8")) << m;
  EXPECT_TRUE(has(st_error(st("{}", "x")), "1 trailing bytes after the header (no tensors)"));
}

TEST(SafetensorsReader, RejectsGaps) {
  std::string m = st_error(st("{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("b", "F32", "[1]", 8, 12) + "}", std::string(12, '\0')));
  EXPECT_TRUE(has(m, "gap of 4 unused bytes at [4, 8) before tensor 'b' [8, 12]")) << m;
  m = st_error(st("{" + entry("a", "F32", "[1]", 4, 8) + "}", std::string(8, '\0')));
  EXPECT_TRUE(has(m, "gap of 4 unused bytes at [0, 4) before tensor 'a' [4, 8]")) << m;
}

TEST(SafetensorsReader, RejectsOverlappingAndReversedOffsets) {
  std::string m = st_error(st("{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[2]", 4, 12) + "}", std::string(12, '\0')));
  EXPECT_TRUE(has(m, "tensors 'a' [0, 8] and 'b' [4, 12] overlap")) << m;
  m = st_error(st("{" + entry("a", "U8", "[0]", 8, 4) + "}", std::string(8, '\0')));
  EXPECT_TRUE(has(m, "entry 'a' has data_offsets [8, 4] that end before they begin")) << m;
}

TEST(SafetensorsReader, RejectsDuplicateKeys) {
  const std::string a = entry("a", "F32", "[1]", 0, 4);
  std::string m = st_error(st("{" + a + "," + a + "}", std::string(4, '\0')));
  EXPECT_TRUE(has(m, "the header names 'a' twice")) << m;
  // the same key spelled with an escape
  m = st_error(st("{" + a + ",\"\\u0061\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", std::string(8, '\0')));
  EXPECT_TRUE(has(m, "the header names 'a' twice")) << m;
  m = st_error(st(R"({"a":{"dtype":"F64","dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0')));
  EXPECT_TRUE(has(m, "key 'dtype' appears twice in entry 'a'")) << m;
  m = st_error(st(R"({"__metadata__":{"k":"1","k":"2"}})", ""));
  EXPECT_TRUE(has(m, "key 'k' appears twice in entry '__metadata__'")) << m;
}

TEST(SafetensorsReader, TheFileReaderAppliesTheSameRules) {
  const fs::path p = fs::temp_directory_path() / ("minifloat_reader_" + std::to_string(::getpid()) + ".safetensors");
  {
    const std::string f = st("{" + entry("w", "F32", "[1]", 0, 4) + "}", std::string(6, '\0'));
    std::ofstream(p, std::ios::binary).write(f.data(), static_cast<std::streamsize>(f.size()));
  }
  const std::string m = error_of([&] { (void)read_safetensors_header(p); });
  EXPECT_TRUE(has(m, p.string()) && has(m, "2 trailing bytes")) << m;
  fs::remove(p);
}

TEST(SafetensorsReader, F8TensorsReadAsCodesOfTheirFormat) {
  const std::string f = st("{" + entry("q", "F8_E4M3", "[2]", 0, 2) + "," + entry("r", "F8_E5M2", "[1]", 2, 3) + "," +
                               entry("s", "F8_E8M0", "[1]", 3, 4) + "}",
                           std::string("\x38\xfe\x7c\x7f", 4));
  const SafetensorsFile h = parse_safetensors(bytes_of(f), f.size());
  const std::pair<const char*, Format> want[] = {{"q", formats::e4m3fn}, {"r", formats::e5m2}, {"s", formats::e8m0fnu}};
  for (std::size_t k = 0; k < 3; ++k) {
    const SafetensorInfo& t = h.tensors[k];
    EXPECT_EQ(t.name, want[k].first);
    EXPECT_FALSE(safetensors_dtype_is_numeric(t.dtype)) << t.dtype;
    ASSERT_TRUE(safetensors_code_format(t.dtype).has_value()) << t.dtype;
    EXPECT_EQ(*safetensors_code_format(t.dtype), want[k].second) << t.dtype;
    const NpyArray a = safetensor_from_bytes(h, t, bytes_of(f), f.size());
    EXPECT_EQ(a.dtype, "|u1");
    ASSERT_TRUE(a.code_format.has_value());
    EXPECT_EQ(format_name(*a.code_format), format_name(want[k].second));
    EXPECT_THROW(npy_as_f32(a), ParseError) << "codes must not pass as uint8 numbers";
  }
  const NpyArray q = safetensor_from_bytes(h, h.tensors[0], bytes_of(f), f.size());
  EXPECT_EQ(q.data, (std::vector<std::byte>{std::byte{0x38}, std::byte{0xfe}}));
  EXPECT_FALSE(safetensors_code_format("U8").has_value());
  EXPECT_TRUE(safetensors_dtype_is_numeric("U8"));

  // written back under the same dtype, and read back through a file
  const fs::path p = fs::temp_directory_path() / ("minifloat_f8_" + std::to_string(::getpid()) + ".safetensors");
  write_safetensors(p, {{"q", q}, {"u", make_npy_u8({1}, {7})}});
  const SafetensorsFile g = read_safetensors_header(p);
  EXPECT_EQ(g.tensors.at(0).dtype, "F8_E4M3");
  EXPECT_EQ(g.tensors.at(1).dtype, "U8");
  const NpyArray back = read_safetensor(g, "q");
  EXPECT_EQ(back.data, q.data);
  EXPECT_EQ(back.code_format, std::optional<Format>(formats::e4m3fn));
  EXPECT_FALSE(read_safetensor(g, "u").code_format.has_value());
  fs::remove(p);
  // a code format safetensors has no dtype for is refused, not stored as U8
  NpyArray odd = make_npy_u8({1}, {1});
  odd.code_format = formats::e2m1fn;
  EXPECT_THROW(serialize_safetensors({{"x", odd}}), ParseError);
}

}  // namespace minifloat_test
