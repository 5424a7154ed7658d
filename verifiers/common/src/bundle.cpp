// SPDX-License-Identifier: MIT
#include <r2r/verify/amd_smi.hpp>
#include <r2r/verify/bundle.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/rocm_smi.hpp>
#include <r2r/verify/text.hpp>

namespace r2r::plugins::verifier {

std::vector<bundle_section> parse_bundle(std::string_view output, std::string_view nonce) {
  const std::string marker = "@@R2R-" + std::string(nonce) + " ";
  std::vector<bundle_section> out;
  std::size_t pos = 0;
  bundle_section* cur = nullptr;
  while (pos <= output.size()) {
    const std::size_t nl = output.find('\n', pos);
    const std::string_view line = output.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    const std::size_t next = nl == std::string_view::npos ? output.size() + 1 : nl + 1;
    if (line.starts_with(marker)) {
      const auto words = split_ws(line.substr(marker.size()));
      bundle_section sec{
          words.empty() ? "" : std::string(words[0]), words.size() > 1 ? std::string(words[1]) : "", {}, ""};
      for (std::size_t i = 1; i < words.size(); ++i) sec.args.emplace_back(words[i]);
      out.push_back(std::move(sec));
      cur = &out.back();
      if (cur->name == "log") {
        if (next <= output.size()) cur->body = std::string(output.substr(next));
        break;
      }
    } else if (cur != nullptr) {
      cur->body.append(line);
      cur->body += '\n';
    }
    pos = next;
  }
  for (auto& s : out) {
    if (s.name == "log") continue;
    while (s.body.ends_with("\n\n")) s.body.pop_back();  // the blank line sec() prints before a marker
  }
  return out;
}

std::vector<process_sample> parse_samples(std::string_view body) {
  std::vector<process_sample> out;
  std::string tool_text;
  const auto finish = [&] {
    if (out.empty()) return;
    auto& s = out.back();
    try {
      if (s.tool == "rocm-smi") {
        for (auto& p : parse_rocm_smi_showpids(tool_text)) s.processes.push_back(p);
      } else if (s.tool == "amd-smi") {
        s.processes = parse_amd_smi_process(tool_text);
      } else if (s.tool == "nvidia-smi") {
        s.processes = parse_nvidia_smi_compute_apps(tool_text);
      }
    } catch (const std::exception& e) {
      s.error = e.what();
    }
    tool_text.clear();
  };
  for (const auto line : split_lines(body)) {
    if (line.starts_with("### sample ")) {
      finish();
      process_sample s;
      const auto w = split_ws(line);
      if (w.size() > 2) s.index = static_cast<int>(to_int(w[2]).value_or(-1));
      out.push_back(std::move(s));
    } else if (line.starts_with("### tree ") && !out.empty()) {
      for (const auto p : split_ws(line.substr(9))) {
        const auto colon = p.find(':');
        if (const auto v = to_int(p.substr(0, colon))) {
          out.back().tree.insert(*v);
          if (colon != std::string_view::npos)
            if (const auto u = to_int(p.substr(colon + 1))) out.back().uids[*v] = *u;
        }
      }
    } else if (line.starts_with("### tool ") && !out.empty()) {
      out.back().tool = std::string(trim(line.substr(9)));
    } else if (!out.empty()) {
      tool_text.append(line);
      tool_text += '\n';
    }
  }
  finish();
  return out;
}

}  // namespace r2r::plugins::verifier
