// SPDX-License-Identifier: MIT
// The causal memory on real SQLite files in temp directories: ranking of hints, persistence across
// opens, two writer processes at once, and files that are not a usable memory.
#include "../unit/test_support.hpp"

#include <r2r/memory/causal_memory.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace {

using namespace r2r::memory;
using nlohmann::json;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

const std::string timm = "missing_python_module:timm";
const json install_timm{{"type", "install"}, {"manager", "pip"}, {"packages", {"timm"}}};
const json pin_timm{{"type", "run"}, {"command", "pip install timm==0.9.16"}};
const json rebuild{{"type", "build_kernel"}, {"command", "PYTORCH_ROCM_ARCH=gfx942 pip install -e ."}};

provenance from(std::string run, std::string arch = "gfx942",
                std::chrono::system_clock::time_point at = std::chrono::system_clock::now()) {
  return provenance{std::move(run),        "https://github.com/x/y", std::string(40, 'a'),
                    "rocm/pytorch:latest", std::move(arch),          at};
}

class CausalMemory : public ::testing::Test {
 protected:
  causal_memory open() {
    auto m = causal_memory::open((tmp.path() / "memory.sqlite").string());
    if (!m) throw std::runtime_error(m.error().to_string());
    return std::move(*m);
  }
  std::vector<json> fixes_of(const std::vector<r2r::sdk::policy::hint>& hints) {
    std::vector<json> out;
    for (const auto& h : hints) out.push_back(h.fix);
    return out;
  }
  r2r::test::temp_dir tmp;
};

TEST(SignatureSimilarity, TokenJaccard) {
  EXPECT_EQ(signature_tokens("missing_python_module:PIL"),
            (std::vector<std::string>{"missing", "module", "pil", "python"}));
  EXPECT_DOUBLE_EQ(
      jaccard(signature_tokens("missing_python_module:timm"), signature_tokens("missing_python_module:cv2")),
      3.0 / 5.0);
  EXPECT_DOUBLE_EQ(jaccard(signature_tokens("gpu_hang"), signature_tokens("ninja_missing")), 0.0);
}

TEST_F(CausalMemory, ExactSignatureFirstThenSimilarRankedBySuccess) {
  auto m = open();
  ASSERT_TRUE(m.record(timm, install_timm, outcome::fixed, from("r1")));
  ASSERT_TRUE(m.record(timm, install_timm, outcome::fixed, from("r2")));
  ASSERT_TRUE(m.record(timm, pin_timm, outcome::fixed, from("r3")));
  ASSERT_TRUE(m.record(timm, pin_timm, outcome::not_fixed, from("r4")));
  ASSERT_TRUE(m.record(timm, pin_timm, outcome::not_fixed, from("r5")));
  const json install_einops{{"type", "install"}, {"manager", "pip"}, {"packages", {"einops"}}};
  ASSERT_TRUE(m.record("missing_python_module:einops", install_einops, outcome::fixed, from("r6")));
  ASSERT_TRUE(m.record("gpu_hang", rebuild, outcome::fixed, from("r7")));
  const json useless{{"type", "run"}, {"command", "pip install --upgrade pip"}};
  ASSERT_TRUE(m.record(timm, useless, outcome::not_fixed, from("r8")));

  const auto hints = m.hints(timm, {"gfx942", "rocm/pytorch:latest"}, 10);
  ASSERT_TRUE(hints) << hints.error().to_string();
  EXPECT_EQ(fixes_of(*hints), (std::vector<json>{install_timm, pin_timm, install_einops}))
      << "exact signature first by success rate, then the similar one; never-fixed and unrelated are not hinted";
  EXPECT_EQ((*hints)[0].source, "memory");
  EXPECT_THAT((*hints)[0].text, HasSubstr("(same signature): fixed it 2 of 2 times"));
  EXPECT_THAT((*hints)[1].text, HasSubstr("fixed it 1 of 3 times"));
  EXPECT_THAT((*hints)[2].text, HasSubstr("similar signature, 0.60"));
  EXPECT_THAT((*hints)[0].provenance, HasSubstr("run r2, https://github.com/x/y@aaaa"));
  const auto top = m.hints(timm, {"gfx942", ""}, 1);
  ASSERT_TRUE(top);
  EXPECT_EQ(fixes_of(*top), (std::vector<json>{install_timm}));
}

TEST_F(CausalMemory, RecentAndSameArchOutrankOldAndOtherArch) {
  auto m = open();
  const auto now = std::chrono::system_clock::now();
  ASSERT_TRUE(m.record(timm, pin_timm, outcome::fixed, from("old", "gfx942", now - 24h * 200)));
  ASSERT_TRUE(m.record(timm, install_timm, outcome::fixed, from("new", "gfx942", now)));
  auto hints = m.hints(timm, {"gfx942", ""}, 5);
  ASSERT_TRUE(hints);
  EXPECT_EQ(fixes_of(*hints), (std::vector<json>{install_timm, pin_timm})) << "a recent success outweighs an old one";

  auto other = causal_memory::open((tmp.path() / "arch.sqlite").string());
  ASSERT_TRUE(other);
  ASSERT_TRUE(other->record("missing_code_object", rebuild, outcome::fixed, from("a", "gfx90a", now)));
  const json rebuild942{{"type", "build_kernel"}, {"command", "pip install -e ."}};
  ASSERT_TRUE(other->record("missing_code_object", rebuild942, outcome::fixed, from("b", "gfx942", now)));
  hints = other->hints("missing_code_object", {"gfx942", ""}, 5);
  ASSERT_TRUE(hints);
  EXPECT_EQ(fixes_of(*hints), (std::vector<json>{rebuild942, rebuild}));
  hints = other->hints("missing_code_object", {"gfx90a", ""}, 5);
  EXPECT_EQ(fixes_of(*hints), (std::vector<json>{rebuild, rebuild942}));
}

TEST_F(CausalMemory, MadeWorseLowersAFix) {
  auto m = open();
  ASSERT_TRUE(m.record(timm, install_timm, outcome::fixed, from("a")));
  ASSERT_TRUE(m.record(timm, install_timm, outcome::made_worse, from("b")));
  ASSERT_TRUE(m.record(timm, pin_timm, outcome::fixed, from("c")));
  ASSERT_TRUE(m.record(timm, pin_timm, outcome::not_fixed, from("d")));
  const auto hints = m.hints(timm, {}, 5);
  ASSERT_TRUE(hints);
  EXPECT_EQ(fixes_of(*hints), (std::vector<json>{pin_timm, install_timm}));
  EXPECT_THAT((*hints)[1].text, HasSubstr("made it worse 1 times"));
}

TEST_F(CausalMemory, RecordsPersistAcrossOpens) {
  {
    auto m = open();
    ASSERT_TRUE(m.record(timm, install_timm, outcome::fixed, from("r1")));
  }
  auto again = open();
  const auto hints = again.hints(timm, {}, 3);
  ASSERT_TRUE(hints);
  EXPECT_EQ(fixes_of(*hints), (std::vector<json>{install_timm}));
}

TEST_F(CausalMemory, TwoWriterProcessesAtOnceLoseNothing) {
  const std::string path = (tmp.path() / "shared.sqlite").string();
  constexpr int per_process = 150;
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto m = causal_memory::open(path);
      if (!m) _exit(10);
      for (int i = 0; i < per_process; ++i) {
        if (!m->record(timm, install_timm, outcome::fixed, from("p" + std::to_string(c) + "-" + std::to_string(i)))) {
          _exit(11);
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: open failed, 11: record failed";
  }
  auto m = causal_memory::open(path);
  ASSERT_TRUE(m);
  const auto hints = m->hints(timm, {}, 1);
  ASSERT_TRUE(hints);
  ASSERT_EQ(hints->size(), 1u);
  EXPECT_THAT(hints->front().text, HasSubstr("fixed it 300 of 300 times"));
}

TEST_F(CausalMemory, CorruptOrForeignFilesAreRefusedAndLeftUntouched) {
  const auto junk = tmp.write("junk.sqlite", std::string(4096, 'z'));
  auto m = causal_memory::open(junk.string());
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, r2r::core::phase::io);
  EXPECT_THAT(m.error().message, HasSubstr("is not a usable repo2rocm memory (file is not a database)"));
  EXPECT_THAT(m.error().message, HasSubstr("move the file aside"));
  std::ifstream in(junk);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), std::string(4096, 'z'));

  const std::string foreign = (tmp.path() / "foreign.sqlite").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE notes(x TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  m = causal_memory::open(foreign);
  ASSERT_FALSE(m);
  EXPECT_THAT(m.error().message, HasSubstr("another application's SQLite database"));

  const std::string newer = (tmp.path() / "newer.sqlite").string();
  ASSERT_TRUE(causal_memory::open(newer));
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  m = causal_memory::open(newer);
  ASSERT_FALSE(m);
  EXPECT_THAT(m.error().message, HasSubstr("schema version 7, newer than this repo2rocm supports (1)"));

  m = causal_memory::open((tmp.path() / "no" / "such" / "dir" / "m.sqlite").string());
  ASSERT_FALSE(m);
  EXPECT_THAT(m.error().message, HasSubstr("cannot be opened"));
}

TEST_F(CausalMemory, RecordRejectsAFixThatIsNotAnAction) {
  auto m = open();
  const auto r = m.record(timm, json{{"command", "pip install timm"}}, outcome::fixed, from("r"));
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("must be an action object with a string \"type\""));
  EXPECT_FALSE(m.record("", install_timm, outcome::fixed, from("r")));
}

}  // namespace
