// SPDX-License-Identifier: Apache-2.0
// npy.cpp: the .npy reader/writer (NumPy format versions 1.0–3.0), defensive against malformed files.
#include "minifloat/npy.hpp"

#include "excerpt.hpp"
#include "minifloat/file_io.hpp"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <string_view>
#include <system_error>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct DtypeInfo {
  std::string_view descr;
  std::size_t size;
};
constexpr DtypeInfo kDtypes[] = {{"<f4", 4}, {"<f2", 2}, {"<f8", 8}, {"|u1", 1}, {"<u1", 1}, {"|i1", 1}, {"<i1", 1},
                                 {"<u2", 2}, {"<V2", 2}, {"|V2", 2}, {"<V1", 1}, {"|V1", 1}, {"<u4", 4}, {"<u8", 8}};
constexpr std::string_view kAccepted = "<f4 <f2 <f8 |u1 |i1 <u2 <V2 (bfloat16 as ml_dtypes writes it) <V1 <u4 <u8";

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw ParseError(what + ": not a valid .npy file: " + why);
}

// ---- a tiny parser for the header's Python dict literal ------------------------------------
struct HeaderParser {
  std::string_view s;
  std::size_t i = 0;
  const std::string& what;

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) bad(what, std::string("header: expected '") + c + "' at offset " + std::to_string(i));
  }
  std::string str() {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) bad(what, "header: expected a quoted string");
    const char q = s[i++];
    const std::size_t start = i;
    while (i < s.size() && s[i] != q) ++i;
    if (i >= s.size()) bad(what, "header: unterminated string");
    return std::string(s.substr(start, i++ - start));
  }
  std::string word() {
    ws();
    const std::size_t start = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    return std::string(s.substr(start, i - start));
  }
  std::size_t number() {
    ws();
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) bad(what, "header: expected a dimension");
    std::size_t v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      const auto d = static_cast<std::size_t>(s[i++] - '0');
      if (v > (std::numeric_limits<std::size_t>::max() - d) / 10) bad(what, "header: dimension too large");
      v = v * 10 + d;
    }
    ws();
    if (i < s.size() && s[i] == 'L') ++i;  // Python 2 long suffix
    return v;
  }
};

}  // namespace

std::size_t npy_item_size(const std::string& dtype) {
  for (const auto& d : kDtypes)
    if (d.descr == dtype) return d.size;
  throw ParseError("unsupported .npy dtype '" + detail::excerpt(dtype) + "'; accepted: " + std::string(kAccepted));
}

std::size_t NpyArray::element_count() const noexcept {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}
std::size_t NpyArray::item_size() const { return npy_item_size(dtype); }

NpyHeader parse_npy_header(const std::byte* bytes, std::size_t size, std::uint64_t file_size, const std::string& what) {
  if (file_size < 10 || size < 10) bad(what, "shorter than the 10-byte preamble (truncated?)");
  if (std::memcmp(bytes, kMagic, 6) != 0) bad(what, "missing the \\x93NUMPY magic");
  const auto major = static_cast<unsigned>(bytes[6]), minor = static_cast<unsigned>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    bad(what, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor) +
                  " (1.0, 2.0 and 3.0 are accepted)");
  std::size_t hlen = 0, hstart = 0;
  if (major == 1) {
    hlen = static_cast<std::size_t>(bytes[8]) | (static_cast<std::size_t>(bytes[9]) << 8);
    hstart = 10;
  } else {
    if (size < 12 || file_size < 12) bad(what, "truncated preamble");
    for (int k = 3; k >= 0; --k) hlen = (hlen << 8) | static_cast<std::size_t>(bytes[8 + k]);
    hstart = 12;
  }
  if (hlen > file_size - hstart) bad(what, "header length " + std::to_string(hlen) + " runs past the end of the file");
  if (hlen > size - hstart) bad(what, "header truncated");
  const std::string header(reinterpret_cast<const char*>(bytes + hstart), hlen);
  HeaderParser p{header, 0, what};
  NpyHeader a;
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  p.expect('{');
  while (!p.eat('}')) {
    const std::string key = p.str();
    p.expect(':');
    if ((key == "descr" && have_descr) || (key == "fortran_order" && have_order) || (key == "shape" && have_shape))
      bad(what, "header key '" + key + "' appears twice");
    if (key == "descr") {
      p.ws();
      if (p.i < header.size() && header[p.i] == '[') bad(what, "structured dtypes are not supported");
      a.dtype = p.str();
      have_descr = true;
    } else if (key == "fortran_order") {
      const std::string w = p.word();
      if (w != "True" && w != "False") bad(what, "fortran_order must be True or False");
      fortran = w == "True";
      have_order = true;
    } else if (key == "shape") {
      p.expect('(');
      while (!p.eat(')')) {
        a.shape.push_back(p.number());
        if (!p.eat(',')) {
          p.expect(')');
          break;
        }
      }
      have_shape = true;
    } else {
      bad(what, "unexpected header key '" + detail::excerpt(key) + "' (accepted: descr, fortran_order, shape)");
    }
    if (!p.eat(',')) {
      p.expect('}');
      break;
    }
  }
  p.ws();
  if (p.i != header.size())
    bad(what, "header: unexpected '" + detail::excerpt(std::string_view(header).substr(p.i), 16) +
                  "' after the closing '}' at offset " + std::to_string(p.i));
  if (!have_descr || !have_order || !have_shape) bad(what, "header lacks descr, fortran_order or shape");
  if (fortran) bad(what, "Fortran-order arrays are not supported (save np.ascontiguousarray(a))");
  if (!a.dtype.empty() && a.dtype[0] == '>')
    bad(what, "big-endian dtype '" + detail::excerpt(a.dtype) + "' is not supported");
  std::size_t item = 0;
  try {
    item = npy_item_size(a.dtype);
  } catch (const ParseError& e) {
    bad(what, e.what());
  }
  std::size_t n = 1;
  for (auto d : a.shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) bad(what, "shape overflows");
    n *= d;
  }
  if (n > std::numeric_limits<std::size_t>::max() / item) bad(what, "shape overflows");
  a.data_offset = hstart + hlen;
  a.data_bytes = n * item;
  const std::uint64_t have = file_size - a.data_offset;
  if (have < a.data_bytes)
    bad(what,
        "data truncated: " + std::to_string(have) + " bytes present, " + std::to_string(a.data_bytes) + " needed");
  if (have > a.data_bytes) bad(what, std::to_string(have - a.data_bytes) + " trailing bytes after the data");
  return a;
}

NpyArray parse_npy(const std::byte* bytes, std::size_t size, const std::string& what) {
  const NpyHeader h = parse_npy_header(bytes, size, size, what);
  NpyArray a{h.dtype, h.shape, {}};
  a.data.assign(bytes + h.data_offset, bytes + h.data_offset + h.data_bytes);
  return a;
}

NpyHeader read_npy_header(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open '" + path.string() + "' for reading");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError("cannot read '" + path.string() + "': " + ec.message());
  // The preamble names the header length; read the preamble and the header only (at most 4 GiB by
  // the format, in practice a few hundred bytes).
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<std::uintmax_t>(size, 12)));
  if (!buf.empty() && !in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size())))
    throw IoError("cannot read '" + path.string() + "'");
  std::size_t need = buf.size();
  if (buf.size() >= 10 && std::memcmp(buf.data(), kMagic, 6) == 0) {
    const auto major = static_cast<unsigned>(buf[6]);
    std::size_t hlen = 0, hstart = 10;
    if (major == 1) {
      hlen = static_cast<std::size_t>(buf[8]) | (static_cast<std::size_t>(buf[9]) << 8);
    } else if (buf.size() >= 12) {
      for (int k = 3; k >= 0; --k) hlen = (hlen << 8) | static_cast<std::size_t>(buf[8 + k]);
      hstart = 12;
    }
    need = static_cast<std::size_t>(std::min<std::uintmax_t>(size, std::uintmax_t{hstart} + hlen));
  }
  if (need > buf.size()) {
    const std::size_t had = buf.size();
    buf.resize(need);
    if (!in.read(reinterpret_cast<char*>(buf.data() + had), static_cast<std::streamsize>(need - had)))
      throw IoError("cannot read '" + path.string() + "'");
  }
  return parse_npy_header(buf.data(), buf.size(), size, path.string());
}

NpyArray read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open '" + path.string() + "' for reading");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError("cannot read '" + path.string() + "': " + ec.message());
  std::vector<std::byte> buf(static_cast<std::size_t>(size));
  if (size != 0 && !in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(size)))
    throw IoError("cannot read '" + path.string() + "'");
  return parse_npy(buf.data(), buf.size(), path.string());
}

TensorLocation locate_npy(const std::filesystem::path& path) {
  const NpyHeader h = read_npy_header(path);
  TensorLocation t;
  t.path = path;
  t.name = path.stem().string();
  t.dtype = h.dtype;
  t.shape = h.shape;
  t.offset = h.data_offset;
  t.item_size = npy_item_size(h.dtype);
  return t;
}

std::vector<std::byte> npy_header(const std::string& dtype, const std::vector<std::size_t>& shape) {
  npy_item_size(dtype);  // throws ParseError for an unsupported descr
  std::string h = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    h += std::to_string(shape[k]);
    if (shape.size() == 1 || k + 1 < shape.size()) h += ",";
    if (k + 1 < shape.size()) h += " ";
  }
  h += "), }";
  const bool v2 = h.size() + 11 > 65535;
  const std::size_t pre = v2 ? 12 : 10;
  std::size_t total = pre + h.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  h.append(pad, ' ');
  h += '\n';
  std::vector<std::byte> out;
  out.reserve(pre + h.size());
  for (int k = 0; k < 6; ++k) out.push_back(static_cast<std::byte>(kMagic[k]));
  out.push_back(std::byte{static_cast<unsigned char>(v2 ? 2 : 1)});
  out.push_back(std::byte{0});
  const std::size_t hl = h.size();
  for (std::size_t k = 0; k < (v2 ? 4u : 2u); ++k) out.push_back(static_cast<std::byte>((hl >> (8 * k)) & 0xff));
  for (char c : h) out.push_back(static_cast<std::byte>(c));
  return out;
}

namespace {
/// Bytes of `shape` × `dtype`, or ParseError when the product overflows.
std::uint64_t npy_data_bytes(const std::string& dtype, const std::vector<std::size_t>& shape) {
  std::uint64_t n = npy_item_size(dtype);
  for (auto d : shape) {
    if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / d)
      throw ParseError("npy: the shape's size overflows");
    n *= d;
  }
  return n;
}
}  // namespace

std::vector<std::byte> serialize_npy(const NpyArray& a) {
  const std::size_t item = npy_item_size(a.dtype);
  if (a.data.size() != a.element_count() * item)
    throw ParseError("npy: data holds " + std::to_string(a.data.size()) + " bytes but the shape needs " +
                     std::to_string(a.element_count() * item));
  std::vector<std::byte> out = npy_header(a.dtype, a.shape);
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

NpyWriter::NpyWriter(OutputSet& outputs, OutputId id, const std::string& dtype, const std::vector<std::size_t>& shape)
    : out_(&outputs), id_(id), remaining_(npy_data_bytes(dtype, shape)) {
  const std::vector<std::byte> h = npy_header(dtype, shape);
  out_->append(id_, h);
}

void NpyWriter::append(std::span<const std::byte> data) {
  if (data.size() > remaining_)
    throw Error("npy writer: " + std::to_string(data.size()) + " bytes appended but only " +
                std::to_string(remaining_) + " remain for the shape of '" + out_->target(id_).string() + "'");
  out_->append(id_, data);
  remaining_ -= data.size();
}

void NpyWriter::finish() {
  if (remaining_ != 0)
    throw Error("npy writer: '" + out_->target(id_).string() + "' is " + std::to_string(remaining_) +
                " bytes short of its shape");
  out_->finish(id_);
}

void write_npy(OutputSet& outputs, OutputId id, const NpyArray& a) {
  if (a.data.size() != a.element_count() * npy_item_size(a.dtype))
    throw ParseError("npy: data holds " + std::to_string(a.data.size()) + " bytes but the shape needs " +
                     std::to_string(a.element_count() * a.item_size()));
  NpyWriter w(outputs, id, a.dtype, a.shape);
  w.append(a.data);
  w.finish();
}

void write_npy(const std::filesystem::path& path, const NpyArray& a) {
  OutputSet out;
  write_npy(out, out.add_output(path, "output"), a);
  out.commit();
}

namespace {
template <class T>
T load_le(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // the host is little endian (x86-64, aarch64)
  return v;
}
void refuse_codes(const NpyArray& a) {
  if (a.code_format)
    throw ParseError("the array holds " + format_name(*a.code_format) +
                     " codes, not numbers; decode them with that format (minifloat::to_double)");
}
template <class Out>
void decode_values(std::string_view d, std::span<const std::byte> bytes, std::span<Out> out) {
  const std::size_t item = npy_item_size(std::string(d));
  if (bytes.size() != out.size() * item)
    throw ParseError("npy: " + std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(out.size()) +
                     " elements of " + std::string(d));
  const std::byte* p = bytes.data();
  if (d == "<f4") {  // binary32: as is (a float target gets the bits unchanged)
    for (std::size_t i = 0; i < out.size(); ++i, p += 4) out[i] = static_cast<Out>(load_le<float>(p));
    return;
  }
  for (std::size_t i = 0; i < out.size(); ++i, p += item) {
    double v = 0;
    if (d == "<f8") {
      v = load_le<double>(p);
    } else if (d == "<f2") {
      v = to_double(formats::f16, load_le<std::uint16_t>(p));
    } else if (d == "<V2" || d == "|V2") {
      v = to_double(formats::bf16, load_le<std::uint16_t>(p));
    } else if (d == "<u2") {
      v = load_le<std::uint16_t>(p);
    } else if (d == "<u4") {
      v = load_le<std::uint32_t>(p);
    } else if (d == "<u8") {
      throw ParseError("npy: a <u8 array holds 64-bit words (e.g. SR random bits), not values");
    } else if (d == "|i1" || d == "<i1") {
      v = static_cast<std::int8_t>(load_le<std::uint8_t>(p));
    } else {
      v = load_le<std::uint8_t>(p);
    }
    out[i] = static_cast<Out>(v);  // double → float rounds to nearest even (only <f8 can be inexact)
  }
}
template <class Out>
std::vector<Out> as_values(const NpyArray& a) {
  refuse_codes(a);
  std::vector<Out> out(a.element_count());
  if (a.data.size() != out.size() * a.item_size()) throw ParseError("npy: data size does not match the shape");
  decode_values<Out>(a.dtype, a.data, out);
  return out;
}
}  // namespace

void npy_decode(std::string_view dtype, std::span<const std::byte> bytes, std::span<float> out) {
  decode_values<float>(dtype, bytes, out);
}
void npy_decode(std::string_view dtype, std::span<const std::byte> bytes, std::span<double> out) {
  decode_values<double>(dtype, bytes, out);
}

std::vector<float> npy_as_f32(const NpyArray& a) {
  refuse_codes(a);
  if (a.dtype == "<f4") {
    std::vector<float> out(a.element_count());
    if (a.data.size() != out.size() * 4) throw ParseError("npy: data size does not match the shape");
    if (!out.empty()) std::memcpy(out.data(), a.data.data(), a.data.size());
    return out;
  }
  return as_values<float>(a);
}
std::vector<double> npy_as_f64(const NpyArray& a) { return as_values<double>(a); }

namespace {
template <class T>
NpyArray make(std::string dtype, std::vector<std::size_t> shape, const std::vector<T>& v) {
  NpyArray a{std::move(dtype), std::move(shape), {}};
  if (a.element_count() != v.size())
    throw ParseError("npy: " + std::to_string(v.size()) + " values do not fill the shape (" +
                     std::to_string(a.element_count()) + " elements)");
  a.data.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}
}  // namespace

NpyArray make_npy_f32(std::vector<std::size_t> shape, const std::vector<float>& v) {
  return make("<f4", std::move(shape), v);
}
NpyArray make_npy_f64(std::vector<std::size_t> shape, const std::vector<double>& v) {
  return make("<f8", std::move(shape), v);
}
NpyArray make_npy_u8(std::vector<std::size_t> shape, const std::vector<std::uint8_t>& v) {
  return make("|u1", std::move(shape), v);
}

const NameTable<CodeDtype>& name_table(CodeDtype) {
  static constexpr NameEntry<CodeDtype> kEntries[] = {
      {CodeDtype::codes, "codes", "unsigned integer codes: |u1 for at most 8 bits, else <u2 (the default)"},
      {CodeDtype::ml_dtypes, "ml_dtypes",
       "the descr ml_dtypes writes: <V1, bf16 <V2, f16 <f2 (load with .view(ml_dtypes.<type>))"},
  };
  static constexpr NameTable<CodeDtype> t{"code-dtype", "output dtype", kEntries};
  return t;
}

std::string ml_dtypes_name(const Format& f) {
  if (f == formats::f16) return "float16";
  std::string accepted;
  for (const NamedFormatRow& r : kNamedFormats) {
    if (*r.ml_dtypes == '\0') continue;
    if (r.format == f) return r.ml_dtypes;
    (accepted += accepted.empty() ? "" : ", ") += std::string(r.name) + " (" + r.ml_dtypes + ")";
  }
  throw Error("format " + format_name(f) + " has no ml_dtypes dtype; accepted: " + accepted + ", f16 (float16)");
}

}  // namespace minifloat
