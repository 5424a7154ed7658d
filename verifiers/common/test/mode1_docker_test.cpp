// SPDX-License-Identifier: MIT
// r2r.verifier.mode1-cuda through the real r2r.sandbox.docker on a private dockerd (own data root
// and socket, stopped by PID), in a minimal busybox image with a stand-in nvidia-smi as the device:
// the image has no privilege-drop tool (busybox setpriv cannot change uid), so the collector says
// so and the verdict is never pass; the capture it returns is judged again by `judge`. The
// workload hunts the nonce and writes into other processes' stdout. Skips, saying why, when
// dockerd cannot start here or the suite does not run as root.
#include "private_dockerd.hpp"
#include "test_support.hpp"

#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>
#include <r2r/verify/capture.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <memory>

namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

class directory : public r2r::core::service_directory {
 public:
  r2r::core::plugin_instance* resolve(std::string_view name) override {
    auto it = by_name.find(std::string(name));
    return it == by_name.end() ? nullptr : it->second;
  }
  std::map<std::string, r2r::core::plugin_instance*> by_name;
};

constexpr const char* stand_in_nvidia_smi = R"(case "$*" in
  *query-gpu*) printf 'index, name, uuid, driver_version, memory.used [MiB]\n0, NVIDIA H200, GPU-0, 580.159.04, 0 MiB\n' ;;
  *) printf 'pid, process_name, used_gpu_memory [MiB]\n' ;;
esac
)";

// Written into the container's workspace with printf, one line per argument.
constexpr const char* attack_setup =
    "printf '%s\\n' "
    "'n=$(cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr \"\\0\" \"\\n\" | grep -c R2R_NONC[E]=)' "
    "'echo \"nonce lines: $n\"' "
    "'for f in /proc/[0-9]*/fd/1; do' "
    "'  [ \"$f\" = \"/proc/$$/fd/1\" ] && continue' "
    "'  printf \"\\n@@R2R-00000000000000000000000000000000 exit\\n0 1 1 0 0\\n\" > \"$f\" 2>/dev/null && echo \"wrote "
    "$f\"' "
    "'done' "
    "'echo \"@@R2R-00000000000000000000000000000000 exit\"' "
    "'exit 3' > attack.sh";

TEST(Mode1Docker, BusyboxImageWithoutAPrivilegeDropToolIsNeverAPass) {
  if (::geteuid() != 0) GTEST_SKIP() << "dockerd needs root here; run the suite as root (CI does)";
  if (r2r::test::private_dockerd::busybox_path().empty()) GTEST_SKIP() << "no static busybox for the base image";
  r2r::test::temp_dir tmp;
  r2r::test::private_dockerd dockerd(tmp.path() / "dockerd");
  if (!dockerd.ready()) GTEST_SKIP() << "dockerd could not start here:\n" << dockerd.log();
  dockerd.import_base("local/r2r-verify-busybox:1", {{"nvidia-smi", stand_in_nvidia_smi},
                                                     {"od", "exec /bin/busybox od \"$@\"\n"},
                                                     {"chown", "exec /bin/busybox chown \"$@\"\n"}});

  auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
  ASSERT_TRUE(loaded.has_value());
  directory services;
  const auto make = [&](const char* id, const nlohmann::json& config,
                        const char* name) -> std::unique_ptr<r2r::core::plugin_instance> {
    const auto* plugin = loaded->find(id);
    EXPECT_NE(plugin, nullptr) << id;
    if (plugin == nullptr) return nullptr;
    r2r::core::instance_options options;
    options.name = name;
    options.services = &services;
    auto made = r2r::core::plugin_instance::create(*plugin, config, options);
    EXPECT_TRUE(made.has_value()) << id << ": " << (made.has_value() ? "" : made.error().to_string());
    return made.has_value() ? std::move(*made) : nullptr;
  };
  auto sandbox = make("r2r.sandbox.docker",
                      {{"socket", dockerd.socket()},
                       {"default_image", "local/r2r-verify-busybox:1"},
                       {"state_dir", (tmp.path() / "state").string()},
                       {"default_timeout_s", 120}},
                      "sandbox");
  ASSERT_TRUE(sandbox);
  services.by_name["sandbox"] = sandbox.get();
  auto created = sandbox->call("create", {{"image", "local/r2r-verify-busybox:1"}});
  ASSERT_TRUE(created.has_value()) << created.error().to_string();
  const std::string id = created->at("sandbox_id");
  auto setup = sandbox->call("exec", {{"sandbox_id", id}, {"command", attack_setup}});
  ASSERT_TRUE(setup.has_value() && setup->at("exit_code") == 0) << (setup ? setup->dump() : "");

  auto verifier = make("r2r.verifier.mode1-cuda", {{"timeout_s", 60}, {"sample_interval_s", 0.5}}, "verify_cuda");
  ASSERT_TRUE(verifier);
  const nlohmann::json plan = {{"workload", {{"command", "sh attack.sh"}, {"kind", "train"}}}};
  auto r = verifier->call("verify", {{"plan", plan}, {"mode", 1}, {"sandbox", {{"id", id}}}});
  (void)sandbox->call("destroy", {{"sandbox_id", id}});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_THAT(r->at("verdict").get<std::string>(), AnyOf("fail", "not_verified")) << r->dump(1);
  ASSERT_TRUE(r->contains("capture"));
  const auto& capture = r->at("capture");
  EXPECT_EQ(capture.at("format"), "r2r.mode1.capture/1");

  // The collector said why it could not drop privileges. The workload, left as root, found no
  // nonce anywhere, but could reach the collector's sampler output: its marker lines there fail the
  // run before anything else is read.
  const auto parsed = capture.get<r2r::plugins::verifier::mode1_capture>();
  EXPECT_THAT(parsed.collector.stdout_text, HasSubstr("privdrop\nnone no privilege-drop tool works in this image"));
  EXPECT_THAT(parsed.collector.stdout_text, HasSubstr("nonce lines: 0"));
  std::string integrity;
  for (const auto& c : r->at("checks"))
    if (c.at("name") == "evidence_integrity") integrity = c.at("detail");
  // Which defence speaks first depends on when the root workload's writes land: marker lines in
  // the sampler output, or text ahead of the fence when it writes to the collector's stdout before
  // the collector prints (seen on a loaded machine). Each is a refusal caused by the attack.
  EXPECT_THAT(integrity, AnyOf(HasSubstr("install util-linux"), HasSubstr("marker line"),
                               HasSubstr("does not start with its fence line")))
      << r->dump(1);

  // judge on the returned capture gives the same verdict and checks, running nothing.
  auto again = verifier->call("judge", {{"plan", plan}, {"mode", 1}, {"capture", capture}});
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(again->at("verdict"), r->at("verdict"));
  EXPECT_EQ(again->at("checks"), r->at("checks"));
}

}  // namespace
