// SPDX-License-Identifier: Apache-2.0
// safetensors.cpp: .safetensors header parsing (nlohmann-json), tensor reads and file writes.
#include "minifloat/safetensors.hpp"

#include "minifloat/file_io.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

namespace minifloat {
namespace {

struct DtypeMap {
  const char* st;
  const char* npy;
  std::size_t size;
};
constexpr DtypeMap kMap[] = {{"F32", "<f4", 4}, {"F16", "<f2", 2}, {"BF16", "<V2", 2}, {"F64", "<f8", 8},
                             {"U8", "|u1", 1},  {"I8", "|i1", 1},  {"U16", "<u2", 2}};
constexpr std::pair<const char*, std::size_t> kOtherSizes[] = {
    {"BOOL", 1}, {"I16", 2}, {"I32", 4}, {"U32", 4}, {"I64", 8}, {"U64", 8}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}};

std::size_t dtype_size(const std::string& d) {
  for (const auto& m : kMap)
    if (d == m.st) return m.size;
  for (const auto& [n, s] : kOtherSizes)
    if (d == n) return s;
  return 0;
}

[[noreturn]] void bad(const std::filesystem::path& p, const std::string& why) {
  throw ParseError(p.string() + ": not a valid .safetensors file: " + why);
}

}  // namespace

bool safetensors_dtype_is_numeric(const std::string& dtype) {
  return std::any_of(std::begin(kMap), std::end(kMap), [&](const DtypeMap& m) { return dtype == m.st; });
}

SafetensorsFile read_safetensors_header(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open '" + path.string() + "' for reading");
  std::error_code ec;
  const auto fsize = static_cast<std::size_t>(std::filesystem::file_size(path, ec));
  if (ec) throw IoError("cannot read '" + path.string() + "': " + ec.message());
  if (fsize < 8) bad(path, "shorter than the 8-byte header length");
  unsigned char lenb[8];
  if (!in.read(reinterpret_cast<char*>(lenb), 8)) throw IoError("cannot read '" + path.string() + "'");
  std::uint64_t hlen = 0;
  for (int k = 7; k >= 0; --k) hlen = (hlen << 8) | lenb[k];
  if (hlen > fsize - 8) bad(path, "header length " + std::to_string(hlen) + " runs past the end of the file (" +
                                      std::to_string(fsize) + " bytes)");
  if (hlen > (std::uint64_t{100} << 20)) bad(path, "header larger than 100 MiB");
  std::string header(static_cast<std::size_t>(hlen), '\0');
  if (hlen && !in.read(header.data(), static_cast<std::streamsize>(hlen))) throw IoError("cannot read '" + path.string() + "'");

  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header);
  } catch (const nlohmann::json::exception& e) {
    bad(path, std::string("header is not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object()) bad(path, "header is not a JSON object");

  SafetensorsFile f;
  f.path = path;
  f.data_start = 8 + static_cast<std::size_t>(hlen);
  const std::size_t data_size = fsize - f.data_start;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) bad(path, "__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) bad(path, "__metadata__ value of '" + m.key() + "' is not a string");
        f.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) bad(path, "entry '" + name + "' is not an object");
    if (!v.contains("dtype") || !v["dtype"].is_string()) bad(path, "entry '" + name + "' lacks a string dtype");
    if (!v.contains("shape") || !v["shape"].is_array()) bad(path, "entry '" + name + "' lacks a shape array");
    if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2)
      bad(path, "entry '" + name + "' lacks data_offsets [begin, end]");
    SafetensorInfo t;
    t.name = name;
    t.dtype = v["dtype"].get<std::string>();
    std::size_t n = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) bad(path, "entry '" + name + "' has a non-integer or negative dimension");
      const auto dim = d.get<std::uint64_t>();
      if (dim != 0 && n > std::numeric_limits<std::size_t>::max() / dim) bad(path, "entry '" + name + "': shape overflows");
      t.shape.push_back(static_cast<std::size_t>(dim));
      n *= static_cast<std::size_t>(dim);
    }
    for (const auto& o : v["data_offsets"])
      if (!o.is_number_unsigned()) bad(path, "entry '" + name + "' has a non-integer data offset");
    t.begin = static_cast<std::size_t>(v["data_offsets"][0].get<std::uint64_t>());
    t.end = static_cast<std::size_t>(v["data_offsets"][1].get<std::uint64_t>());
    if (t.begin > t.end || t.end > data_size)
      bad(path, "entry '" + name + "' has data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                    "] outside the " + std::to_string(data_size) + "-byte data section (truncated file?)");
    const std::size_t item = dtype_size(t.dtype);
    if (item != 0 && (n > std::numeric_limits<std::size_t>::max() / item || t.end - t.begin != n * item))
      bad(path, "entry '" + name + "' holds " + std::to_string(t.end - t.begin) + " bytes but its shape and dtype " +
                    t.dtype + " need " + std::to_string(n * item));
    f.tensors.push_back(std::move(t));
  }
  std::sort(f.tensors.begin(), f.tensors.end(),
            [](const SafetensorInfo& a, const SafetensorInfo& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
  for (std::size_t k = 1; k < f.tensors.size(); ++k)
    if (f.tensors[k].begin < f.tensors[k - 1].end)
      bad(path, "tensors '" + f.tensors[k - 1].name + "' and '" + f.tensors[k].name + "' overlap");
  return f;
}

TensorLocation locate_safetensor(const SafetensorsFile& file, const SafetensorInfo& info) {
  const DtypeMap* m = nullptr;
  for (const auto& x : kMap)
    if (info.dtype == x.st) m = &x;
  if (!m)
    throw ParseError("tensor '" + info.name + "' has dtype " + info.dtype +
                     "; minifloat reads F32, F16, BF16, F64, U8, I8, U16");
  TensorLocation t;
  t.path = file.path;
  t.name = info.name;
  t.dtype = m->npy;
  t.shape = info.shape;
  t.offset = file.data_start + info.begin;
  t.item_size = m->size;
  return t;
}

NpyArray read_safetensor(const SafetensorsFile& file, const SafetensorInfo& info) {
  const TensorLocation loc = locate_safetensor(file, info);
  NpyArray a{loc.dtype, info.shape, {}};
  a.data.resize(info.end - info.begin);
  TensorReader(loc).read_bytes(0, a.data);
  return a;
}

NpyArray read_safetensor(const SafetensorsFile& file, const std::string& name) {
  return read_safetensor(file, find_safetensor(file, name));
}

const SafetensorInfo& find_safetensor(const SafetensorsFile& file, const std::string& name) {
  for (const auto& t : file.tensors)
    if (t.name == name) return t;
  std::string names;
  for (std::size_t k = 0; k < file.tensors.size() && k < 20; ++k) names += (k ? ", " : "") + file.tensors[k].name;
  if (file.tensors.size() > 20) names += ", …";
  throw NameError("no tensor '" + name + "' in '" + file.path.string() + "'; it holds: " + names);
}

SafetensorsWriter::SafetensorsWriter(OutputSet& outputs, OutputId id, std::vector<SafetensorSpec> tensors,
                                     const std::map<std::string, std::string>& metadata)
    : out_(&outputs), id_(id), specs_(std::move(tensors)) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json md = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) md[k] = v;
    j["__metadata__"] = md;
  }
  std::set<std::string> seen;
  std::uint64_t off = 0;
  for (const auto& t : specs_) {
    if (t.name == "__metadata__" || !seen.insert(t.name).second)
      throw ParseError("safetensors: duplicate or reserved tensor name '" + t.name + "'");
    const DtypeMap* m = nullptr;
    for (const auto& x : kMap)
      if (t.dtype == x.npy) m = &x;
    if (!m) throw ParseError("safetensors: cannot store dtype '" + t.dtype + "' of tensor '" + t.name + "'");
    std::uint64_t bytes = m->size;
    for (auto d : t.shape) {
      if (d != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / d)
        throw ParseError("safetensors: the shape of tensor '" + t.name + "' overflows");
      bytes *= d;
    }
    nlohmann::ordered_json e;
    e["dtype"] = m->st;
    e["shape"] = t.shape;
    e["data_offsets"] = {off, off + bytes};
    j[t.name] = e;
    sizes_.push_back(bytes);
    off += bytes;
  }
  std::string header = j.dump();
  header.append((8 - header.size() % 8) % 8, ' ');
  unsigned char lenb[8];
  for (int k = 0; k < 8; ++k) lenb[k] = static_cast<unsigned char>((static_cast<std::uint64_t>(header.size()) >> (8 * k)) & 0xff);
  out_->append(id_, std::string_view(reinterpret_cast<const char*>(lenb), 8));
  out_->append(id_, header);
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
    throw Error("safetensors writer: tensor '" + specs_[tensor_].name + "' of '" + out_->target(id_).string() + "' is " +
                std::to_string(sizes_[tensor_] - done_) + " bytes short");
  out_->finish(id_);
}

void write_safetensors(OutputSet& outputs, OutputId id, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<SafetensorSpec> specs;
  for (const auto& [name, a] : tensors) {
    if (a.data.size() != a.element_count() * npy_item_size(a.dtype))
      throw ParseError("safetensors: tensor '" + name + "' data size does not match its shape");
    specs.push_back({name, a.dtype, a.shape});
  }
  SafetensorsWriter w(outputs, id, std::move(specs), metadata);
  for (const auto& t : tensors) w.append(t.second.data);
  w.finish();
}

void write_safetensors(const std::filesystem::path& path, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  OutputSet out;
  write_safetensors(out, out.add_output(path, "output"), tensors, metadata);
  out.commit();
}

}  // namespace minifloat
