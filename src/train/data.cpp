// SPDX-License-Identifier: Apache-2.0
// train/data.cpp: loaders for the simulator's real data (no download at run time).
#include "data.hpp"

#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "minifloat/error.hpp"

namespace minifloat::train::detail {

namespace {
std::string gunzip(const std::filesystem::path& path, const char* package) {
  if (!std::filesystem::is_regular_file(path))
    throw Error("no data file '" + path.string() + "' (Debian package " + package + "; scripts/setup installs it)");
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f)
    throw Error("cannot open '" + path.string() + "' (Debian package " + package + "; scripts/setup installs it)");
  std::string text;
  char buf[65536];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  const bool bad = n < 0;
  gzclose(f);
  if (bad) throw Error("corrupt gzip data in '" + path.string() + "'");
  return text;
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(s[at])} << 24) |
         (std::uint32_t{static_cast<unsigned char>(s[at + 1])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(s[at + 2])} << 8) |
         std::uint32_t{static_cast<unsigned char>(s[at + 3])};
}

void read_idx(const std::filesystem::path& images, const std::filesystem::path& labels, std::vector<float>& x,
              std::vector<int>& y) {
  const std::string im = gunzip(images, "dataset-fashion-mnist"), lb = gunzip(labels, "dataset-fashion-mnist");
  if (im.size() < 16 || be32(im, 0) != 0x803 || lb.size() < 8 || be32(lb, 0) != 0x801)
    throw Error("not an IDX image/label pair: '" + images.string() + "', '" + labels.string() + "'");
  const std::size_t n = be32(im, 4), rows = be32(im, 8), cols = be32(im, 12);
  if (rows * cols != 784 || be32(lb, 4) != n || im.size() != 16 + n * 784 || lb.size() != 8 + n)
    throw Error("truncated or mismatched IDX files '" + images.string() + "', '" + labels.string() + "'");
  x.resize(n * 784);
  y.resize(n);
  for (std::size_t i = 0; i < n * 784; ++i) x[i] = static_cast<float>(static_cast<unsigned char>(im[16 + i])) / 255.0f;
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<unsigned char>(lb[8 + i]);
}
}  // namespace

Images load_fashion_mnist(const std::filesystem::path& dir) {
  Images d;
  read_idx(dir / "train-images-idx3-ubyte.gz", dir / "train-labels-idx1-ubyte.gz", d.train_x, d.train_y);
  read_idx(dir / "t10k-images-idx3-ubyte.gz", dir / "t10k-labels-idx1-ubyte.gz", d.test_x, d.test_y);
  return d;
}

Digits load_digits(const std::filesystem::path& path) {
  const std::string text = gunzip(path, "python3-sklearn");
  Digits d;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<int> vals;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) {
      std::size_t used = 0;
      int v = -1;
      try {
        v = std::stoi(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != cell.size()) {
        std::string shown;  // printable, short: the file may be binary
        for (char ch : cell.substr(0, 16)) shown += (ch >= 32 && ch < 127) ? ch : '?';
        throw Error(
            "malformed digits row " + std::to_string(d.n + 1) + " in '" + path.string() + "': \"" + shown +
            (cell.size() > 16 ? "...\"" : "\"") +
            " is not an integer; expected the gzip CSV of python3-sklearn (64 pixels 0..16 and a label 0..9 per row)");
      }
      vals.push_back(v);
    }
    if (vals.size() != 65 || vals[64] < 0 || vals[64] > 9)
      throw Error("malformed digits row " + std::to_string(d.n + 1) + " in '" + path.string() +
                  "': expected 64 pixels and a label 0..9");
    for (int i = 0; i < 64; ++i) d.x.push_back(static_cast<float>(vals[static_cast<std::size_t>(i)]) / 16.0f);
    d.y.push_back(vals[64]);
    ++d.n;
  }
  if (d.n == 0) throw Error("no rows in the digits data '" + path.string() + "'");
  return d;
}

std::string load_fortunes(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw Error("cannot find the fortunes text folder '" + dir.string() +
                "' (Debian packages fortunes and fortunes-min; scripts/setup installs them)");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && !e.path().has_extension()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::string line;
    while (std::getline(in, line))
      if (line != "%") text += line + "\n";
  }
  if (text.size() < 10000) throw Error("too little text in '" + dir.string() + "'");
  return text;
}

}  // namespace minifloat::train::detail
