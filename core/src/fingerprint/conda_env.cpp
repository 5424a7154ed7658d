// SPDX-License-Identifier: MIT
// environment.yml through yaml-cpp: conda dependencies (channel prefixes and `=` pins converted to
// pip names and PEP 440), the `pip:` sub-list, and `python=X.Y`. CUDA toolkits are hazards.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

namespace r2r::planning::detail {
namespace {

int line_of(const YAML::Node& n) {
  return n.Mark().line + 1;
}

void add_conda_dep(scan_state& s, const std::string& rel, const std::string& spec_in, int ln) {
  std::string spec = spec_in;
  if (auto colons = spec.find("::"); colons != std::string::npos) spec = spec.substr(colons + 2);
  const auto cut = spec.find_first_of("=<>!~ ");
  const std::string name = text::lower(spec.substr(0, cut));
  std::string version = cut == std::string::npos ? "" : std::string(text::trim(spec.substr(cut)));
  // conda "=1.2" means 1.2.*; "==1.2" exact; ">=1.2" as pip. A build string after a second '=' is dropped.
  std::string pep440;
  if (text::starts_with(version, "==")) {
    pep440 = version.substr(0, version.find('=', 2));
  } else if (text::starts_with(version, "=")) {
    std::string v = version.substr(1);
    v = v.substr(0, v.find('='));
    pep440 = "==" + v + (text::contains(v, "*") ? "" : ".*");
  } else {
    pep440 = version;
  }
  if (name == "python") {
    add_python_spec(s, pep440, rel, ln, spec_in);
    return;
  }
  if (name == "pip" || name.empty()) return;
  static const std::map<std::string, std::string> conda_to_pip = {
      {"pytorch", "torch"}, {"pytorch-lightning", "pytorch-lightning"}, {"tensorflow-gpu", "tensorflow-gpu"}};
  if (name == "cudatoolkit" || name == "cuda-toolkit" || name == "pytorch-cuda" || name == "cudnn" || name == "nccl" ||
      text::starts_with(name, "cuda-")) {
    s.fp.hazards.push_back(
        {"conda_cuda_package", name,
         "conda CUDA package '" + spec_in + "': not installed on ROCm (the base image provides ROCm)", rel, ln});
    return;
  }
  dependency d;
  const auto mapped = conda_to_pip.find(name);
  d.name = normalise_name(mapped == conda_to_pip.end() ? name : mapped->second);
  d.specifier = pep440;
  d.source = "conda";
  d.file = rel;
  d.line = ln;
  s.fp.dependencies.push_back(std::move(d));
}

}  // namespace

void scan_conda_env(scan_state& s, const std::string& rel, std::string_view content) {
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(content));
  } catch (const YAML::Exception& e) {
    // yaml-cpp may report an unclosed construct at end of input, one past the last line.
    const int last = static_cast<int>(text::lines(content).size());
    s.problem(rel, std::min(e.mark.line + 1, std::max(last, 1)), "YAML syntax error: " + e.msg);
    return;
  }
  if (!doc.IsMap()) {
    s.problem(rel, 1, "expected a mapping with a 'dependencies' list");
    return;
  }
  const YAML::Node deps = doc["dependencies"];
  if (!deps) return;
  if (!deps.IsSequence()) {
    s.problem(rel, line_of(deps), "'dependencies' must be a list");
    return;
  }
  for (const auto& item : deps) {
    if (item.IsScalar()) {
      add_conda_dep(s, rel, item.as<std::string>(), line_of(item));
    } else if (item.IsMap() && item["pip"] && item["pip"].IsSequence()) {
      for (const auto& p : item["pip"]) {
        if (!p.IsScalar()) continue;
        const std::string text_item = p.as<std::string>();
        if (text::starts_with(text_item, "-")) continue;  // -r / -e / options inside pip:
        std::string error;
        if (auto d = parse_requirement(text_item, error)) {
          d->source = "conda";
          d->file = rel;
          d->line = line_of(p);
          s.fp.dependencies.push_back(std::move(*d));
        } else {
          s.problem(rel, line_of(p), error);
        }
      }
    } else {
      s.problem(rel, line_of(item), "unexpected entry in 'dependencies' (expected a package or a pip: list)");
    }
  }
}

}  // namespace r2r::planning::detail
