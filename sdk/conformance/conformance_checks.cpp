// SPDX-License-Identifier: MIT
#include "conformance_checks.hpp"

#include "example_session.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_kind.hpp>
#include <r2r/core/plugin_loader.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

// An instance or call the plugin reported unavailable here (R2R_ERR_UNAVAILABLE: no engine, server,
// tool or service): the check is SKIPPED with the reason, or FAILS under --require-available. Never
// a pass. Returns from the calling check.
#define R2R_UNAVAILABLE(opts, why)                                                \
  do {                                                                            \
    if ((opts).require_available) {                                               \
      FAIL() << "unavailable here, but --require-available was given: " << (why); \
    } else {                                                                      \
      GTEST_SKIP() << "unavailable here: " << (why);                              \
    }                                                                             \
  } while (0)

namespace r2r::conformance {
namespace {

using r2r::core::loaded_plugin;
namespace fs = std::filesystem;

// The library stays loaded for the whole run; the checks share this outcome.
std::shared_ptr<core::load_outcome> g_outcome;

nlohmann::json read_json_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// The --service instances, served by name to every instance the checks create.
// OWNERSHIP: owns the service libraries and instances for the whole run. THREADING: one thread.
class service_set : public core::service_directory {
 public:
  bool load(const std::vector<service_option>& wanted, std::string& problem) {
    for (const auto& w : wanted) {
      auto outcome = std::make_shared<core::load_outcome>(core::load_plugin_file(w.library));
      if (outcome->plugins.empty()) {
        problem = "--service " + w.name + ": no usable plugin in " + w.library.string();
        for (const auto& d : outcome->disabled) problem += "; " + d.reason.to_string();
        return false;
      }
      const auto& plugin = outcome->plugins.front();
      nlohmann::json config = plugin.info.example_config;
      if (w.config) {
        try {
          config = read_json_file(*w.config);
        } catch (const std::exception& e) {
          problem = "--service " + w.name + ": the config " + w.config->string() + " is not readable JSON: " + e.what();
          return false;
        }
      }
      core::instance_options io;
      io.name = w.name;
      auto instance = core::plugin_instance::create(plugin, config, io);
      if (!instance) {
        problem =
            "--service " + w.name + ": " + plugin.info.id + " could not be created: " + instance.error().to_string();
        return false;
      }
      libraries_.push_back(outcome);
      instances_[w.name] = std::move(*instance);
    }
    return true;
  }
  core::plugin_instance* resolve(std::string_view name) override {
    const auto it = instances_.find(name);
    return it == instances_.end() ? nullptr : it->second.get();
  }
  /// Serves the instances to a raw fake host (errors come back as R2R_ERR_FAILED there).
  void serve_on(sdk::testing::fake_host& host) {
    for (auto& [name, instance] : instances_) {
      core::plugin_instance* i = instance.get();
      host.serve(name, [i](const std::string& method, const nlohmann::json& request) {
        auto r = i->call(method, request);
        if (!r) throw std::runtime_error(r.error().message);
        return *r;
      });
    }
  }

 private:
  std::vector<std::shared_ptr<core::load_outcome>> libraries_;  // released after the instances
  std::map<std::string, std::unique_ptr<core::plugin_instance>, std::less<>> instances_;
};

service_set& services() {
  static service_set set;
  return set;
}

core::instance_options with_services() {
  core::instance_options io;
  io.services = &services();
  return io;
}

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
    services().serve_on(host);
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
  nlohmann::json config = o.config ? read_json_file(*o.config) : p.info.example_config;
  if (o.config_patch) config.merge_patch(*o.config_patch);
  return config;
}

std::string last_error_of(const raw_instance& raw) {
  const char* m = raw.handle != nullptr ? raw.desc->last_error(raw.handle) : nullptr;
  return m != nullptr ? std::string(m) : std::string("create() returned R2R_ERR_UNAVAILABLE");
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
    auto instance = core::plugin_instance::create(p, config, with_services());
    if (!instance && instance.error().status == R2R_ERR_UNAVAILABLE) R2R_UNAVAILABLE(o, instance.error().message);
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
  if (raw.status == R2R_ERR_UNAVAILABLE) R2R_UNAVAILABLE(o, last_error_of(raw));
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
  if (raw.status == R2R_ERR_UNAVAILABLE) R2R_UNAVAILABLE(o, last_error_of(raw));
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
  if (core::kind_methods(kind).empty()) GTEST_SKIP() << "no message schemas for kind " << kind << " in this SDK";
  auto instance = core::plugin_instance::create(p, config_for(p, o), with_services());
  if (!instance && instance.error().status == R2R_ERR_UNAVAILABLE) R2R_UNAVAILABLE(o, instance.error().message);
  ASSERT_TRUE(instance.has_value()) << instance.error().to_string();
  example_session session(kind, core::kind_methods(kind));
  std::map<std::string, int> served;  // per method
  std::vector<std::string> unavailable;
  // plugin_instance checks every request and response against the kind's schemas.
  // Returns false when `method` is an optional method the plugin does not implement (allowed).
  const auto call = [&](const std::string& method, const nlohmann::json& request) -> bool {
    auto response = (*instance)->call(method, request);
    if (!response && response.error().status == R2R_ERR_UNKNOWN_METHOD && optional_method(kind, method)) {
      std::cout << "note: optional method " << method << " is not implemented\n";
      return false;
    }
    if (!response && response.error().status == R2R_ERR_UNAVAILABLE) {
      const std::string what = method + ": " + response.error().message;
      if (std::find(unavailable.begin(), unavailable.end(), what) == unavailable.end()) unavailable.push_back(what);
      served.emplace(method, 0);
      return true;
    }
    EXPECT_TRUE(response.has_value()) << method << " " << request.dump() << ": " << response.error().to_string();
    if (!response) return true;
    ++served[method];
    session.observe(method, *response);
    for (const auto& [next, next_request] : session.after(method)) {
      auto r = (*instance)->call(next, next_request);
      EXPECT_TRUE(r.has_value()) << next << " " << next_request.dump() << ": " << r.error().to_string();
      if (r) {
        EXPECT_EQ(r->value("exit_code", -1), 0) << next << " " << next_request.dump() << ": " << r->dump();
      }
    }
    return true;
  };
  for (const auto& method : session.methods()) {
    const auto* schema = core::message_schema(kind, method, true);
    ASSERT_NE(schema, nullptr);
    const auto examples = schema->document().value("examples", nlohmann::json::array());
    EXPECT_FALSE(examples.empty()) << kind << "/" << method << " request schema has no examples";
    for (const auto& example : examples) {
      std::string why_not;
      const auto request = session.prepare(method, example, why_not);
      if (!request) {
        std::cout << "note: " << method << " " << example.dump() << " not run: " << why_not << "\n";
        continue;
      }
      if (!call(method, *request)) break;
    }
  }
  if (!session.open_sandbox().empty()) call("destroy", {{"sandbox_id", session.open_sandbox()}});
  if (unavailable.empty()) return;
  std::string why;
  for (const auto& u : unavailable) why += (why.empty() ? "" : "; ") + u;
  // A method none of whose examples was served was never exercised: that is a skip, not a pass.
  for (const auto& [method, count] : served) {
    if (count == 0) R2R_UNAVAILABLE(o, why);
  }
  if (o.require_available) ADD_FAILURE() << "unavailable here, but --require-available was given: " << why;
  std::cout << "note: partly unavailable here (every method served at least one example): " << why << "\n";
}

void register_one(const char* suite, const std::string& name, const loaded_plugin* p, const options* o, check::body b) {
  ::testing::RegisterTest(suite, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [=]() -> ::testing::Test* { return new check(p, o, b); });
}

}  // namespace

std::optional<service_option> parse_service_option(const std::string& text, std::string& problem) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    problem = "--service expects NAME=LIBRARY.so[:CONFIG.json], found '" + text + "'";
    return std::nullopt;
  }
  service_option s;
  s.name = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  if (const auto colon = rest.find(':'); colon != std::string::npos) {
    s.config = fs::absolute(rest.substr(colon + 1)).lexically_normal();
    rest = rest.substr(0, colon);
  }
  s.library = fs::absolute(rest).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(s.library, ec)) {
    problem = "--service " + s.name + ": the library " + s.library.string() + " does not exist";
    return std::nullopt;
  }
  return s;
}

bool register_checks(const options& opts) {
  static options stored;
  stored = opts;
  std::string problem;
  if (!services().load(opts.services, problem)) {
    std::cerr << problem << "\n";
    return false;
  }
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
    if (stored.config || stored.config_patch)
      register_one(suite, "GivenConfigValidates", &plugin, &stored, &given_config_validates);
    register_one(suite, "CreateDestroyLoop", &plugin, &stored, &create_destroy_loop);
    register_one(suite, "MalformedConfigIsAnError", &plugin, &stored, &malformed_config_is_an_error);
    register_one(suite, "UnknownMethodAndStableLastError", &plugin, &stored, &unknown_method_and_stable_last_error);
    register_one(suite, "NoExceptionEscapes", &plugin, &stored, &no_exception_escapes);
    register_one(suite, "KindContract", &plugin, &stored, &kind_contract);
  }
  return true;
}

}  // namespace r2r::conformance
