// SPDX-License-Identifier: MIT
#include "tools.hpp"

#include <algorithm>

namespace r2r::plugins::policy {
namespace {

using nlohmann::json;

json text_param(const std::string& description) {
  return json{{"type", "string"}, {"minLength", 1}, {"description", description}};
}

sdk::llm::tool make(const std::string& name, const std::string& description, json properties,
                    std::vector<std::string> required) {
  sdk::llm::tool t;
  t.name = name;
  t.description = description;
  t.parameters = json{{"type", "object"},
                      {"properties", std::move(properties)},
                      {"required", std::move(required)},
                      {"additionalProperties", false}};
  return t;
}

std::vector<sdk::llm::tool> build() {
  return {
      make("run", "Run a shell command in the sandbox (workspace is the working directory).",
           {{"command", text_param("the shell command")}}, {"command"}),
      make("read_file", "Read a file of the workspace.", {{"path", text_param("path inside the workspace")}}, {"path"}),
      make("write_file", "Write a whole file of the workspace.",
           {{"path", text_param("path inside the workspace")},
            {"content", json{{"type", "string"}, {"description", "the new content"}}}},
           {"path", "content"}),
      make("apply_patch", "Apply a unified diff to the workspace.", {{"patch", text_param("a unified diff")}},
           {"patch"}),
      make("install", "Install packages with a package manager.",
           {{"manager", json{{"type", "string"}, {"enum", {"pip", "apt", "conda", "uv"}}}},
            {"packages", json{{"type", "array"}, {"minItems", 1}, {"items", text_param("a package or requirement")}}}},
           {"manager", "packages"}),
      make("switch_image", "Restart the sandbox from another ROCm base image.",
           {{"image", text_param("image reference")}, {"reason", text_param("why")}}, {"image", "reason"}),
      make("build_kernel", "Build GPU kernels or extensions (a shell command).",
           {{"command", text_param("the build command")}}, {"command"}),
      make("run_workload", "Run the workload (the plan's official command, unchanged in scale).",
           {{"command", text_param("the workload command")}}, {"command"}),
      make("checkpoint", "Save the sandbox state under a label.", {{"label", text_param("checkpoint label")}},
           {"label"}),
      make("rollback", "Restore a checkpoint.", {{"to", text_param("checkpoint label")}}, {"to"}),
      make("claim_success", "Claim success after the workload ran to completion; only the verifier can confirm it.",
           {{"reason", text_param("what ran and how it ended")}}, {"reason"}),
      make("give_up", "Stop: the port cannot proceed.", {{"reason", text_param("the precise reason")}}, {"reason"}),
  };
}

}  // namespace

const std::vector<sdk::llm::tool>& action_tools() {
  static const std::vector<sdk::llm::tool> tools = build();
  return tools;
}

std::string check_arguments(const std::string& tool, const nlohmann::json& arguments) {
  const auto& tools = action_tools();
  const auto t = std::find_if(tools.begin(), tools.end(), [&](const auto& x) { return x.name == tool; });
  if (t == tools.end()) {
    std::string names;
    for (const auto& x : tools) names += (names.empty() ? "" : ", ") + x.name;
    return "unknown tool '" + tool + "'; the tools are " + names;
  }
  if (!arguments.is_object()) return "the arguments of " + tool + " must be a JSON object";
  const auto& props = t->parameters.at("properties");
  for (const auto& [key, value] : arguments.items()) {
    if (!props.contains(key)) return tool + " has no argument '" + key + "'";
  }
  for (const auto& name : t->parameters.at("required")) {
    if (!arguments.contains(name.get<std::string>()))
      return tool + " needs the argument '" + name.get<std::string>() + "'";
  }
  for (const auto& [key, value] : arguments.items()) {
    const auto& p = props.at(key);
    const std::string type = p.at("type").get<std::string>();
    if (type == "string") {
      if (!value.is_string()) return tool + "." + key + " must be a string";
      if (p.value("minLength", 0) > 0 && value.get<std::string>().empty())
        return tool + "." + key + " must not be empty";
      if (p.contains("enum")) {
        const auto& allowed = p.at("enum");
        if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
          return tool + "." + key + " must be one of " + allowed.dump() + ", found " + value.dump();
        }
      }
    } else if (type == "array") {
      if (!value.is_array() || value.empty()) return tool + "." + key + " must be a non-empty array of strings";
      for (const auto& item : value) {
        if (!item.is_string() || item.get<std::string>().empty()) {
          return tool + "." + key + " must hold non-empty strings, found " + item.dump();
        }
      }
    }
  }
  return {};
}

parsed_reply parse_reply(const sdk::llm::complete_response& reply) {
  std::vector<const sdk::llm::content_block*> calls;
  for (const auto& b : reply.content)
    if (b.type == sdk::llm::content_block::kind::tool_call) calls.push_back(&b);
  if (calls.empty()) {
    return {std::nullopt, "the reply has no tool call" +
                              (reply.stop_reason == "max_tokens" ? std::string(" (it was cut at max_tokens)") : "")};
  }
  if (calls.size() > 1) {
    return {std::nullopt,
            "the reply has " + std::to_string(calls.size()) + " tool calls; exactly one is allowed per turn"};
  }
  const auto& call = *calls.front();
  if (std::string problem = check_arguments(call.name, call.arguments); !problem.empty())
    return {std::nullopt, problem};
  nlohmann::json action = call.arguments;
  action["type"] = call.name;
  return {std::move(action), {}};
}

}  // namespace r2r::plugins::policy
