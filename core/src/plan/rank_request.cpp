// SPDX-License-Identifier: MIT
// The ranker request of a fingerprint: desired packages (normalised dependency names and
// third-party imports, never standard-library modules), preferred workload and Python, the host,
// and the catalog.
#include <r2r/planning/plan.hpp>

namespace r2r::planning {

nlohmann::json make_rank_request(const fingerprint& fp, const std::string& arch, const nlohmann::json& catalog,
                                 const std::vector<std::string>& local_images, const nlohmann::json& failures) {
  nlohmann::json python = nlohmann::json::object();
  if (!fp.python.spec.empty()) python["spec"] = fp.python.spec;
  if (!fp.python.preferred.empty()) python["preferred"] = fp.python.preferred;
  return {{"desired", {{"packages", fp.desired_packages}, {"workload", fp.workload}, {"python", python}}},
          {"host", {{"arch", arch}, {"local_images", local_images}, {"failures", failures}}},
          {"catalog", catalog}};
}

}  // namespace r2r::planning
