// SPDX-License-Identifier: MIT
// r2r-plugin-conformance --plugin LIB.so [--config CONFIG.json] [--iterations N] [gtest flags]
// Checks any r2r plugin library against the ABI contract: entry, ABI version, schema, example
// config, create/destroy loop, stable last_error, no escaping exception, the kind's messages.
// Vendors add it to their ctest (see sdk/template). Exit status is GoogleTest's.
#include "conformance_checks.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  r2r::conformance::options opts;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--plugin" || arg == "--config" || arg == "--iterations") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--plugin")
        opts.plugin = value;
      else if (arg == "--config")
        opts.config = value;
      else
        opts.iterations = std::stoi(value);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (opts.plugin.empty()) {
    std::cerr << "usage: r2r-plugin-conformance --plugin LIB.so [--config CONFIG.json] [--iterations N]\n";
    return 2;
  }
  std::error_code ec;
  opts.plugin = std::filesystem::absolute(opts.plugin, ec).lexically_normal();
  int rest_argc = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  ::testing::InitGoogleTest(&rest_argc, rest.data());
  if (!r2r::conformance::register_checks(opts)) return 1;
  return RUN_ALL_TESTS();
}
