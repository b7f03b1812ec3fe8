// SPDX-License-Identifier: Apache-2.0
// train/data.hpp (internal): real data from installed Debian packages, read at run time.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace minifloat::train::detail {

/// scikit-learn digits (Debian python3-sklearn): 1797 × (64 pixels 0..16, label).
struct Digits {
  std::vector<float> x;  // n × 64, scaled by 1/16
  std::vector<int> y;
  int n = 0;
};
inline const char* kDigitsPath = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
/// Reads the gzip CSV; throws minifloat::IoError-like Error naming the file and the package.
Digits load_digits(const std::filesystem::path& path);

/// Fashion-MNIST (Debian dataset-fashion-mnist): IDX files, gzip; images scaled by 1/255.
struct Images {
  std::vector<float> train_x, test_x;  // n × 784
  std::vector<int> train_y, test_y;
};
inline const char* kFashionDir = "/usr/share/datasets/fashion-mnist";
/// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz from `dir`; throws Error naming the file.
Images load_fashion_mnist(const std::filesystem::path& dir);

inline const char* kFortunesDir = "/usr/share/games/fortunes";
/// Concatenated text of the Debian `fortunes`/`fortunes-min` files (the plain files without
/// extension, sorted by name), '%' separator lines removed. Throws Error when missing.
std::string load_fortunes(const std::filesystem::path& dir);

}  // namespace minifloat::train::detail
