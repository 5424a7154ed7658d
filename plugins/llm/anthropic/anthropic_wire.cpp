// SPDX-License-Identifier: MIT
#include "anthropic_wire.hpp"

#include "json_writer.hpp"

namespace r2r::plugins::llm {
namespace {

using nlohmann::json;
using sdk::llm::content_block;
constexpr std::string_view provider_name = "anthropic";

// {"type": "ephemeral"}: a prompt-cache breakpoint.
void cache_control(json_writer& w) {
  w.key("cache_control").begin_object().key("type").string("ephemeral").end_object();
}

void encode_block(json_writer& w, const content_block& b) {
  w.begin_object();
  switch (b.type) {
    case content_block::kind::text:
      w.key("type").string("text").key("text").string(b.text);
      break;
    case content_block::kind::tool_call:
      w.key("type").string("tool_use").key("id").string(b.id).key("name").string(b.name);
      w.key("input").value(b.arguments);
      break;
    case content_block::kind::tool_result:
      w.key("type").string("tool_result").key("tool_use_id").string(b.tool_call_id).key("content").string(b.content);
      if (b.is_error) w.key("is_error").boolean(true);
      break;
  }
  if (b.cache) cache_control(w);
  w.end_object();
}

void encode_message(json_writer& w, const sdk::llm::message& m) {
  w.begin_object().key("role").string(m.role).key("content").begin_array();
  // The API rejects empty text blocks; an empty one next to other blocks carries nothing.
  for (const auto& b : m.content) {
    if (b.type == content_block::kind::text && b.text.empty() && m.content.size() > 1) continue;
    encode_block(w, b);
  }
  w.end_array().end_object();
}

std::size_t text_size(const sdk::llm::complete_request& r) {
  std::size_t n = r.system ? r.system->size() : 0;
  for (const auto& m : r.messages)
    for (const auto& b : m.content) n += b.text.size() + b.content.size();
  return n;
}

std::string normal_stop(const std::string& reason) {
  if (reason == "end_turn" || reason == "tool_use" || reason == "max_tokens" || reason == "stop_sequence") {
    return reason;
  }
  // Generation stopped at the context window: usable output, cut like max_tokens.
  if (reason == "model_context_window_exceeded") return "max_tokens";
  return "other";
}

}  // namespace

std::string anthropic_wire::url(const std::string& base_url) const {
  return base_url + "/v1/messages";
}

void anthropic_wire::add_headers(header_list& headers, const std::optional<std::string>& api_key) const {
  headers.emplace_back("anthropic-version", api_version_);
  if (api_key) headers.emplace_back("x-api-key", *api_key);
}

std::string anthropic_wire::encode(const sdk::llm::complete_request& request, const std::string& model,
                                   std::int64_t max_tokens) const {
  // Written directly (json_writer): prompts are large, and a document would copy them twice.
  json_writer w(text_size(request) + text_size(request) / 8 + 4096);
  w.begin_object().key("model").string(model).key("max_tokens").number(max_tokens);
  if (request.system) {
    w.key("system");
    if (request.cache_system) {
      w.begin_array().begin_object().key("type").string("text").key("text").string(*request.system);
      cache_control(w);
      w.end_object().end_array();
    } else {
      w.string(*request.system);
    }
  }
  w.key("messages").begin_array();
  for (const auto& m : request.messages) encode_message(w, m);
  w.end_array();
  if (!request.tools.empty()) {
    w.key("tools").begin_array();
    for (std::size_t i = 0; i < request.tools.size(); ++i) {
      const auto& t = request.tools[i];
      w.begin_object().key("name").string(t.name);
      if (!t.description.empty()) w.key("description").string(t.description);
      w.key("input_schema").value(t.parameters);
      // Tools come before the system prompt in the cached prefix; with no system prompt the
      // breakpoint goes on the last tool.
      if (request.cache_system && !request.system && i + 1 == request.tools.size()) cache_control(w);
      w.end_object();
    }
    w.end_array();
  }
  if (request.choice) {
    w.key("tool_choice").begin_object().key("type").string(request.choice->mode);
    if (request.choice->mode == "tool") w.key("name").string(request.choice->name);
    w.end_object();
  }
  if (request.temperature) w.key("temperature").number(*request.temperature);
  if (!request.stop.empty()) {
    w.key("stop_sequences").begin_array();
    for (const auto& s : request.stop) w.string(s);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

decoded_response anthropic_wire::decode(std::string_view body, const std::string& requested_model) const {
  const json doc = parse_body(body, provider_name);
  decoded_response out;
  auto& r = out.response;
  if (doc.value("type", std::string()) == "error") {
    throw llm_error(failure::malformed_response,
                    "the anthropic server answered with a success status and an error body: " + excerpt(doc.dump()));
  }
  r.id = doc.contains("id") && doc["id"].is_string() ? doc["id"].get<std::string>() : std::string();
  r.model = doc.contains("model") && doc["model"].is_string() ? doc["model"].get<std::string>() : requested_model;
  if (r.model.empty()) r.model = requested_model;
  const json& content = required_field(doc, "content", json::value_t::array, "", provider_name);
  for (std::size_t i = 0; i < content.size(); ++i) {
    const json& block = content[i];
    const std::string where = "/content/" + std::to_string(i);
    if (!block.is_object()) {
      throw llm_error(failure::malformed_response,
                      "the anthropic response has " + where + " as " + block.type_name() + "; expected an object");
    }
    const auto type = required_field(block, "type", json::value_t::string, where, provider_name).get<std::string>();
    if (type == "text") {
      r.content.push_back(content_block::make_text(
          required_field(block, "text", json::value_t::string, where, provider_name).get<std::string>()));
    } else if (type == "tool_use") {
      r.content.push_back(content_block::make_tool_call(
          required_field(block, "id", json::value_t::string, where, provider_name).get<std::string>(),
          required_field(block, "name", json::value_t::string, where, provider_name).get<std::string>(),
          required_field(block, "input", json::value_t::object, where, provider_name)));
    }
    // Other block types (thinking, redacted_thinking, server tool blocks) have no normalised form
    // and are left out.
  }
  const auto stop = doc.find("stop_reason");
  r.provider_stop_reason = stop != doc.end() && stop->is_string() ? stop->get<std::string>() : std::string();
  r.stop_reason = normal_stop(r.provider_stop_reason);
  if (auto u = doc.find("usage"); u != doc.end() && u->is_object()) {
    r.usage.input_tokens = token_count(*u, "input_tokens", "/usage", provider_name);
    r.usage.output_tokens = token_count(*u, "output_tokens", "/usage", provider_name);
    r.usage.cache_read_tokens = token_count(*u, "cache_read_input_tokens", "/usage", provider_name);
    r.usage.cache_write_tokens = token_count(*u, "cache_creation_input_tokens", "/usage", provider_name);
  }
  if (r.provider_stop_reason == "refusal") {
    out.problem = failure::refusal;
    const std::string said = r.text();
    out.problem_detail = "the model refused to answer (stop_reason refusal)" +
                         (said.empty() ? std::string() : ": " + excerpt(said, 300));
  }
  return out;
}

provider_error anthropic_wire::classify(long status, std::string_view body) const {
  provider_error e;
  e.kind = failure_for_status(status);
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error&) {
    e.message = body.empty() ? "(empty body)" : excerpt(body, 300);
    return e;
  }
  const json* error = doc.is_object() && doc.contains("error") && doc["error"].is_object() ? &doc["error"] : nullptr;
  if (error == nullptr) {
    e.message = excerpt(doc.dump(), 300);
    return e;
  }
  const std::string type = error->value("type", std::string());
  const std::string message = error->value("message", std::string());
  e.message = (type.empty() ? std::string() : type + ": ") + message;
  if (doc.contains("request_id") && doc["request_id"].is_string()) {
    e.message += " (request_id " + doc["request_id"].get<std::string>() + ")";
  }
  std::string detail_code;
  if (auto d = error->find("details"); d != error->end() && d->is_object())
    detail_code = d->value("error_code", std::string());
  if (type == "overloaded_error") e.kind = failure::overloaded;
  if (type == "rate_limit_error") e.kind = failure::rate_limited;
  if (type == "billing_error" || detail_code == "enforced_spend_limit_reached") {
    e.kind = failure::spend_limit;
    e.retryable = false;  // waiting does not lift a spending cap
  }
  if ((type == "invalid_request_error" || status == 400 || status == 413) && says_context_overflow(message)) {
    e.kind = failure::context_length;
  }
  return e;
}

}  // namespace r2r::plugins::llm
