// SPDX-License-Identifier: MIT
// <state_dir>/image-failures.json: {"failures": [{"arch", "ref", "count", "kind", "last_seen"}]}.
#include <r2r/planning/plan.hpp>

#include <chrono>
#include <fstream>
#include <stdexcept>

namespace r2r::planning {
namespace {
std::filesystem::path file_of(const std::filesystem::path& dir) {
  return dir / "image-failures.json";
}
}  // namespace

nlohmann::json load_image_failures(const std::filesystem::path& state_dir) {
  std::ifstream in(file_of(state_dir));
  if (!in) return nlohmann::json::array();
  try {
    const auto doc = nlohmann::json::parse(in);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : doc.value("failures", nlohmann::json::array())) {
      out.push_back({{"ref", f.value("ref", "")}, {"arch", f.value("arch", "")}, {"count", f.value("count", 0)}});
    }
    return out;
  } catch (const nlohmann::json::exception&) {
    return nlohmann::json::array();  // a damaged state file must not block planning; it is rewritten on record
  }
}

int record_image_failure(const std::filesystem::path& state_dir, const std::string& arch, const std::string& ref,
                         const std::string& kind) {
  nlohmann::json doc = {{"failures", nlohmann::json::array()}};
  if (std::ifstream in(file_of(state_dir)); in) {
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
    }
  }
  if (!doc.contains("failures") || !doc["failures"].is_array()) doc["failures"] = nlohmann::json::array();
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  int count = 1;
  bool found = false;
  for (auto& f : doc["failures"]) {
    if (f.value("arch", "") == arch && f.value("ref", "") == ref) {
      count = f.value("count", 0) + 1;
      f["count"] = count;
      f["kind"] = kind;
      f["last_seen"] = now;
      found = true;
    }
  }
  if (!found)
    doc["failures"].push_back({{"arch", arch}, {"ref", ref}, {"count", 1}, {"kind", kind}, {"last_seen", now}});
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  const auto tmp = file_of(state_dir).string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out << doc.dump(2) << "\n";
  }
  std::filesystem::rename(tmp, file_of(state_dir));
  return count;
}

}  // namespace r2r::planning
