// SPDX-License-Identifier: MIT
#include "conformance_checks.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_kind.hpp>
#include <r2r/core/plugin_loader.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace r2r::conformance {
namespace {

using r2r::core::loaded_plugin;

// The library stays loaded for the whole run; the checks share this outcome.
std::shared_ptr<core::load_outcome> g_outcome;

r2r_str str(const std::string& s) {
  return r2r_str{s.data(), s.size()};
}

// One raw create() through the C ABI with a fake host; destroys whatever it got.
struct raw_instance {
  const r2r_plugin_desc* desc;
  sdk::testing::fake_host host;
  r2r_instance* handle = nullptr;
  r2r_status status = R2R_OK;
  raw_instance(const r2r_plugin_desc* d, const std::string& config) : desc(d) {
    status = desc->create(host.api(), str(config), &handle);
  }
  ~raw_instance() {
    if (handle != nullptr) desc->destroy(handle);
  }
  r2r_status call(const std::string& method, const std::string& request, std::string* response = nullptr) {
    r2r_str out{nullptr, 0};
    const r2r_status s = desc->call(handle, str(method), str(request), nullptr, &out);
    if (response != nullptr && out.data != nullptr) response->assign(out.data, out.size);
    return s;
  }
};

class check : public ::testing::Test {
 public:
  using body = void (*)(const loaded_plugin&, const options&);
  check(const loaded_plugin* p, const options* o, body b) : plugin_(p), opts_(o), body_(b) {}
  void TestBody() override { body_(*plugin_, *opts_); }

 private:
  const loaded_plugin* plugin_;
  const options* opts_;
  body body_;
};

nlohmann::json config_for(const loaded_plugin& p, const options& o) {
  if (!o.config) return p.info.example_config;
  std::ifstream in(*o.config);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

void example_config_validates(const loaded_plugin& p, const options&) {
  EXPECT_TRUE(p.info.config_schema.is_object()) << "config schema must be a JSON object";
  EXPECT_TRUE(p.info.example_config.is_object()) << "example config must be a JSON object";
  for (const auto& v : p.config_schema->validate(p.info.example_config)) ADD_FAILURE() << core::format_violation(v);
}

void given_config_validates(const loaded_plugin& p, const options& o) {
  nlohmann::json config;
  ASSERT_NO_THROW(config = config_for(p, o)) << "--config is not readable JSON";
  for (const auto& v : p.config_schema->validate(config)) ADD_FAILURE() << core::format_violation(v);
}

void create_destroy_loop(const loaded_plugin& p, const options& o) {
  const auto config = config_for(p, o);
  for (int i = 0; i < o.iterations; ++i) {
    auto instance = core::plugin_instance::create(p, config);
    ASSERT_TRUE(instance.has_value()) << "iteration " << i << ": " << instance.error().to_string();
  }
}

void malformed_config_is_an_error(const loaded_plugin& p, const options&) {
  raw_instance raw(p.descriptor, "{ not json");
  EXPECT_NE(raw.status, R2R_OK) << "create() accepted malformed JSON config";
  if (raw.handle != nullptr) {
    const char* message = p.descriptor->last_error(raw.handle);
    ASSERT_NE(message, nullptr);
    EXPECT_STRNE(message, "") << "create() failed without a message in last_error()";
  }
}

void unknown_method_and_stable_last_error(const loaded_plugin& p, const options& o) {
  raw_instance raw(p.descriptor, config_for(p, o).dump());
  ASSERT_EQ(raw.status, R2R_OK) << "create() with the example config failed";
  EXPECT_EQ(raw.call("r2r.conformance.no_such_method", "{}"), R2R_ERR_UNKNOWN_METHOD);
  const char* first = p.descriptor->last_error(raw.handle);
  ASSERT_NE(first, nullptr);
  const std::string copy = first;
  EXPECT_FALSE(copy.empty()) << "last_error() is empty after a failed call";
  const char* second = p.descriptor->last_error(raw.handle);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(copy, std::string(second)) << "last_error() changed without an intervening call";
}

/// A method whose request schema says "x-r2r-optional": true may be absent from a plugin.
bool optional_method(const std::string& kind, const std::string& method) {
  const auto* schema = core::message_schema(kind, method, true);
  return schema != nullptr && schema->document().value("x-r2r-optional", false);
}

void no_exception_escapes(const loaded_plugin& p, const options& o) {
  // Any escaping exception would terminate this process, failing the run.
  raw_instance raw(p.descriptor, config_for(p, o).dump());
  ASSERT_EQ(raw.status, R2R_OK);
  const std::string kind(core::kind_name(p.info.kind));
  for (const auto& method : core::kind_methods(kind)) {
    const auto status = raw.call(method, "this is not JSON");
    if (status == R2R_ERR_UNKNOWN_METHOD && optional_method(kind, method)) continue;  // not implemented: allowed
    EXPECT_EQ(status, R2R_ERR_INVALID_ARGUMENT) << method << " with malformed JSON";
    EXPECT_NE(raw.call(method, "[1,2,3]"), R2R_OK) << method << " accepted an array as request";
    raw.call(method, "{}");
    raw.call(method, R"({"action": 5, "observation": "x"})");
  }
}

void kind_contract(const loaded_plugin& p, const options& o) {
  const std::string kind(core::kind_name(p.info.kind));
  const auto methods = core::kind_methods(kind);
  if (methods.empty()) GTEST_SKIP() << "no message schemas for kind " << kind << " in this SDK";
  auto instance = core::plugin_instance::create(p, config_for(p, o));
  ASSERT_TRUE(instance.has_value()) << instance.error().to_string();
  for (const auto& method : methods) {
    const auto* schema = core::message_schema(kind, method, true);
    ASSERT_NE(schema, nullptr);
    const auto examples = schema->document().value("examples", nlohmann::json::array());
    EXPECT_FALSE(examples.empty()) << kind << "/" << method << " request schema has no examples";
    for (const auto& example : examples) {
      // plugin_instance checks the request and the response against the kind's schemas.
      auto response = (*instance)->call(method, example);
      if (!response && response.error().status == R2R_ERR_UNKNOWN_METHOD && optional_method(kind, method)) {
        std::cout << "note: optional method " << method << " is not implemented\n";
        break;
      }
      if (!response && response.error().status == R2R_ERR_UNAVAILABLE) {
        // A dependency (server, tool, device) is absent here; the plugin said so properly.
        std::cout << "note: " << method << " unavailable here: " << response.error().message << "\n";
        continue;
      }
      EXPECT_TRUE(response.has_value()) << method << " " << example.dump() << ": " << response.error().to_string();
    }
  }
}

void register_one(const char* suite, const std::string& name, const loaded_plugin* p, const options* o, check::body b) {
  ::testing::RegisterTest(suite, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [=]() -> ::testing::Test* { return new check(p, o, b); });
}

}  // namespace

bool register_checks(const options& opts) {
  static options stored;
  stored = opts;
  g_outcome = std::make_shared<core::load_outcome>(core::load_plugin_file(opts.plugin));
  const auto outcome = g_outcome;
  ::testing::RegisterTest("Library", "LoadsWithoutDisabledPlugins", nullptr, nullptr, __FILE__, __LINE__,
                          [outcome]() -> ::testing::Test* {
                            struct t : ::testing::Test {
                              std::shared_ptr<core::load_outcome> o;
                              explicit t(std::shared_ptr<core::load_outcome> x) : o(std::move(x)) {}
                              void TestBody() override {
                                EXPECT_FALSE(o->plugins.empty()) << "no usable plugin in the library";
                                for (const auto& d : o->disabled) ADD_FAILURE() << d.reason.to_string();
                              }
                            };
                            return new t(outcome);
                          });
  for (const auto& plugin : g_outcome->plugins) {
    const char* suite = plugin.info.id.c_str();
    register_one(suite, "ExampleConfigValidates", &plugin, &stored, &example_config_validates);
    if (stored.config) register_one(suite, "GivenConfigValidates", &plugin, &stored, &given_config_validates);
    register_one(suite, "CreateDestroyLoop", &plugin, &stored, &create_destroy_loop);
    register_one(suite, "MalformedConfigIsAnError", &plugin, &stored, &malformed_config_is_an_error);
    register_one(suite, "UnknownMethodAndStableLastError", &plugin, &stored, &unknown_method_and_stable_last_error);
    register_one(suite, "NoExceptionEscapes", &plugin, &stored, &no_exception_escapes);
    register_one(suite, "KindContract", &plugin, &stored, &kind_contract);
  }
  return true;
}

}  // namespace r2r::conformance
