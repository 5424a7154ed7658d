// SPDX-License-Identifier: MIT
#include "accelerator_swap_guard.hpp"

#include "r2r_guard_builtin_policy.hpp"

#include <r2r/sdk/error.hpp>

#include <regex>
#include <sstream>

namespace r2r::guards {

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

/// The added lines of a unified diff that go to requirements files.
std::string added_requirement_lines(const std::string& patch) {
  std::istringstream lines(patch);
  std::string out;
  bool in_requirements = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("+++ ", 0) == 0)
      in_requirements = is_requirements_file(line.substr(4, line.find('\t') - 4));
    else if (in_requirements && !line.empty() && line[0] == '+')
      out += line.substr(1) + "\n";
  }
  return out;
}

std::string shorten(std::string s) {
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

}  // namespace

accelerator_swap_guard::accelerator_swap_guard(const config& cfg, const sdk::host& host)
    : max_scan_bytes_(cfg.max_scan_bytes),
      policy_(policy::select(cfg.policy, r2r_guard_builtin::policy, "r2r.guard.accelerator_swap")),
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
    const accel::package_operation& op) const {
  for (const auto& url : op.indexes)
    if (accel::is_cuda_index(url)) return finding{{}, "installs from the CUDA wheel index " + url};
  for (const auto& ch : op.channels)
    if (ch == "nvidia" || ch.find("/nvidia") != std::string::npos)
      return finding{{}, "installs from the nvidia conda channel"};
  for (const auto& spec : op.packages) {
    const std::string name = accel::normalize_name(spec);
    if (!op.removes) {
      if (const auto why = accel::cuda_build_reason(spec); !why.empty())
        return finding{{}, "installs " + spec + ", " + why};
      if (op.manager == "apt" && (name.rfind("cuda", 0) == 0 || name.rfind("libcudnn", 0) == 0 ||
                                  name.rfind("libnccl", 0) == 0 || name.rfind("libcublas", 0) == 0))
        return finding{{}, "installs the system CUDA package " + spec};
    }
    if (protected_.count(name))
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

std::optional<accelerator_swap_guard::finding> accelerator_swap_guard::check_command(const std::string& command) const {
  for (const auto& cmd : shell::analyze(command)) {
    for (const auto& [var, value] : cmd.env) {
      if (var == "ATTN_BACKEND" && value == "sdpa")
        return finding{"flash-attn", "sets ATTN_BACKEND=sdpa, replacing flash-attn"};
    }
    if (auto op = accel::parse_package_command(cmd)) {
      if (auto f = check_packages(*op)) return f;
    }
    if (cmd.argv.empty()) continue;
    const std::string name = shell::program_name(cmd.argv[0]);
    if (name == "sed" || name == "perl") {
      for (std::size_t k = 1; k < cmd.argv.size(); ++k) {
        const std::string& script = cmd.argv[k];
        if (!std::regex_search(script, mentions_flash_attn())) continue;
        static const std::regex edits_out(R"(#|/\s*d\s*$|/\s*d\s*;)");
        if (std::regex_search(script, edits_out))
          return finding{"flash-attn", "edits out a flash-attn import with " + name + " (" + shorten(script) + ")"};
      }
    }
  }
  std::smatch m;
  if (std::regex_search(command, m, attention_swap()))
    return finding{"flash-attn", "switches attention away from flash-attn (`" + m.str(0) + "`)"};
  return std::nullopt;
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
      auto d = policy::decide(policy_, {f.component, f.component, f.reason}, request.context.mode,
                              request.action.text("reason"));
      R2R_LOG(host_, info, d.verdict << " " << action_type << " by policy: " << f.reason);
      if (d.verdict == "deny") d.reason = "accelerator swap: " + d.reason;
      return d;
    }
  }
  R2R_LOG(host_, info, "deny " << action_type << ": " << f.reason);
  if (f.component.empty())
    return sdk::guard::decision::deny(
        "CUDA build on a ROCm target: " + f.reason,
        "nothing unlocks a CUDA build on ROCm; use the image's ROCm packages, a ROCm wheel index "
        "(download.pytorch.org/whl/rocmX.Y) only through switch_image, or a ROCm build from source");
  return sdk::guard::decision::deny(
      "accelerator swap: " + f.reason,
      "keep the image's ROCm " + f.component + " and fix the failure it shows; or switch to an image that ships " +
          f.component + "; or list {\"component\": \"" + f.component +
          "\", \"level\": \"D1..D5\"} in this guard's allow_degradations to accept the substitution on the ledger");
}

sdk::guard::decision accelerator_swap_guard::check_action(const sdk::guard::check_request& request) {
  const auto& a = request.action;
  auto head = [this](std::string s) {
    if (s.size() > max_scan_bytes_) s.resize(max_scan_bytes_);
    return s;
  };
  std::optional<finding> f;
  if (a.type == "run" || a.type == "run_workload" || a.type == "build_kernel") {
    f = check_command(head(a.text("command")));
  } else if (a.type == "write_file") {
    const std::string content = head(a.text("content"));
    if (is_requirements_file(a.text("path"))) f = check_requirements(content);
    if (!f) f = check_code(content, false);
  } else if (a.type == "apply_patch") {
    const std::string patch = head(a.text("patch"));
    f = check_requirements(added_requirement_lines(patch));
    if (!f) f = check_code(patch, true);
  } else if (a.type == "install") {
    accel::package_operation op;
    op.manager = a.text("manager");
    if (const auto it = a.fields.find("packages"); it != a.fields.end() && it->is_array())
      for (const auto& p : *it)
        if (p.is_string()) op.packages.push_back(p.get<std::string>());
    f = check_packages(op);
  }
  return f ? decide(*f, request) : sdk::guard::decision::allow();
}

sdk::guard::observe_response accelerator_swap_guard::observe(const sdk::guard::observe_request&) {
  return {};
}

}  // namespace r2r::guards
