// SPDX-License-Identifier: Apache-2.0
// fuzz_probe_manifest.cpp: libFuzzer target for the probe manifest reader
// (minifloat::check::parse_probe_manifest, what `probe check DIR` reads from DIR/manifest.json).
// Input: the manifest text. Property: the reader either throws one minifloat::ParseError line naming
// the file, or returns a target that validate() accepts and whose re-printed manifest (the fields
// `probe gen` writes, built here with nlohmann::json) parses back to the same target — elementwise,
// dot and GEMM ("target" kind dot / gemm) and block ("block_target") manifests.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "minifloat/check/probe_files.hpp"
#include "minifloat/registry.hpp"

namespace {

using minifloat_fuzz::require;
namespace check = minifloat::check;
constexpr const char* kWhat = "fuzz/manifest.json";

std::string reprint(const check::ProbeManifest& p) {
  nlohmann::json m;
  if (p.kind == check::ProbeManifest::Kind::block) {
    const check::BlockTarget& t = p.block;
    m["block_target"] = {{"scheme", minifloat::scheme_spec(t.scheme)},
                         {"block", check::block_size(t)},
                         {"round", std::string(minifloat::name(t.rounding.rounding))},
                         {"overflow", std::string(minifloat::name(t.rounding.overflow))},
                         {"profile", std::string(minifloat::profile_name(t.profile))},
                         {"packing", std::string(minifloat::name(t.packing))},
                         {"mx_quirks", std::string(minifloat::name(t.mx_quirks))}};
  } else if (p.kind == check::ProbeManifest::Kind::dot || p.kind == check::ProbeManifest::Kind::gemm) {
    m["target"] = {{"kind", p.kind == check::ProbeManifest::Kind::dot ? "dot" : "gemm"},
                   {"a", minifloat::format_name(p.dot.a)},
                   {"b", minifloat::format_name(p.dot.b)},
                   {"k", p.dot.k},
                   {"model", p.dot.model.name}};
    if (p.kind == check::ProbeManifest::Kind::gemm) {
      m["target"]["m"] = p.m;
      m["target"]["n"] = p.n;
    }
  } else {
    const check::Target& t = p.target;
    m["target"] = {{"from", minifloat::format_name(t.from)},
                   {"to", minifloat::format_name(t.to)},
                   {"round", std::string(minifloat::name(t.spec.rounding))},
                   {"overflow", std::string(minifloat::name(t.spec.overflow))},
                   {"sr_variant", std::string(minifloat::name(t.spec.sr_variant))},
                   {"sr_bits", t.spec.sr_bits},
                   {"profile", std::string(minifloat::profile_name(t.profile))},
                   {"packing", std::string(minifloat::name(t.packing))}};
    m["ulps"] = p.ulps;
  }
  return m.dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check::ProbeManifest p;
  try {
    p = check::parse_probe_manifest(text, kWhat);
  } catch (const minifloat::ParseError& e) {
    minifloat_fuzz::check_message(e.what(), kWhat, 4000);
    return 0;
  }
  const check::ProbeManifest q = check::parse_probe_manifest(reprint(p), kWhat);
  require(q.kind == p.kind, "kind changed on reprint");
  if (p.kind == check::ProbeManifest::Kind::block) {
    require(q.block.scheme == p.block.scheme && q.block.rounding == p.block.rounding && q.block.packing == p.block.packing &&
                q.block.mx_quirks == p.block.mx_quirks &&
                minifloat::profile_name(q.block.profile) == minifloat::profile_name(p.block.profile),
            "block target changed on reprint");
  } else if (p.kind == check::ProbeManifest::Kind::dot || p.kind == check::ProbeManifest::Kind::gemm) {
    require(q.dot.a == p.dot.a && q.dot.b == p.dot.b && q.dot.k == p.dot.k && q.dot.model.name == p.dot.model.name &&
                q.m == p.m && q.n == p.n,
            "dot/gemm target changed on reprint");
  } else {
    require(q.target.from == p.target.from && q.target.to == p.target.to && q.target.spec == p.target.spec && q.target.packing == p.target.packing &&
                q.ulps == p.ulps && minifloat::profile_name(q.target.profile) == minifloat::profile_name(p.target.profile),
            "elementwise target changed on reprint");
  }
  return 0;
}
