// SPDX-License-Identifier: Apache-2.0
// cli_driver.cpp: a minimal `minifloat` front end with only quantize/report/compare, so the blocks
// tests can run the commands before src/cli/main.cpp wires them (same exit codes: 0 ok,
// 1 mismatch, 2 bad input with one line on stderr).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>

#include "cmd_compare.hpp"
#include "cmd_quantize.hpp"
#include "cmd_report.hpp"
#include "minifloat/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"minifloat (blocks test driver)"};
  app.require_subcommand(1);
  minifloat::cli::QuantizeOptions qo;
  minifloat::cli::ReportOptions ro;
  minifloat::cli::CompareOptions co;
  minifloat::cli::add_quantize_command(app, qo);
  minifloat::cli::add_report_command(app, ro);
  minifloat::cli::add_compare_command(app, co);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "minifloat: {}\n", e.what());
    return 2;
  }
  try {
    if (app.got_subcommand("quantize")) return minifloat::cli::run_quantize(qo);
    if (app.got_subcommand("report")) return minifloat::cli::run_report(ro);
    return minifloat::cli::run_compare(co);
  } catch (const minifloat::Error& e) {
    fmt::print(stderr, "minifloat: {}\n", e.what());
    return 2;
  }
}
