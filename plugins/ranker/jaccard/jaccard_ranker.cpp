// SPDX-License-Identifier: MIT
#include "jaccard_ranker.hpp"

#include "tag_parser.hpp"
#include "versions.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/package_name.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

namespace r2r::plugins::ranker {
namespace {

using sdk::ranker::candidate;
using sdk::ranker::catalog;
using sdk::ranker::catalog_image;
using sdk::ranker::rank_request;
using sdk::ranker::tag_fields;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string fixed(double v, int digits = 2) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

double round4(double v) {
  return std::round(v * 10000.0) / 10000.0;
}

std::string join(const std::vector<std::string>& items, std::size_t max_items = 8) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max_items; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max_items) out += ", … (" + std::to_string(items.size() - max_items) + " more)";
  return out;
}

/// "mi300x" -> "gfx942", "gfx942:sramecc+:xnack-" -> "gfx942"; unknown names stay as given.
std::string canonical_arch(const catalog& cat, std::string_view raw) {
  std::string arch = lower(raw.substr(0, raw.find(':')));
  if (arch.empty() || arch == "unknown" || cat.arches.count(arch)) return arch == "unknown" ? "" : arch;
  for (const auto& [gfx, info] : cat.arches) {
    for (const auto& alias : info.aliases) {
      if (lower(alias) == arch) return gfx;
    }
  }
  return arch;
}

/// The tag tokens that mark a build for `arch` (its gfx name or an alias from the catalog).
std::optional<std::string> arch_token_in_tag(const catalog& cat, const std::string& arch, const std::string& tag) {
  if (arch.empty()) return std::nullopt;
  std::set<std::string> marks{arch};
  if (auto it = cat.arches.find(arch); it != cat.arches.end()) {
    for (const auto& a : it->second.aliases) marks.insert(lower(a));
  }
  for (const auto& t : tag_tokens(tag)) {
    if (marks.count(t)) return t;
  }
  return std::nullopt;
}

struct evaluated {
  candidate c;
  version rocm, python;
};

std::int64_t failure_count(const rank_request& r, const std::string& arch, const std::string& ref) {
  std::int64_t n = 0;
  for (const auto& f : r.host.failures) {
    if (f.ref == ref && (f.arch.empty() || canonical_arch(r.catalog, f.arch) == arch)) n += f.count;
  }
  return n;
}

}  // namespace

std::string normalise_package(std::string_view name) {
  return sdk::normalise_package_name(name);
}

void from_json(const nlohmann::json& j, jaccard_ranker::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  c.workload_bonus = j.value("workload_bonus", c.workload_bonus);
  c.python_bonus = j.value("python_bonus", c.python_bonus);
  c.arch_bonus = j.value("arch_bonus", c.arch_bonus);
  c.cached_bonus = j.value("cached_bonus", c.cached_bonus);
  c.fail_threshold = j.value("fail_threshold", c.fail_threshold);
  c.max_candidates = j.value("max_candidates", c.max_candidates);
}

jaccard_ranker::jaccard_ranker(const config& cfg, const sdk::host& host) : cfg_(cfg), host_(host) {
  if (cfg_.fail_threshold < 1) throw sdk::invalid_argument("fail_threshold must be at least 1");
  if (cfg_.max_candidates < 1) throw sdk::invalid_argument("max_candidates must be at least 1");
}

sdk::ranker::rank_response jaccard_ranker::rank(const rank_request& req) {
  if (req.catalog.images.empty()) {
    throw sdk::invalid_argument("catalog.images is empty: expected at least one image (configs/images/rocm.json)");
  }
  const std::string arch = canonical_arch(req.catalog, req.host.arch);
  const auto arch_info = req.catalog.arches.find(arch);
  const std::optional<version> min_rocm =
      arch_info != req.catalog.arches.end() ? parse_version(arch_info->second.min_rocm) : std::nullopt;
  const std::string& py_spec = req.desired.python.spec;
  const std::string& py_pref = req.desired.python.preferred;
  const bool spec_usable = py_spec.empty() || spec_allows(py_spec, version{3, 10}).has_value();

  std::set<std::string> desired;
  for (const auto& p : req.desired.packages) {
    if (auto n = normalise_package(p); !n.empty()) desired.insert(n);
  }
  const std::set<std::string> local(req.host.local_images.begin(), req.host.local_images.end());

  sdk::ranker::rank_response out;
  std::vector<evaluated> chosen;
  for (const catalog_image& img : req.catalog.images) {
    std::vector<evaluated> survivors;
    std::vector<sdk::ranker::rejection> rejected_tags;
    for (const auto& t : img.tags) {
      const tag_fields fields = merge_fields(t.fields, parse_tag(t.tag));
      const std::string ref = img.image + ":" + t.tag;
      std::vector<std::string> why_not, reasons, risks;
      const auto rocm_v = parse_version(fields.rocm);
      const auto py_v = parse_version(fields.python);

      // Hard filters, all of them, before any tag is chosen.
      if (!arch.empty()) {
        if (fields.gfx.empty()) {
          why_not.push_back("the tag's gfx targets are unknown, so support for " + arch + " cannot be confirmed");
        } else if (std::find(fields.gfx.begin(), fields.gfx.end(), arch) == fields.gfx.end()) {
          why_not.push_back("built for " + join(fields.gfx, 12) + ", not for the host arch " + arch);
        }
        if (min_rocm) {
          if (!rocm_v) {
            why_not.push_back("ROCm version unknown; " + arch + " needs ROCm >= " + arch_info->second.min_rocm);
          } else if (compare_versions(*rocm_v, *min_rocm) < 0) {
            why_not.push_back("ROCm " + fields.rocm + " is older than the ROCm " + arch_info->second.min_rocm +
                              " that " + arch + " needs");
          }
        }
      }
      if (!py_spec.empty() && spec_usable && py_v && !*spec_allows(py_spec, *py_v)) {
        why_not.push_back("Python " + fields.python + " does not satisfy the repository's requirement " + py_spec);
      }
      if (const auto n = failure_count(req, arch, ref); n >= cfg_.fail_threshold) {
        why_not.push_back("failed " + std::to_string(n) + " times on " + (arch.empty() ? "this host" : arch) +
                          " (threshold " + std::to_string(cfg_.fail_threshold) + ")");
      }
      if (!why_not.empty()) {
        rejected_tags.push_back({img.image, t.tag, why_not});
        continue;
      }

      // Score.
      std::set<std::string> inventory;
      for (const auto& p : img.preinstalled) inventory.insert(normalise_package(p));
      for (const auto& [fw, v] : fields.frameworks) inventory.insert(normalise_package(fw));
      candidate c;
      c.image = img.image;
      c.tag = t.tag;
      c.digest = t.digest;
      c.ref = t.digest.empty() ? ref : img.image + "@" + t.digest;
      c.workload = img.workload;
      c.fields = fields;
      std::set<std::string> uni = inventory;
      uni.insert(desired.begin(), desired.end());
      for (const auto& d : desired) (inventory.count(d) ? c.overlap : c.missing).push_back(d);
      c.components.jaccard =
          (desired.empty() || inventory.empty()) ? 0.0 : static_cast<double>(c.overlap.size()) / uni.size();
      reasons.push_back("shares " + std::to_string(c.overlap.size()) + " of " + std::to_string(desired.size()) +
                        " dependencies (Jaccard " + fixed(c.components.jaccard) + ")");
      if (!req.desired.workload.empty() && img.workload == req.desired.workload) {
        c.components.workload = cfg_.workload_bonus;
        reasons.push_back("workload matches (" + img.workload + ")");
      }
      if (!py_pref.empty() && py_v) {
        if (const auto pref = parse_version(py_pref); pref && compare_versions(*pref, *py_v) == 0) {
          c.components.python = cfg_.python_bonus;
          reasons.push_back("Python " + fields.python + " is the version the repository pins");
        }
      }
      if (const auto token = arch_token_in_tag(req.catalog, arch, t.tag)) {
        c.components.arch = cfg_.arch_bonus;
        reasons.push_back("a build for " + arch + " (tag part '" + *token + "')");
      }
      if (local.count(ref)) {
        c.components.cached = cfg_.cached_bonus;
        reasons.push_back("present in the local image store");
      }
      if (!arch.empty()) {
        reasons.push_back("supports " + arch + " with ROCm " + fields.rocm +
                          (min_rocm ? " (needs >= " + arch_info->second.min_rocm + ")" : ""));
      } else {
        risks.push_back("host arch unknown: gfx support and minimum ROCm were not checked");
      }
      if (!py_spec.empty()) {
        if (!spec_usable) {
          risks.push_back("the repository's Python requirement '" + py_spec + "' could not be read; not checked");
        } else if (!py_v) {
          risks.push_back("the tag's Python version is unknown; '" + py_spec + "' not checked");
        } else {
          reasons.push_back("Python " + fields.python + " satisfies " + py_spec);
        }
      }
      if (t.tag == "latest" || t.tag == "main" || t.tag.find("nightly") != std::string::npos) {
        risks.push_back("moving tag '" + t.tag + "': contents change over time");
      }
      if (t.digest.empty()) risks.push_back("no digest known: pinned by tag only");
      if (!c.missing.empty()) {
        risks.push_back(std::to_string(c.missing.size()) + " dependencies are not preinstalled: " + join(c.missing));
      }
      c.reasons = std::move(reasons);
      c.risks = std::move(risks);
      c.score = round4(c.components.jaccard + c.components.workload + c.components.python + c.components.arch +
                       c.components.cached);
      survivors.push_back({std::move(c), rocm_v.value_or(version{}), py_v.value_or(version{})});
    }
    if (survivors.empty()) {
      if (rejected_tags.empty()) rejected_tags.push_back({img.image, "", {"the image has no tags in the catalog"}});
      for (auto& r : rejected_tags) out.rejected.push_back(std::move(r));
      continue;
    }
    // Tag choice among survivors only: best score, then newer ROCm, newer Python, then name.
    std::sort(survivors.begin(), survivors.end(), [](const evaluated& a, const evaluated& b) {
      if (a.c.score != b.c.score) return a.c.score > b.c.score;
      if (int r = compare_versions(a.rocm, b.rocm)) return r > 0;
      if (int p = compare_versions(a.python, b.python)) return p > 0;
      return a.c.tag < b.c.tag;
    });
    for (std::size_t i = 1; i < survivors.size(); ++i) survivors[0].c.other_tags.push_back(survivors[i].c.tag);
    chosen.push_back(std::move(survivors[0]));
    for (auto& r : rejected_tags) out.rejected.push_back(std::move(r));
  }
  std::sort(chosen.begin(), chosen.end(), [](const evaluated& a, const evaluated& b) {
    if (a.c.score != b.c.score) return a.c.score > b.c.score;
    if (a.c.image != b.c.image) return a.c.image < b.c.image;
    return a.c.tag < b.c.tag;
  });
  const auto limit = static_cast<std::size_t>(req.limit > 0 ? req.limit : cfg_.max_candidates);
  for (std::size_t i = 0; i < chosen.size() && i < limit; ++i) out.candidates.push_back(std::move(chosen[i].c));
  if (host_.enabled(sdk::log_level::debug)) {
    host_.debug("ranked " + std::to_string(req.catalog.images.size()) + " images for arch '" + arch +
                "': " + std::to_string(out.candidates.size()) + " candidates, " + std::to_string(out.rejected.size()) +
                " rejected tags");
  }
  return out;
}

}  // namespace r2r::plugins::ranker
