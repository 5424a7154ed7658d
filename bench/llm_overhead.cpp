// SPDX-License-Identifier: MIT
// r2r-bench-llm-overhead [--iterations N] [--prompt-kb K] [--json]
// The llm backends' own work per call, without the network: for each wire format (anthropic,
// openai), the request side (the JSON text the host hands the plugin -> typed request ->
// conversation checks -> provider body -> cap estimate) and the response side (provider body ->
// normalised response -> the JSON text handed back). The conversation is a realistic agent turn
// whose tool output makes the prompt K KB (default 100). Prints median, p90 and min per side and
// for the whole call. Exits non-zero when a decoded response is not what was encoded.
#include "accounting.hpp"
#include "anthropic_wire.hpp"
#include "openai_wire.hpp"
#include "request_checks.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using namespace r2r::plugins::llm;
using clock_type = std::chrono::steady_clock;

// A build log of about `bytes` bytes: quotes, tabs, paths and a little UTF-8, like real tool output.
std::string build_log(std::size_t bytes) {
  std::string out;
  for (int line = 0; out.size() < bytes; ++line) {
    out += "[" + std::to_string(line) +
           "/812] /opt/rocm/llvm/bin/clang++ -x hip --offload-arch=gfx942 -O3 "
           "-I\"src/kernels\"\t-c src/kernels/attn_" +
           std::to_string(line % 37) +
           ".hip -o build/attn.o  # warning: \"__shfl_xor\" is deprecated \xE2\x80\x94 use __shfl_xor_sync\n";
  }
  out.resize(bytes);
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
  return out;
}

// The request text a policy sends: system prompt, tools, a tool round and the tool's big output.
std::string request_text(std::size_t prompt_bytes) {
  const json tools = json::parse(R"([
    {"name": "run", "description": "Run a shell command in the sandbox", "parameters": {"type": "object", "properties": {"command": {"type": "string"}, "timeout_s": {"type": "integer"}}, "required": ["command"]}},
    {"name": "write_file", "description": "Write a file in the workspace", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}},
    {"name": "apply_patch", "description": "Apply a unified diff", "parameters": {"type": "object", "properties": {"patch": {"type": "string"}}, "required": ["patch"]}}
  ])");
  const std::string system(2000, 's');
  json request{
      {"system", "You port CUDA research repositories to ROCm. " + system},
      {"cache_system", true},
      {"tools", tools},
      {"max_tokens", 4096},
      {"messages",
       {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Build the HIP kernels and report the errors."}}}}},
        {{"role", "assistant"},
         {"content",
          {{{"type", "text"}, {"text", "Building."}},
           {{"type", "tool_call"},
            {"id", "toolu_01"},
            {"name", "run"},
            {"arguments", {{"command", "make -j16 hip"}}}}}}},
        {{"role", "user"},
         {"content",
          {{{"type", "tool_result"}, {"tool_call_id", "toolu_01"}, {"content", build_log(prompt_bytes)}}}}}}}};
  return request.dump();
}

std::string anthropic_reply() {
  return json{{"id", "msg_01"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-sonnet-4-5-20250929"},
              {"content",
               {{{"type", "text"}, {"text", std::string(1500, 'a') + "\nThe build fails in attn_3.hip."}},
                {{"type", "tool_use"},
                 {"id", "toolu_02"},
                 {"name", "apply_patch"},
                 {"input", {{"patch", std::string(600, 'p')}}}}}},
              {"stop_reason", "tool_use"},
              {"usage", {{"input_tokens", 31000}, {"output_tokens", 700}, {"cache_read_input_tokens", 2100}}}}
      .dump();
}

std::string openai_reply() {
  return json{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"model", "Qwen/Qwen2.5-Coder-32B-Instruct"},
      {"choices",
       {{{"index", 0},
         {"finish_reason", "tool_calls"},
         {"message",
          {{"role", "assistant"},
           {"content", std::string(1500, 'a') + "\nThe build fails in attn_3.hip."},
           {"tool_calls",
            {{{"id", "call_02"},
              {"type", "function"},
              {"function",
               {{"name", "apply_patch"}, {"arguments", json{{"patch", std::string(600, 'p')}}.dump()}}}}}}}}}}},
      {"usage",
       {{"prompt_tokens", 33100}, {"completion_tokens", 700}, {"prompt_tokens_details", {{"cached_tokens", 2100}}}}}}
      .dump();
}

struct stats {
  double median = 0, p90 = 0, min = 0;
};
stats summarise(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  stats s;
  s.min = us.front();
  s.median = us[us.size() / 2];
  s.p90 = us[std::min(us.size() - 1, us.size() * 9 / 10)];
  return s;
}

double micros(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

struct result {
  std::string provider;
  std::size_t request_bytes = 0, body_bytes = 0, reply_bytes = 0;
  stats request, response, total;
};

result measure(const wire_format& wire, const std::string& request, const std::string& reply, int iterations) {
  std::vector<double> req_us, resp_us, total_us;
  std::size_t body_bytes = 0;
  for (int i = -iterations / 10 - 1; i < iterations; ++i) {  // the first tenth warms caches, unrecorded
    const auto t0 = clock_type::now();
    // Request side: what the SDK and the backend do before the bytes go to libcurl.
    const auto typed = json::parse(request).get<r2r::sdk::llm::complete_request>();
    check_request(typed);
    const std::string body = wire.encode(typed, "model-id", typed.max_tokens.value_or(4096));
    const auto estimate = estimate_call(body.size(), 3, typed.max_tokens.value_or(4096), typed.cache_system);
    const auto t1 = clock_type::now();
    // Response side: from the bytes libcurl received to the text the SDK hands the host.
    auto decoded = wire.decode(reply, "model-id");
    const std::string out = json(decoded.response).dump();
    const auto t2 = clock_type::now();
    if (decoded.problem || decoded.response.content.size() != 2 || out.size() < 2000 || estimate.input_tokens <= 0) {
      std::cerr << "r2r-bench-llm-overhead: " << wire.provider() << " round trip produced a wrong result\n";
      std::exit(1);
    }
    body_bytes = body.size();
    if (i < 0) continue;
    req_us.push_back(micros(t0, t1));
    resp_us.push_back(micros(t1, t2));
    total_us.push_back(micros(t0, t2));
  }
  return {std::string(wire.provider()), request.size(),     body_bytes, reply.size(), summarise(req_us),
          summarise(resp_us),           summarise(total_us)};
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 2000;
  std::size_t prompt_kb = 100;
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--prompt-kb" && i + 1 < argc) {
      prompt_kb = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    } else if (arg == "--json") {
      as_json = true;
    } else {
      std::cerr << "usage: r2r-bench-llm-overhead [--iterations N] [--prompt-kb K] [--json]\n";
      return 2;
    }
  }
  const std::string request = request_text(prompt_kb * 1024);
  const anthropic_wire anthropic("2023-06-01");
  const openai_wire openai("max_tokens");
  const std::vector<result> results = {measure(anthropic, request, anthropic_reply(), iterations),
                                       measure(openai, request, openai_reply(), iterations)};
  if (as_json) {
    json out = json::array();
    for (const auto& r : results) {
      auto s = [](const stats& x) { return json{{"median_us", x.median}, {"p90_us", x.p90}, {"min_us", x.min}}; };
      out.push_back({{"provider", r.provider},
                     {"iterations", iterations},
                     {"request_bytes", r.request_bytes},
                     {"body_bytes", r.body_bytes},
                     {"reply_bytes", r.reply_bytes},
                     {"request", s(r.request)},
                     {"response", s(r.response)},
                     {"total", s(r.total)}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%d iterations, request %zu bytes (prompt %zu KB)\n", iterations, request.size(), prompt_kb);
  std::printf("%-10s %-9s %11s %11s %11s\n", "provider", "side", "median ms", "p90 ms", "min ms");
  for (const auto& r : results) {
    for (const auto& [side, s] : {std::pair{"request", r.request}, {"response", r.response}, {"total", r.total}}) {
      std::printf("%-10s %-9s %11.3f %11.3f %11.3f\n", r.provider.c_str(), side, s.median / 1000, s.p90 / 1000,
                  s.min / 1000);
    }
  }
  return 0;
}
