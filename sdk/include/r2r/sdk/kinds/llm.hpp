// SPDX-License-Identifier: MIT
// Typed messages of the llm kind. The wire shapes are plugin_api/schemas/llm/*.schema.json; these
// structs mirror them. An llm plugin implements:
//   r2r::sdk::llm::complete_response complete(const r2r::sdk::llm::complete_request&, r2r::sdk::call_context&);
//   r2r::sdk::llm::totals_response totals(const r2r::sdk::llm::totals_request&);
// (either with or without the call_context parameter) and lists both with r2r::sdk::llm::methods<T>().
// A caller (a policy, a converter) builds a complete_request, sends it with
//   ctx.call_service("llm", "complete", request)
// and reads the answer with .get<r2r::sdk::llm::complete_response>().
//
// to_json writes optional fields only when they are set, so a request and its JSON round-trip
// exactly; that is what the replay backend compares.
#pragma once

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace r2r::sdk::llm {

/// One piece of a message. Which fields apply depends on `type`:
///   text:        text, cache
///   tool_call:   id, name, arguments            (assistant messages and responses)
///   tool_result: tool_call_id, content, is_error, cache   (user messages)
struct content_block {
  enum class kind { text, tool_call, tool_result };
  kind type = kind::text;
  std::string text;
  std::string id;
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();
  std::string tool_call_id;
  std::string content;
  bool is_error = false;
  bool cache = false;

  static content_block make_text(std::string t) {
    content_block b;
    b.text = std::move(t);
    return b;
  }
  static content_block make_tool_call(std::string call_id, std::string tool, nlohmann::json args) {
    content_block b;
    b.type = kind::tool_call;
    b.id = std::move(call_id);
    b.name = std::move(tool);
    b.arguments = std::move(args);
    return b;
  }
  static content_block make_tool_result(std::string call_id, std::string output, bool failed = false) {
    content_block b;
    b.type = kind::tool_result;
    b.tool_call_id = std::move(call_id);
    b.content = std::move(output);
    b.is_error = failed;
    return b;
  }
};

inline const char* to_string(content_block::kind k) noexcept {
  switch (k) {
    case content_block::kind::tool_call:
      return "tool_call";
    case content_block::kind::tool_result:
      return "tool_result";
    default:
      return "text";
  }
}

inline void to_json(nlohmann::json& j, const content_block& b) {
  switch (b.type) {
    case content_block::kind::text:
      j = nlohmann::json{{"type", "text"}, {"text", b.text}};
      break;
    case content_block::kind::tool_call:
      j = nlohmann::json{{"type", "tool_call"}, {"id", b.id}, {"name", b.name}, {"arguments", b.arguments}};
      break;
    case content_block::kind::tool_result:
      j = nlohmann::json{{"type", "tool_result"}, {"tool_call_id", b.tool_call_id}, {"content", b.content}};
      if (b.is_error) j["is_error"] = true;
      break;
  }
  if (b.cache && b.type != content_block::kind::tool_call) j["cache"] = true;
}

inline void from_json(const nlohmann::json& j, content_block& b) {
  if (!j.is_object())
    throw invalid_argument("a content block must be a JSON object, found " + std::string(j.type_name()));
  const std::string type = j.at("type").get<std::string>();
  b = content_block{};
  if (type == "text") {
    b.text = j.at("text").get<std::string>();
  } else if (type == "tool_call") {
    b.type = content_block::kind::tool_call;
    b.id = j.at("id").get<std::string>();
    b.name = j.at("name").get<std::string>();
    b.arguments = j.at("arguments");
    if (!b.arguments.is_object()) {
      throw invalid_argument("tool_call '" + b.name + "' arguments must be a JSON object, found " +
                             std::string(b.arguments.type_name()));
    }
  } else if (type == "tool_result") {
    b.type = content_block::kind::tool_result;
    b.tool_call_id = j.at("tool_call_id").get<std::string>();
    b.content = j.at("content").get<std::string>();
    b.is_error = j.value("is_error", false);
  } else {
    throw invalid_argument("content block type must be text, tool_call or tool_result; found '" + type + "'");
  }
  b.cache = j.value("cache", false);
}

struct message {
  std::string role;  // "user" or "assistant"
  std::vector<content_block> content;
};
inline void to_json(nlohmann::json& j, const message& m) {
  j = nlohmann::json{{"role", m.role}, {"content", m.content}};
}
inline void from_json(const nlohmann::json& j, message& m) {
  m.role = j.at("role").get<std::string>();
  if (m.role != "user" && m.role != "assistant") {
    throw invalid_argument("message role must be user or assistant; found '" + m.role +
                           "' (the system prompt goes in the request's `system` field)");
  }
  m.content = j.at("content").get<std::vector<content_block>>();
}

/// A tool the model may call; `parameters` is the JSON Schema of its arguments object.
struct tool {
  std::string name;
  std::string description;
  nlohmann::json parameters = nlohmann::json::object();
};
inline void to_json(nlohmann::json& j, const tool& t) {
  j = nlohmann::json{{"name", t.name}, {"parameters", t.parameters}};
  if (!t.description.empty()) j["description"] = t.description;
}
inline void from_json(const nlohmann::json& j, tool& t) {
  t.name = j.at("name").get<std::string>();
  t.description = j.value("description", std::string());
  t.parameters = j.at("parameters");
}

/// auto: the model decides; any: it must call some tool; none: it must not; tool: it must call `name`.
struct tool_choice {
  std::string mode = "auto";
  std::string name;
};
inline void to_json(nlohmann::json& j, const tool_choice& c) {
  j = nlohmann::json{{"mode", c.mode}};
  if (!c.name.empty()) j["name"] = c.name;
}
inline void from_json(const nlohmann::json& j, tool_choice& c) {
  c.mode = j.at("mode").get<std::string>();
  c.name = j.value("name", std::string());
}

struct complete_request {
  std::optional<std::string> model;   // overrides the instance's configured model
  std::optional<std::string> system;  // system prompt
  bool cache_system = false;          // prompt-cache breakpoint after tools + system
  std::vector<message> messages;
  std::vector<tool> tools;
  std::optional<tool_choice> choice;  // "tool_choice" on the wire
  std::optional<std::int64_t> max_tokens;
  std::optional<double> temperature;
  std::vector<std::string> stop;
};
inline void to_json(nlohmann::json& j, const complete_request& r) {
  j = nlohmann::json::object();
  if (r.model) j["model"] = *r.model;
  if (r.system) j["system"] = *r.system;
  if (r.cache_system) j["cache_system"] = true;
  j["messages"] = r.messages;
  if (!r.tools.empty()) j["tools"] = r.tools;
  if (r.choice) j["tool_choice"] = *r.choice;
  if (r.max_tokens) j["max_tokens"] = *r.max_tokens;
  if (r.temperature) j["temperature"] = *r.temperature;
  if (!r.stop.empty()) j["stop"] = r.stop;
}
inline void from_json(const nlohmann::json& j, complete_request& r) {
  if (!j.is_object())
    throw invalid_argument("an llm request must be a JSON object, found " + std::string(j.type_name()));
  r = complete_request{};
  if (auto it = j.find("model"); it != j.end()) r.model = it->get<std::string>();
  if (auto it = j.find("system"); it != j.end()) r.system = it->get<std::string>();
  r.cache_system = j.value("cache_system", false);
  auto messages = j.find("messages");
  if (messages == j.end())
    throw invalid_argument("an llm request needs `messages`, an array of user/assistant messages");
  r.messages = messages->get<std::vector<message>>();
  if (auto it = j.find("tools"); it != j.end()) r.tools = it->get<std::vector<tool>>();
  if (auto it = j.find("tool_choice"); it != j.end()) r.choice = it->get<tool_choice>();
  if (auto it = j.find("max_tokens"); it != j.end()) r.max_tokens = it->get<std::int64_t>();
  if (auto it = j.find("temperature"); it != j.end()) r.temperature = it->get<double>();
  if (auto it = j.find("stop"); it != j.end()) r.stop = it->get<std::vector<std::string>>();
}

/// Tokens of one call (or a total). input_tokens excludes tokens read from or written to a cache.
struct usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;

  /// Every input token, cached or not.
  std::int64_t all_input() const noexcept { return input_tokens + cache_read_tokens + cache_write_tokens; }
  usage& operator+=(const usage& o) noexcept {
    input_tokens += o.input_tokens;
    output_tokens += o.output_tokens;
    cache_read_tokens += o.cache_read_tokens;
    cache_write_tokens += o.cache_write_tokens;
    return *this;
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(usage, input_tokens, output_tokens, cache_read_tokens,
                                                cache_write_tokens)

struct complete_response {
  std::string id;
  std::string model;
  std::string provider;
  std::vector<content_block> content;    // text and tool_call blocks, in the model's order
  std::string stop_reason = "end_turn";  // end_turn | tool_use | max_tokens | stop_sequence | other
  std::string provider_stop_reason;
  llm::usage usage;
  std::int64_t latency_ms = 0;
  std::int64_t attempts = 1;
  double cost_usd = 0;

  /// The text blocks joined, for callers that only want prose.
  std::string text() const {
    std::string out;
    for (const auto& b : content)
      if (b.type == content_block::kind::text) out += b.text;
    return out;
  }
};
inline void to_json(nlohmann::json& j, const complete_response& r) {
  j = nlohmann::json{{"id", r.id},
                     {"model", r.model},
                     {"provider", r.provider},
                     {"content", r.content},
                     {"stop_reason", r.stop_reason},
                     {"usage", r.usage},
                     {"latency_ms", r.latency_ms},
                     {"attempts", r.attempts},
                     {"cost_usd", r.cost_usd}};
  if (!r.provider_stop_reason.empty()) j["provider_stop_reason"] = r.provider_stop_reason;
}
inline void from_json(const nlohmann::json& j, complete_response& r) {
  r.id = j.at("id").get<std::string>();
  r.model = j.at("model").get<std::string>();
  r.provider = j.at("provider").get<std::string>();
  r.content = j.at("content").get<std::vector<content_block>>();
  r.stop_reason = j.at("stop_reason").get<std::string>();
  r.provider_stop_reason = j.value("provider_stop_reason", std::string());
  r.usage = j.at("usage").get<llm::usage>();
  r.latency_ms = j.at("latency_ms").get<std::int64_t>();
  r.attempts = j.value("attempts", std::int64_t{1});
  r.cost_usd = j.at("cost_usd").get<double>();
}

struct totals_request {};
inline void from_json(const nlohmann::json& j, totals_request&) {
  if (!j.is_object())
    throw invalid_argument("a totals request must be a JSON object, found " + std::string(j.type_name()));
}
inline void to_json(nlohmann::json& j, const totals_request&) {
  j = nlohmann::json::object();
}

/// Caps of one instance; unset ones are uncapped. Input caps count cached tokens too.
struct limits {
  std::optional<std::int64_t> max_input_tokens;
  std::optional<std::int64_t> max_output_tokens;
  std::optional<std::int64_t> max_total_tokens;
  std::optional<double> max_cost_usd;
};
inline void to_json(nlohmann::json& j, const limits& l) {
  j = nlohmann::json::object();
  if (l.max_input_tokens) j["max_input_tokens"] = *l.max_input_tokens;
  if (l.max_output_tokens) j["max_output_tokens"] = *l.max_output_tokens;
  if (l.max_total_tokens) j["max_total_tokens"] = *l.max_total_tokens;
  if (l.max_cost_usd) j["max_cost_usd"] = *l.max_cost_usd;
}
inline void from_json(const nlohmann::json& j, limits& l) {
  l = limits{};
  if (auto it = j.find("max_input_tokens"); it != j.end()) l.max_input_tokens = it->get<std::int64_t>();
  if (auto it = j.find("max_output_tokens"); it != j.end()) l.max_output_tokens = it->get<std::int64_t>();
  if (auto it = j.find("max_total_tokens"); it != j.end()) l.max_total_tokens = it->get<std::int64_t>();
  if (auto it = j.find("max_cost_usd"); it != j.end()) l.max_cost_usd = it->get<double>();
}

struct totals_response {
  std::int64_t calls = 0;
  std::int64_t refused_calls = 0;
  std::int64_t failed_calls = 0;
  llm::usage usage;
  double cost_usd = 0;
  llm::limits limits;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(totals_response, calls, refused_calls, failed_calls, usage, cost_usd,
                                                limits)

/// The method table every llm plugin exposes.
template <class T>
method_table<T> methods() {
  return {method("complete", &T::complete), method("totals", &T::totals)};
}

}  // namespace r2r::sdk::llm
