// SPDX-License-Identifier: MIT
// One real .so per failure mode, loaded through the real loader.
#include "test_support.hpp"

#include <r2r/core/dynamic_library.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_loader.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace {

using r2r::core::phase;
using ::testing::HasSubstr;

// Loads a fixture expecting exactly one disabled record; returns it.
r2r::core::disabled_plugin only_disabled(const std::string& name) {
  auto outcome = r2r::core::load_plugin_file(r2r::test::fixture(name));
  EXPECT_TRUE(outcome.plugins.empty()) << name << " should not load";
  EXPECT_EQ(outcome.disabled.size(), 1u) << name;
  return outcome.disabled.empty() ? r2r::core::disabled_plugin{} : outcome.disabled.front();
}

TEST(Loader, LoadsAValidPlainCPlugin) {
  auto outcome = r2r::core::load_plugin_file(r2r::test::fixture("good_c"));
  ASSERT_EQ(outcome.plugins.size(), 1u);
  EXPECT_TRUE(outcome.disabled.empty());
  const auto& p = outcome.plugins.front();
  EXPECT_EQ(p.info.id, "test.guard.good_c");
  EXPECT_EQ(p.info.version, "1.0.0");
  EXPECT_EQ(p.info.abi_major, R2R_ABI_MAJOR);
  EXPECT_FALSE(p.info.has_manifest);
  auto instance = r2r::core::plugin_instance::create(p, nlohmann::json::object());
  ASSERT_TRUE(instance.has_value()) << instance.error().to_string();
  auto response = (*instance)->call("check_action", {{"action", {{"type", "run"}, {"command", "ls"}}}});
  ASSERT_TRUE(response.has_value()) << response.error().to_string();
  EXPECT_EQ((*response)["decision"], "allow");
}

TEST(Loader, NoEntrySymbolIsRejectedAtPreflight) {
  const auto d = only_disabled("no_entry");
  EXPECT_EQ(d.reason.where, phase::preflight);
  EXPECT_THAT(d.reason.message, HasSubstr("no r2r_plugin_entry_v1 export"));
  EXPECT_THAT(d.reason.to_string(), HasSubstr("libr2r-guard-no_entry.so"));
}

TEST(Loader, AbiMajorMismatchIsRejected) {
  const auto d = only_disabled("abi_major_mismatch");
  EXPECT_EQ(d.reason.where, phase::abi);
  EXPECT_THAT(d.reason.message, HasSubstr("plugin ABI 2.0 not compatible with host ABI 1.0"));
}

TEST(Loader, NewerMinorIsRejectedWithUpgradeAdvice) {
  const auto d = only_disabled("abi_minor_newer");
  EXPECT_EQ(d.reason.where, phase::abi);
  EXPECT_THAT(d.reason.message, HasSubstr("plugin needs ABI 1.3 but this host provides 1.0"));
  EXPECT_THAT(d.reason.message, HasSubstr("upgrade repo2rocm"));
}

TEST(Loader, DescriptorLargerThanTheHostKnowsIsRejected) {
  const auto d = only_disabled("struct_size_too_big");
  EXPECT_EQ(d.reason.where, phase::abi);
  EXPECT_THAT(d.reason.message, HasSubstr(std::to_string(sizeof(r2r_plugin_desc) + 64) + " bytes"));
}

TEST(Loader, NullOperationsAreNamed) {
  const auto d = only_disabled("null_ops");
  EXPECT_EQ(d.reason.where, phase::capability);
  EXPECT_EQ(d.id, "test.guard.null_ops");
  EXPECT_THAT(d.reason.message, HasSubstr("null operations: create call"));
}

TEST(Loader, InvalidConfigSchemaIsRejected) {
  const auto d = only_disabled("bad_schema");
  EXPECT_EQ(d.reason.where, phase::schema);
  EXPECT_THAT(d.reason.message, HasSubstr("not a valid JSON Schema"));
}

TEST(Loader, UndefinedSymbolFailsAtLoadNotAtFirstCall) {
  const auto d = only_disabled("undefined_symbol");
  EXPECT_EQ(d.reason.where, phase::dlopen);
  EXPECT_THAT(d.reason.message, HasSubstr("undefined symbol: r2r_fixture_host_only_symbol"));
}

TEST(Loader, PreflightRunsNoCodeOfARejectedFile) {
  r2r::test::temp_dir tmp;
  const auto marker = tmp.path() / "marker";
  ::setenv("R2R_FIXTURE_MARKER", marker.c_str(), 1);
  const auto d = only_disabled("static_ctor_side_effect");
  EXPECT_EQ(d.reason.where, phase::preflight);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the static constructor ran during pre-flight";

  // Control: loading the file for real does run the constructor, so the check above can fail.
  auto lib = r2r::core::dynamic_library::open(r2r::test::fixture("static_ctor_side_effect"));
  ASSERT_TRUE(lib.has_value()) << lib.error().to_string();
  EXPECT_TRUE(std::filesystem::exists(marker));
  ::unsetenv("R2R_FIXTURE_MARKER");
}

TEST(Loader, CreateFailureCarriesThePluginsMessage) {
  auto outcome = r2r::core::load_plugin_file(r2r::test::fixture("create_fails"));
  ASSERT_EQ(outcome.plugins.size(), 1u);
  auto instance = r2r::core::plugin_instance::create(outcome.plugins.front(), nlohmann::json::object());
  ASSERT_FALSE(instance.has_value());
  EXPECT_EQ(instance.error().where, phase::create);
  EXPECT_THAT(instance.error().message, HasSubstr("unavailable"));
  EXPECT_THAT(instance.error().message, HasSubstr("the device /dev/kfd is missing"));
  EXPECT_EQ(instance.error().plugin_id, "test.guard.create_fails");
}

TEST(Loader, CorruptFileIsRejectedWithAReason) {
  r2r::test::temp_dir tmp;
  const auto file = tmp.write("libr2r-guard-corrupt.so", std::string("\x7f"
                                                                     "ELF this is not really ELF"));
  auto outcome = r2r::core::load_plugin_file(file);
  ASSERT_EQ(outcome.disabled.size(), 1u);
  EXPECT_EQ(outcome.disabled.front().reason.where, phase::preflight);
  EXPECT_THAT(outcome.disabled.front().reason.message, HasSubstr("not a readable ELF shared library"));
}

TEST(Loader, MissingFileIsRejected) {
  auto outcome = r2r::core::load_plugin_file("/nonexistent/libr2r-guard-x.so");
  ASSERT_EQ(outcome.disabled.size(), 1u);
  EXPECT_THAT(outcome.disabled.front().reason.message, HasSubstr("not a regular file"));
}

TEST(Loader, InTreePluginLoadsWithItsGeneratedManifest) {
  auto outcome = r2r::core::load_plugin_file(r2r::test::plugin_dir() / "libr2r-guard-cpu-fallback.so");
  ASSERT_EQ(outcome.plugins.size(), 1u);
  EXPECT_TRUE(outcome.plugins.front().info.has_manifest);
  EXPECT_EQ(outcome.plugins.front().info.id, "r2r.guard.cpu-fallback");
}

TEST(Loader, ManifestThatDisagreesWithTheBinaryDisablesThePlugin) {
  r2r::test::temp_dir tmp;
  const auto copy = tmp.path() / "libr2r-guard-good_c.so";
  std::filesystem::copy_file(r2r::test::fixture("good_c"), copy);
  tmp.write("libr2r-guard-good_c.plugin.json",
            R"({"manifest_version":1,"library":"libr2r-guard-good_c.so","plugins":[
                {"id":"test.guard.good_c","kind":"guard","version":"9.9.9","abi":"1.0"}]})");
  auto outcome = r2r::core::load_plugin_file(copy);
  ASSERT_EQ(outcome.disabled.size(), 1u);
  EXPECT_EQ(outcome.disabled.front().reason.where, phase::manifest);
  EXPECT_THAT(outcome.disabled.front().reason.message, HasSubstr("manifest and binary disagree"));
  EXPECT_THAT(outcome.disabled.front().reason.message, HasSubstr("version '9.9.9' vs '1.0.0'"));

  tmp.write("libr2r-guard-good_c.plugin.json", "{ not json");
  outcome = r2r::core::load_plugin_file(copy);
  ASSERT_EQ(outcome.disabled.size(), 1u);
  EXPECT_THAT(outcome.disabled.front().reason.message, HasSubstr("manifest is not valid JSON"));
}

TEST(Loader, SameFileLoadsTwiceAndInstancesOutliveTheirLoadOutcome) {
  std::unique_ptr<r2r::core::plugin_instance> survivor;
  {
    auto first = r2r::core::load_plugin_file(r2r::test::fixture("echo"));
    auto second = r2r::core::load_plugin_file(r2r::test::fixture("echo"));
    ASSERT_EQ(first.plugins.size(), 1u);
    ASSERT_EQ(second.plugins.size(), 1u);
    auto made = r2r::core::plugin_instance::create(first.plugins.front(), {{"prefix", "> "}});
    ASSERT_TRUE(made.has_value()) << made.error().to_string();
    survivor = std::move(*made);
  }
  // The load outcomes are gone; the instance still holds its library.
  auto response = survivor->call("echo", {{"prompt", "hi"}});
  ASSERT_TRUE(response.has_value()) << response.error().to_string();
  EXPECT_EQ((*response)["text"], "> hi");
}

TEST(Loader, PluginsWithTheSameInternalSymbolNamesDoNotShadowEachOther) {
  auto a = r2r::core::load_plugin_file(r2r::test::fixture("shadow_a"));
  auto b = r2r::core::load_plugin_file(r2r::test::fixture("shadow_b"));
  ASSERT_EQ(a.plugins.size(), 1u);
  ASSERT_EQ(b.plugins.size(), 1u);
  auto ia = r2r::core::plugin_instance::create(a.plugins.front(), nlohmann::json::object());
  auto ib = r2r::core::plugin_instance::create(b.plugins.front(), nlohmann::json::object());
  ASSERT_TRUE(ia && ib);
  EXPECT_EQ((*(*ia)->call("which", nlohmann::json::object()))["which"], 1);
  EXPECT_EQ((*(*ib)->call("which", nlohmann::json::object()))["which"], 2);
}

}  // namespace
