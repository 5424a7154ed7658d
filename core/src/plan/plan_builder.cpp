// SPDX-License-Identifier: MIT
// build_plan(): base image, ordered install steps, kernel builds, hazards, the workload, validation
// checks and the Mode 2 metric. See plan.hpp for the contracts; docs/planning.md for the reasons.
#include <r2r/planning/plan.hpp>

#include "fingerprint/text_util.hpp"
#include "paper_target.hpp"
#include "plan_assets.hpp"
#include "workload_rank.hpp"

#include <r2r/paper/metrics.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace r2r::planning {
namespace {

using nlohmann::json;
namespace text = planning::text;

/// One plan kernel_builds entry from a fingerprint build: the names its kernels must show at run
/// time (`kernels`), where each is defined (`kernel_sites`), its sources and the module that loads it.
json planned_kernel_build(const kernel_build& b, const std::string& kind, json step, const std::string& note) {
  json names = json::array(), sites = json::array();
  std::set<std::string> seen;
  for (const auto& k : b.kernels) {
    if (seen.insert(k.name).second) names.push_back(k.name);
    sites.push_back({{"name", k.name}, {"file", k.file}, {"line", k.line}});
  }
  std::string module = b.name;
  if (b.kind == "triton") {
    module = b.file.substr(0, b.file.size() - 3);
    std::replace(module.begin(), module.end(), '/', '.');
    if (module.ends_with(".__init__")) module.resize(module.size() - 9);
  }
  return {{"kind", kind},   {"name", b.name},   {"step", std::move(step)}, {"note", note},     {"file", b.file},
          {"line", b.line}, {"module", module}, {"sources", b.sources},    {"kernels", names}, {"kernel_sites", sites}};
}

const char* const constraints_file = "/opt/r2r/image-constraints.txt";

json hazard(std::string kind, std::string severity, std::string detail, std::string file, int line,
            std::string action) {
  return {{"kind", std::move(kind)},
          {"severity", std::move(severity)},
          {"detail", std::move(detail)},
          {"file", std::move(file)},
          {"line", line},
          {"action", std::move(action)}};
}

std::string arch_or_env(const std::string& arch) {
  return arch.empty() ? "$PYTORCH_ROCM_ARCH" : arch;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

std::string requirement_text(const dependency& d) {
  std::string r = d.name;
  if (!d.extras.empty()) {
    r += "[";
    for (std::size_t i = 0; i < d.extras.size(); ++i) r += (i ? "," : "") + d.extras[i];
    r += "]";
  }
  if (!d.url.empty()) return r + " @ " + d.url;
  r += d.specifier;
  if (!d.marker.empty()) r += "; " + d.marker;
  return r;
}

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

json where(const std::string& file, int line) {
  return {{"file", file}, {"line", line}};
}

// Metric classes and their default tolerances: one table for README and paper metrics
// (paper/metrics.hpp; docs/planning.md, ROCM.md "Mode 2").
using paper::classify_metric;

json choose_metric(const fingerprint& fp, json& note) {
  std::map<std::pair<std::string, double>, const metric_claim*> distinct;
  for (const auto& m : fp.metrics) distinct.emplace(std::make_pair(m.name, m.value), &m);
  if (distinct.empty()) {
    note = "the README states no metric value; Mode 2 has nothing to compare";
    return nullptr;
  }
  if (distinct.size() > 1) {
    std::string list;
    for (const auto& [key, m] : distinct) {
      if (list.size() < 200)
        list += (list.empty() ? "" : "; ") + key.first + " " + number_text(key.second) + " (" + m->file + ":" +
                std::to_string(m->line) + ")";
    }
    note = "ambiguous: the README states " + std::to_string(distinct.size()) +
           " metric values, so none is taken as the target: " + list;
    return nullptr;
  }
  const metric_claim& m = *distinct.begin()->second;
  const auto cls = classify_metric(m.name);
  note = "the README states exactly one metric value";
  // Mode 2 reads the value by this rule and refuses readings that differ in qualifier, so the
  // README's own qualifier ("test accuracy", "top-1 accuracy") selects among them.
  json extractor = {{"kind", "label"}, {"label", m.name}};
  const std::string claim = text::lower(m.text), name = text::lower(m.name);
  for (const char* q : {"test", "val", "validation", "train", "eval", "top-1", "top-5", "top1", "top5"}) {
    for (const char* sep : {" ", "_", "-"}) {
      if (claim.find(std::string(q) + sep + name) == std::string::npos) continue;
      std::string word = q;
      if (word == "validation") word = "val";
      if (word == "top1" || word == "top5") word = "top-" + word.substr(3);
      extractor["qualifier"] = word;
    }
  }
  return {{"name", m.name},    {"value", m.value},
          {"unit", m.unit},    {"direction", cls.direction},
          {"class", cls.name}, {"tolerance", {{"kind", cls.tolerance_kind}, {"value", cls.tolerance}}},
          {"text", m.text},    {"file", m.file},
          {"line", m.line},    {"extractor", extractor}};
}

/// The scale-bearing files of the workload: its script (python X.py, -m pkg.mod), configuration
/// files its command names (--config X, --cfg=X, -c X, a bare path) and configuration files its
/// script's defaults name, each with every scale value at the pinned commit.
json choose_scale(const fingerprint& fp, const json& workload) {
  json out = {{"files", json::array()}};
  if (!workload.is_object()) {
    out["note"] = "no workload command: no scale-bearing files";
    return out;
  }
  std::map<std::string, std::vector<const finding*>> by_file;
  for (const auto& v : fp.scale_values) by_file[v.file].push_back(&v);
  std::vector<std::string> chosen;
  auto take = [&](std::string word) {
    if (word.starts_with("./")) word = word.substr(2);
    const auto eq = word.find('=');
    if (word.starts_with("-") && eq != std::string::npos) word = word.substr(eq + 1);
    if (by_file.count(word) && std::find(chosen.begin(), chosen.end(), word) == chosen.end()) chosen.push_back(word);
  };
  const auto words = text::shell_words(workload.value("command", std::string()));
  for (std::size_t i = 0; i < words.size(); ++i) {
    take(words[i]);
    if (words[i] == "-m" && i + 1 < words.size()) {
      std::string mod = words[i + 1];
      std::replace(mod.begin(), mod.end(), '.', '/');
      take(mod + ".py");
      take(mod + "/__main__.py");
    }
  }
  for (std::size_t i = 0; i < chosen.size(); ++i)  // defaults that name a configuration file
    for (const auto* v : by_file[chosen[i]]) take(v->detail);
  for (const auto& f : chosen) {
    json values = json::array();
    for (const auto* v : by_file[f])
      values.push_back({{"key", v->name}, {"value", v->detail}, {"line", v->line}, {"form", v->kind}});
    out["files"].push_back({{"file", f}, {"values", values}});
  }
  out["note"] = chosen.empty() ? "the workload's files set no scale-bearing value (epochs, steps, batch size...)"
                               : "Mode 1 compares these values in the final workspace with the pinned commit's";
  return out;
}

}  // namespace

json build_plan(const plan_inputs& in, const knowledge& k) {
  const fingerprint& fp = *in.fp;
  json plan;
  plan["schema_version"] = 1;
  plan["repository"] = {{"source", fp.source}, {"url", fp.url}, {"commit", fp.commit}};
  if (!in.content_hash.empty()) plan["repository"]["content_hash"] = in.content_hash;
  plan["notes"] = json::array();
  for (const auto& n : in.notes) plan["notes"].push_back({{"kind", n.kind}, {"path", n.path}, {"detail", n.detail}});
  plan["arch"] = in.arch;
  json hazards = json::array();

  // Base image.
  const json candidates = in.ranking.value("candidates", json::array());
  json top3 = json::array();
  for (std::size_t i = 0; i < candidates.size() && i < 3; ++i) {
    const auto& c = candidates[i];
    top3.push_back(
        {{"ref", c.at("ref")}, {"score", c.at("score")}, {"reasons", c.at("reasons")}, {"risks", c.at("risks")}});
  }
  plan["candidates"] = top3;
  std::set<std::string> inventory;
  if (!in.base_image_override.empty()) {
    plan["base_image"] = {{"ref", in.base_image_override},
                          {"source", "override"},
                          {"reasons", {"--base-image was given"}},
                          {"recommended", candidates.empty() ? json(nullptr) : candidates[0].at("ref")}};
  } else if (!candidates.empty()) {
    const auto& c = candidates[0];
    plan["base_image"] = {{"ref", c.at("ref")},    {"image", c.at("image")}, {"tag", c.at("tag")},
                          {"source", "ranker"},    {"score", c.at("score")}, {"reasons", c.at("reasons")},
                          {"risks", c.at("risks")}};
    if (c.contains("digest")) plan["base_image"]["digest"] = c.at("digest");
    for (const auto& o : c.at("overlap")) inventory.insert(o.get<std::string>());
  } else {
    plan["base_image"] = {{"ref", ""}, {"source", "none"}, {"reasons", json::array()}};
    std::string why = "no catalog image passed the hard filters for arch '" + in.arch + "'";
    for (const auto& r : in.ranking.value("rejected", json::array())) {
      why += "; " + r.value("image", "") + (r.contains("tag") ? ":" + r.value("tag", "") : "") + ": " +
             r.at("reasons").at(0).get<std::string>();
      if (why.size() > 600) break;
    }
    hazards.push_back(hazard("no_base_image", "blocking", why, "", 0,
                             "add an image for this arch to the catalog or pass --base-image"));
  }

  // Install steps.
  json steps = json::array();
  json skipped = json::array();
  json kernel_builds = json::array();
  steps.push_back({{"id", "image-constraints"},
                   {"kind", "constraints"},
                   {"command", std::string("mkdir -p /opt/r2r && (pip freeze | grep -iE "
                                           "'^(torch|torchvision|torchaudio|triton|pytorch-triton-rocm|jax|jaxlib|"
                                           "tensorflow|vllm|sglang|flashinfer)==' || true) > ") +
                                   constraints_file},
                   {"reason", "record the base image's ROCm framework builds so no later step can replace them"}});
  std::vector<std::string> pip_args;
  json pip_from = json::array();
  std::set<std::string> seen;
  std::set<std::string> special;  // replacement/build steps already added
  std::vector<json> special_steps;
  for (const auto& idx : fp.index_urls) {
    if (idx.kind == "cuda_index" || idx.kind == "cuda_channel") {
      hazards.push_back(
          hazard(idx.kind, "info", idx.detail + ": " + idx.name, idx.file, idx.line, "dropped from the install steps"));
    } else if (idx.kind == "index" && idx.name.find("://") != std::string::npos) {
      pip_args.push_back("--extra-index-url " + text::shell_quote(idx.name));
    }
  }
  for (const auto& d_in : fp.dependencies) {
    if (d_in.optional || d_in.scope == "vendored" || d_in.source == "build-system" || d_in.source == "constraints")
      continue;
    if (!seen.insert(d_in.name).second) continue;
    // An extra that selects a CUDA build (jax[cuda12], aqlm[gpu]) is dropped from the install.
    dependency d = d_in;
    d.extras.clear();
    for (const auto& extra : d_in.extras) {
      if (const auto* er = k.extra_rule_for(d.name, extra)) {
        hazards.push_back(hazard("cuda_extra", "info", d.name + "[" + extra + "]: " + er->note, d.file, d.line,
                                 "installed without the extra"));
      } else {
        d.extras.push_back(extra);
      }
    }
    const auto* rule = k.rule_for(d.name);
    const std::string action = rule ? rule->action : "";
    if (action == "keep_image") {
      skipped.push_back({{"name", d.name},
                         {"action", action},
                         {"reason", "kept from the base image: " + rule->note},
                         {"file", d.file},
                         {"line", d.line}});
    } else if (action == "never") {
      skipped.push_back(
          {{"name", d.name}, {"action", action}, {"reason", rule->note}, {"file", d.file}, {"line", d.line}});
      hazards.push_back(hazard("nvidia_wheel", "info", d.name + ": " + rule->note, d.file, d.line, "never installed"));
    } else if (action == "no_rocm") {
      skipped.push_back(
          {{"name", d.name}, {"action", action}, {"reason", rule->note}, {"file", d.file}, {"line", d.line}});
      hazards.push_back(hazard("no_rocm_build", "blocking", d.name + ": " + rule->note, d.file, d.line,
                               "port the code that uses it"));
    } else if (action == "replace" || action == "rocm_build" || action == "degrade") {
      const std::string key = rule->with.empty() ? d.name : rule->with;
      if (special.insert(key).second) {
        json step = {{"id", (action == "rocm_build" ? "build-" : "replace-") + key},
                     {"kind", action == "rocm_build" ? "rocm_build" : "replace"},
                     {"command", replace_all(rule->install, "{arch}", arch_or_env(in.arch))},
                     {"packages", {d.name}},
                     {"reason", rule->note},
                     {"from", json::array({where(d.file, d.line)})}};
        if (action == "rocm_build") {
          kernel_builds.push_back({{"kind", "package"},
                                   {"name", d.name},
                                   {"step", step["id"]},
                                   {"note", rule->note},
                                   {"file", d.file},
                                   {"line", d.line}});
        } else if (action == "degrade") {
          hazards.push_back(hazard("degradation", "warning", d.name + " -> " + rule->with + ": " + rule->note, d.file,
                                   d.line, "recorded degradation: the accelerated path is lost"));
        } else {
          hazards.push_back(hazard("substitution", "info", d.name + " -> " + rule->with + ": " + rule->note, d.file,
                                   d.line, "recorded substitution"));
        }
        special_steps.push_back(std::move(step));
      }
    } else if (inventory.count(d.name) && d.specifier.empty() && d.url.empty()) {
      skipped.push_back({{"name", d.name},
                         {"action", "preinstalled"},
                         {"reason", "already in the base image"},
                         {"file", d.file},
                         {"line", d.line}});
    } else {
      if (!d.local_version.empty()) {
        hazards.push_back(hazard("cuda_local_version", "info",
                                 d.name + d.specifier + d.local_version + " selects a CUDA build", d.file, d.line,
                                 "installed without the local version label"));
      }
      pip_args.push_back(text::shell_quote(requirement_text(d)));
      pip_from.push_back(where(d.file, d.line));
    }
  }
  // Third-party imports no file declares (pipreqs-style), installed by their distribution name.
  for (const auto& p : fp.desired_packages) {
    if (seen.count(p) || inventory.count(p)) continue;
    bool declared = false;
    for (const auto& d : fp.dependencies) declared = declared || d.name == p;
    if (declared) continue;
    seen.insert(p);
    const auto* rule = k.rule_for(p);
    if (rule != nullptr) {
      if (rule->action == "rocm_build" || rule->action == "replace" || rule->action == "degrade") {
        const std::string key = rule->with.empty() ? p : rule->with;
        if (rule->action == "degrade") {
          hazards.push_back(hazard("degradation", "warning", p + " -> " + rule->with + ": " + rule->note, "", 0,
                                   "recorded degradation: the accelerated path is lost"));
        }
        if (special.insert(key).second) {
          special_steps.push_back({{"id", (rule->action == "rocm_build" ? "build-" : "replace-") + key},
                                   {"kind", rule->action == "rocm_build" ? "rocm_build" : "replace"},
                                   {"command", replace_all(rule->install, "{arch}", arch_or_env(in.arch))},
                                   {"packages", {p}},
                                   {"reason", rule->note},
                                   {"from", json::array()}});
        }
      } else {
        skipped.push_back({{"name", p}, {"action", rule->action}, {"reason", rule->note}, {"file", ""}, {"line", 0}});
        if (rule->action == "no_rocm") {
          const finding* site = nullptr;
          for (const auto& c : fp.cuda_packages) site = site != nullptr || c.name != p ? site : &c;
          hazards.push_back(hazard("no_rocm_build", "blocking", p + " (imported): " + rule->note,
                                   site ? site->file : "", site ? site->line : 0, "port the code that uses it"));
        }
      }
      continue;
    }
    pip_args.push_back(text::shell_quote(p));
    pip_from.push_back(where("", 0));
  }
  bool has_packages = false;
  for (const auto& a : pip_args) has_packages = has_packages || a.rfind("--", 0) != 0;
  if (has_packages) {
    std::string cmd = std::string("pip install --no-cache-dir -c ") + constraints_file;
    for (const auto& a : pip_args) cmd += " " + a;
    steps.push_back(
        {{"id", "pip-dependencies"},
         {"kind", "pip"},
         {"command", cmd},
         {"reason",
          "the repository's declared dependencies, without CUDA wheels, CUDA indices or framework reinstalls"},
         {"from", pip_from}});
  }
  for (auto& s : special_steps) steps.push_back(std::move(s));
  std::vector<std::string> extension_names;
  for (const auto& e : fp.extensions) {
    if (e.kind == "cuda_extension") extension_names.push_back(e.name);
  }
  if (fp.installable) {
    std::vector<std::string> build_reqs;
    for (const auto& d : fp.dependencies) {
      if (d.source != "build-system") continue;
      const auto* rule = k.rule_for(d.name);
      if (rule == nullptr && d.name != "setuptools" && d.name != "wheel")
        build_reqs.push_back(text::shell_quote(requirement_text(d)));
    }
    if (!build_reqs.empty()) {
      std::string cmd = std::string("pip install --no-cache-dir -c ") + constraints_file;
      for (const auto& b : build_reqs) cmd += " " + b;
      steps.push_back({{"id", "build-requirements"},
                       {"kind", "pip"},
                       {"command", cmd},
                       {"reason",
                        "build backend requirements (the repository is installed without build isolation so it builds "
                        "against the image's torch)"}});
    }
    const bool kernels = !extension_names.empty();
    steps.push_back({{"id", kernels ? "build-repository-extensions" : "install-repository"},
                     {"kind", kernels ? "kernel_build" : "repo_install"},
                     {"command", std::string("pip install --no-cache-dir --no-build-isolation --no-deps -c ") +
                                     constraints_file + " -e ."},
                     {"reason", kernels ? "builds the repository's CUDAExtension(s) for " + arch_or_env(in.arch) +
                                              "; torch.utils.cpp_extension hipifies the .cu sources on ROCm PyTorch"
                                        : "installs the repository itself (" + fp.build_system + ")"}});
    if (kernels) {
      for (const auto& b : fp.kernel_builds) {
        if (b.kind != "cuda_extension") continue;
        kernel_builds.push_back(
            planned_kernel_build(b, "setup_extension", "build-repository-extensions",
                                 "hipified and compiled with --offload-arch=" + arch_or_env(in.arch)));
      }
    }
  }
  // Device sources that no planned build compiles: the converter stage has to port and build them.
  std::set<std::string> built;
  bool unresolved = false;
  for (const auto& b : fp.kernel_builds) {
    built.insert(b.sources.begin(), b.sources.end());
    for (const auto& site : b.kernels) built.insert(site.file);
    unresolved = unresolved || !b.unresolved.empty();
    if (b.kind == "jit_load" || b.kind == "jit_load_inline") {
      kernel_builds.push_back(planned_kernel_build(
          b, "jit", nullptr,
          "compiled at first use by torch.utils.cpp_extension for PYTORCH_ROCM_ARCH (hipified automatically)"));
    } else if (b.kind == "triton") {
      kernel_builds.push_back(planned_kernel_build(
          b, "triton", nullptr,
          "compiled at run time by the image's Triton (AMD backend); check block sizes for wave64"));
    }
  }
  std::vector<std::string> orphans;
  for (const auto& kf : fp.kernels) {
    if (kf.kind == "cuda_source" && kf.name.size() > 3 && kf.name.compare(kf.name.size() - 3, 3, ".cu") == 0 &&
        !built.count(kf.name))
      orphans.push_back(kf.name);
  }
  if (!orphans.empty() && !unresolved) {
    std::string list;
    for (std::size_t i = 0; i < orphans.size() && i < 8; ++i) list += (i ? ", " : "") + orphans[i];
    if (orphans.size() > 8) list += ", ... (" + std::to_string(orphans.size()) + " in all)";
    hazards.push_back(hazard("unbuilt_cuda_sources", "warning",
                             "the repository has .cu sources that neither setup.py nor a JIT loader builds: " + list,
                             orphans.front(), 0,
                             "port them with the converter stage (hipify) and build them explicitly"));
  }
  plan["install_steps"] = steps;
  plan["skipped_packages"] = skipped;
  plan["kernel_builds"] = kernel_builds;

  for (const auto& h : fp.hazards) {
    const bool device = h.kind.find("warp") != std::string::npos || h.kind == "inline_ptx" || h.kind == "wmma" ||
                        h.kind == "mma_sync" || h.kind == "cp_async" || h.kind == "large_shared_memory";
    hazards.push_back(hazard(h.kind, device ? "warning" : "info", h.detail, h.file, h.line,
                             device ? "review in the kernel port" : "patch in the execution stage"));
  }
  for (const auto& p : fp.problems) {
    hazards.push_back(
        hazard("malformed_file", "warning", p.detail, p.file, p.line, "fix the file; its entries were skipped"));
  }

  // Workload, validation, metric.
  json rejected = json::array();
  plan["workload"] = detail::rank_workloads(fp, rejected);
  plan["scale"] = choose_scale(fp, plan["workload"]);
  plan["rejected_commands"] = rejected;
  if (plan["workload"].is_null()) {
    hazards.push_back(
        hazard("no_workload", "blocking",
               "no runnable official command: the README, scripts/ and __main__ files give none that runs "
               "training, inference or evaluation without usage-only flags",
               "", 0, "name the workload command for the execution stage"));
  }
  for (const auto& n : in.notes) {
    const bool submodule = n.kind == "submodule_not_fetched";
    hazards.push_back(hazard(n.kind, submodule ? "warning" : "info", n.detail, n.path, 0,
                             submodule ? "planned without the submodule's files" : "pinned by the content hash"));
  }
  plan["hazards"] = hazards;
  plan["assets"] = detail::plan_assets(fp, in.tree);
  plan["env"] = json::object();
  if (!in.arch.empty()) {
    plan["env"] = {{"PYTORCH_ROCM_ARCH", in.arch},
                   {"GPU_ARCHS", in.arch},
                   {"HIPCC_COMPILE_FLAGS_APPEND", "--offload-arch=" + in.arch}};
  }
  json checks = json::array();
  const bool torch = std::find(fp.frameworks.begin(), fp.frameworks.end(), "torch") != fp.frameworks.end();
  const bool jax = std::find(fp.frameworks.begin(), fp.frameworks.end(), "jax") != fp.frameworks.end();
  if (torch) {
    checks.push_back({{"name", "rocm_torch"},
                      {"command",
                       "python -c \"import torch; assert torch.version.hip, 'torch is not a ROCm build'; "
                       "print(torch.version.hip)\""},
                      {"expect", "exit 0; prints the HIP version"}});
    if (!in.arch.empty()) {
      checks.push_back(
          {{"name", "gpu_arch"},
           {"command",
            "python -c \"import torch; n = torch.cuda.get_device_properties(0).gcnArchName; assert n.startswith('" +
                in.arch + "'), n\""},
           {"expect", "exit 0 on a " + in.arch + " device"}});
    }
  }
  if (jax)
    checks.push_back(
        {{"name", "rocm_jax"},
         {"command", "python -c \"import jax; d = jax.devices(); assert d[0].platform in ('gpu', 'rocm'), d\""},
         {"expect", "exit 0"}});
  checks.push_back({{"name", "no_nvidia_wheels"},
                    {"command", "sh -c \"! pip list --format=freeze | grep -iE '^nvidia-|[+]cu[0-9]+'\""},
                    {"expect", "exit 0: no NVIDIA wheel or +cuXXX build is installed"}});
  for (const auto& name : extension_names) {
    checks.push_back({{"name", "extension_" + name},
                      {"command", "python -c \"import " + name + "\""},
                      {"expect", "the built extension imports"}});
  }
  if (!plan["workload"].is_null()) {
    checks.push_back({{"name", "kernel_trace"},
                      {"command", "rocprofv3 --kernel-trace --output-format csv -d /tmp/r2r-trace -- " +
                                      plan["workload"]["command"].get<std::string>()},
                      {"expect", "the workload exits 0 and the trace lists kernel dispatches on the GPU agent"}});
  }
  plan["validation"] = checks;
  json note;
  if (in.paper != nullptr) {
    auto target = plan_paper_target(*in.paper, in.tree, plan["workload"], in.paper_model, in.paper_model_instance);
    plan["paper"] = std::move(target.section);
    plan["metric"] = std::move(target.metric);
    plan["metric_note"] = target.note;
    return plan;
  }
  plan["metric"] = choose_metric(fp, note);
  plan["metric_note"] = note;
  return plan;
}

}  // namespace r2r::planning
