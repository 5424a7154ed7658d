// SPDX-License-Identifier: MIT
#include "dockerfile.hpp"

#include <r2r/sdk/error.hpp>

#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::sandbox::docker;

TEST(Dockerfile, GeneratesLabelsEnvCopyAndRunInOrder) {
  build_request r;
  r.from = "rocm/pytorch:latest";
  r.env = {{"A", "x \"y\""}};
  r.files = {{"req.txt", "torch\n"}};
  r.run = {"pip install -r /opt/r2r/req.txt", "echo done"};
  r.workdir = "/workspace";
  const auto text = generate_dockerfile(r, {{"org.repo2rocm.sandbox", "1"}});
  EXPECT_EQ(text,
            "FROM rocm/pytorch:latest\n"
            "LABEL \"org.repo2rocm.sandbox\"=\"1\"\n"
            "ENV A=\"x \\\"y\\\"\"\n"
            "COPY [\"files/\", \"/opt/r2r/\"]\n"
            "WORKDIR /workspace\n"
            "RUN pip install -r /opt/r2r/req.txt\n"
            "RUN echo done\n");
}

TEST(Dockerfile, RejectsInjectionAndEscapes) {
  build_request r;
  EXPECT_THROW(generate_dockerfile(r, {}), r2r::sdk::invalid_argument);  // no base
  r.from = "base\nRUN evil";
  EXPECT_THROW(generate_dockerfile(r, {}), r2r::sdk::invalid_argument);
  r.from = "base";
  r.run = {"echo a\nUSER root"};
  EXPECT_THROW(generate_dockerfile(r, {}), r2r::sdk::invalid_argument);
  r.run.clear();
  r.files = {{"../etc/passwd", "x"}};
  EXPECT_THROW(generate_dockerfile(r, {}), r2r::sdk::invalid_argument);
  r.files = {{"/abs", "x"}};
  EXPECT_THROW(generate_dockerfile(r, {}), r2r::sdk::invalid_argument);
}

}  // namespace

TEST(BuildRequest, TheContextFormTakesNoGeneratedFields) {
  const auto r = nlohmann::json{{"context_dir", "/tmp/ctx"},
                                {"network", true},
                                {"nocache", true},
                                {"build_args", {{"PIP_INDEX_URL", "http://i/simple"}}}}
                     .get<r2r::plugins::sandbox::docker::build_request>();
  EXPECT_EQ(r.context_dir, "/tmp/ctx");
  EXPECT_TRUE(r.network);
  EXPECT_TRUE(r.nocache);
  EXPECT_EQ(r.build_args.at("PIP_INDEX_URL"), "http://i/simple");
  EXPECT_THROW(
      (nlohmann::json{{"context_dir", "/tmp/ctx"}, {"from", "x"}}.get<r2r::plugins::sandbox::docker::build_request>()),
      r2r::sdk::invalid_argument);
  EXPECT_THROW((nlohmann::json{{"env", {{"A", "b"}}}}.get<r2r::plugins::sandbox::docker::build_request>()),
               r2r::sdk::invalid_argument);
}
