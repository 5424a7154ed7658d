// SPDX-License-Identifier: MIT
// Typed messages of the ranker kind. The wire shapes are plugin_api/schemas/ranker/*.schema.json;
// these structs mirror them. A ranker plugin implements:
//   r2r::sdk::ranker::rank_response rank(const r2r::sdk::ranker::rank_request&);
// and lists it with r2r::sdk::ranker::methods<T>().
// Contract: the request is self-contained (the catalog travels in it), so a ranker reads no files;
// hard filters (gfx, minimum ROCm per arch, Python, repeated failures) apply before a tag is chosen.
#pragma once

#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace r2r::sdk::ranker {

struct python_requirement {
  std::string spec;       // PEP 440 specifier set; empty: any
  std::string preferred;  // "X.Y" pinned exactly by the repository; empty: none
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(python_requirement, spec, preferred)

struct desired {
  std::vector<std::string> packages;  // normalised dependency names
  std::string workload;               // preferred workload kind; empty: none
  python_requirement python;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(desired, packages, workload, python)

struct image_failure {
  std::string ref;  // image:tag
  std::string arch;
  std::int64_t count = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(image_failure, ref, arch, count)

struct host_info {
  std::string arch;
  std::vector<std::string> local_images;
  std::vector<image_failure> failures;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(host_info, arch, local_images, failures)

/// The fields of one tag. Empty strings mean "not known" (neither in the catalog nor in the name).
struct tag_fields {
  std::string rocm, ubuntu, python;
  std::map<std::string, std::string> frameworks;
  std::vector<std::string> gfx;
};
inline void to_json(nlohmann::json& j, const tag_fields& f) {
  j = nlohmann::json::object();
  if (!f.rocm.empty()) j["rocm"] = f.rocm;
  if (!f.ubuntu.empty()) j["ubuntu"] = f.ubuntu;
  if (!f.python.empty()) j["python"] = f.python;
  j["frameworks"] = f.frameworks;
  j["gfx"] = f.gfx;
}
inline void from_json(const nlohmann::json& j, tag_fields& f) {
  f.rocm = j.value("rocm", std::string());
  f.ubuntu = j.value("ubuntu", std::string());
  f.python = j.value("python", std::string());
  f.frameworks = j.value("frameworks", std::map<std::string, std::string>{});
  f.gfx = j.value("gfx", std::vector<std::string>{});
}

struct catalog_tag {
  std::string tag;
  std::string digest;  // "sha256:…" or empty
  tag_fields fields;
};
inline void from_json(const nlohmann::json& j, catalog_tag& t) {
  t.tag = j.at("tag").get<std::string>();
  t.digest = j.value("digest", std::string());
  t.fields = j.get<tag_fields>();
}

struct catalog_image {
  std::string image;
  std::string workload;
  std::string description;
  std::vector<std::string> preinstalled;
  std::vector<catalog_tag> tags;
};
inline void from_json(const nlohmann::json& j, catalog_image& i) {
  i.image = j.at("image").get<std::string>();
  i.workload = j.value("workload", std::string());
  i.description = j.value("description", std::string());
  i.preinstalled = j.value("preinstalled", std::vector<std::string>{});
  i.tags = j.at("tags").get<std::vector<catalog_tag>>();
}

struct arch_info {
  std::string min_rocm;  // empty: no minimum known
  std::vector<std::string> aliases;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(arch_info, min_rocm, aliases)

struct catalog {
  std::map<std::string, arch_info> arches;
  std::vector<catalog_image> images;
};
inline void from_json(const nlohmann::json& j, catalog& c) {
  c.arches = j.value("arches", std::map<std::string, arch_info>{});
  c.images = j.at("images").get<std::vector<catalog_image>>();
}

struct rank_request {
  ranker::desired desired;
  host_info host;
  ranker::catalog catalog;
  std::int64_t limit = 0;  // 0: the plugin's default
};
inline void from_json(const nlohmann::json& j, rank_request& r) {
  r.desired = j.at("desired").get<ranker::desired>();
  r.host = j.value("host", host_info{});
  r.catalog = j.at("catalog").get<ranker::catalog>();
  r.limit = j.value("limit", std::int64_t{0});
}

struct score_components {
  double jaccard = 0, workload = 0, python = 0, arch = 0, cached = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(score_components, jaccard, workload, python, arch, cached)

struct candidate {
  std::string image, tag, ref, digest, workload;
  double score = 0;
  score_components components;
  std::vector<std::string> overlap, missing, reasons, risks;
  tag_fields fields;
  std::vector<std::string> other_tags;  // further tags of the image that passed the filters
};
inline void to_json(nlohmann::json& j, const candidate& c) {
  j = nlohmann::json{{"image", c.image},       {"tag", c.tag},         {"ref", c.ref},
                     {"workload", c.workload}, {"score", c.score},     {"components", c.components},
                     {"overlap", c.overlap},   {"missing", c.missing}, {"reasons", c.reasons},
                     {"risks", c.risks},       {"fields", c.fields},   {"other_tags", c.other_tags}};
  if (!c.digest.empty()) j["digest"] = c.digest;
}
inline void from_json(const nlohmann::json& j, candidate& c) {
  c.image = j.at("image").get<std::string>();
  c.tag = j.at("tag").get<std::string>();
  c.ref = j.at("ref").get<std::string>();
  c.digest = j.value("digest", std::string());
  c.workload = j.value("workload", std::string());
  c.score = j.at("score").get<double>();
  c.components = j.at("components").get<score_components>();
  c.overlap = j.at("overlap").get<std::vector<std::string>>();
  c.missing = j.at("missing").get<std::vector<std::string>>();
  c.reasons = j.at("reasons").get<std::vector<std::string>>();
  c.risks = j.at("risks").get<std::vector<std::string>>();
  c.fields = j.at("fields").get<tag_fields>();
  c.other_tags = j.value("other_tags", std::vector<std::string>{});
}

struct rejection {
  std::string image;
  std::string tag;  // empty: the whole image
  std::vector<std::string> reasons;
};
inline void to_json(nlohmann::json& j, const rejection& r) {
  j = nlohmann::json{{"image", r.image}, {"reasons", r.reasons}};
  if (!r.tag.empty()) j["tag"] = r.tag;
}
inline void from_json(const nlohmann::json& j, rejection& r) {
  r.image = j.at("image").get<std::string>();
  r.tag = j.value("tag", std::string());
  r.reasons = j.at("reasons").get<std::vector<std::string>>();
}

struct rank_response {
  std::vector<candidate> candidates;
  std::vector<rejection> rejected;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(rank_response, candidates, rejected)

/// The method table every ranker exposes.
template <class T>
method_table<T> methods() {
  return {method("rank", &T::rank)};
}

}  // namespace r2r::sdk::ranker
