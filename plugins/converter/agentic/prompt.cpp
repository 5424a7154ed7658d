// SPDX-License-Identifier: MIT
#include "prompt.hpp"

namespace r2r::plugins::converter::agentic {

std::string system_prompt() {
  return "You port CUDA device code to HIP for AMD GPUs. You rewrite only the regions you are shown, to fix the "
         "hazards listed for them.\n"
         "Rules: keep the semantics exactly; keep performance-critical paths on the GPU; no CPU fallback; no stubs; "
         "never delete, empty or disable a kernel (#if 0, early return), never drop __global__, never replace a "
         "kernel by a host loop or a framework op (such as SDPA or eager attention in place of a flash-attention "
         "kernel). AMD CDNA GPUs run 64-lane wavefronts: use warpSize and 64-bit "
         "lane masks, and HIP builtins instead of inline PTX.\n"
         "Answer format (strict): one block per changed range of the numbered lines you were given:\n"
         "@@ replace A-B\n<the new lines that replace lines A to B, without line numbers>\n@@ end\n"
         "A and B are line numbers inside one region shown. Text outside blocks is ignored.";
}

std::string first_message(std::string_view path, std::string_view text,
                          const std::vector<sdk::converter::hazard>& hazards, const std::vector<line_range>& regions,
                          const std::vector<std::string>& archs) {
  std::string m = "File: " + std::string(path) + "\nTargets:";
  for (const auto& a : archs) m += " " + a;
  m += "\nHazards:\n";
  for (const auto& h : hazards) {
    m += "- line " + std::to_string(h.line) + " [" + h.rule + "] " + h.message + "\n  why: " + h.why +
         "\n  fix: " + h.fix + "\n";
  }
  const auto lines = split_lines(text);
  for (const auto& r : regions) {
    m += "Region " + std::to_string(r.first) + "-" + std::to_string(r.last) + ":\n";
    for (std::int64_t n = r.first; n <= r.last; ++n) {
      m += std::to_string(n) + "| " + lines[static_cast<std::size_t>(n - 1)] + "\n";
    }
  }
  return m;
}

sdk::llm::complete_request first_request(std::string_view path, std::string_view text,
                                         const std::vector<sdk::converter::hazard>& hazards,
                                         const std::vector<line_range>& regions, const std::vector<std::string>& archs,
                                         std::int64_t max_tokens) {
  sdk::llm::complete_request r;
  r.system = system_prompt();
  r.max_tokens = max_tokens;
  r.messages.push_back(sdk::llm::message{
      "user", {sdk::llm::content_block::make_text(first_message(path, text, hazards, regions, archs))}});
  return r;
}

std::string feedback_message(std::string_view kind, std::string_view problem) {
  return "Your rewrite was not accepted (" + std::string(kind) + "):\n" + std::string(problem) +
         "\nAnswer again in the same format, for the same regions and the original line numbers.";
}

}  // namespace r2r::plugins::converter::agentic
