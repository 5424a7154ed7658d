// SPDX-License-Identifier: MIT
#include "plan_assets.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

namespace r2r::planning::detail {
namespace {

using nlohmann::json;

std::string revision_of(const std::string& line) {
  static const std::regex revision(R"re(\brevision\s*=\s*["']([A-Za-z0-9_.\-/]+)["'])re");
  std::smatch m;
  return std::regex_search(line, m, revision) ? m[1].str() : "main";
}

bool from_readme(const finding& f) {
  const auto slash = f.file.rfind('/');
  std::string base = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
  for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base.rfind("readme", 0) == 0;
}

/// The entry for one finding: kind, id, revision, fetch and why_not (without `from`).
json entry_of(const finding& f, const std::filesystem::path& tree) {
  json e{{"kind", f.kind}, {"id", f.name}, {"fetch", true}};
  if (f.kind == "hf_model" || f.kind == "hf_dataset") {
    e["revision"] = revision_of(f.detail);
    const std::string first = f.name.substr(0, f.name.find('/'));
    std::error_code ec;
    if (!tree.empty() && std::filesystem::exists(tree / first, ec)) {
      e["fetch"] = false;
      e["why_not"] = "'" + first + "' is a path of the repository: a local directory, not a Hugging Face id";
    } else if (from_readme(f) && f.detail.find("huggingface-cli") == std::string::npos) {
      e["fetch"] = false;
      e["why_not"] = "a link in the README; the repository's code does not load it";
    }
  } else if (f.kind == "download_url") {
    e["kind"] = "url";
  } else if (f.kind == "torch_hub") {
    const auto colon = f.name.find(':');
    e["id"] = f.name.substr(0, colon);
    e["revision"] = colon == std::string::npos ? "main" : f.name.substr(colon + 1);
    e["fetch"] = false;
    e["why_not"] =
        "torch.hub repositories (a GitHub archive under TORCH_HOME/hub) are not fetched by this build; the workload "
        "runs offline, so put it in the repository or the image";
  } else {
    e["fetch"] = false;
    e["why_not"] = f.kind == "gdrive" ? "Google Drive needs an interactive confirmation; not fetched"
                                      : "no fetcher for assets of kind " + f.kind;
  }
  return e;
}

}  // namespace

json plan_assets(const fingerprint& fp, const std::filesystem::path& tree) {
  json out = json::array();
  for (const auto& f : fp.assets) {
    json e = entry_of(f, tree);
    const json where{{"file", f.file}, {"line", f.line}};
    bool merged = false;
    for (auto& known : out) {
      if (known["kind"] != e["kind"] || known["id"] != e["id"] ||
          known.value("revision", "") != e.value("revision", ""))
        continue;
      if (std::find(known["from"].begin(), known["from"].end(), where) == known["from"].end())
        known["from"].push_back(where);
      // Code that loads it outweighs a README link to it.
      if (e["fetch"] == true && known["fetch"] == false && !known.value("why_not", "").starts_with("'")) {
        known["fetch"] = true;
        known.erase("why_not");
      }
      merged = true;
      break;
    }
    if (merged) continue;
    e["from"] = json::array({where});
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace r2r::planning::detail
