// SPDX-License-Identifier: Apache-2.0
// safetensors.cpp: .safetensors header parsing (nlohmann-json, with a parser callback that refuses
// duplicate keys), the data-section tiling checks, tensor reads and file writes.
#include "minifloat/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <system_error>

#include "excerpt.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {
namespace {

/// The dtypes read_safetensor returns: numbers (no code format) or one-byte codes of a format.
struct DtypeMap {
  const char* st;
  const char* npy;
  std::size_t size;
  std::optional<Format> codes;
};
const DtypeMap kMap[] = {{"F32", "<f4", 4, {}},
                         {"F16", "<f2", 2, {}},
                         {"BF16", "<V2", 2, {}},
                         {"F64", "<f8", 8, {}},
                         {"U8", "|u1", 1, {}},
                         {"I8", "|i1", 1, {}},
                         {"U16", "<u2", 2, {}},
                         {"F8_E4M3", "|u1", 1, formats::e4m3fn},
                         {"F8_E5M2", "|u1", 1, formats::e5m2},
                         {"F8_E8M0", "|u1", 1, formats::e8m0fnu}};
constexpr std::pair<const char*, std::size_t> kOtherSizes[] = {{"BOOL", 1}, {"I16", 2}, {"I32", 4},
                                                               {"U32", 4},  {"I64", 8}, {"U64", 8}};
constexpr std::uint64_t kMaxHeader = std::uint64_t{100} << 20;

const DtypeMap* find_dtype(const std::string& d) {
  for (const auto& m : kMap)
    if (d == m.st) return &m;
  return nullptr;
}

std::size_t dtype_size(const std::string& d) {
  if (const DtypeMap* m = find_dtype(d)) return m->size;
  for (const auto& [n, s] : kOtherSizes)
    if (d == n) return s;
  return 0;
}

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw ParseError(what + ": not a valid .safetensors file: " + why);
}

std::string quote_name(std::string_view name) { return detail::quoted_excerpt(name); }
std::string range(const SafetensorInfo& t) {
  std::string s(1, '[');
  s += std::to_string(t.begin);
  s += ", ";
  s += std::to_string(t.end);
  s += ']';
  return s;
}

/// The 8-byte little-endian header length.
std::uint64_t header_length(const unsigned char* b) {
  std::uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | b[k];
  return n;
}

/// Parse the JSON header and check every entry and the tiling of the `data_size`-byte data section.
SafetensorsFile parse_header(std::string_view header, std::uint64_t data_size, const std::string& what) {
  // nlohmann::json keeps the last of two equal keys; the callback sees every key and refuses repeats.
  using json = nlohmann::json;
  std::vector<std::set<std::string>> keys;  // keys seen so far in the open object at each depth
  std::string entry;                        // the top-level key being parsed (for messages)
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) {
    const auto d = static_cast<std::size_t>(depth);
    if (ev == json::parse_event_t::object_start) {
      if (keys.size() < d + 2) keys.resize(d + 2);
      keys[d + 1].clear();
    } else if (ev == json::parse_event_t::key) {
      const std::string k = parsed.get<std::string>();
      if (d == 1) entry = k;
      if (d < keys.size() && !keys[d].insert(k).second) {
        if (d == 1) bad(what, "the header names " + quote_name(k) + " twice");
        bad(what, "key " + quote_name(k) + " appears twice in entry " + quote_name(entry));
      }
    }
    return true;
  };
  json j;
  try {
    j = json::parse(header.begin(), header.end(), cb);
  } catch (const json::exception& e) {
    bad(what, "header is not valid JSON (" + detail::excerpt(e.what(), 160) + ")");
  }
  if (!j.is_object()) bad(what, "header is not a JSON object");

  SafetensorsFile f;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) bad(what, "__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) bad(what, "__metadata__ value of " + quote_name(m.key()) + " is not a string");
        f.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string tn = "entry " + quote_name(name);
    if (!v.is_object()) bad(what, tn + " is not an object");
    if (!v.contains("dtype") || !v["dtype"].is_string()) bad(what, tn + " lacks a string dtype");
    if (!v.contains("shape") || !v["shape"].is_array()) bad(what, tn + " lacks a shape array");
    if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2)
      bad(what, tn + " lacks data_offsets [begin, end]");
    SafetensorInfo t;
    t.name = name;
    t.dtype = v["dtype"].get<std::string>();
    std::size_t n = 1;
    bool overflow = false, empty = false;  // a zero dimension makes any product of the others 0
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) bad(what, tn + " has a non-integer or negative dimension");
      const auto dim = static_cast<std::size_t>(d.get<std::uint64_t>());
      if (dim == 0) empty = true;
      else if (n > std::numeric_limits<std::size_t>::max() / dim) overflow = true;
      t.shape.push_back(dim);
      n *= dim;
    }
    if (empty) n = 0;
    else if (overflow) bad(what, tn + ": shape overflows");
    for (const auto& o : v["data_offsets"])
      if (!o.is_number_unsigned()) bad(what, tn + " has a non-integer data offset");
    t.begin = static_cast<std::size_t>(v["data_offsets"][0].get<std::uint64_t>());
    t.end = static_cast<std::size_t>(v["data_offsets"][1].get<std::uint64_t>());
    if (t.begin > t.end) bad(what, tn + " has data_offsets " + range(t) + " that end before they begin");
    if (t.end > data_size)
      bad(what, tn + " has data_offsets " + range(t) + " past the end of the " + std::to_string(data_size) +
                    "-byte data section (truncated file?)");
    const std::size_t item = dtype_size(t.dtype);
    if (item != 0 && (n > std::numeric_limits<std::size_t>::max() / item || t.end - t.begin != n * item))
      bad(what, tn + " holds " + std::to_string(t.end - t.begin) + " bytes at " + range(t) +
                    " but its shape and dtype " + detail::excerpt(t.dtype) + " need " + std::to_string(n * item));
    f.tensors.push_back(std::move(t));
  }
  // The tensors must tile the data section exactly: from 0, each where the previous ends, the last at its end.
  std::sort(f.tensors.begin(), f.tensors.end(), [](const SafetensorInfo& a, const SafetensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end != b.end ? a.end < b.end : a.name < b.name;
  });
  std::size_t at = 0;
  for (std::size_t k = 0; k < f.tensors.size(); ++k) {
    const SafetensorInfo& t = f.tensors[k];
    if (t.begin > at)
      bad(what, "a gap of " + std::to_string(t.begin - at) + " unused bytes at [" + std::to_string(at) + ", " +
                    std::to_string(t.begin) + ") before tensor " + quote_name(t.name) + " " + range(t));
    if (t.begin < at)
      bad(what, "tensors " + quote_name(f.tensors[k - 1].name) + " " + range(f.tensors[k - 1]) + " and " +
                    quote_name(t.name) + " " + range(t) + " overlap");
    at = t.end;
  }
  if (at != data_size)
    bad(what, std::to_string(data_size - at) + " trailing bytes after " +
                  (f.tensors.empty()
                       ? std::string("the header (no tensors)")
                       : "the last tensor " + quote_name(f.tensors.back().name) + " (it ends at " + std::to_string(at) +
                             ", the data section holds " + std::to_string(data_size) + " bytes)"));
  return f;
}

/// The array of `info` without its data; throws for the dtypes read_safetensor does not read (one line
/// naming the file, as every other refusal of a .safetensors file does).
NpyArray empty_array(const SafetensorsFile& file, const SafetensorInfo& info) {
  const DtypeMap* m = find_dtype(info.dtype);
  if (!m)
    throw ParseError(file.path.string() + ": tensor " + quote_name(info.name) + " has dtype " +
                     detail::excerpt(info.dtype) +
                     "; minifloat reads F32, F16, BF16, F64, U8, I8, U16 as numbers and F8_E4M3, F8_E5M2, "
                     "F8_E8M0 as codes");
  return NpyArray{m->npy, info.shape, {}, m->codes};
}

/// The 8-byte length and the JSON header of a file holding `specs` (data_offsets consecutive from
/// 0 in the given order); `sizes` receives each tensor's byte count.
std::string header_text(const std::vector<SafetensorSpec>& specs, const std::map<std::string, std::string>& metadata,
                        std::vector<std::uint64_t>& sizes) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json md = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) md[k] = v;
    j["__metadata__"] = md;
  }
  std::set<std::string> seen;
  std::uint64_t off = 0;
  sizes.clear();
  for (const auto& t : specs) {
    if (t.name == "__metadata__" || !seen.insert(t.name).second)
      throw ParseError("safetensors: duplicate or reserved tensor name " + quote_name(t.name));
    const DtypeMap* m = nullptr;
    for (const auto& x : kMap)
      if (t.dtype == x.npy && t.code_format == x.codes) m = &x;
    if (!m)
      throw ParseError("safetensors: cannot store dtype '" + detail::excerpt(t.dtype) + "'" +
                       (t.code_format ? " with " + format_name(*t.code_format) + " codes" : std::string()) +
                       " of tensor " + quote_name(t.name));
    std::uint64_t bytes = m->size;
    for (auto d : t.shape) {
      if (d != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / d)
        throw ParseError("safetensors: the shape of tensor " + quote_name(t.name) + " overflows");
      bytes *= d;
    }
    nlohmann::ordered_json e;
    e["dtype"] = m->st;
    e["shape"] = t.shape;
    e["data_offsets"] = {off, off + bytes};
    j[t.name] = e;
    sizes.push_back(bytes);
    off += bytes;
  }
  std::string header;
  try {
    header = j.dump();
  } catch (const nlohmann::json::exception& e) {
    throw ParseError("safetensors: a tensor name or metadata string is not UTF-8 (" + detail::excerpt(e.what(), 160) +
                     ")");
  }
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((static_cast<std::uint64_t>(header.size()) >> (8 * k)) & 0xff);
  return out + header;
}

/// The specs of whole arrays (their data sizes checked against their shapes).
std::vector<SafetensorSpec> specs_of(const std::vector<std::pair<std::string, NpyArray>>& tensors) {
  std::vector<SafetensorSpec> specs;
  for (const auto& [name, a] : tensors) {
    if (a.data.size() != a.element_count() * npy_item_size(a.dtype))
      throw ParseError("safetensors: tensor " + quote_name(name) + " data size does not match its shape");
    specs.push_back({name, a.dtype, a.shape, a.code_format});
  }
  return specs;
}

}  // namespace

bool safetensors_dtype_is_numeric(const std::string& dtype) {
  const DtypeMap* m = find_dtype(dtype);
  return m != nullptr && !m->codes;
}

std::optional<Format> safetensors_code_format(const std::string& dtype) {
  const DtypeMap* m = find_dtype(dtype);
  return m ? m->codes : std::nullopt;
}

SafetensorsFile read_safetensors_header(const std::filesystem::path& path) {
  const std::string what = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open '" + what + "' for reading");
  std::error_code ec;
  const auto fsize = static_cast<std::uint64_t>(std::filesystem::file_size(path, ec));
  if (ec) throw IoError("cannot read '" + what + "': " + ec.message());
  if (fsize < 8) bad(what, "shorter than the 8-byte header length");
  unsigned char lenb[8];
  if (!in.read(reinterpret_cast<char*>(lenb), 8)) throw IoError("cannot read '" + what + "'");
  const std::uint64_t hlen = header_length(lenb);
  if (hlen > fsize - 8)
    bad(what, "header length " + std::to_string(hlen) + " runs past the end of the file (" + std::to_string(fsize) +
                  " bytes)");
  if (hlen > kMaxHeader) bad(what, "header larger than 100 MiB");
  std::string header(static_cast<std::size_t>(hlen), '\0');
  if (hlen && !in.read(header.data(), static_cast<std::streamsize>(hlen))) throw IoError("cannot read '" + what + "'");
  SafetensorsFile f = parse_header(header, fsize - 8 - hlen, what);
  f.path = path;
  f.data_start = static_cast<std::size_t>(8 + hlen);
  return f;
}

SafetensorsFile parse_safetensors(const std::byte* bytes, std::size_t size, const std::string& what) {
  if (size < 8) bad(what, "shorter than the 8-byte header length");
  const std::uint64_t hlen = header_length(reinterpret_cast<const unsigned char*>(bytes));
  if (hlen > size - 8)
    bad(what, "header length " + std::to_string(hlen) + " runs past the end of the file (" + std::to_string(size) +
                  " bytes)");
  if (hlen > kMaxHeader) bad(what, "header larger than 100 MiB");
  const std::string_view header(reinterpret_cast<const char*>(bytes) + 8, static_cast<std::size_t>(hlen));
  SafetensorsFile f = parse_header(header, size - 8 - hlen, what);
  f.path = what;
  f.data_start = static_cast<std::size_t>(8 + hlen);
  return f;
}

NpyArray read_safetensor(const SafetensorsFile& file, const SafetensorInfo& info) {
  NpyArray a = empty_array(file, info);  // refuses unreadable dtypes before opening the file
  std::ifstream in(file.path, std::ios::binary);
  if (!in) throw IoError("cannot open '" + file.path.string() + "' for reading");
  a.data.resize(info.end - info.begin);
  in.seekg(static_cast<std::streamoff>(file.data_start + info.begin));
  if (!a.data.empty() && !in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(a.data.size())))
    throw IoError("cannot read tensor " + quote_name(info.name) + " from '" + file.path.string() + "' (truncated?)");
  return a;
}

NpyArray safetensor_from_bytes(const SafetensorsFile& file, const SafetensorInfo& info, const std::byte* bytes,
                               std::size_t size) {
  if (file.data_start > size || info.begin > info.end || info.end > size - file.data_start)
    throw ParseError("tensor " + quote_name(info.name) + " " + range(info) + " lies outside the " +
                     std::to_string(size) + " bytes given");
  NpyArray a = empty_array(file, info);
  const std::byte* p = bytes + file.data_start + info.begin;
  a.data.assign(p, p + (info.end - info.begin));
  return a;
}

const SafetensorInfo& find_safetensor(const SafetensorsFile& file, const std::string& name) {
  for (const auto& t : file.tensors)
    if (t.name == name) return t;
  std::string names;
  for (std::size_t k = 0; k < file.tensors.size() && k < 20; ++k)
    names += (k ? ", " : "") + detail::excerpt(file.tensors[k].name);
  if (file.tensors.size() > 20) names += ", …";
  throw NameError("no tensor " + quote_name(name) + " in '" + file.path.string() + "'; it holds: " + names);
}

NpyArray read_safetensor(const SafetensorsFile& file, const std::string& name) {
  return read_safetensor(file, find_safetensor(file, name));
}

TensorLocation locate_safetensor(const SafetensorsFile& file, const SafetensorInfo& info) {
  const NpyArray a = empty_array(file, info);  // the dtype mapping (and refusal) of read_safetensor
  TensorLocation t;
  t.path = file.path;
  t.name = info.name;
  t.dtype = a.dtype;
  t.shape = info.shape;
  t.offset = file.data_start + info.begin;
  t.item_size = npy_item_size(a.dtype);
  t.code_format = a.code_format;
  return t;
}

SafetensorsWriter::SafetensorsWriter(OutputSet& outputs, OutputId id, std::vector<SafetensorSpec> tensors,
                                     const std::map<std::string, std::string>& metadata)
    : out_(&outputs), id_(id), specs_(std::move(tensors)) {
  out_->append(id_, header_text(specs_, metadata, sizes_));
  while (tensor_ < sizes_.size() && sizes_[tensor_] == 0) ++tensor_;
}

void SafetensorsWriter::append(std::span<const std::byte> data) {
  while (!data.empty()) {
    if (tensor_ >= sizes_.size())
      throw Error("safetensors writer: " + std::to_string(data.size()) + " bytes appended after the last tensor of '" +
                  out_->target(id_).string() + "'");
    const std::uint64_t left = sizes_[tensor_] - done_;
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(left, data.size()));
    out_->append(id_, data.first(k));
    data = data.subspan(k);
    done_ += k;
    if (done_ == sizes_[tensor_]) {
      done_ = 0;
      ++tensor_;
      while (tensor_ < sizes_.size() && sizes_[tensor_] == 0) ++tensor_;
    }
  }
}

void SafetensorsWriter::finish() {
  if (tensor_ < sizes_.size())
    throw Error("safetensors writer: tensor " + quote_name(specs_[tensor_].name) + " of '" +
                out_->target(id_).string() + "' is " + std::to_string(sizes_[tensor_] - done_) + " bytes short");
  out_->finish(id_);
}

void write_safetensors(OutputSet& outputs, OutputId id, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  SafetensorsWriter w(outputs, id, specs_of(tensors), metadata);
  for (const auto& t : tensors) w.append(t.second.data);
  w.finish();
}

void write_safetensors(const std::filesystem::path& path, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  OutputSet out;
  write_safetensors(out, out.add_output(path, "output"), tensors, metadata);
  out.commit();
}

std::vector<std::byte> serialize_safetensors(const std::vector<std::pair<std::string, NpyArray>>& tensors,
                                             const std::map<std::string, std::string>& metadata) {
  std::vector<std::uint64_t> sizes;
  const std::string head = header_text(specs_of(tensors), metadata, sizes);
  std::vector<std::byte> out(reinterpret_cast<const std::byte*>(head.data()),
                             reinterpret_cast<const std::byte*>(head.data()) + head.size());
  for (const auto& t : tensors) out.insert(out.end(), t.second.data.begin(), t.second.data.end());
  return out;
}

}  // namespace minifloat
