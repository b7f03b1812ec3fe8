// SPDX-License-Identifier: Apache-2.0
// fuzz_npy.cpp: libFuzzer target for the .npy reader (minifloat::parse_npy). Input: the bytes of
// a file. Property: parse_npy either throws minifloat::ParseError (one line naming the file;
// any other exception or a sanitizer report is a failure) or returns an array that
//   - is consistent (data holds element_count() · item_size() bytes, no code format),
//   - serialises (serialize_npy) to bytes that parse back to the same dtype, shape and data,
//   - stops being accepted with one byte appended (trailing bytes) or its last byte removed.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "minifloat/npy.hpp"

namespace {

using minifloat_fuzz::require;

constexpr const char* kName = "fuzz-input.npy";

bool rejected(const std::vector<std::byte>& bytes) {
  try {
    (void)minifloat::parse_npy(bytes.data(), bytes.size(), kName);
  } catch (const minifloat::ParseError& e) {
    minifloat_fuzz::check_message(e.what(), kName, 400);
    return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* p = reinterpret_cast<const std::byte*>(data);
  minifloat::NpyArray a;
  try {
    a = minifloat::parse_npy(p, size, kName);
  } catch (const minifloat::ParseError& e) {
    minifloat_fuzz::check_message(e.what(), kName, 400);
    return 0;
  }
  require(!a.code_format, "parse_npy set a code format");
  require(a.data.size() == a.element_count() * a.item_size(), "data size does not match dtype and shape");

  const std::vector<std::byte> again = minifloat::serialize_npy(a);
  const minifloat::NpyArray b = minifloat::parse_npy(again.data(), again.size(), kName);
  require(b.dtype == a.dtype && b.shape == a.shape && b.data == a.data, "serialize_npy → parse_npy changed the array");

  std::vector<std::byte> longer(p, p + size);
  longer.push_back(std::byte{0x20});
  require(rejected(longer), "accepted with a trailing byte");
  std::vector<std::byte> shorter(p, p + size - 1);
  require(rejected(shorter), "accepted with its last byte removed");
  return 0;
}
