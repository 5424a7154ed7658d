// SPDX-License-Identifier: MIT
// The only translation unit that includes valijson.
#include <r2r/core/json_schema.hpp>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <set>

namespace r2r::core {

struct json_schema::impl {
  nlohmann::json document;
  valijson::Schema compiled;
};

json_schema::json_schema(std::shared_ptr<const impl> impl) : impl_(std::move(impl)) {}

const nlohmann::json& json_schema::document() const noexcept {
  return impl_->document;
}

result<json_schema> json_schema::compile(const nlohmann::json& document, std::string_view name) {
  if (!document.is_object() && !document.is_boolean()) {
    return fail(phase::schema,
                "schema '" + std::string(name) + "' must be a JSON object, found " + describe_value(document));
  }
  auto holder = std::make_shared<impl>();
  holder->document = document;
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(holder->document);
    parser.populateSchema(adapter, holder->compiled);
  } catch (const std::exception& e) {
    return fail(phase::schema, "schema '" + std::string(name) + "' is not a valid JSON Schema (draft 7): " + e.what());
  }
  return json_schema(std::move(holder));
}

result<json_schema> json_schema::compile_text(std::string_view text, std::string_view name) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return fail(phase::schema, "schema '" + std::string(name) + "' is not valid JSON: " + e.what());
  }
  return compile(document, name);
}

namespace {

std::string escape_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// valijson context: "<root>", then "[name]" per property or "[3]" per array index.
std::vector<std::string> tokens_of(const std::vector<std::string>& context) {
  std::vector<std::string> tokens;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
      tokens.push_back(part.substr(1, part.size() - 2));
    } else {
      tokens.push_back(part);
    }
  }
  return tokens;
}

const nlohmann::json* resolve_ref(const nlohmann::json& root, const nlohmann::json* node) {
  for (int hops = 0; node != nullptr && node->is_object() && node->contains("$ref") && hops < 16; ++hops) {
    const auto& ref = (*node)["$ref"];
    if (!ref.is_string() || ref.get<std::string>().rfind("#", 0) != 0) return node;
    try {
      node = &root.at(nlohmann::json::json_pointer(ref.get<std::string>().substr(1)));
    } catch (const std::exception&) {
      return nullptr;
    }
  }
  return node;
}

// The subschema that applies at the instance location given by tokens (best effort: properties,
// patternless additionalProperties, items and local $ref).
const nlohmann::json* schema_at(const nlohmann::json& root, const std::vector<std::string>& tokens) {
  const nlohmann::json* node = resolve_ref(root, &root);
  for (const auto& token : tokens) {
    if (node == nullptr || !node->is_object()) return nullptr;
    if (auto p = node->find("properties"); p != node->end() && p->contains(token)) {
      node = &(*p)[token];
    } else if (auto a = node->find("additionalProperties"); a != node->end() && a->is_object()) {
      node = &*a;
    } else if (auto i = node->find("items"); i != node->end() && i->is_object()) {
      node = &*i;
    } else {
      return nullptr;
    }
    node = resolve_ref(root, node);
  }
  return node;
}

const nlohmann::json* value_at(const nlohmann::json& instance, const std::vector<std::string>& tokens) {
  const nlohmann::json* node = &instance;
  for (const auto& token : tokens) {
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      try {
        const std::size_t index = std::stoul(token);
        if (index >= node->size()) return nullptr;
        node = &(*node)[index];
      } catch (const std::exception&) {
        return nullptr;
      }
    } else {
      return nullptr;
    }
  }
  return node;
}

std::string summarize_schema(const nlohmann::json& schema) {
  if (!schema.is_object()) return schema.dump();
  nlohmann::json shown = nlohmann::json::object();
  for (const char* key : {"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                          "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "required"}) {
    if (auto it = schema.find(key); it != schema.end()) shown[key] = *it;
  }
  if (auto it = schema.find("additionalProperties"); it != schema.end() && it->is_boolean() && !it->get<bool>()) {
    nlohmann::json names = nlohmann::json::array();
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) {
      for (auto prop = p->begin(); prop != p->end(); ++prop) names.push_back(prop.key());
    }
    shown["allowed properties"] = names;
  }
  std::string text = shown.empty() ? schema.dump() : shown.dump();
  if (text.size() > 200) text = text.substr(0, 197) + "...";
  return text;
}

}  // namespace

std::vector<schema_violation> json_schema::validate(const nlohmann::json& instance) const {
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(instance);
  validator.validate(impl_->compiled, adapter, &results);

  struct raw {
    std::vector<std::string> tokens;
    std::string description;
  };
  std::vector<raw> errors;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) errors.push_back({tokens_of(e.context), e.description});

  // valijson reports a leaf failure and then one summary line per enclosing object ("Failed to
  // validate against schema associated with property name ..."). Keep the summaries only when
  // nothing more specific was reported at or below their location.
  auto is_summary = [](const std::string& d) {
    for (const char* prefix :
         {"Failed to validate against schema associated with", "Failed to validate item #",
          "Failed to validate against additional properties schema", "Failed to validate against child schema #",
          "Failed to validate against a conditional schema"}) {
      if (d.rfind(prefix, 0) == 0) return true;
    }
    return false;
  };
  std::vector<schema_violation> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& err : errors) {
    if (is_summary(err.description)) {
      const bool covered = std::any_of(errors.begin(), errors.end(), [&](const raw& other) {
        return !is_summary(other.description) && other.tokens.size() >= err.tokens.size() &&
               std::equal(err.tokens.begin(), err.tokens.end(), other.tokens.begin());
      });
      if (covered) continue;
    }
    schema_violation v;
    for (const auto& token : err.tokens) v.pointer += "/" + escape_token(token);
    v.message = err.description;
    if (const auto* sub = schema_at(impl_->document, err.tokens)) v.expected = summarize_schema(*sub);
    if (const auto* value = value_at(instance, err.tokens)) v.found = describe_value(*value);
    if (seen.insert({v.pointer, v.message}).second) out.push_back(std::move(v));
  }
  return out;
}

std::string describe_value(const nlohmann::json& value, std::size_t max_chars) {
  std::string text = value.dump();
  if (text.size() > max_chars) text = text.substr(0, max_chars - 3) + "...";
  switch (value.type()) {
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "integer " + text;
    case nlohmann::json::value_t::number_float:
      return "number " + text;
    case nlohmann::json::value_t::null:
      return "null";
    default:
      return std::string(value.type_name()) + " " + text;
  }
}

std::string format_violation(const schema_violation& v, std::string_view pointer_prefix) {
  std::string pointer = std::string(pointer_prefix) + v.pointer;
  if (pointer.empty()) pointer = "/";
  std::string out = pointer + ": " + v.message;
  if (!v.expected.empty()) out += "; expected " + v.expected;
  if (!v.found.empty()) out += "; found " + v.found;
  return out;
}

}  // namespace r2r::core
