// SPDX-License-Identifier: MIT
// The failure knowledge base: configs/knowledge/errors.json (format: configs/schema/errors.schema.json,
// docs/policies.md) plus the package tables it derives from (configs/knowledge/import_packages.json,
// cuda_packages.json). Regexes are compiled once, when the knowledge base is built; classify() maps
// an action's output to failure classes with their captures; fixes() fills a class's fix templates.
// THREADING: immutable after construction; const members are safe to call from any thread.
#pragma once

#include "templates.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::policy {

/// One class that matched an output.
struct match {
  std::string class_id;
  std::string title;
  std::string severity;   // error | warning | info
  std::string signature;  // the class's signature template, filled
  std::string advice;     // filled with what is known (context names such as {arch} stay until fixes())
  variables vars;         // captures, collected, constant and derived values
  std::size_t line = 0;   // 1-based line of the first matching line
  std::string excerpt;    // that line, at most 300 bytes
};
void to_json(nlohmann::json& j, const match& m);
void from_json(const nlohmann::json& j, match& m);

/// A fix of a class, its templates filled.
struct fix {
  std::string id;
  std::string description;
  nlohmann::json action;
  bool retries_step = false;
  std::string degradation;  // "" or D1..D5
  std::string activates;    // a workspace venv the fix creates; later actions run in it (playbook)
};

class knowledge_base {
 public:
  /// The tables embedded at build time. Throws std::runtime_error only on a build bug.
  static const knowledge_base& builtin();
  /// errors.json read from `path` (the package tables stay the embedded ones). Throws
  /// std::invalid_argument naming the file, the JSON pointer and what to do.
  static knowledge_base from_file(const std::string& path);
  /// Builds from parsed documents; `origin` names them in errors. Throws std::invalid_argument.
  static knowledge_base parse(const nlohmann::json& errors, const nlohmann::json& imports,
                              const nlohmann::json& cuda_packages, const std::string& origin);

  /// Every class that matches `text`, in the file's priority order. When `succeeded` is true only
  /// classes marked on_success are tried (installed NVIDIA wheels, warnings).
  std::vector<match> classify(std::string_view text, bool succeeded = false) const;

  /// The fixes of `m`'s class that apply, in order: `when` holds and no template names an empty
  /// variable. `context` adds arch, command, action_type, kernel_build_command.
  std::vector<fix> fixes(const match& m, const variables& context) const;

  /// `m.advice` with the context filled in.
  std::string advice(const match& m, const variables& context) const;

  /// Titles and advice of every class, one line each (for prompts).
  std::vector<std::string> summaries() const;

  std::size_t size() const noexcept { return classes_.size(); }
  bool has_class(std::string_view id) const;

  /// The distribution of a Python import ("cv2" -> "opencv-python"), PEP 503-normalised.
  std::string package_of_import(std::string_view module) const;

  struct package_rule {
    std::string action;  // keep_image | never | replace | rocm_build | no_rocm
    std::string with;
    std::string install;  // may hold {arch}
    std::string note;
  };
  /// The ROCm rule of a normalised package name (exact, then the longest prefix), or null.
  const package_rule* rule_for(std::string_view normalised) const;

 private:
  struct fix_template {
    std::string id;
    std::string description;
    std::map<std::string, std::vector<std::string>> when;
    nlohmann::json action;
    bool retries_step = false;
    std::string degradation;
    std::string activates;
  };
  struct derivation {
    std::string name;
    std::string function;
    std::string from;
  };
  struct failure_class {
    std::string id;
    std::string title;
    std::string severity;
    std::vector<std::regex> patterns;
    std::vector<std::string> needles;  // per pattern: a literal every match contains ("" = none known)
    bool icase = false;
    std::vector<std::string> captures;
    std::string collect_name;
    std::shared_ptr<std::regex> collect;
    variables constants;
    std::vector<derivation> derive;
    std::string signature;
    bool on_success = false;
    std::string advice;
    std::vector<fix_template> fixes;
  };

  void derive(const failure_class& c, variables& vars) const;

  std::vector<failure_class> classes_;
  std::map<std::string, std::string> imports_;
  std::map<std::string, package_rule> packages_;
  std::map<std::string, package_rule> prefixes_;
};

}  // namespace r2r::plugins::policy
