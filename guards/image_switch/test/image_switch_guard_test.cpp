// SPDX-License-Identifier: MIT
// Unit tests of the image-switch guard (fake host, plans shaped like `repo2rocm plan` output).
#include "image_switch_guard.hpp"

#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::image_switch_guard;
using ::testing::HasSubstr;

const nlohmann::json plan = {
    {"arch", "gfx942"},
    {"base_image", {{"ref", "rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0"}, {"source", "ranker"}}},
    {"candidates",
     {{{"ref", "rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0"}, {"score", 0.9}},
      {{"ref", "rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4"}, {"score", 0.7}},
      {{"ref", "docker.io/rocm/dev-ubuntu-22.04:6.2"}, {"score", 0.4}}}}};

r2r::sdk::guard::check_request request(nlohmann::json action, nlohmann::json context) {
  return nlohmann::json{{"action", std::move(action)}, {"context", std::move(context)}}
      .get<r2r::sdk::guard::check_request>();
}

class ImageSwitchGuard : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  image_switch_guard guard{image_switch_guard::config{}, host.sdk_host()};

  r2r::sdk::guard::decision to(const std::string& image, const std::string& reason, int mode = 1,
                               const std::string& arch = "gfx942") {
    return guard.check_action(request({{"type", "switch_image"}, {"image", image}, {"reason", reason}},
                                      {{"mode", mode},
                                       {"arch", arch},
                                       {"plan", plan},
                                       {"image", "rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0"}}));
  }
};

TEST_F(ImageSwitchGuard, AcceptedCandidateWithAReasonIsRecorded) {
  const auto d = to("rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4", "vllm wheels are missing");
  EXPECT_EQ(d.verdict, "allow");
  ASSERT_EQ(d.ledger.size(), 1u);
  EXPECT_EQ(d.ledger[0].level, "D1");
  EXPECT_EQ(d.ledger[0].component, "rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4");
  EXPECT_THAT(d.ledger[0].note, HasSubstr("vllm wheels are missing"));
  EXPECT_EQ(to("docker.io/library/../rocm/dev-ubuntu-22.04:6.2", "x").verdict, "deny");
  EXPECT_EQ(to("rocm/dev-ubuntu-22.04:6.2", "smaller image").verdict, "allow");
  EXPECT_EQ(to("rocm/dev-ubuntu-22.04:6.2@sha256:0123abcd", "pinned").verdict, "allow");
}

TEST_F(ImageSwitchGuard, ImagesTheRankerDidNotAcceptAreDeniedWithTheAcceptedList) {
  for (const char* image : {"nvcr.io/nvidia/pytorch:24.01-py3", "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
                            "rocm/pytorch:latest", "rocm/vllm"}) {
    const auto d = to(image, "it has everything");
    EXPECT_EQ(d.verdict, "deny") << image;
    EXPECT_THAT(d.reason, HasSubstr("did not accept")) << image;
    EXPECT_THAT(d.unlock, HasSubstr("rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4")) << image;
    EXPECT_THAT(d.unlock, HasSubstr("gfx942")) << image;
  }
}

TEST_F(ImageSwitchGuard, AReasonIsRequired) {
  const auto d = to("rocm/dev-ubuntu-22.04:6.2", "  ");
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.unlock, HasSubstr("reason"));
  EXPECT_THAT(d.unlock, HasSubstr("rocm/dev-ubuntu-22.04:6.2"));
}

TEST_F(ImageSwitchGuard, APlanForAnotherArchOrNoPlanAcceptsNothing) {
  const auto d = to("rocm/dev-ubuntu-22.04:6.2", "reason", 1, "gfx1100");
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("ranked for gfx942"));
  EXPECT_THAT(d.unlock, HasSubstr("--arch gfx1100"));
  const auto none =
      guard.check_action(request({{"type", "switch_image"}, {"image", "rocm/dev-ubuntu-22.04:6.2"}, {"reason", "r"}},
                                 {{"mode", 1}, {"arch", "gfx942"}}));
  EXPECT_EQ(none.verdict, "deny");
  EXPECT_THAT(none.reason, HasSubstr("without a plan"));
}

TEST_F(ImageSwitchGuard, PolicyMayDenySwitchesInMode2) {
  image_switch_guard strict(
      {nlohmann::json{{"guard", "r2r.guard.image-switch"},
                      {"components", {{"base_image", {{"level", "D1"}, {"default", "record"}, {"mode2", "deny"}}}}}},
       image_switch_guard::config{}.container_tools, image_switch_guard::config{}.read_only_verbs},
      host.sdk_host());
  auto at = [&](int mode) {
    return strict
        .check_action(request({{"type", "switch_image"}, {"image", "rocm/dev-ubuntu-22.04:6.2"}, {"reason", "r"}},
                              {{"mode", mode}, {"arch", "gfx942"}, {"plan", plan}}))
        .verdict;
  };
  EXPECT_EQ(at(1), "allow");
  EXPECT_EQ(at(2), "deny");
}

TEST_F(ImageSwitchGuard, ContainerEnginesInsideTheSandboxAreDenied) {
  auto run = [&](const std::string& command) {
    return guard.check_action(request({{"type", "run"}, {"command", command}}, {{"mode", 1}, {"plan", plan}}));
  };
  for (const char* command :
       {"docker pull rocm/pytorch:latest", "sudo docker run --rm -it nvcr.io/nvidia/pytorch:24.01",
        "cd /tmp && podman build -t x .", "bash -c 'nerdctl pull ubuntu'",
        "skopeo copy docker://a docker-archive:/tmp/a.tar", "/usr/bin/docker load -i img.tar"}) {
    const auto d = run(command);
    EXPECT_EQ(d.verdict, "deny") << command;
    EXPECT_THAT(d.unlock, HasSubstr("switch_image")) << command;
    EXPECT_THAT(d.unlock, HasSubstr("rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0")) << command;
  }
  for (const char* command :
       {"docker --version", "docker ps", "python train.py", "grep docker README.md", "echo 'docker pull x'"}) {
    EXPECT_EQ(run(command).verdict, "allow") << command;
  }
}

}  // namespace
