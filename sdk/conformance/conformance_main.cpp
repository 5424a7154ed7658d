// SPDX-License-Identifier: MIT
// r2r-plugin-conformance --plugin LIB.so [--config CONFIG.json] [--set JSON] [--service NAME=LIB.so[:CONFIG.json]]
//                        [--require-available] [--iterations N] [gtest flags]
// Checks any r2r plugin library against the ABI contract: entry, ABI version, schema, example
// config, create/destroy loop, stable last_error, no escaping exception, the kind's messages.
// A plugin whose dependency (engine, server, tool, service) is absent here reports the checks that
// need it as SKIPPED with the plugin's reason, never as passed; --require-available makes that a
// failure. Vendors add it to their ctest (see sdk/template). Exit status is GoogleTest's.
#include "conformance_checks.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char* usage =
    "usage: r2r-plugin-conformance --plugin LIB.so [--config CONFIG.json] [--set JSON_MERGE_PATCH]\n"
    "                              [--service NAME=LIB.so[:CONFIG.json]]... [--require-available]\n"
    "                              [--iterations N] [gtest flags]\n";

}  // namespace

int main(int argc, char** argv) {
  r2r::conformance::options opts;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool takes_value =
        arg == "--plugin" || arg == "--config" || arg == "--iterations" || arg == "--set" || arg == "--service";
    if (takes_value && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--plugin") {
        opts.plugin = value;
      } else if (arg == "--config") {
        opts.config = value;
      } else if (arg == "--set") {
        try {
          const auto patch = nlohmann::json::parse(value);
          if (!patch.is_object()) throw std::invalid_argument("not an object");
          if (!opts.config_patch) opts.config_patch = nlohmann::json::object();
          opts.config_patch->merge_patch(patch);
        } catch (const std::exception& e) {
          std::cerr << "--set expects a JSON object (a merge patch over the config), found '" << value
                    << "': " << e.what() << "\n"
                    << usage;
          return 2;
        }
      } else if (arg == "--service") {
        std::string problem;
        auto s = r2r::conformance::parse_service_option(value, problem);
        if (!s) {
          std::cerr << problem << "\n" << usage;
          return 2;
        }
        opts.services.push_back(std::move(*s));
      } else {
        opts.iterations = std::stoi(value);
      }
    } else if (arg == "--require-available") {
      opts.require_available = true;
    } else if (takes_value) {
      std::cerr << arg << " needs a value\n" << usage;
      return 2;
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (opts.plugin.empty()) {
    std::cerr << usage;
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
