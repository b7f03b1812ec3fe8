// SPDX-License-Identifier: Apache-2.0
// cli_run.hpp: the blocks CLI tests' one way to run the CLI (BLOCKS_CLI, set by tests/blocks/CMakeLists.txt)
// and read back its exit status and its stdout and stderr together.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace minifloat_test {

struct CliRun {
  int status;       ///< the exit status, or -1 when the CLI did not exit normally
  std::string out;  ///< stdout and stderr
};

/// Runs `BLOCKS_CLI args` through the shell (`env` is prefixed, e.g. "MINIFLOAT_X=1").
inline CliRun run_cli(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + (env.empty() ? "" : " ") + std::string(BLOCKS_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace minifloat_test
