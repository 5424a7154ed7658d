// SPDX-License-Identifier: MIT
#include "request_checks.hpp"

#include "errors.hpp"

#include <set>
#include <string>

namespace r2r::plugins::llm {
namespace {

using sdk::llm::content_block;

[[noreturn]] void reject(const std::string& pointer, const std::string& what) {
  throw llm_error(failure::invalid_request, pointer + ": " + what);
}

std::string at(std::size_t m, std::size_t b) {
  return "/messages/" + std::to_string(m) + "/content/" + std::to_string(b);
}

}  // namespace

void check_request(const sdk::llm::complete_request& request) {
  if (request.messages.empty()) reject("/messages", "expected at least one message, found none");
  if (request.messages.front().role != "user") {
    reject("/messages/0",
           "the conversation must start with a user message; found role '" + request.messages.front().role + "'");
  }
  std::set<std::string> tool_names;
  for (std::size_t t = 0; t < request.tools.size(); ++t) {
    if (!tool_names.insert(request.tools[t].name).second) {
      reject("/tools/" + std::to_string(t), "tool name '" + request.tools[t].name + "' is defined twice");
    }
    if (!request.tools[t].parameters.is_object()) {
      reject("/tools/" + std::to_string(t) + "/parameters", "expected a JSON Schema object");
    }
  }
  if (request.choice) {
    const auto& c = *request.choice;
    if (c.mode != "auto" && c.mode != "any" && c.mode != "none" && c.mode != "tool") {
      reject("/tool_choice/mode", "expected auto, any, none or tool; found '" + c.mode + "'");
    }
    if (c.mode == "tool" && tool_names.count(c.name) == 0) {
      reject("/tool_choice/name", "tool_choice names tool '" + c.name + "', which is not among the request's tools");
    }
    if ((c.mode == "any" || c.mode == "tool") && request.tools.empty()) {
      reject("/tool_choice", "tool_choice '" + c.mode + "' requires tools, and the request defines none");
    }
  }

  std::set<std::string> call_ids;
  std::set<std::string> open_calls;  // tool_calls of the previous assistant message not yet answered
  std::size_t open_from = 0;         // index of that assistant message
  for (std::size_t m = 0; m < request.messages.size(); ++m) {
    const auto& message = request.messages[m];
    if (message.content.empty()) reject("/messages/" + std::to_string(m) + "/content", "expected at least one block");
    const bool assistant = message.role == "assistant";
    std::set<std::string> answered;
    std::set<std::string> calls_here;
    for (std::size_t b = 0; b < message.content.size(); ++b) {
      const auto& block = message.content[b];
      if (block.type == content_block::kind::tool_call) {
        if (!assistant) reject(at(m, b), "a tool_call block may appear only in an assistant message");
        if (block.id.empty() || block.name.empty()) reject(at(m, b), "a tool_call needs a non-empty id and name");
        if (!call_ids.insert(block.id).second) reject(at(m, b), "tool_call id '" + block.id + "' is used twice");
        calls_here.insert(block.id);
      } else if (block.type == content_block::kind::tool_result) {
        if (assistant) reject(at(m, b), "a tool_result block may appear only in a user message");
        if (open_calls.count(block.tool_call_id) == 0) {
          reject(at(m, b), "tool_result for tool_call_id '" + block.tool_call_id +
                               "' answers no tool_call of the assistant message just before it" +
                               (m > 0 ? " (/messages/" + std::to_string(m - 1) + ")" : std::string()));
        }
        if (!answered.insert(block.tool_call_id).second) {
          reject(at(m, b), "tool_call_id '" + block.tool_call_id + "' is answered twice");
        }
      }
    }
    if (!assistant && !open_calls.empty()) {
      for (const auto& id : open_calls) {
        if (answered.count(id) == 0) {
          reject("/messages/" + std::to_string(m),
                 "the tool_call '" + id + "' of /messages/" + std::to_string(open_from) +
                     " has no tool_result here; answer every tool call (with is_error when it could not run)");
        }
      }
    }
    if (assistant) {
      open_calls = calls_here;
      open_from = m;
    } else {
      open_calls.clear();
    }
  }
}

}  // namespace r2r::plugins::llm
