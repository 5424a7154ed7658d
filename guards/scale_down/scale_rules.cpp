// SPDX-License-Identifier: MIT
#include "scale_rules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <set>

namespace r2r::plugins::guard::scale {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool truthy(const std::string& v) {
  static const std::set<std::string> off{"false", "0", "no", "none", "off", "null", ""};
  return !off.count(lower(v));
}

bool is_script(const std::string& word) {
  static const std::regex script(R"(\.(py|sh|bash)$)", std::regex::icase);
  return std::regex_search(word, script);
}

std::string strip_dot_slash(std::string p) {
  while (p.rfind("./", 0) == 0) p = p.substr(2);
  return p;
}

/// The size words and parameter counts of a model name, and the rest of it (its family).
struct model_name {
  std::optional<double> params;
  std::optional<double> word_rank;
  std::string family;
};

model_name read_model(const std::string& name) {
  static const std::map<std::string, double> words{{"nano", -1}, {"micro", -1}, {"tiny", 0},   {"mini", 0.5},
                                                   {"small", 1}, {"base", 2},   {"medium", 3}, {"large", 4},
                                                   {"xl", 5},    {"xxl", 6},    {"xxxl", 7}};
  static const std::regex count(R"(^(\d+(\.\d+)?)([bm])$)");
  model_name m;
  std::string token;
  const std::string s = lower(name) + "-";
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.') {
      token += c;
      continue;
    }
    if (token.empty()) continue;
    std::smatch cm;
    if (const auto w = words.find(token); w != words.end()) {
      m.word_rank = w->second;
    } else if (std::regex_match(token, cm, count)) {
      m.params = std::stod(cm[1].str()) * (cm[3].str() == "b" ? 1e9 : 1e6);
    } else {
      m.family += token + "-";
    }
    token.clear();
  }
  return m;
}

}  // namespace

std::string normalise_key(const std::string& key) {
  std::string k = key;
  k.erase(0, k.find_first_not_of("-+~"));
  if (const auto dot = k.rfind('.'); dot != std::string::npos) k = k.substr(dot + 1);
  k = lower(k);
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

std::string family_of(const std::string& key) {
  const std::string k = normalise_key(key);
  static const std::set<std::string> debug{"debug",      "smoke_test", "smoke",     "dry_run",        "quick",
                                           "quick_test", "toy",        "tiny",      "mock_data",      "use_mock_data",
                                           "fake_data",  "dummy_data", "synthetic", "synthetic_data", "test_run"};
  static const std::set<std::string> dataset{"subset",
                                             "limit",
                                             "max_samples",
                                             "max_train_samples",
                                             "max_eval_samples",
                                             "num_samples",
                                             "n_samples",
                                             "max_examples",
                                             "num_examples",
                                             "num_train_examples",
                                             "train_size",
                                             "n_train",
                                             "sample_size",
                                             "data_fraction",
                                             "fraction",
                                             "train_fraction",
                                             "data_percent",
                                             "limit_train_batches",
                                             "limit_val_batches",
                                             "max_train_batches",
                                             "dataset_size",
                                             "num_train_samples",
                                             "train_subset",
                                             "max_train_steps_per_epoch"};
  static const std::set<std::string> model{"model",      "model_name", "model_name_or_path",
                                           "model_id",   "pretrained", "pretrained_model_name_or_path",
                                           "base_model", "backbone",   "arch",
                                           "model_type", "hf_model",   "model_path"};
  static const std::regex epochs(R"((^|_)n?epochs?$|^nepochs$)");
  static const std::regex steps(
      R"((^|_)(steps|iters|iterations|iteration|n_iter|niter)$|^fast_dev_run$|^overfit_batches$)");
  static const std::regex batch(R"(batch_?size|^bs$|^batch$|^micro_batch$)");
  if (debug.count(k)) return "debug_mode";
  if (dataset.count(k)) return "dataset";
  if (model.count(k)) return "model";
  if (std::regex_search(k, epochs)) return "epochs";
  if (std::regex_search(k, steps)) return "steps";
  if (std::regex_search(k, batch)) return "batch_size";
  return {};
}

std::string entry_of(const shell::simple_command& cmd) {
  const auto& a = cmd.argv;
  if (a.empty()) return {};
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k] == "-m" && k + 1 < a.size()) return "-m " + a[k + 1];
    if (is_script(a[k])) return strip_dot_slash(a[k]);
  }
  return shell::program_name(a[0]);
}

std::map<std::string, std::string> options_of(const shell::simple_command& cmd) {
  static const std::regex hydra(R"(^[+~]{0,2}[A-Za-z_][\w.\-]*=)");
  std::map<std::string, std::string> out;
  const auto& a = cmd.argv;
  for (std::size_t k = 1; k < a.size(); ++k) {
    const std::string& w = a[k];
    if (w.rfind("--", 0) == 0 && w.size() > 2) {
      const auto eq = w.find('=');
      if (eq != std::string::npos) {
        out[normalise_key(w.substr(0, eq))] = w.substr(eq + 1);
      } else if (k + 1 < a.size() && (a[k + 1].empty() || a[k + 1][0] != '-' || number_of(a[k + 1]))) {
        out[normalise_key(w)] = a[k + 1];
        ++k;
      } else {
        out[normalise_key(w)] = "true";
      }
    } else if (std::regex_search(w, hydra)) {
      const auto eq = w.find('=');
      out[normalise_key(w.substr(0, eq))] = w.substr(eq + 1);
    }
  }
  return out;
}

std::map<std::string, std::string> settings_of_line(const std::string& line) {
  static const std::regex setting(R"re((?:^|[\s,{(])["']?([A-Za-z_][\w.\-]*)["']?\s*[:=]\s*["']?([^"',}\s#)]+))re");
  static const std::regex flag(R"re(--([A-Za-z_][\w.\-]*)(?:\s+|=)["']?([^"'\s\\]+))re");
  std::map<std::string, std::string> out;
  const std::string code = line.substr(0, line.find(" #"));
  for (auto it = std::sregex_iterator(code.begin(), code.end(), setting); it != std::sregex_iterator(); ++it)
    out[normalise_key((*it)[1].str())] = (*it)[2].str();
  for (auto it = std::sregex_iterator(code.begin(), code.end(), flag); it != std::sregex_iterator(); ++it)
    out[normalise_key((*it)[1].str())] = (*it)[2].str();
  return out;
}

std::optional<double> number_of(const std::string& value) {
  static const std::regex number(R"(^-?\d[\d_]*(\.\d+)?([eE][+-]?\d+)?%?$)");
  if (!std::regex_match(value, number)) return std::nullopt;
  std::string digits;
  for (char c : value)
    if (c != '_' && c != '%') digits += c;
  return std::stod(digits);
}

bool has_slice(const std::string& value) {
  static const std::regex slice(R"(\[\s*-?\d*\s*:\s*-?\d+%?\s*\])");
  return std::regex_search(value, slice);
}

bool smaller_model(const std::string& before, const std::string& now) {
  if (lower(before) == lower(now)) return false;
  const auto b = read_model(before);
  const auto n = read_model(now);
  if (b.params && n.params) return *n.params < *b.params;
  if (b.family != n.family) return false;
  return n.word_rank.value_or(2) < b.word_rank.value_or(2);
}

std::string scaled_down(const std::string& family, const std::string& key, const std::optional<std::string>& before,
                        const std::string& now) {
  const std::string set = key + "=" + now;
  if (has_slice(now) && !(before && has_slice(*before))) return "takes a slice of the data (" + set + ")";
  if (family == "debug_mode" || key == "fast_dev_run" || key == "overfit_batches") {
    if (truthy(now) && !(before && truthy(*before))) return "turns on " + key + (now == "true" ? "" : "=" + now);
    if (family == "debug_mode") return {};
  }
  if (family == "model") {
    if (before && smaller_model(*before, now))
      return "uses a smaller model (" + key + ": " + *before + " -> " + now + ")";
    return {};
  }
  if (family.empty()) return {};
  const auto n = number_of(now);
  if (before) {
    const auto b = number_of(*before);
    if (n && b && *n < *b) return "lowers " + key + " from " + *before + " to " + now;
    return {};
  }
  if (!n) return {};
  if (family == "dataset") return "limits the data with " + set + ", which the plan does not";
  return "sets " + set + ", which the plan does not set (its default is unknown)";
}

}  // namespace r2r::plugins::guard::scale
