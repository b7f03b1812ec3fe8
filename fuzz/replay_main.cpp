// SPDX-License-Identifier: Apache-2.0
// replay_main.cpp: runs LLVMFuzzerTestOneInput on every file of the given files/directories,
// so a fuzz corpus replays as an ordinary test with any compiler (no libFuzzer needed).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.string().c_str());
    return 1;
  }
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  int files = 0, errors = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> paths;
      for (const auto& e : std::filesystem::directory_iterator(arg))
        if (e.is_regular_file()) paths.push_back(e.path());
      std::sort(paths.begin(), paths.end());
      for (const auto& p : paths) {
        errors += replay_file(p);
        ++files;
      }
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      errors += replay_file(arg);
      ++files;
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", argv[i]);
      return 2;
    }
  }
  if (files == 0) {
    std::fprintf(stderr, "replay: no corpus files found\n");
    return 1;
  }
  std::printf("replayed %d corpus files, every property held\n", files);
  return errors == 0 ? 0 : 1;
}
