// SPDX-License-Identifier: MIT
#include "openai_wire.hpp"

#include "json_writer.hpp"

namespace r2r::plugins::llm {
namespace {

using nlohmann::json;
using sdk::llm::content_block;
constexpr std::string_view provider_name = "openai";

// One text block as a plain string (what every compatible server accepts); several as parts.
void text_content(json_writer& w, const std::vector<const content_block*>& texts) {
  if (texts.size() == 1) {
    w.string(texts.front()->text);
    return;
  }
  w.begin_array();
  for (const auto* t : texts) w.begin_object().key("type").string("text").key("text").string(t->text).end_object();
  w.end_array();
}

void encode_message(json_writer& w, const sdk::llm::message& m) {
  std::vector<const content_block*> texts;
  if (m.role == "assistant") {
    std::vector<const content_block*> calls;
    for (const auto& b : m.content) {
      if (b.type == content_block::kind::text && !b.text.empty()) texts.push_back(&b);
      if (b.type == content_block::kind::tool_call) calls.push_back(&b);
    }
    w.begin_object().key("role").string("assistant").key("content");
    if (texts.empty()) {
      w.null();
    } else {
      text_content(w, texts);
    }
    if (!calls.empty()) {
      w.key("tool_calls").begin_array();
      for (const auto* c : calls) {
        w.begin_object().key("id").string(c->id).key("type").string("function");
        w.key("function").begin_object().key("name").string(c->name).key("arguments").string(c->arguments.dump());
        w.end_object().end_object();
      }
      w.end_array();
    }
    w.end_object();
    return;
  }
  // Tool messages must follow the assistant message that made the calls, so they go first.
  for (const auto& b : m.content) {
    if (b.type == content_block::kind::tool_result) {
      w.begin_object().key("role").string("tool").key("tool_call_id").string(b.tool_call_id).key("content");
      w.string(b.is_error ? "Error: " + b.content : b.content);
      w.end_object();
    } else if (b.type == content_block::kind::text) {
      texts.push_back(&b);
    }
  }
  if (!texts.empty()) {
    w.begin_object().key("role").string("user").key("content");
    text_content(w, texts);
    w.end_object();
  }
}

std::size_t text_size(const sdk::llm::complete_request& r) {
  std::size_t n = r.system ? r.system->size() : 0;
  for (const auto& m : r.messages)
    for (const auto& b : m.content) n += b.text.size() + b.content.size();
  return n;
}

// The `content` of a response message: a string, null, or (some servers) an array of text parts.
std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const auto& part : content)
      if (part.is_object() && part.value("type", std::string()) == "text") text += part.value("text", std::string());
  }
  return text;
}

}  // namespace

std::string openai_wire::url(const std::string& base_url) const {
  return base_url + "/chat/completions";
}

void openai_wire::add_headers(header_list& headers, const std::optional<std::string>& api_key) const {
  if (api_key) headers.emplace_back("Authorization", "Bearer " + *api_key);
}

std::string openai_wire::encode(const sdk::llm::complete_request& request, const std::string& model,
                                std::int64_t max_tokens) const {
  // Written directly (json_writer): prompts are large, and a document would copy them twice.
  json_writer w(text_size(request) + text_size(request) / 8 + 4096);
  w.begin_object().key("model").string(model).key("messages").begin_array();
  if (request.system) w.begin_object().key("role").string("system").key("content").string(*request.system).end_object();
  for (const auto& m : request.messages) encode_message(w, m);
  w.end_array().key(max_tokens_field_).number(max_tokens);
  if (!request.tools.empty()) {
    w.key("tools").begin_array();
    for (const auto& t : request.tools) {
      w.begin_object().key("type").string("function").key("function").begin_object().key("name").string(t.name);
      if (!t.description.empty()) w.key("description").string(t.description);
      w.key("parameters").value(t.parameters).end_object().end_object();
    }
    w.end_array();
    if (request.choice) {
      const auto& mode = request.choice->mode;
      w.key("tool_choice");
      if (mode == "tool") {
        w.begin_object().key("type").string("function").key("function").begin_object().key("name");
        w.string(request.choice->name).end_object().end_object();
      } else {
        w.string(mode == "any" ? "required" : mode);
      }
    }
  }
  if (request.temperature) w.key("temperature").number(*request.temperature);
  if (!request.stop.empty()) {
    w.key("stop").begin_array();
    for (const auto& s : request.stop) w.string(s);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

decoded_response openai_wire::decode(std::string_view body, const std::string& requested_model) const {
  const json doc = parse_body(body, provider_name);
  decoded_response out;
  auto& r = out.response;
  r.id = doc.contains("id") && doc["id"].is_string() ? doc["id"].get<std::string>() : std::string();
  r.model = doc.contains("model") && doc["model"].is_string() ? doc["model"].get<std::string>() : requested_model;
  if (r.model.empty()) r.model = requested_model;
  const json& choices = required_field(doc, "choices", json::value_t::array, "", provider_name);
  if (choices.empty() || !choices[0].is_object()) {
    throw llm_error(failure::malformed_response, "the openai response has no /choices/0 object");
  }
  const json& choice = choices[0];
  const json& message = required_field(choice, "message", json::value_t::object, "/choices/0", provider_name);

  if (auto content = message.find("content"); content != message.end()) {
    const std::string text = content_text(*content);
    if (!text.empty()) r.content.push_back(content_block::make_text(text));
  }
  if (auto calls = message.find("tool_calls"); calls != message.end() && !calls->is_null()) {
    if (!calls->is_array()) {
      throw llm_error(failure::malformed_response, "the openai response has /choices/0/message/tool_calls as " +
                                                       std::string(calls->type_name()) + "; expected an array");
    }
    for (std::size_t i = 0; i < calls->size(); ++i) {
      const json& call = (*calls)[i];
      const std::string where = "/choices/0/message/tool_calls/" + std::to_string(i);
      if (!call.is_object()) {
        throw llm_error(failure::malformed_response,
                        "the openai response has " + where + " as " + call.type_name() + "; expected an object");
      }
      const json& function = required_field(call, "function", json::value_t::object, where, provider_name);
      const auto name = required_field(function, "name", json::value_t::string, where + "/function", provider_name)
                            .get<std::string>();
      // Some compatible servers leave the id out; tool results still need one to refer to.
      std::string id = call.contains("id") && call["id"].is_string() ? call["id"].get<std::string>() : std::string();
      if (id.empty()) id = "call_" + std::to_string(i);
      json arguments = json::object();
      if (auto a = function.find("arguments"); a != function.end() && !a->is_null()) {
        if (a->is_object()) {
          arguments = *a;  // Ollama sends an object
        } else if (a->is_string()) {
          const auto& text = a->get_ref<const std::string&>();
          try {
            arguments = text.empty() ? json::object() : json::parse(text);
          } catch (const json::parse_error& e) {
            out.problem = failure::malformed_response;
            out.problem_detail = "the model's arguments for tool call '" + name + "' (" + id +
                                 ") are not valid JSON (" + e.what() + "): " + excerpt(text, 200) +
                                 ". The call was billed; ask the model again";
          }
          if (!out.problem && !arguments.is_object()) {
            out.problem = failure::malformed_response;
            out.problem_detail = "the model's arguments for tool call '" + name + "' (" + id + ") are JSON " +
                                 arguments.type_name() + ", not an object";
          }
        } else {
          throw llm_error(failure::malformed_response, "the openai response has " + where + "/function/arguments as " +
                                                           a->type_name() + "; expected a JSON string");
        }
      }
      if (!arguments.is_object()) arguments = json::object();
      r.content.push_back(content_block::make_tool_call(std::move(id), name, std::move(arguments)));
    }
  }

  const auto finish = choice.find("finish_reason");
  r.provider_stop_reason = finish != choice.end() && finish->is_string() ? finish->get<std::string>() : std::string();
  bool has_calls = false;
  for (const auto& b : r.content) has_calls = has_calls || b.type == content_block::kind::tool_call;
  const auto& f = r.provider_stop_reason;
  if (f == "length") {
    r.stop_reason = "max_tokens";
  } else if (has_calls || f == "tool_calls" || f == "function_call") {
    // llama.cpp and Ollama report "stop" even when the turn is a tool call.
    r.stop_reason = "tool_use";
  } else if (f == "stop") {
    r.stop_reason = "end_turn";
  } else {
    r.stop_reason = "other";
  }

  if (auto u = doc.find("usage"); u != doc.end() && u->is_object()) {
    const std::int64_t prompt = token_count(*u, "prompt_tokens", "/usage", provider_name);
    std::int64_t cached = 0;
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) {
      cached = token_count(*d, "cached_tokens", "/usage/prompt_tokens_details", provider_name);
    }
    r.usage.cache_read_tokens = std::min(cached, prompt);
    r.usage.input_tokens = prompt - r.usage.cache_read_tokens;
    r.usage.output_tokens = token_count(*u, "completion_tokens", "/usage", provider_name);
  }

  if (auto refusal = message.find("refusal");
      refusal != message.end() && refusal->is_string() && !refusal->get_ref<const std::string&>().empty()) {
    out.problem = failure::refusal;
    out.problem_detail = "the model refused to answer: " + excerpt(refusal->get_ref<const std::string&>(), 300);
  } else if (f == "content_filter") {
    out.problem = failure::content_filter;
    out.problem_detail = "the provider's content filter stopped the output (finish_reason content_filter)";
  }
  return out;
}

provider_error openai_wire::classify(long status, std::string_view body) const {
  provider_error e;
  e.kind = failure_for_status(status);
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error&) {
    e.message = body.empty() ? "(empty body)" : excerpt(body, 300);
    return e;
  }
  // {"error": {"message", "type", "code"}} (OpenAI, llama.cpp), {"error": "text"} (Ollama),
  // {"object": "error", "message", "type", "code"} (vLLM).
  std::string message, type, code;
  const json* error = doc.is_object() && doc.contains("error") ? &doc["error"] : nullptr;
  const json* fields = error != nullptr && error->is_object() ? error : (doc.is_object() ? &doc : nullptr);
  if (error != nullptr && error->is_string()) {
    message = error->get<std::string>();
  } else if (fields != nullptr) {
    message = fields->value("message", std::string());
    type = fields->contains("type") && (*fields)["type"].is_string() ? (*fields)["type"].get<std::string>() : "";
    if (fields->contains("code")) {
      const json& c = (*fields)["code"];
      code = c.is_string() ? c.get<std::string>() : (c.is_number() ? c.dump() : std::string());
    }
  }
  if (message.empty()) message = excerpt(doc.dump(), 300);
  e.message = (type.empty() ? std::string() : type + ": ") + message;
  if (!code.empty() && code != std::to_string(status)) e.message += " (code " + code + ")";
  if (code == "insufficient_quota" || type == "insufficient_quota") {
    e.kind = failure::spend_limit;
    e.retryable = false;  // the quota does not come back by waiting
  }
  if (code == "context_length_exceeded" || type == "exceed_context_size_error" ||
      ((status == 400 || status == 413) && says_context_overflow(message))) {
    e.kind = failure::context_length;
  }
  return e;
}

}  // namespace r2r::plugins::llm
