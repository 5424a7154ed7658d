// SPDX-License-Identifier: MIT
// Conda environment files through yaml-cpp: conda dependencies (channel prefixes and `=` pins
// converted to pip names and PEP 440), the `pip:` sub-list, `python=X.Y` and the channels. CUDA
// toolkits and runtime packages (cudatoolkit, pytorch-cuda, cuda-*) are dependencies whose
// knowledge rule says they are never installed, and hazards; the `nvidia` channel is a CUDA index.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace r2r::planning::detail {
namespace {

int line_of(const YAML::Node& n) {
  return n.Mark().line + 1;
}

}  // namespace

void note_conda_channel(scan_state& s, const std::string& channel, const std::string& rel, int ln) {
  const std::string c = text::lower(channel);
  if (c == "nvidia" || text::contains(c, "/nvidia") || text::contains(c, "nvidia/")) {
    s.fp.index_urls.push_back({"cuda_channel", channel,
                               "conda channel " + channel + ": CUDA packages that would replace ROCm libraries", rel,
                               ln});
  } else {
    s.fp.index_urls.push_back({"conda_channel", channel, "conda channel " + channel, rel, ln});
  }
}

void add_conda_spec(scan_state& s, const std::string& rel, const std::string& spec_in, int ln,
                    const std::string& source) {
  std::string spec = spec_in;
  if (auto colons = spec.find("::"); colons != std::string::npos) {
    note_conda_channel(s, spec.substr(0, colons), rel, ln);
    spec = spec.substr(colons + 2);
  }
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
  if (name == "pip" || name.empty() || !std::isalnum(static_cast<unsigned char>(name.front()))) return;
  static const std::map<std::string, std::string> conda_to_pip = {
      {"pytorch", "torch"}, {"pytorch-lightning", "pytorch-lightning"}, {"tensorflow-gpu", "tensorflow-gpu"}};
  if (name == "cudatoolkit" || name == "cuda-toolkit" || name == "pytorch-cuda" || name == "cudnn" || name == "nccl" ||
      text::starts_with(name, "cuda-")) {
    s.fp.hazards.push_back(
        {"conda_cuda_package", name,
         "conda CUDA package '" + spec_in + "': not installed on ROCm (the base image provides ROCm)", rel, ln});
  }
  dependency d;
  const auto mapped = conda_to_pip.find(name);
  d.name = normalise_name(mapped == conda_to_pip.end() ? name : mapped->second);
  d.specifier = pep440;
  d.source = source;
  d.file = rel;
  d.line = ln;
  s.fp.dependencies.push_back(std::move(d));
}

void scan_conda_env(scan_state& s, const std::string& rel, std::string_view content) {
  if (!s.conda_files_read.insert(rel).second) return;
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
  if (const YAML::Node channels = doc["channels"]; channels && channels.IsSequence()) {
    for (const auto& c : channels) {
      if (c.IsScalar()) note_conda_channel(s, c.as<std::string>(), rel, line_of(c));
    }
  }
  const YAML::Node deps = doc["dependencies"];
  if (!deps) return;
  if (!deps.IsSequence()) {
    s.problem(rel, line_of(deps), "'dependencies' must be a list");
    return;
  }
  for (const auto& item : deps) {
    if (item.IsScalar()) {
      add_conda_spec(s, rel, item.as<std::string>(), line_of(item), "conda");
    } else if (item.IsMap() && item["pip"] && item["pip"].IsSequence()) {
      for (const auto& p : item["pip"]) {
        if (!p.IsScalar()) continue;
        const std::string text_item = p.as<std::string>();
        if (text::starts_with(text_item, "-r ") || text::starts_with(text_item, "--requirement ")) {
          // Relative to the environment file, as pip runs it from there.
          const auto slash = rel.rfind('/');
          const std::string dir = slash == std::string::npos ? "" : rel.substr(0, slash + 1);
          const auto target =
              std::filesystem::path(dir + std::string(text::trim(text_item.substr(text_item.find(' ')))))
                  .lexically_normal()
                  .generic_string();
          if (s.files.count(target)) {
            s.included_by.emplace(target, rel);
            scan_requirements_file(s, target, "requirements");
          }
          continue;
        }
        if (text::starts_with(text_item, "-")) continue;  // -e / options inside pip:
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
