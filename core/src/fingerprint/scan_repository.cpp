// SPDX-License-Identifier: MIT
// scan_repository(): lists the tree once (sorted, so the result is deterministic), dispatches each
// file to its scanner, then derives what depends on everything: third-party imports (standard
// library and the repository's own modules removed), the desired package set, frameworks, CUDA-only
// packages, the preferred workload kind and the Python requirement.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <r2r/planning/tree_policy.hpp>
#include <r2r/support/safe_fs_bounded_walk.hpp>

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <system_error>

namespace r2r::planning {
namespace detail {

void add_python_spec(scan_state& s, std::string spec, const std::string& file, int line, const std::string& detail) {
  std::string cleaned;
  for (char c : spec) {
    if (!std::isspace(static_cast<unsigned char>(c))) cleaned += c;
  }
  if (cleaned.empty()) return;
  s.fp.python.evidence.push_back({"python_requirement", cleaned, detail, file, line});
  auto& combined = s.fp.python.spec;
  if (!text::contains("," + combined + ",", "," + cleaned + ",")) combined += (combined.empty() ? "" : ",") + cleaned;
  static const std::regex exact(R"(^==(\d+)\.(\d+)(\.\d+|\.\*)?$)");
  std::smatch m;
  if (s.fp.python.preferred.empty() && std::regex_match(cleaned, m, exact))
    s.fp.python.preferred = m[1].str() + "." + m[2].str();
}

bool scan_state::read(const std::string& rel, std::string& out, std::string& why) const {
  if (tree == nullptr) {
    why = "the repository could not be opened";
    return false;
  }
  std::string target = rel;
  try {
    const auto e = safe_fs::stat(*tree, rel);
    if (e.type == safe_fs::entry_type::symlink) {
      std::string text(4096, '\0');
      auto dir = safe_fs::open_dir(*tree, std::filesystem::path(rel).parent_path().generic_string());
      const ssize_t n = ::readlinkat(dir.get(), e.name.c_str(), text.data(), text.size());
      text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      target = safe_fs::link_target_inside(rel, text);
      if (target.empty()) {
        why = "a symbolic link to " + safe_fs::escape_name(text) + ", outside the repository: not read";
        return false;
      }
    }
    out = safe_fs::read_file(*tree, target, max_file_bytes);
    return true;
  } catch (const safe_fs::error& e) {
    why = e.reason();
    return false;
  }
}

}  // namespace detail

namespace {

using detail::scan_state;

bool skipped_dir(const std::string& name) {
  static const char* const skip[] = {".git", "__pycache__", "node_modules",  ".venv", "venv",  "site-packages",
                                     ".tox", ".mypy_cache", ".pytest_cache", ".eggs", ".idea", ".vscode"};
  return std::any_of(std::begin(skip), std::end(skip), [&](const char* s) { return name == s; });
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// requirements*.txt / requirements*.in anywhere (pip-tools inputs too), and any .txt in a
/// directory named requirements (a toolkit's requirements/*.txt).
bool requirements_file(const std::string& lname, const std::string& dir) {
  const bool txt = ends_with(lname, ".txt");
  if (!txt && !ends_with(lname, ".in")) return false;
  if (text::starts_with(lname, "requirements")) return true;
  const auto slash = dir.rfind('/');
  return txt && (slash == std::string::npos ? dir : dir.substr(slash + 1)) == "requirements";
}

/// environment*.yml, env*.yml named for conda, conda*.yml (any directory).
bool conda_environment_file(const std::string& lname) {
  if (!(ends_with(lname, ".yml") || ends_with(lname, ".yaml"))) return false;
  return text::starts_with(lname, "environment") || text::starts_with(lname, "conda");
}

std::string preferred_workload(const std::set<std::string>& fw, const std::set<std::string>& pkgs) {
  if (pkgs.count("sglang")) return "sglang";
  if (pkgs.count("vllm")) return "vllm";
  if (pkgs.count("megatron-core")) return "megatron";
  if (pkgs.count("deepspeed")) return "pytorch-training";
  const bool torch = fw.count("torch") > 0;
  if (fw.count("jax") && !torch) return "jax";
  if (fw.count("tensorflow") && !torch) return "tensorflow";
  if (fw.count("onnxruntime") && !torch) return "onnxruntime";
  if (torch) return "pytorch";
  return "generic";
}

}  // namespace

fingerprint scan_repository(const std::filesystem::path& root, const knowledge& k, const scan_options& options) {
  fingerprint fp;
  scan_state s{k, fp, root, options.max_file_bytes, {}, {}, {}, {}};
  std::vector<std::string> paths;
  std::optional<safe_fs::root> tree;
  try {
    tree.emplace(safe_fs::root::open(root, "repository"));
    s.tree = &*tree;
    // The rules every reader of the tree follows (tree_policy.hpp); what they leave out, and every
    // link, is a finding with its path.
    safe_fs::bounded_walk_options walk;
    walk.max_depth = max_tree_depth;
    const auto limits = safe_fs::bounded_walk(*tree, walk, [&](const safe_fs::walk_entry& e) {
      const auto d = classify_entry(e);
      if (!d.kind.empty()) fp.tree_entries.push_back({d.kind, d.path, d.detail, d.path, 0});
      if (d.action == tree_action::enter) return !skipped_dir(e.info.name);
      if (d.action == tree_action::take_file && d.plain_name) paths.push_back(e.path);
      return false;
    });
    for (const auto& l : limits) {
      const std::string p = safe_fs::escape_name(l.path);
      fp.tree_entries.push_back({"too_deep", p, l.reason, p, 0});
    }
  } catch (const safe_fs::error& e) {
    fp.problems.push_back({"io_error", "", "listing the repository failed: " + std::string(e.what()), "", 0});
  }
  std::sort(paths.begin(), paths.end());
  s.files.insert(paths.begin(), paths.end());
  fp.files_scanned = paths.size();
  for (const auto& p : paths) {
    const auto slash = p.find('/');
    if (slash == std::string::npos) {
      if (ends_with(p, ".py")) s.local_modules.insert(p.substr(0, p.size() - 3));
    } else {
      std::string top = p.substr(0, slash);
      if (top == "src") {
        const auto next = p.find('/', slash + 1);
        if (next != std::string::npos) top = p.substr(slash + 1, next - slash - 1);
      }
      s.local_modules.insert(top);
    }
  }

  std::string content;
  auto read = [&](const std::string& rel) {
    std::string why;
    if (s.read(rel, content, why)) return true;
    s.problem(rel, 0, "skipped: " + why);
    return false;
  };
  for (const auto& rel : paths) {
    const auto slash = rel.rfind('/');
    const std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
    const std::string dir = slash == std::string::npos ? "" : rel.substr(0, slash);
    const std::string lname = text::lower(name);
    const bool top = dir.empty();
    if (ends_with(lname, ".py")) {
      if (read(rel)) {
        detail::scan_python(s, rel, content);
        if (!(top && name == "setup.py")) detail::scan_python_builds(s, rel, content);
        detail::scan_scale_values(s, rel, content);
        if (top && name == "setup.py") detail::scan_setup_py(s, rel, content);
      }
    } else if (ends_with(lname, ".cu") || ends_with(lname, ".cuh")) {
      if (read(rel)) detail::scan_cuda_source(s, rel, content);
    } else if (requirements_file(lname, dir)) {
      detail::scan_requirements_file(s, rel, "requirements");
    } else if (top && name == "setup.cfg") {
      if (read(rel)) detail::scan_setup_cfg(s, rel, content);
    } else if (top && name == "pyproject.toml") {
      if (read(rel)) detail::scan_pyproject(s, rel, content);
    } else if (conda_environment_file(lname)) {
      if (read(rel)) detail::scan_conda_env(s, rel, content);
    } else if (top && name == ".python-version") {
      if (read(rel)) detail::scan_python_version_file(s, rel, content);
    } else if (top && text::starts_with(lname, "readme")) {
      if (read(rel)) detail::scan_readme(s, rel, content);
    } else if ((text::starts_with(name, "Dockerfile") || ends_with(lname, ".dockerfile")) &&
               std::count(rel.begin(), rel.end(), '/') <= 2) {
      if (read(rel)) detail::scan_dockerfile(s, rel, content);
    } else if (ends_with(lname, ".sh") && (top || dir == "scripts")) {
      if (read(rel)) detail::scan_shell_script(s, rel, content);
    }
  }
  // Environment files a README names (`conda env create -f envs/gpu.yml`) whatever their name.
  for (const auto& rel : std::set<std::string>(s.conda_files_named)) {
    if (s.files.count(rel) && !s.conda_files_read.count(rel) && read(rel)) detail::scan_conda_env(s, rel, content);
  }
  if (fp.build_system.empty()) fp.build_system = "none";
  detail::resolve_kernel_builds(s);
  for (const auto& rel : paths) {  // configuration files: scale-bearing keys
    const std::string lname = text::lower(rel);
    const bool config = ends_with(lname, ".yaml") || ends_with(lname, ".yml") || ends_with(lname, ".json") ||
                        ends_with(lname, ".toml") || ends_with(lname, ".ini") || ends_with(lname, ".cfg");
    std::error_code size_ec;
    if (!config || std::filesystem::file_size(root / rel, size_ec) > (std::uintmax_t{1} << 20) || size_ec) continue;
    if (text::read_file((root / rel).string(), content, s.max_file_bytes)) detail::scan_scale_values(s, rel, content);
  }

  // Third-party imports: neither standard library nor the repository's own modules.
  std::map<std::string, const finding*> third_party;
  for (const auto& [module, site] : s.imports) {
    if (k.stdlib.count(module) || s.local_modules.count(module) || module.front() == '_') continue;
    fp.imports.push_back(module);
    third_party.emplace(k.package_of_import(module), &site);
  }
  std::set<std::string> desired;
  std::map<std::string, finding> first_site;  // package -> where it is first declared or imported
  for (auto& d : fp.dependencies) {
    d.scope = detail::file_scope(s, d.file);
    if (d.optional && d.scope == "required") d.scope = "optional";
    d.optional = d.scope != "required";
  }
  for (const auto& d : fp.dependencies) {
    if (d.optional || d.source == "build-system" || d.source == "constraints") continue;
    desired.insert(d.name);
    first_site.try_emplace(d.name, finding{"dependency", d.name, d.source, d.file, d.line});
  }
  for (const auto& [package, site] : third_party) {
    desired.insert(package);
    first_site.try_emplace(package, finding{"import", package, site->detail, site->file, site->line});
  }
  fp.desired_packages.assign(desired.begin(), desired.end());

  std::set<std::string> frameworks;
  for (const auto& [fw, packages] : k.frameworks) {
    for (const auto& p : packages) {
      if (!desired.count(p)) continue;
      frameworks.insert(fw);
      auto site = first_site.at(p);
      site.kind = "framework";
      site.name = fw;
      fp.framework_evidence.push_back(site);
      break;
    }
  }
  fp.frameworks.assign(frameworks.begin(), frameworks.end());

  // CUDA-sensitive packages: one entry per package and scope, declared sources before README and
  // script install lines, then imports no file declares.
  std::set<std::string> seen_rules;
  auto note_cuda = [&](const std::string& name, const package_rule* rule, const std::string& source,
                       const std::string& scope, const std::string& file, int line) {
    if (rule == nullptr || !seen_rules.insert(name + "\n" + scope).second) return;
    finding f{rule->action, name, rule->note, file, line};
    f.scope = scope;
    f.source = source;
    f.alternative = rule->alternative;
    fp.cuda_packages.push_back(std::move(f));
  };
  auto note_dependency = [&](const dependency& d) {
    note_cuda(d.name, k.rule_for(d.name), d.source, d.scope, d.file, d.line);
    for (const auto& extra : d.extras) {
      const std::string extra_name = d.name + "[" + extra + "]";
      note_cuda(extra_name, k.extra_rule_for(d.name, text::lower(extra)), d.source, d.scope, d.file, d.line);
    }
  };
  for (const auto& d : fp.dependencies) {
    if (d.source != "readme" && d.source != "script") note_dependency(d);
  }
  for (const auto& d : fp.dependencies) {
    if (d.source == "readme" || d.source == "script") note_dependency(d);
  }
  std::set<std::string> declared;
  for (const auto& d : fp.dependencies) declared.insert(d.name);
  for (const auto& [module, site] : s.imports) {
    if (k.stdlib.count(module) || s.local_modules.count(module) || module.front() == '_') continue;
    const std::string package = k.package_of_import(module);
    if (declared.count(package)) continue;
    const std::string scope = detail::vendored_path(s, site.file) ? "vendored" : "required";
    note_cuda(package, k.rule_for(package), "import", scope, site.file, site.line);
  }
  for (const auto& d : fp.dependencies) {
    if (!d.local_version.empty() && text::starts_with(d.local_version, "+cu")) {
      fp.hazards.push_back(
          {"cuda_local_version", d.name,
           d.name + d.specifier + d.local_version + " pins a CUDA build; the ROCm image's build is kept instead",
           d.file, d.line});
    }
  }
  fp.workload = preferred_workload(frameworks, desired);

  std::stable_sort(fp.entry_points.begin(), fp.entry_points.end(), [](const entry_point& a, const entry_point& b) {
    auto rank = [](const std::string& src) { return src == "readme" ? 0 : src == "scripts" ? 1 : 2; };
    return rank(a.source) < rank(b.source);
  });
  return fp;
}

}  // namespace r2r::planning
