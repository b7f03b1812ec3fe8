// SPDX-License-Identifier: Apache-2.0
// fuzz_safetensors.cpp: libFuzzer target for the .safetensors reader (minifloat::parse_safetensors,
// the in-memory twin of read_safetensors_header). Input: the bytes of a file. Property: it either
// throws minifloat::ParseError (one line naming the file) or returns a header that
//   - tiles the data section exactly: tensors in offset order, the first at 0, each starting where
//     the previous ends (no gap, no overlap), the last ending at the end of the file (no trailing
//     bytes), begin ≤ end, and shape × dtype size = end − begin for the dtypes of known size;
//   - has no duplicate key in any object, judged by an independent JSON walker below (not
//     nlohmann, which keeps the last of two equal keys), which also finds the same tensor names;
//   - round-trips: every readable tensor (numbers and F8_* codes) and the metadata, written by
//     serialize_safetensors, parse back to the same names, dtypes, shapes, bytes, code formats.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_common.hpp"
#include "minifloat/safetensors.hpp"

namespace {

using minifloat_fuzz::fail;
using minifloat_fuzz::require;

constexpr const char* kName = "fuzz-input.safetensors";

/// A minimal JSON walker for text already known to be valid JSON: decodes every object key
/// (escapes and \u surrogate pairs to UTF-8) and records whether any object repeats one.
struct KeyWalker {
  std::string_view s;
  std::size_t i = 0;
  bool duplicate = false;
  std::vector<std::string> top_keys{};  // keys of the outermost object, in order

  char peek() {
    ws();
    if (i >= s.size()) fail("walker: unexpected end of an accepted header");
    return s[i];
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  static void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  std::uint32_t hex4() {
    if (i + 4 > s.size()) fail("walker: short \\u escape");
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s[i++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else fail("walker: bad \\u escape");
    }
    return v;
  }
  std::string string() {
    if (peek() != '"') fail("walker: expected a string");
    ++i;
    std::string out;
    while (true) {
      if (i >= s.size()) fail("walker: unterminated string");
      const char c = s[i++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= s.size()) fail("walker: dangling backslash");
      const char e = s[i++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < s.size() && s[i] == '\\' && s[i + 1] == 'u') {
            i += 2;
            const std::uint32_t lo = hex4();
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          utf8(out, cp);
          break;
        }
        default: fail("walker: unknown escape");
      }
    }
  }
  void value(int depth) {
    const char c = peek();
    if (c == '{') {
      object(depth);
    } else if (c == '[') {
      ++i;
      if (peek() == ']') {
        ++i;
        return;
      }
      while (true) {
        value(depth + 1);
        const char d = peek();
        ++i;
        if (d == ']') return;
        if (d != ',') fail("walker: expected , or ] in an array");
      }
    } else if (c == '"') {
      (void)string();
    } else {
      while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
             s[i] != '\n' && s[i] != '\r')
        ++i;  // number, true, false, null
    }
  }
  void object(int depth) {
    ++i;  // '{'
    std::set<std::string> keys;
    if (peek() == '}') {
      ++i;
      return;
    }
    while (true) {
      const std::string k = string();
      if (!keys.insert(k).second) duplicate = true;
      if (depth == 0) top_keys.push_back(k);
      if (peek() != ':') fail("walker: expected :");
      ++i;
      value(depth + 1);
      const char d = peek();
      ++i;
      if (d == '}') return;
      if (d != ',') fail("walker: expected , or } in an object");
    }
  }
};

std::size_t known_size(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes = {
      {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}, {"U8", 1},      {"I8", 1},      {"U16", 2},     {"F8_E4M3", 1},
      {"F8_E5M2", 1}, {"F8_E8M0", 1}, {"BOOL", 1}, {"I16", 2}, {"I32", 4}, {"U32", 4}, {"I64", 8}, {"U64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* p = reinterpret_cast<const std::byte*>(data);
  minifloat::SafetensorsFile f;
  try {
    f = minifloat::parse_safetensors(p, size, kName);
  } catch (const minifloat::ParseError& e) {
    minifloat_fuzz::check_message(e.what(), kName, 500);
    return 0;
  }
  // ---- the header: 8-byte length, JSON, and nothing read past it ----
  require(size >= 8, "accepted a file shorter than 8 bytes");
  std::uint64_t hlen = 0;
  for (int k = 7; k >= 0; --k) hlen = (hlen << 8) | data[k];
  require(f.data_start == 8 + hlen && f.data_start <= size, "data_start is not 8 + header length");
  const std::size_t data_size = size - f.data_start;

  // ---- the tiling of the data section ----
  std::size_t at = 0;
  std::set<std::string> names;
  for (const auto& t : f.tensors) {
    require(t.begin <= t.end, "accepted begin > end for " + t.name);
    require(t.begin == at, "accepted a gap or an overlap before " + t.name);
    at = t.end;
    require(t.name != "__metadata__", "__metadata__ listed as a tensor");
    require(names.insert(t.name).second, "tensor name listed twice: " + t.name);
    const std::size_t item = known_size(t.dtype);
    if (item != 0) {
      std::size_t n = 1;
      bool empty = false;
      for (auto d : t.shape) {
        empty = empty || d == 0;
        n *= d;
      }
      if (empty) n = 0;
      require(t.end - t.begin == n * item, "size does not match shape × dtype for " + t.name);
    }
  }
  require(at == data_size, "accepted trailing bytes after the last tensor (or a short data section)");

  // ---- no duplicate keys, by an independent walk of the JSON text ----
  KeyWalker w{std::string_view(reinterpret_cast<const char*>(data) + 8, static_cast<std::size_t>(hlen))};
  if (w.peek() != '{') fail("accepted a header that is not an object");
  w.object(0);
  require(!w.duplicate, "accepted a header with a duplicate key");
  std::set<std::string> walked;
  for (const auto& k : w.top_keys)
    if (k != "__metadata__") walked.insert(k);
  require(walked == names, "the tensor names differ from the JSON's keys");

  // ---- round trip of the readable tensors and the metadata ----
  std::vector<std::pair<std::string, minifloat::NpyArray>> readable;
  for (const auto& t : f.tensors) {
    minifloat::NpyArray a;
    try {
      a = minifloat::safetensor_from_bytes(f, t, p, size);
    } catch (const minifloat::ParseError& e) {
      minifloat_fuzz::check_message(e.what(), "", 500);
      require(!minifloat::safetensors_dtype_is_numeric(t.dtype) && !minifloat::safetensors_code_format(t.dtype),
              "a readable dtype was refused: " + t.dtype);
      continue;
    }
    require(!(minifloat::safetensors_dtype_is_numeric(t.dtype) && a.code_format),
            "a numeric dtype came back as codes: " + t.dtype);
    require(a.code_format == minifloat::safetensors_code_format(t.dtype), "code format differs for " + t.dtype);
    require(a.data.size() == t.end - t.begin, "tensor bytes differ in size");
    readable.emplace_back(t.name, std::move(a));
  }
  const std::vector<std::byte> again = minifloat::serialize_safetensors(readable, f.metadata);
  const minifloat::SafetensorsFile g = minifloat::parse_safetensors(again.data(), again.size(), kName);
  require(g.metadata == f.metadata, "metadata changed in the round trip");
  require(g.tensors.size() == readable.size(), "tensor count changed in the round trip");
  for (std::size_t k = 0; k < readable.size(); ++k) {
    const minifloat::NpyArray b = minifloat::safetensor_from_bytes(g, g.tensors[k], again.data(), again.size());
    const minifloat::NpyArray& a = readable[k].second;
    require(g.tensors[k].name == readable[k].first && b.dtype == a.dtype && b.shape == a.shape && b.data == a.data &&
                b.code_format == a.code_format,
            "tensor " + readable[k].first + " changed in the round trip");
  }
  return 0;
}
