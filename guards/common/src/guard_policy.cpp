// SPDX-License-Identifier: MIT
#include <r2r/guards/guard_policy.hpp>

#include <r2r/sdk/error.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace r2r::plugins::guard::policy {

namespace {

std::string shown(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

/// Validation with the message shape of core's schema checker: where, expected, found.
class checker {
 public:
  explicit checker(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& expected, const nlohmann::json& found) const {
    const std::string where = origin_ == "inline" ? "config /policy" + pointer
                              : origin_ == "built-in"
                                  ? "built-in policy " + (pointer.empty() ? "/" : pointer)
                                  : "policy file " + origin_ + " " + (pointer.empty() ? "/" : pointer);
    throw sdk::invalid_argument(where + ": expected " + expected + "; found " + shown(found) +
                                "; fix the policy (schema: configs/schema/guard_policy.schema.json)");
  }

  outcome outcome_at(const nlohmann::json& v, const std::string& pointer) const {
    if (v == "deny") return outcome::deny;
    if (v == "record") return outcome::record;
    fail(pointer, "\"deny\" or \"record\"", v);
  }

  rule rule_at(const nlohmann::json& v, const std::string& pointer) const {
    if (!v.is_object()) fail(pointer, "an object {level, default, mode0..mode2, require_reason, note}", v);
    static const std::set<std::string> keys{"level", "default", "mode0", "mode1", "mode2", "require_reason", "note"};
    for (const auto& [k, value] : v.items())
      if (!keys.count(k)) fail(pointer + "/" + k, "no such key (allowed: " + list(keys) + ")", value);
    rule r;
    static const std::regex level(R"(D[0-5])");
    if (!v.contains("level")) fail(pointer + "/level", "a level \"D0\"..\"D5\" (required)", nullptr);
    const auto& l = v.at("level");
    if (!l.is_string() || !std::regex_match(l.get<std::string>(), level))
      fail(pointer + "/level", "a level \"D0\"..\"D5\"", l);
    r.level = l.get<std::string>();
    if (!v.contains("default")) fail(pointer + "/default", "\"deny\" or \"record\" (required)", nullptr);
    r.fallback = outcome_at(v.at("default"), pointer + "/default");
    for (int m = 0; m <= 2; ++m) {
      const std::string key = "mode" + std::to_string(m);
      if (v.contains(key)) r.modes[m] = outcome_at(v.at(key), pointer + "/" + key);
    }
    if (v.contains("require_reason")) {
      if (!v.at("require_reason").is_boolean()) fail(pointer + "/require_reason", "true or false", v["require_reason"]);
      r.require_reason = v.at("require_reason").get<bool>();
    }
    if (v.contains("note")) {
      if (!v.at("note").is_string()) fail(pointer + "/note", "a string", v["note"]);
      r.note = v.at("note").get<std::string>();
    }
    return r;
  }

  std::vector<switch_rule> switches_at(const nlohmann::json& list, const std::string& pointer) const {
    if (!list.is_array()) fail(pointer, "an array of {kind, name, off, component}", list);
    std::vector<switch_rule> out;
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string at = pointer + "/" + std::to_string(k);
      const auto& v = list[k];
      static const std::set<std::string> keys{"kind", "name", "off", "component"};
      if (!v.is_object()) fail(at, "an object {kind, name, off, component}", v);
      for (const auto& [key, value] : v.items()) {
        if (!keys.count(key)) fail(at + "/" + key, "no such key (allowed: " + list_of(keys) + ")", value);
        if (!value.is_string() || value.get<std::string>().empty()) fail(at + "/" + key, "a non-empty string", value);
      }
      for (const char* key : {"kind", "name", "off", "component"})
        if (!v.contains(key)) fail(at + "/" + key, "a non-empty string (required)", nullptr);
      switch_rule r{v.at("kind").get<std::string>(), v.at("name").get<std::string>(), v.at("off").get<std::string>(),
                    v.at("component").get<std::string>()};
      if (r.kind != "environment" && r.kind != "config")
        fail(at + "/kind", "\"environment\" or \"config\"", v.at("kind"));
      for (const auto* field : {&r.name, &r.off}) {
        if (field == &r.name && r.kind == "environment") continue;
        try {
          std::regex(*field, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
          fail(at + (field == &r.name ? "/name" : "/off"), std::string("an ECMAScript regex (") + e.what() + ")",
               *field);
        }
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  static std::string list_of(const std::set<std::string>& keys) { return list(keys); }

  static std::string list(const std::set<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
    return out;
  }

 private:
  std::string origin_;
};

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

}  // namespace

outcome rule::in_mode(int mode) const {
  const auto it = modes.find(mode);
  return it != modes.end() ? it->second : fallback;
}

const rule* guard_policy::find(const std::string& component) const {
  if (const auto it = components.find(component); it != components.end()) return &it->second;
  if (const auto it = components.find("*"); it != components.end()) return &it->second;
  return nullptr;
}

guard_policy parse(const nlohmann::json& doc, std::string_view guard_id, std::string origin) {
  const checker check(origin);
  if (!doc.is_object()) check.fail("", "a policy object {guard, components}", doc);
  static const std::set<std::string> keys{"$schema",    "guard",    "description",
                                          "components", "switches", "forbidden_environment"};
  for (const auto& [k, value] : doc.items())
    if (!keys.count(k))
      check.fail("/" + escape_pointer(k), "no such key (allowed: " + checker::list(keys) + ")", value);
  guard_policy p;
  p.origin = std::move(origin);
  if (!doc.contains("guard"))
    check.fail("/guard", "the guard id \"" + std::string(guard_id) + "\" (required)", nullptr);
  if (!doc.at("guard").is_string() || doc.at("guard").get<std::string>() != guard_id)
    check.fail("/guard", "\"" + std::string(guard_id) + "\" (this policy is loaded by that guard)", doc.at("guard"));
  p.guard = guard_id;
  if (doc.contains("description") && !doc.at("description").is_string())
    check.fail("/description", "a string", doc.at("description"));
  if (!doc.contains("components")) check.fail("/components", "an object of component rules (required)", nullptr);
  const auto& components = doc.at("components");
  if (!components.is_object()) check.fail("/components", "an object of component rules", components);
  static const std::regex name(R"(\*|[a-z0-9][a-z0-9_.-]*)");
  for (const auto& [component, value] : components.items()) {
    const std::string pointer = "/components/" + escape_pointer(component);
    if (!std::regex_match(component, name))
      check.fail(pointer, "a component name matching [a-z0-9][a-z0-9_.-]* or \"*\"", component);
    p.components[component] = check.rule_at(value, pointer);
  }
  if (doc.contains("switches")) p.switches = check.switches_at(doc.at("switches"), "/switches");
  if (doc.contains("forbidden_environment")) {
    const auto& list = doc.at("forbidden_environment");
    if (!list.is_array()) check.fail("/forbidden_environment", "an array of {variable, why}", list);
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string pointer = "/forbidden_environment/" + std::to_string(k);
      const auto& v = list[k];
      if (!v.is_object() || !v.contains("variable") || !v.at("variable").is_string() || !v.contains("why") ||
          !v.at("why").is_string())
        check.fail(pointer, "an object {variable: string, why: string}", v);
      p.forbidden_environment.push_back({v.at("variable").get<std::string>(), v.at("why").get<std::string>()});
    }
  }
  return p;
}

guard_policy select(const nlohmann::json& config_value, std::string_view builtin, std::string_view guard_id) {
  if (config_value.is_null()) return parse(nlohmann::json::parse(builtin), guard_id, "built-in");
  if (config_value.is_object()) return parse(config_value, guard_id, "inline");
  if (!config_value.is_string() || config_value.get<std::string>().empty())
    throw sdk::invalid_argument("config /policy: expected a policy object or the path of a policy file; found " +
                                shown(config_value));
  const std::string path = config_value.get<std::string>();
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw sdk::invalid_argument("config /policy: cannot read the policy file '" + path +
                                "' (a path is absolute or relative to the working directory); give an existing file, "
                                "inline the policy as an object, or leave `policy` out for the built-in one");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded())
    throw sdk::invalid_argument("config /policy: the policy file '" + path + "' is not valid JSON; fix its syntax");
  return parse(doc, guard_id, path);
}

sdk::guard::decision decide(const guard_policy& p, const finding& f, int mode, const std::string& reason) {
  const rule* r = p.find(f.component);
  const std::string mode_key = "mode" + std::to_string(mode);
  if (r == nullptr || r->in_mode(mode) == outcome::deny) {
    return sdk::guard::decision::deny(
        f.what + " (" + f.component + (r ? ", " + r->level : std::string()) + "); the " + p.origin + " policy of " +
            p.guard + " denies it in mode " + std::to_string(mode),
        "keep the original behaviour and fix the failure it shows; or an operator accepts this degradation on the "
        "ledger by setting components." +
            f.component + "." + mode_key + " to \"record\" in the policy (configs/guards/*.json, config key `policy`)");
  }
  if (r->require_reason && reason.find_first_not_of(" \t\r\n") == std::string::npos) {
    return sdk::guard::decision::deny(
        f.what + " (" + f.component + ", " + r->level + ") without a justification",
        "give the action a non-empty `reason` explaining why this change is needed on ROCm; it is then allowed and "
        "recorded on the ledger at " +
            r->level);
  }
  auto d = sdk::guard::decision::allow();
  std::string note = f.what;
  if (!reason.empty()) note += "; reason: " + reason;
  if (!r->note.empty()) note += "; policy: " + r->note;
  d.ledger.push_back({f.subject.empty() ? f.component : f.subject, r->level, note});
  return d;
}

}  // namespace r2r::plugins::guard::policy
