// SPDX-License-Identifier: MIT
#include "plan_output.hpp"

#include "tar_writer.hpp"

#include <r2r/executor/trajectory.hpp>

#include <map>

namespace r2r::run {

core::result<void> export_tree(const std::filesystem::path& worktree, const std::filesystem::path& out) {
  std::error_code ec;
  std::filesystem::remove_all(out / "repo", ec);  // the directory layout of earlier versions
  return write_tree_tar(worktree, out / "repo.tar");
}

core::result<void> write_text(const std::filesystem::path& path, const std::string& text) {
  return executor::write_file_atomic(path, text);
}

void print_summary(std::ostream& out, const planning::fingerprint& fp, const nlohmann::json& plan,
                   const std::filesystem::path& dir) {
  out << "repository  " << fp.url << " @ " << fp.commit.substr(0, 12) << " (" << fp.files_scanned << " files)\n";
  std::string fws;
  for (const auto& f : fp.frameworks) fws += (fws.empty() ? "" : ", ") + f;
  out << "frameworks  " << (fws.empty() ? "none found" : fws) << "\n";
  std::map<std::string, int> kernels;
  for (const auto& k : fp.kernels) ++kernels[k.kind];
  std::string ks;
  for (const auto& [k, n] : kernels) ks += (ks.empty() ? "" : ", ") + k + " x" + std::to_string(n);
  out << "kernels     " << (ks.empty() ? "none" : ks) << "\n";
  std::map<std::string, int> severities;
  for (const auto& h : plan.at("hazards")) ++severities[h.value("severity", "")];
  out << "hazards     " << plan.at("hazards").size() << " (" << severities["blocking"] << " blocking, "
      << severities["warning"] << " warnings, " << severities["info"] << " info)\n";
  for (const auto& h : plan.at("hazards")) {
    if (h.value("severity", "") != "blocking") continue;
    out << "  blocking: " << h.value("detail", "").substr(0, 160);
    if (!h.value("file", "").empty()) out << " (" << h.value("file", "") << ":" << h.value("line", 0) << ")";
    out << "\n";
  }
  out << "arch        "
      << (plan.value("arch", "").empty() ? "unknown (gfx filter off; pass --arch)" : plan.value("arch", "")) << "\n";
  out << "images\n";
  int i = 0;
  for (const auto& c : plan.at("candidates")) {
    std::string why;
    for (const auto& r : c.at("reasons")) {
      if (why.size() > 140) break;
      why += (why.empty() ? "" : "; ") + r.get<std::string>();
    }
    out << "  " << ++i << ". " << c.at("ref").get<std::string>() << "  score " << c.at("score").dump() << "\n     "
        << why << "\n";
  }
  if (plan.at("candidates").empty()) out << "  none passed the filters\n";
  out << "base        " << plan.at("base_image").value("ref", "") << " (" << plan.at("base_image").value("source", "")
      << ")\n";
  for (const auto& n : plan.value("notes", nlohmann::json::array())) {
    out << "note        " << n.value("detail", "") << "\n";
  }
  const auto& w = plan.at("workload");
  out << "workload    " << (w.is_null() ? "none (see hazards)" : w.value("kind", "") + ": " + w.value("command", ""))
      << "\n";
  if (!w.is_null()) {
    out << "            why: " << w.value("reason", "") << "\n";
    for (const auto& a : w.value("alternatives", nlohmann::json::array())) {
      out << "  instead of " << a.value("kind", "") << ": " << a.value("command", "") << "  (" << a.value("file", "")
          << ":" << a.value("line", 0) << ")\n               " << a.value("why_not", "") << "\n";
    }
  }
  const auto& m = plan.at("metric");
  out << "metric      "
      << (m.is_null()
              ? plan.value("metric_note", "")
              : m.value("name", "") + " " + m.at("value").dump() + " (" + m.value("direction", "") + " is better)")
      << "\n";
  if (m.is_object() && m.value("source", "") == "paper") {
    out << "            from " << m.value("file", "") << " page " << m.value("page", 0)
        << (m.contains("table") ? ", " + m.value("table", "") + " row " + std::to_string(m.value("row", 0)) : "")
        << "\n";
  }
  out << "wrote       " << (dir / "fingerprint.json").string() << ", plan.json, Dockerfile, repo.tar\n";
}

}  // namespace r2r::run
