// SPDX-License-Identifier: MIT
#include "accelerator_swap_guard.hpp"

#include "r2r_guard_builtin_policy.hpp"
#include "switch_rules.hpp"

#include <r2r/guards/text_change.hpp>
#include <r2r/sdk/error.hpp>

#include <regex>
#include <sstream>

namespace r2r::plugins::guard {

void from_json(const nlohmann::json& j, accelerator_swap_guard::config& c) {
  const accelerator_swap_guard::config defaults;
  c.allow_degradations = j.value("allow_degradations", defaults.allow_degradations);
  c.protected_packages = j.value("protected_packages", defaults.protected_packages);
  c.max_scan_bytes = j.value("max_scan_bytes", defaults.max_scan_bytes);
  c.policy = j.value("policy", nlohmann::json());
}

namespace {

constexpr auto icase = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;

const std::regex& attention_swap() {
  static const std::regex r(
      R"(attn[_-]?implementation['"]?\s*[=:]?\s*\\?['"]?(sdpa|eager)\b|ATTN_BACKEND['"]?\s*\]?\s*[=:]\s*\\?['"]?sdpa\b)",
      icase);
  return r;
}
const std::regex& flash_import() {
  static const std::regex r(R"(^\s*(from\s+flash_attn\b|import\s+flash_attn\b))", icase);
  return r;
}
const std::regex& commented_flash_import() {
  static const std::regex r(R"(^\s*#+\s*(from\s+flash_attn\b|import\s+flash_attn\b))", icase);
  return r;
}
const std::regex& mentions_flash_attn() {
  static const std::regex r(R"(flash[_\-. ]?attn|flash[_\-]attention)", icase);
  return r;
}

bool is_requirements_file(const std::string& path) {
  static const std::regex name(R"((^|/)(requirements|constraints)[^/]*\.(txt|in)$)", icase);
  return std::regex_search(path, name);
}

std::string shorten(std::string s) {
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

}  // namespace

accelerator_swap_guard::accelerator_swap_guard(const config& cfg, const sdk::host& host)
    : max_scan_bytes_(cfg.max_scan_bytes),
      policy_(policy::select(cfg.policy, r2r_guard_builtin::policy, "r2r.guard.accelerator-swap")),
      switches_(accel::switch_matcher::shared(policy_.switches, policy_.forbidden_environment)),
      files_(cfg.max_scan_bytes),
      host_(host) {
  static const std::regex level(R"(D[0-5])");
  for (auto entry : cfg.allow_degradations) {
    if (!std::regex_match(entry.level, level))
      throw sdk::invalid_argument("allow_degradations: level '" + entry.level + "' of '" + entry.component +
                                  "' is not D0..D5");
    entry.component = accel::normalize_name(entry.component);
    degradations_.push_back(entry);
  }
  for (const auto& p : cfg.protected_packages) protected_.insert(accel::normalize_name(p));
}

std::optional<accelerator_swap_guard::finding> accelerator_swap_guard::check_packages(
    const accel::package_operation& op, const sdk::guard::check_request& request) const {
  for (const auto& url : op.indexes)
    if (accel::is_cuda_index(url))
      return finding{{},
                     (op.configures ? "configures " : "installs from ") + std::string("the CUDA wheel index ") + url};
  for (const auto& ch : op.channels)
    if (ch == "nvidia" || ch.find("/nvidia") != std::string::npos)
      return finding{{}, (op.configures ? "adds" : "installs from") + std::string(" the nvidia conda channel")};
  std::string rocm_index;
  for (const auto& url : op.indexes)
    if (!accel::rocm_version_of(url).empty()) rocm_index = url;
  for (const auto& spec : op.packages) {
    const std::string name = accel::normalize_name(spec);
    if (!op.removes) {
      if (const auto why = accel::cuda_build_reason(spec); !why.empty())
        return finding{{}, "installs " + spec + ", " + why};
      if (op.manager == "apt" && (name.rfind("cuda", 0) == 0 || name.rfind("libcudnn", 0) == 0 ||
                                  name.rfind("libnccl", 0) == 0 || name.rfind("libcublas", 0) == 0))
        return finding{{}, "installs the system CUDA package " + spec};
    }
    if (!protected_.count(name)) continue;
    const std::string rocm = accel::rocm_version_of(rocm_index.empty() ? spec : rocm_index);
    if (!op.removes && !rocm.empty()) {
      const std::string target = accel::target_rocm_version(request.context.plan, request.context.image);
      const std::string from = rocm_index.empty() ? spec : spec + " from " + rocm_index;
      if (target == rocm)
        return finding{"rocm-rebuild", "installs the ROCm " + rocm + " build " + from + " (the plan's ROCm version)",
                       name};
      return finding{{},
                     "installs the ROCm " + rocm + " build " + from + ", but the run targets " +
                         (target.empty() ? "an unknown ROCm version" : "ROCm " + target),
                     name,
                     target.empty() ? "the plan's base image names no ROCm version; keep the image's " + name +
                                          " or switch_image to an image of the ROCm version you need"
                                    : "use the ROCm " + target + " index (download.pytorch.org/whl/rocm" + target +
                                          ") so the build matches the image's ROCm runtime"};
    }
    return finding{name, op.removes ? "uninstalls the image's ROCm " + name + " (" + spec + ")"
                                    : "replaces the image's ROCm " + name + " with " + spec};
  }
  return std::nullopt;
}

std::optional<accelerator_swap_guard::finding> accelerator_swap_guard::check_code(const std::string& text,
                                                                                  bool patch) const {
  std::istringstream lines(text);
  int removed_imports = 0;
  int added_imports = 0;
  for (std::string line; std::getline(lines, line);) {
    if (patch) {
      if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0) continue;
      if (!line.empty() && line[0] == '-') {
        removed_imports += std::regex_search(line.substr(1), flash_import());
        continue;
      }
      if (line.empty() || line[0] != '+') continue;
      line = line.substr(1);
    }
    added_imports += std::regex_search(line, flash_import());
    std::smatch m;
    if (std::regex_search(line, m, attention_swap()))
      return finding{"flash-attn",
                     "switches attention away from flash-attn (`" + m.str(0) + "` in: " + shorten(line) + ")"};
    if (std::regex_search(line, commented_flash_import()))
      return finding{"flash-attn", "comments out a flash-attn import (" + shorten(line) + ")"};
  }
  if (patch && removed_imports > added_imports) return finding{"flash-attn", "deletes a flash-attn import"};
  return std::nullopt;
}

std::optional<accelerator_swap_guard::finding> accelerator_swap_guard::check_requirements(
    const std::string& text) const {
  std::istringstream lines(text);
  accel::package_operation op;
  op.manager = "pip";
  for (std::string line; std::getline(lines, line);) {
    line = line.substr(0, line.find(" #"));
    std::istringstream words(line);
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w);
    if (argv.empty() || argv[0][0] == '#') continue;
    for (std::size_t k = 0; k < argv.size(); ++k) {
      const auto eq = argv[k].find('=');
      const std::string flag = argv[k].substr(0, eq);
      if (flag == "-i" || flag == "--index-url" || flag == "--extra-index-url" || flag == "-f" ||
          flag == "--find-links")
        op.indexes.push_back(eq != std::string::npos ? argv[k].substr(eq + 1)
                                                     : (k + 1 < argv.size() ? argv[k + 1] : ""));
    }
    if (argv[0][0] != '-') op.packages.push_back(line);
  }
  for (const auto& url : op.indexes)
    if (accel::is_cuda_index(url)) return finding{{}, "adds the CUDA wheel index " + url + " to a requirements file"};
  for (const auto& spec : op.packages)
    if (const auto why = accel::cuda_build_reason(spec); !why.empty())
      return finding{{}, "adds " + shorten(spec) + " to a requirements file, " + why};
  return std::nullopt;
}

std::vector<accelerator_swap_guard::finding> accelerator_swap_guard::check_commands(
    const command_view& view, const sdk::guard::check_request& request) const {
  std::vector<finding> out;
  std::vector<shell::simple_command> others;  // not package commands: their words may set config switches
  for (const auto& cmd : view.commands) {
    for (const auto& [var, value] : cmd.env) {
      if (var == "ATTN_BACKEND" && value == "sdpa")
        out.push_back({"flash-attn", "sets ATTN_BACKEND=sdpa, replacing flash-attn"});
    }
    if (auto op = accel::parse_package_command(cmd)) {
      if (auto f = check_packages(*op, request)) out.push_back(std::move(*f));
      continue;
    }
    others.push_back(cmd);
    if (cmd.argv.empty()) continue;
    const std::string name = shell::program_name(cmd.argv[0]);
    if (name == "sed" || name == "perl") {
      for (std::size_t k = 1; k < cmd.argv.size(); ++k) {
        const std::string& script = cmd.argv[k];
        if (!std::regex_search(script, mentions_flash_attn())) continue;
        static const std::regex edits_out(R"(#|/\s*d\s*$|/\s*d\s*;)");
        if (std::regex_search(script, edits_out))
          out.push_back({"flash-attn", "edits out a flash-attn import with " + name + " (" + shorten(script) + ")"});
      }
    }
  }
  std::smatch m;
  if (std::regex_search(view.text, m, attention_swap()))
    out.push_back({"flash-attn", "switches attention away from flash-attn (`" + m.str(0) + "`)"});
  for (auto& f : switch_findings(view.text, accel::command_setting_lines(others))) out.push_back(std::move(f));
  return out;
}

std::vector<accelerator_swap_guard::finding> accelerator_swap_guard::switch_findings(
    const std::string& environment_text, const std::vector<std::string>& setting_lines) const {
  std::vector<finding> out;
  for (const auto& s : switches_->environment_switches(environment_text))
    out.push_back({s.component, "sets " + s.setting + ", which turns " + s.component + " off", s.setting});
  for (const auto& s : switches_->config_switches(setting_lines))
    out.push_back({s.component, "sets `" + shorten(s.setting) + "`, which turns " + s.component + " off", s.setting});
  return out;
}

sdk::guard::decision accelerator_swap_guard::decide(const finding& f, const sdk::guard::check_request& request) const {
  const std::string& action_type = request.action.type;
  if (!f.component.empty()) {
    for (const auto& d : degradations_) {
      if (d.component != f.component) continue;
      R2R_LOG(host_, info, "allow " << action_type << " as degradation " << d.level << ": " << f.reason);
      auto out = sdk::guard::decision::allow();
      out.ledger.push_back({d.component, d.level, d.note.empty() ? f.reason : d.note + " (" + f.reason + ")"});
      return out;
    }
    if (policy_.find(f.component) != nullptr) {
      auto d = policy::decide(policy_, {f.component, f.subject.empty() ? f.component : f.subject, f.reason},
                              request.context.mode, request.action.text("reason"));
      R2R_LOG(host_, info, d.verdict << " " << action_type << " by policy: " << f.reason);
      if (d.verdict == "deny") d.reason = "accelerator swap: " + d.reason;
      return d;
    }
  }
  R2R_LOG(host_, info, "deny " << action_type << ": " << f.reason);
  if (!f.unlock.empty()) return sdk::guard::decision::deny("accelerator swap: " + f.reason, f.unlock);
  if (f.component.empty())
    return sdk::guard::decision::deny(
        "CUDA build on a ROCm target: " + f.reason,
        "nothing unlocks a CUDA build on ROCm; use the image's ROCm packages, a ROCm build from the ROCm wheel "
        "index of the plan's ROCm version (download.pytorch.org/whl/rocmX.Y), or a ROCm build from source");
  return sdk::guard::decision::deny(
      "accelerator swap: " + f.reason,
      "keep the image's ROCm " + f.component + " and fix the failure it shows; or switch to an image that ships " +
          f.component + "; or list {\"component\": \"" + f.component +
          "\", \"level\": \"D1..D5\"} in this guard's allow_degradations to accept the substitution on the ledger");
}

std::optional<sdk::guard::decision> accelerator_swap_guard::deny_forbidden(const std::string& text,
                                                                           const std::string& where) const {
  const auto v = switches_->forbidden_in(text);
  if (!v) return std::nullopt;
  R2R_LOG(host_, info, "deny: sets " << v->name << " " << where);
  return sdk::guard::decision::deny(
      "accelerator swap: sets " + v->name + " " + where + ": " + v->why,
      "never set " + v->name +
          "; build for the target architecture (the plan's arch, e.g. PYTORCH_ROCM_ARCH / --offload-arch) or "
          "switch_image to an image that supports the GPU; nothing in a policy unlocks it");
}

std::vector<accelerator_swap_guard::finding> accelerator_swap_guard::check_file(
    const std::string& path, const std::optional<std::string>& before, const std::string& after,
    const sdk::guard::check_request& request) const {
  std::vector<finding> out;
  const auto delta = line_delta(path, before, after);
  std::string added;
  for (const auto& l : delta.added) added += l + "\n";
  if (is_requirements_file(path))
    if (auto f = check_requirements(added)) out.push_back(std::move(*f));
  if (auto f = check_source_config(path, added)) out.push_back(std::move(*f));
  if (is_shell_file(path)) {
    const auto view = view_command(added, files_, max_scan_bytes_);
    if (!view.computed.empty())
      out.push_back({{},
                     "writes into " + path + " a command that " + view.computed.front().what,
                     path,
                     "write the command out in the script so every guard can judge it"});
    for (auto& f : check_commands(view, request)) out.push_back(std::move(f));
  } else {
    for (auto& f : switch_findings(added, delta.added)) out.push_back(std::move(f));
  }
  return out;
}

std::optional<accelerator_swap_guard::finding> accelerator_swap_guard::check_source_config(
    const std::string& path, const std::string& added) const {
  static const std::regex config_file(
      R"((^|/)(pip\.conf|pip\.ini|uv\.toml|pyproject\.toml|poetry\.toml|pdm\.toml|\.condarc|condarc|environment\.ya?ml|\.pdm\.toml|setup\.cfg)$)",
      icase);
  if (!std::regex_search(path, config_file)) return std::nullopt;
  static const std::regex url(R"([a-z+]+://[^\s'"]+)", icase);
  for (std::sregex_iterator it(added.begin(), added.end(), url), end; it != end; ++it)
    if (accel::is_cuda_index(it->str()))
      return finding{{}, "writes the CUDA wheel index " + it->str() + " into " + path};
  static const std::regex nvidia_channel(R"((^|[\s\-:\[,'"])nvidia(\s*$|[\s,'"\]]|::))", icase);
  const bool conda_file = path.find("condarc") != std::string::npos || path.find("environment.y") != std::string::npos;
  if (conda_file && std::regex_search(added, nvidia_channel))
    return finding{{}, "adds the nvidia conda channel to " + path};
  return std::nullopt;
}

sdk::guard::decision accelerator_swap_guard::combine(const std::vector<finding>& findings,
                                                     const sdk::guard::check_request& request) const {
  auto out = sdk::guard::decision::allow();
  for (const auto& f : findings) {
    auto d = decide(f, request);
    if (d.verdict == "deny") return d;
    for (auto& e : d.ledger) out.ledger.push_back(std::move(e));
  }
  return out;
}

sdk::guard::decision accelerator_swap_guard::check_action(const sdk::guard::check_request& request) {
  const auto& a = request.action;
  auto head = [this](std::string s) {
    if (s.size() > max_scan_bytes_) s.resize(max_scan_bytes_);
    return s;
  };
  if (const auto view = view_action(a, files_, max_scan_bytes_)) {
    if (auto d = deny_forbidden(view->text,
                                "in the command" + std::string(view->scripts.empty() ? "" : " or a script it runs")))
      return *d;
    if (auto d = deny_computed(*view, "accelerator swap")) return *d;
    return combine(check_commands(*view, request), request);
  }
  std::vector<finding> findings;
  if (a.type == "write_file") {
    const std::string path = a.text("path");
    const std::string content = head(a.text("content"));
    if (auto d = deny_forbidden(content, "in " + path)) return *d;
    findings = check_file(path, files_.content(path), content, request);
    if (auto f = check_code(content, false)) findings.push_back(std::move(*f));
  } else if (a.type == "apply_patch") {
    const std::string patch = head(a.text("patch"));
    std::string added;
    for (const auto& change : parse_unified_diff(patch)) {
      std::string lines;
      for (const auto& l : change.added) lines += l + "\n";
      if (auto d = deny_forbidden(lines, "in " + change.path)) return *d;
      for (auto& f : check_file(change.path, std::string(), lines, request)) findings.push_back(std::move(f));
    }
    if (auto f = check_code(patch, true)) findings.push_back(std::move(*f));
  }
  return combine(findings, request);
}

sdk::guard::observe_response accelerator_swap_guard::observe(const sdk::guard::observe_request& request) {
  files_.observe(request);
  return {};
}

}  // namespace r2r::plugins::guard
