// SPDX-License-Identifier: MIT
#include "image_switch_guard.hpp"

#include "r2r_guard_builtin_policy.hpp"

#include <r2r/support/shell.hpp>

#include <algorithm>

namespace r2r::plugins::guard {

void from_json(const nlohmann::json& j, image_switch_guard::config& c) {
  const image_switch_guard::config defaults;
  c.policy = j.value("policy", nlohmann::json());
  c.container_tools = j.value("container_tools", defaults.container_tools);
  c.read_only_verbs = j.value("read_only_verbs", defaults.read_only_verbs);
}

namespace {

constexpr const char* guard_id = "r2r.guard.image-switch";

std::string listing(const std::vector<std::string>& images) {
  if (images.empty()) return "(none)";
  std::string out;
  for (const auto& i : images) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string plan_arch(const nlohmann::json& plan) {
  return plan.is_object() && plan.contains("arch") && plan["arch"].is_string() ? plan["arch"].get<std::string>() : "";
}

}  // namespace

image_switch_guard::image_switch_guard(const config& cfg, const sdk::host& host)
    : policy_(policy::select(cfg.policy, r2r_guard_builtin::policy, guard_id)),
      tools_(cfg.container_tools.begin(), cfg.container_tools.end()),
      read_only_(cfg.read_only_verbs.begin(), cfg.read_only_verbs.end()),
      host_(host) {}

std::string image_switch_guard::normalise_ref(const std::string& ref) {
  std::string r = ref;
  r.erase(0, r.find_first_not_of(" \t"));
  r.erase(r.find_last_not_of(" \t") + 1);
  for (const char* prefix : {"docker.io/", "index.docker.io/", "registry-1.docker.io/"})
    if (r.rfind(prefix, 0) == 0) r = r.substr(std::string(prefix).size());
  if (r.rfind("library/", 0) == 0) r = r.substr(8);
  return r;
}

std::vector<std::string> image_switch_guard::accepted_images(const nlohmann::json& plan) {
  std::vector<std::string> out;
  auto add = [&out](const nlohmann::json& v) {
    if (!v.is_string() || v.get<std::string>().empty()) return;
    const std::string ref = normalise_ref(v.get<std::string>());
    if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(ref);
  };
  if (!plan.is_object()) return out;
  if (plan.contains("candidates") && plan["candidates"].is_array())
    for (const auto& c : plan["candidates"])
      if (c.is_object()) add(c.value("ref", nlohmann::json()));
  if (plan.contains("base_image") && plan["base_image"].is_object())
    add(plan["base_image"].value("ref", nlohmann::json()));
  return out;
}

sdk::guard::decision image_switch_guard::check_switch(const sdk::guard::check_request& request) const {
  const auto& a = request.action;
  const auto& plan = request.context.plan;
  const std::string image = normalise_ref(a.text("image"));
  const std::string reason = a.text("reason");
  const auto accepted = accepted_images(plan);
  const std::string arch = plan_arch(plan);
  const std::string target = request.context.arch.empty() ? arch : request.context.arch;
  const std::string choose = "switch only to an image the ranker accepted for " +
                             (target.empty() ? std::string("this arch") : target) + ": " + listing(accepted);
  if (image.empty()) return sdk::guard::decision::deny("switch_image names no image", choose);
  if (!plan.is_object())
    return sdk::guard::decision::deny(
        "switch_image to " + image + " without a plan: the images the ranker accepted are unknown",
        "run with the plan from `repo2rocm plan` so the executor passes it in context.plan");
  if (!arch.empty() && !request.context.arch.empty() && arch != request.context.arch)
    return sdk::guard::decision::deny("the plan's candidates were ranked for " + arch + ", but the target is " +
                                          request.context.arch + "; none is known to run there",
                                      "re-plan for " + request.context.arch + " (repo2rocm plan --arch " +
                                          request.context.arch + ") and switch to one of its candidates");
  if (reason.find_first_not_of(" \t\r\n") == std::string::npos)
    return sdk::guard::decision::deny(
        "switch_image to " + image + " without a reason",
        "give a non-empty `reason` (what fails on the current image and why " + image + " fixes it); " + choose);
  if (!request.context.image.empty() && normalise_ref(request.context.image) == image)
    return sdk::guard::decision::allow();
  const bool ok = std::any_of(accepted.begin(), accepted.end(), [&](const std::string& ref) {
    return image == ref || image.rfind(ref + "@sha256:", 0) == 0;
  });
  if (!ok)
    return sdk::guard::decision::deny("switch_image to " + image + ", which the ranker did not accept for " +
                                          (target.empty() ? std::string("the target arch") : target),
                                      choose +
                                          "; to use another image, add it to the image catalog and re-plan, or "
                                          "pass --base-image");
  const std::string from = request.context.image.empty() ? std::string("the current image") : request.context.image;
  auto d = policy::decide(policy_, {"base_image", image, "switches the base image from " + from + " to " + image},
                          request.context.mode, reason);
  if (d.verdict == "deny") d.reason = "image switch: " + d.reason;
  return d;
}

sdk::guard::decision image_switch_guard::check_command(const std::string& command, const nlohmann::json& plan) const {
  for (const auto& cmd : shell::analyze(command)) {
    if (cmd.argv.empty()) continue;
    const std::string tool = shell::program_name(cmd.argv[0]);
    if (!tools_.count(tool)) continue;
    std::string verb;
    for (std::size_t k = 1; k < cmd.argv.size() && verb.empty(); ++k)
      if (cmd.argv[k].rfind("-", 0) != 0 || read_only_.count(cmd.argv[k])) verb = cmd.argv[k];
    if (!verb.empty() && read_only_.count(verb)) continue;
    return sdk::guard::decision::deny(
        "runs `" + tool + (verb.empty() ? "" : " " + verb) +
            "` inside the sandbox: a container engine there would pull, build or start images behind the executor",
        "use the switch_image action with a `reason` and one of the images the ranker accepted: " +
            listing(accepted_images(plan)));
  }
  return sdk::guard::decision::allow();
}

sdk::guard::decision image_switch_guard::check_action(const sdk::guard::check_request& request) {
  const auto& a = request.action;
  sdk::guard::decision d;
  if (a.type == "switch_image")
    d = check_switch(request);
  else if (const auto view = view_action(a, files_, std::size_t{1} << 20))
    d = deny_computed(*view, "image switch").value_or(check_command(view->text, request.context.plan));
  if (d.verdict == "deny") R2R_LOG(host_, info, "deny " << a.type << ": " << d.reason);
  return d;
}

sdk::guard::observe_response image_switch_guard::observe(const sdk::guard::observe_request& request) {
  files_.observe(request);
  return {};
}

}  // namespace r2r::plugins::guard
