// SPDX-License-Identifier: MIT
#include <r2r/verify/rocminfo.hpp>
#include <r2r/verify/text.hpp>

#include <regex>

namespace r2r::plugins::verifier {

std::vector<hsa_agent> rocminfo_report::gpus() const {
  std::vector<hsa_agent> out;
  for (const auto& a : agents)
    if (a.is_gpu()) out.push_back(a);
  return out;
}

rocminfo_report parse_rocminfo(std::string_view text) {
  const std::string clean = strip_ansi(strip_source_header(text));
  rocminfo_report r;
  r.rock_loaded = std::regex_search(clean, std::regex(R"(ROCk module.*is loaded)"));
  static const std::regex agent(R"(^Agent (\d+)\s*$)");
  // An agent-level field sits at two spaces of indent; ISA names nest deeper and are skipped.
  static const std::regex field(R"(^  (Name|Marketing Name|Device Type|Compute Unit|Uuid):\s+(.*?)\s*$)");
  hsa_agent* cur = nullptr;
  for (const auto raw : split_lines(clean)) {
    const std::string line(raw);
    std::smatch m;
    if (std::regex_match(line, m, agent)) {
      r.agents.push_back(hsa_agent{});
      cur = &r.agents.back();
      cur->number = int_field(m[1].str(), "rocminfo", "an agent number");
      continue;
    }
    if (cur == nullptr || !std::regex_match(line, m, field)) continue;
    const std::string key = m[1], value = m[2];
    if (key == "Name")
      cur->name = value;
    else if (key == "Marketing Name")
      cur->marketing_name = value;
    else if (key == "Device Type")
      cur->device_type = value;
    else if (key == "Compute Unit")
      cur->compute_units = static_cast<int>(to_int(value).value_or(-1));
    else
      cur->uuid = value;
  }
  if (r.agents.empty()) {
    // `rocminfo | grep Name` pasted as one line: agent-level "Name: gfx..." and "Marketing Name:".
    static const std::regex gfx(R"((^|\s)Name:\s+(gfx[0-9a-z]+)\b)");
    static const std::regex market(R"(Marketing Name:\s+(.*?)(\s{2,}|$))");
    for (std::sregex_iterator it(clean.begin(), clean.end(), gfx), end; it != end; ++it) {
      hsa_agent a;
      a.name = (*it)[2];
      a.device_type = "GPU";
      std::smatch m;
      const std::string after = clean.substr(static_cast<std::size_t>(it->position(0)));
      if (std::regex_search(after, m, market)) a.marketing_name = m[1];
      r.agents.push_back(std::move(a));
    }
  }
  for (auto& a : r.agents) {
    if (a.device_type.empty() && a.name.starts_with("gfx")) a.device_type = "GPU";
  }
  if (r.agents.empty()) {
    throw parse_error(
        "rocminfo", "'Agent N' blocks with 'Name:' lines", excerpt(clean),
        "rocminfo found no HSA agents: check /dev/kfd access (render/video groups) and the amdgpu driver");
  }
  return r;
}

}  // namespace r2r::plugins::verifier
