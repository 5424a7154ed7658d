// SPDX-License-Identifier: MIT
#include "report_facts.hpp"

namespace r2r::report::detail {

core::result<pfs_inputs> pfs_facts(const nlohmann::json& report) {
  const auto pfs = report.find("pfs");
  if (pfs == report.end() || !pfs->is_object() || !pfs->contains("inputs"))
    return core::fail(core::phase::config, "report.json pfs.inputs: missing; the report cannot be re-scored");
  auto in = pfs_inputs_from_json((*pfs)["inputs"]);
  if (!in) return in;
  in->verdict = report.value("verdict", "");
  if (const auto ev = report.find("evidence"); ev != report.end() && ev->is_array())
    for (const auto& e : *ev)
      if (e.is_object() && e.contains("kind") && e["kind"].is_string()) in->evidence_kinds.push_back(e["kind"]);
  if (const auto l = report.find("ledger"); l != report.end() && l->is_array()) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      auto e = ledger_entry_from_json((*l)[i], "report.json ledger[" + std::to_string(i) + "]");
      if (!e) return tl::unexpected(e.error());
      in->ledger.push_back(std::move(*e));
    }
  }
  return in;
}

}  // namespace r2r::report::detail
