// SPDX-License-Identifier: MIT
// fingerprint -> JSON (configs/schema/fingerprint.schema.json).
#include <r2r/planning/fingerprint.hpp>

namespace r2r::planning {

void to_json(nlohmann::json& j, const finding& f) {
  j = nlohmann::json{{"kind", f.kind}, {"name", f.name}, {"detail", f.detail}, {"file", f.file}, {"line", f.line}};
  if (!f.scope.empty()) j["scope"] = f.scope;
  if (!f.source.empty()) j["source"] = f.source;
  if (!f.alternative.empty()) j["alternative"] = f.alternative;
}

void to_json(nlohmann::json& j, const dependency& d) {
  j = nlohmann::json{{"name", d.name},     {"specifier", d.specifier}, {"extras", d.extras}, {"marker", d.marker},
                     {"source", d.source}, {"optional", d.optional},   {"file", d.file},     {"line", d.line}};
  if (!d.local_version.empty()) j["local_version"] = d.local_version;
  if (!d.url.empty()) j["url"] = d.url;
  j["scope"] = d.scope;
  if (!d.via.empty()) j["via"] = d.via;
}

void to_json(nlohmann::json& j, const entry_point& e) {
  j = nlohmann::json{{"command", e.command},   {"launcher", e.launcher}, {"kind", e.kind}, {"source", e.source},
                     {"runnable", e.runnable}, {"file", e.file},         {"line", e.line}};
  if (!e.why_not.empty()) j["why_not"] = e.why_not;
  if (e.own) j["own"] = true;
}

void to_json(nlohmann::json& j, const metric_claim& m) {
  j = nlohmann::json{{"name", m.name}, {"value", m.value}, {"unit", m.unit},
                     {"text", m.text}, {"file", m.file},   {"line", m.line}};
}

void to_json(nlohmann::json& j, const kernel_site& k) {
  j = nlohmann::json{{"name", k.name}, {"file", k.file}, {"line", k.line}};
}

void to_json(nlohmann::json& j, const kernel_build& b) {
  j = nlohmann::json{{"kind", b.kind},       {"name", b.name}, {"sources", b.sources}, {"unresolved", b.unresolved},
                     {"kernels", b.kernels}, {"file", b.file}, {"line", b.line}};
}

nlohmann::json to_json(const fingerprint& f) {
  return nlohmann::json{
      {"schema_version", 1},
      {"repository", {{"source", f.source}, {"url", f.url}, {"commit", f.commit}}},
      {"files_scanned", f.files_scanned},
      {"frameworks", f.frameworks},
      {"framework_evidence", f.framework_evidence},
      {"dependencies", f.dependencies},
      {"index_urls", f.index_urls},
      {"cuda_packages", f.cuda_packages},
      {"kernels", f.kernels},
      {"extensions", f.extensions},
      {"kernel_builds", f.kernel_builds},
      {"scale_values", f.scale_values},
      {"hazards", f.hazards},
      {"dockerfiles", f.dockerfiles},
      {"entry_points", f.entry_points},
      {"assets", f.assets},
      {"metrics", f.metrics},
      {"python", {{"spec", f.python.spec}, {"preferred", f.python.preferred}, {"evidence", f.python.evidence}}},
      {"imports", f.imports},
      {"desired_packages", f.desired_packages},
      {"workload", f.workload},
      {"build_system", f.build_system},
      {"installable", f.installable},
      {"problems", f.problems},
      {"tree_entries", f.tree_entries}};
}

}  // namespace r2r::planning
