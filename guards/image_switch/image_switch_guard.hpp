// SPDX-License-Identifier: MIT
// r2r.guard.image-switch: the sandbox image changes only through switch_image, only with a
// non-empty `reason`, and only to an image the ranker accepted for the target arch: the plan's
// `candidates` (the ranked images that passed the hard filters for plan.arch) or its base_image.
// A plan ranked for another arch than context.arch accepts nothing. An accepted switch goes
// through the guard policy (configs/guards/image_switch.json: recorded at D1 by default).
// `run`-like commands that drive a container engine inside the sandbox (docker/podman/nerdctl/
// buildah/skopeo/ctr/apptainer pull, run, build, load, ...) are denied: they would change or start
// images behind the executor's back. Denials name the accepted images in `unlock`.
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include <r2r/guards/command_view.hpp>
#include <r2r/guards/guard_policy.hpp>
#include <r2r/guards/known_files.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

class image_switch_guard {
 public:
  struct config {
    nlohmann::json policy;  // null: built-in policy; object: inline; string: policy file path
    std::vector<std::string> container_tools{"docker", "podman",      "nerdctl",   "buildah",        "skopeo", "ctr",
                                             "crictl", "singularity", "apptainer", "docker-compose", "kaniko", "img"};
    std::vector<std::string> read_only_verbs{"version",   "info",   "ps", "images", "inspect", "help",
                                             "--version", "--help", "-v", "stats",  "logs"};
  };

  /// Throws sdk::invalid_argument when the policy cannot be read or is invalid.
  image_switch_guard(const config& cfg, const sdk::host& host);

  sdk::guard::decision check_action(const sdk::guard::check_request& request);
  sdk::guard::observe_response observe(const sdk::guard::observe_request& request);

  static sdk::method_table<image_switch_guard> methods() { return sdk::guard::methods<image_switch_guard>(); }

  /// The images `plan` accepts: its candidates' refs, then its base image's ref; normalised.
  static std::vector<std::string> accepted_images(const nlohmann::json& plan);
  /// "docker.io/library/ubuntu:22.04" -> "ubuntu:22.04"; a missing tag stays missing.
  static std::string normalise_ref(const std::string& ref);

 private:
  sdk::guard::decision check_switch(const sdk::guard::check_request& request) const;
  sdk::guard::decision check_command(const std::string& command, const nlohmann::json& plan) const;

  policy::guard_policy policy_;
  std::set<std::string> tools_;
  std::set<std::string> read_only_;
  known_files files_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, image_switch_guard::config& c);

}  // namespace r2r::plugins::guard
