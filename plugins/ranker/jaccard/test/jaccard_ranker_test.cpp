// SPDX-License-Identifier: MIT
// Unit tests of the ranker logic against the real catalog (configs/images/rocm.json) and small
// hand-made catalogs, without loading the library (fake host).
#include "jaccard_ranker.hpp"
#include "tag_parser.hpp"
#include "versions.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

using namespace r2r::plugins::ranker;
using r2r::sdk::ranker::rank_request;
using r2r::sdk::ranker::rank_response;
using ::testing::Contains;
using ::testing::HasSubstr;

nlohmann::json real_catalog() {
  std::ifstream in(R2R_CATALOG_FILE);
  return nlohmann::json::parse(in);
}

rank_request request(nlohmann::json desired, std::string arch, nlohmann::json catalog = real_catalog()) {
  return nlohmann::json{{"desired", desired}, {"host", {{"arch", arch}}}, {"catalog", catalog}}.get<rank_request>();
}

const nlohmann::json torch_training = {
    {"packages", {"torch", "numpy", "flash-attn", "einops", "transformers", "pyyaml"}}, {"workload", "pytorch"}};

class Ranker : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  jaccard_ranker ranker{jaccard_ranker::config{}, host.sdk_host()};
};

TEST(TagParser, SplitsStructuredTagsIntoFields) {
  auto f = parse_tag("rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.7.1");
  EXPECT_EQ(f.rocm, "7.2");
  EXPECT_EQ(f.ubuntu, "24.04");
  EXPECT_EQ(f.python, "3.12");
  EXPECT_EQ(f.frameworks.at("torch"), "2.7.1");
  f = parse_tag("v0.4.9.post2-rocm700-mi35x-20250715");
  EXPECT_EQ(f.rocm, "7.0.0");
  EXPECT_TRUE(f.python.empty());
  f = parse_tag("rocm6.3.1-jax0.4.35-py3.12");
  EXPECT_EQ(f.frameworks.at("jax"), "0.4.35");
  EXPECT_EQ(f.rocm, "6.3.1");
  f = parse_tag("rocm6.3-tf2.17-dev");
  EXPECT_EQ(f.frameworks.at("tensorflow"), "2.17");
  f = parse_tag("rocm6.3.1_vllm_0.8.5_20250521");
  EXPECT_EQ(f.frameworks.at("vllm"), "0.8.5");
  f = parse_tag("rocm6.4_gfx942_py310");
  EXPECT_EQ(f.python, "3.10");
  EXPECT_THAT(f.gfx, Contains("gfx942"));
  EXPECT_EQ(tag_tokens("A_b-c").size(), 3u);
}

TEST(TagParser, CatalogFieldsAgreeWithWhatTheTagNamesSay) {
  const nlohmann::json catalog = real_catalog();  // a range-for over a temporary's member would dangle
  for (const auto& img : catalog.at("images")) {
    for (const auto& t : img.at("tags")) {
      const auto parsed = parse_tag(t.at("tag").get<std::string>());
      const auto given = t.get<r2r::sdk::ranker::tag_fields>();
      SCOPED_TRACE(t.at("tag").get<std::string>());
      if (!parsed.rocm.empty()) {
        EXPECT_EQ(parse_version(parsed.rocm), parse_version(given.rocm));
      }
      if (!parsed.python.empty()) {
        EXPECT_EQ(parsed.python, given.python);
      }
      if (!parsed.ubuntu.empty()) {
        EXPECT_EQ(parsed.ubuntu, given.ubuntu);
      }
      for (const auto& [fw, v] : parsed.frameworks) EXPECT_EQ(given.frameworks.at(fw), v);
      EXPECT_FALSE(given.gfx.empty()) << "every catalog tag lists its gfx targets";
    }
  }
}

TEST(Versions, SpecifierSets) {
  const auto v310 = *parse_version("3.10");
  EXPECT_TRUE(*spec_allows(">=3.8,<3.12", v310));
  EXPECT_FALSE(*spec_allows(">=3.11", v310));
  EXPECT_TRUE(*spec_allows("==3.10.*", *parse_version("3.10.4")));
  EXPECT_FALSE(*spec_allows("!=3.10.*", v310));
  EXPECT_TRUE(*spec_allows("~=3.9", v310));
  EXPECT_FALSE(*spec_allows("~=3.9.1", v310));
  EXPECT_TRUE(*spec_allows("", v310));
  EXPECT_FALSE(spec_allows("^3.9", v310).has_value());
  EXPECT_EQ(compare_versions(*parse_version("7.0"), *parse_version("7.0.0")), 0);
  EXPECT_EQ(*parse_version("0.4.9.post2"), (version{0, 4, 9}));
}

TEST(Normalise, Pep503) {
  EXPECT_EQ(normalise_package("Flash_Attn"), "flash-attn");
  EXPECT_EQ(normalise_package("typing.extensions"), "typing-extensions");
  EXPECT_EQ(normalise_package("a--_b"), "a-b");
}

TEST_F(Ranker, TorchTrainingRepoOnMi300GetsRocmPytorchFirst) {
  const auto r = ranker.rank(request(torch_training, "gfx942"));
  ASSERT_GE(r.candidates.size(), 3u);
  EXPECT_EQ(r.candidates[0].image, "rocm/pytorch");
  EXPECT_GT(r.candidates[0].score, r.candidates[1].score);
  EXPECT_DOUBLE_EQ(r.candidates[0].components.workload, 0.25);
  for (const auto& c : r.candidates) {
    EXPECT_THAT(c.fields.gfx, Contains("gfx942")) << c.ref;
    EXPECT_FALSE(c.reasons.empty());
    EXPECT_FALSE(c.risks.empty());  // no digest is known offline
    EXPECT_EQ(c.overlap.size() + c.missing.size(), 6u) << c.ref;
  }
  EXPECT_THAT(r.candidates[0].missing, Contains("flash-attn"));
  EXPECT_THAT(r.candidates[0].overlap, Contains("torch"));
  // score = jaccard + bonuses, exactly.
  const auto& top = r.candidates[0];
  EXPECT_NEAR(top.score,
              top.components.jaccard + top.components.workload + top.components.python + top.components.arch +
                  top.components.cached,
              1e-4);
}

TEST_F(Ranker, ScoresMatchValuesComputedByHand) {
  // x/a: inventory {torch, numpy, scipy} (torch also from the tag), desired {torch, numpy, einops,
  // flash-attn}: overlap 2, union 5 -> Jaccard 0.4; + workload 0.25 + Python 3.10 pinned 0.08 + tag part
  // gfx942 0.12 + locally cached 0.15 = 1.0.
  // x/b: inventory {torch}: overlap 1, union 4 -> 0.25; workload jax, Python 3.12, no arch token,
  // not cached: no bonus -> 0.25.
  const auto cat = nlohmann::json::parse(R"({
    "images": [
      {"image": "x/b", "workload": "jax", "preinstalled": ["torch"],
       "tags": [{"tag": "rocm7.0_py3.12", "gfx": ["gfx942"]}]},
      {"image": "x/a", "workload": "pytorch", "preinstalled": ["torch", "NumPy", "scipy"],
       "tags": [{"tag": "rocm7.0_gfx942_py3.10_pytorch_release_2.7.1", "gfx": ["gfx942"]}]}
    ]})");
  auto req = request({{"packages", {"torch", "numpy", "einops", "Flash_Attn"}},
                      {"workload", "pytorch"},
                      {"python", {{"preferred", "3.10"}}}},
                     "gfx942", cat);
  req.host.local_images = {"x/a:rocm7.0_gfx942_py3.10_pytorch_release_2.7.1"};
  const auto r = ranker.rank(req);
  ASSERT_EQ(r.candidates.size(), 2u);
  EXPECT_EQ(r.candidates[0].image, "x/a");
  EXPECT_DOUBLE_EQ(r.candidates[0].components.jaccard, 0.4);
  EXPECT_DOUBLE_EQ(r.candidates[0].score, 1.0);
  EXPECT_EQ(r.candidates[1].image, "x/b");
  EXPECT_DOUBLE_EQ(r.candidates[1].components.jaccard, 0.25);
  EXPECT_DOUBLE_EQ(r.candidates[1].score, 0.25);
}

TEST_F(Ranker, Gfx950HostNeverGetsAnImageWithoutGfx950Support) {
  const auto r = ranker.rank(request(torch_training, "gfx950"));
  ASSERT_FALSE(r.candidates.empty());
  for (const auto& c : r.candidates) {
    EXPECT_THAT(c.fields.gfx, Contains("gfx950")) << c.ref;
    EXPECT_GE(compare_versions(*parse_version(c.fields.rocm), version{7, 0}), 0) << c.ref;
  }
  bool training_rejected = false;
  for (const auto& rej : r.rejected) {
    if (rej.image == "rocm/pytorch-training") training_rejected = true;
  }
  EXPECT_TRUE(training_rejected);
  EXPECT_EQ(r.candidates[0].image, "rocm/pytorch");
  EXPECT_THAT(r.candidates[0].tag, HasSubstr("rocm7"));
}

TEST_F(Ranker, ArchBonusFiresOnStructuredTagParts) {
  const auto r = ranker.rank(request({{"packages", {"sglang", "torch"}}, {"workload", "sglang"}}, "gfx950"));
  ASSERT_FALSE(r.candidates.empty());
  EXPECT_EQ(r.candidates[0].image, "rocm/sgl-dev");
  EXPECT_EQ(r.candidates[0].tag, "v0.4.9.post2-rocm700-mi35x-20250715");
  EXPECT_DOUBLE_EQ(r.candidates[0].components.arch, 0.12);
  EXPECT_THAT(r.candidates[0].reasons, Contains(HasSubstr("'mi35x'")));
}

TEST_F(Ranker, TagIsChosenAmongTagsThatPassedTheFilters) {
  // gfx950 + Python < 3.11: only rocm/pytorch's ROCm 7.0 / py3.10 tag survives both filters,
  // although the ROCm 7.2 tag is newer and the ROCm 6.x tags match the Python.
  auto desired = torch_training;
  desired["python"] = {{"spec", ">=3.8,<3.11"}};
  const auto r = ranker.rank(request(desired, "gfx950"));
  ASSERT_FALSE(r.candidates.empty());
  EXPECT_EQ(r.candidates[0].ref, "rocm/pytorch:rocm7.0_ubuntu22.04_py3.10_pytorch_release_2.7.1");
  for (const auto& c : r.candidates) EXPECT_NE(c.fields.python, "3.12") << c.ref;
}

TEST_F(Ranker, PythonFilterAndPreferredBonus) {
  auto desired = torch_training;
  desired["python"] = {{"spec", ">=3.12"}};
  auto r = ranker.rank(request(desired, "gfx942"));
  for (const auto& c : r.candidates) EXPECT_EQ(c.fields.python, "3.12") << c.ref;
  desired["python"] = {{"spec", ">=3.8"}, {"preferred", "3.10"}};
  r = ranker.rank(request(desired, "gfx942"));
  EXPECT_EQ(r.candidates[0].fields.python, "3.10");
  EXPECT_DOUBLE_EQ(r.candidates[0].components.python, 0.08);
}

TEST_F(Ranker, TwoFailuresOnThisArchFilterATagOneDoesNot) {
  auto req = request(torch_training, "gfx942");
  const auto first = ranker.rank(req);
  const std::string ref = first.candidates[0].image + ":" + first.candidates[0].tag;
  req.host.failures = {{ref, "gfx942", 1}};
  EXPECT_EQ(ranker.rank(req).candidates[0].tag, first.candidates[0].tag);
  req.host.failures = {{ref, "gfx942", 1}, {ref, "gfx942", 1}};
  const auto after = ranker.rank(req);
  EXPECT_NE(after.candidates[0].image + ":" + after.candidates[0].tag, ref);
  bool reported = false;
  for (const auto& rej : after.rejected) {
    if (rej.image + ":" + rej.tag == ref) reported = rej.reasons[0].find("failed 2 times on gfx942") == 0;
  }
  EXPECT_TRUE(reported);
  req.host.failures = {{ref, "gfx90a", 5}};  // failures on another arch do not count here
  EXPECT_EQ(ranker.rank(req).candidates[0].tag, first.candidates[0].tag);
}

TEST_F(Ranker, LocallyCachedImageGetsItsBonus) {
  auto req = request({{"packages", {"torch", "numpy"}}, {"workload", "pytorch"}}, "gfx942");
  req.host.local_images = {"rocm/pytorch:rocm6.2.4_ubuntu22.04_py3.10_pytorch_release_2.3.0"};
  const auto r = ranker.rank(req);
  EXPECT_EQ(r.candidates[0].tag, "rocm6.2.4_ubuntu22.04_py3.10_pytorch_release_2.3.0");
  EXPECT_DOUBLE_EQ(r.candidates[0].components.cached, 0.15);
}

TEST_F(Ranker, MinimumRocmPerArchIsAHardFilter) {
  const auto cat = nlohmann::json::parse(R"({
    "arches": {"gfx950": {"min_rocm": "7.0", "aliases": ["mi355x"]}},
    "images": [
      {"image": "x/old", "tags": [{"tag": "rocm6.4_py3.10", "gfx": ["gfx950"]}]},
      {"image": "x/new", "tags": [{"tag": "rocm7.0_py3.10", "gfx": ["gfx950"]}]}
    ]})");
  const auto r = ranker.rank(request({{"packages", {"torch"}}}, "mi355x", cat));
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].image, "x/new");
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_THAT(r.rejected[0].reasons[0], HasSubstr("older than the ROCm 7.0 that gfx950 needs"));
}

TEST_F(Ranker, UnknownArchIsARiskNotAFilter) {
  const auto r = ranker.rank(request(torch_training, ""));
  EXPECT_TRUE(r.rejected.empty());
  EXPECT_THAT(r.candidates[0].risks, Contains(HasSubstr("host arch unknown")));
}

TEST_F(Ranker, TiesAreBrokenByImageNameWhateverTheCatalogOrder) {
  nlohmann::json a = {
      {"image", "b/img"}, {"preinstalled", {"torch"}}, {"tags", {{{"tag", "t1"}, {"gfx", {"gfx942"}}}}}};
  nlohmann::json b = a;
  b["image"] = "a/img";
  const auto r1 = ranker.rank(request({{"packages", {"torch"}}}, "gfx942", {{"images", {a, b}}}));
  const auto r2 = ranker.rank(request({{"packages", {"torch"}}}, "gfx942", {{"images", {b, a}}}));
  ASSERT_EQ(r1.candidates.size(), 2u);
  EXPECT_EQ(r1.candidates[0].image, "a/img");
  EXPECT_EQ(nlohmann::json(r1).dump(), nlohmann::json(r2).dump());
}

TEST_F(Ranker, EmptyCatalogIsAnInvalidArgument) {
  EXPECT_THROW(ranker.rank(request({{"packages", {"torch"}}}, "gfx942", {{"images", nlohmann::json::array()}})),
               r2r::sdk::invalid_argument);
}

}  // namespace
