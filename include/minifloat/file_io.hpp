// SPDX-License-Identifier: Apache-2.0
// file_io.hpp: writing a file whole or not at all (tables, .npy, .safetensors, training outputs).
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

#include "error.hpp"

namespace minifloat {

/// Write `parts` (concatenated) to `path` atomically: a uniquely named temporary file in the same
/// folder, then rename over `path`. On any failure the temporary file is removed, `path` is left
/// as it was, and IoError is thrown naming the path and the reason.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::string_view> parts);
/// Same, one piece of content.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace minifloat
