// SPDX-License-Identifier: MIT
// Scale-bearing values of a repository file (epochs, steps, batch size, sequence length, dataset
// subset...): argparse defaults (and an option's default configuration file path), parser.set_defaults(...), `args.x =
// ...` overrides and NAME = number constants in Python; `key: value` in YAML, `"key": value` in JSON, `key = value` in
// TOML/INI/CFG. Shared here so the planner (core, which records the values at the pinned commit) and the Mode 1
// verifier (a plugin, which reads the final workspace) apply the same rules. Header-only, no I/O.
#pragma once

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::sdk {

struct scale_value {
  std::string key;    // normalised: lower case, '-' -> '_'
  std::string value;  // the text assigned, quotes and surrounding spaces removed
  int line = 0;       // 1-based
  std::string form;   // argparse_default, set_defaults, override, constant, config_key, config_path
};

inline std::string normalise_scale_key(std::string_view k) {
  std::string out;
  for (char c : k) out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool is_scale_key(std::string_view key) {
  static const char* const keys[] = {"epochs",
                                     "num_epochs",
                                     "n_epochs",
                                     "max_epochs",
                                     "epoch",
                                     "total_epochs",
                                     "train_epochs",
                                     "num_train_epochs",
                                     "steps",
                                     "max_steps",
                                     "num_steps",
                                     "total_steps",
                                     "train_steps",
                                     "training_steps",
                                     "iters",
                                     "iterations",
                                     "max_iters",
                                     "max_iter",
                                     "num_iters",
                                     "num_iterations",
                                     "train_iters",
                                     "batch_size",
                                     "train_batch_size",
                                     "per_device_train_batch_size",
                                     "global_batch_size",
                                     "micro_batch_size",
                                     "bs",
                                     "seq_len",
                                     "seq_length",
                                     "max_seq_len",
                                     "max_seq_length",
                                     "block_size",
                                     "context_length",
                                     "max_length",
                                     "num_samples",
                                     "max_samples",
                                     "n_samples",
                                     "num_train_samples",
                                     "max_train_samples",
                                     "subset",
                                     "subset_size",
                                     "train_size",
                                     "dataset_size",
                                     "data_fraction",
                                     "num_layers",
                                     "n_layer",
                                     "n_layers",
                                     "hidden_size",
                                     "d_model",
                                     "n_embd",
                                     "image_size",
                                     "img_size",
                                     "resolution",
                                     "eval_iters"};
  const std::string k = normalise_scale_key(key);
  return std::any_of(std::begin(keys), std::end(keys), [&](const char* s) { return k == s; });
}

namespace scale_detail {

inline std::string clean(std::string v) {
  const auto b = v.find_first_not_of(" \t\r\n");
  const auto e = v.find_last_not_of(" \t\r\n,");
  v = b == std::string::npos ? "" : v.substr(b, e - b + 1);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return v;
}

inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// The text of the call that opens at `open` (the '(' ) to its matching ')', across lines.
inline std::string call_text(const std::string& text, std::size_t open) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '(') ++depth;
    if (c == ')' && --depth == 0) return text.substr(open + 1, i - open - 1);
  }
  return text.substr(open + 1);
}

/// Top-level `name=value` keyword arguments of a call's text.
inline std::vector<std::pair<std::string, std::string>> keywords(const std::string& args) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const char c = args[i];
    if (quote) {
      cur += c;
      if (c == '\\' && i + 1 < args.size())
        cur += args[++i];
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  static const std::regex kw(R"(^\s*([A-Za-z_]\w*)\s*=(?!=)\s*([\s\S]*?)\s*$)");
  for (const auto& p : parts) {
    std::smatch m;
    if (std::regex_match(p, m, kw))
      out.emplace_back(m[1].str(), clean(m[2].str()));
    else
      out.emplace_back("", clean(p));
  }
  return out;
}

inline int line_of(const std::string& text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

}  // namespace scale_detail

/// A path to a configuration file (.yaml, .yml, .json, .toml, .ini, .cfg).
inline bool is_config_path(std::string_view v) {
  using scale_detail::ends_with;
  return v.find_first_of(" \n\t") == std::string_view::npos &&
         (ends_with(v, ".yaml") || ends_with(v, ".yml") || ends_with(v, ".json") || ends_with(v, ".toml") ||
          ends_with(v, ".ini") || ends_with(v, ".cfg"));
}

/// Every scale-bearing assignment in `content`, read by the rules of the file's type (from `path`'s
/// extension: .py, .yaml/.yml, .json, .toml/.ini/.cfg). Other files give nothing.
inline std::vector<scale_value> scan_scale_values(std::string_view path, std::string_view content) {
  using namespace scale_detail;
  std::vector<scale_value> out;
  const std::string text(content);
  std::string p(path);
  for (auto& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ends_with(p, ".py")) {
    for (std::string_view fn : {"add_argument(", "set_defaults("}) {
      for (auto at = text.find(fn); at != std::string::npos; at = text.find(fn, at + 1)) {
        if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) continue;
        const auto kws = keywords(call_text(text, at + fn.size() - 1));
        const int line = line_of(text, at);
        if (fn == "set_defaults(") {
          for (const auto& [k, v] : kws)
            if (!k.empty() && is_scale_key(k)) out.push_back({normalise_scale_key(k), v, line, "set_defaults"});
          continue;
        }
        std::string key, def;
        bool has_default = false;
        for (const auto& [k, v] : kws) {
          if (k.empty() && v.starts_with("--") && key.empty()) key = v.substr(2);
          if (k.empty() && v.starts_with("-") && !v.starts_with("--") && key.empty() && v.size() > 2) key = v.substr(1);
          if (k == "dest") key = v;
          if (k == "default") def = v, has_default = true;
        }
        if (has_default && !key.empty() && is_scale_key(key))
          out.push_back({normalise_scale_key(key), def, line, "argparse_default"});
        else if (has_default && !key.empty() && is_config_path(def))
          out.push_back({normalise_scale_key(key), def, line, "config_path"});  // the config it reads by default
      }
    }
    static const std::regex assign(
        R"((?:^|\n)[ \t]*(?:(args|cfg|config|opt|opts|hparams|self\.args)\.)?([A-Za-z_]\w*)[ \t]*(?::[ \t]*[A-Za-z_][\w\[\], .]*)?[ \t]*=(?!=)[ \t]*([^\n#]+))");
    for (std::sregex_iterator it(text.begin(), text.end(), assign), end; it != end; ++it) {
      const std::string key = (*it)[2].str();
      if (!is_scale_key(key)) continue;
      const std::string value = clean((*it)[3].str());
      const bool attr = (*it)[1].matched;
      static const std::regex literal(R"(^[-+]?[\d_.]+(?:[eE][-+]?\d+)?$)");
      if (!attr && !std::regex_match(value, literal)) continue;  // x = some_call(): not a constant
      out.push_back({normalise_scale_key(key), value, line_of(text, static_cast<std::size_t>(it->position(2))),
                     attr ? "override" : "constant"});
    }
  } else if (ends_with(p, ".yaml") || ends_with(p, ".yml") || ends_with(p, ".json") || ends_with(p, ".toml") ||
             ends_with(p, ".ini") || ends_with(p, ".cfg")) {
    const bool json = ends_with(p, ".json");
    const bool yaml = ends_with(p, ".yaml") || ends_with(p, ".yml");
    static const std::regex yaml_re(R"(^\s*(?:-\s*)?([A-Za-z_][\w.-]*)\s*:\s*([^#\s][^#]*?)\s*(?:#.*)?$)");
    static const std::regex json_re(
        R"re("([A-Za-z_][\w.-]*)"\s*:\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?|"[^"]*"|true|false|null))re");
    static const std::regex ini_re(R"(^\s*([A-Za-z_][\w.-]*)\s*=\s*(.+?)\s*(?:[#;].*)?$)");
    int ln = 0;
    std::size_t b = 0;
    while (b <= text.size()) {
      auto e = text.find('\n', b);
      if (e == std::string::npos) e = text.size();
      const std::string line = text.substr(b, e - b);
      ++ln;
      const std::regex& re = json ? json_re : yaml ? yaml_re : ini_re;
      for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it) {
        std::string key = (*it)[1].str();
        if (const auto dot = key.rfind('.'); dot != std::string::npos) key = key.substr(dot + 1);
        if (is_scale_key(key)) out.push_back({normalise_scale_key(key), clean((*it)[2].str()), ln, "config_key"});
        if (!json) break;
      }
      b = e + 1;
    }
  }
  return out;
}

}  // namespace r2r::sdk
