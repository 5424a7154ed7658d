// SPDX-License-Identifier: MIT
// Workload commands: recognising launchers, deciding whether a command is runnable (never
// `--help`, `--version` or a bare import), and classifying it by the words of its script and
// arguments. Words are whole tokens, so "observe" or "preserve" never read as "serve".
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <algorithm>
#include <cctype>

namespace r2r::planning::detail {
namespace {

bool word_is(const std::string& w, std::initializer_list<std::string_view> options) {
  return std::any_of(options.begin(), options.end(), [&](std::string_view o) { return w == o; });
}
bool word_starts(const std::string& w, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return text::starts_with(w, p); });
}

std::string classify_text(std::string_view s) {
  const auto words = text::alnum_words(s);
  for (const auto& w : words) {
    if (word_starts(w, {"train", "finetun", "pretrain"}) || word_is(w, {"sft", "fit", "ft"})) return "train";
  }
  for (const auto& w : words) {
    if (word_starts(w, {"eval", "benchmark"}) || word_is(w, {"test", "bench", "validate", "val", "score"}))
      return "eval";
  }
  for (const auto& w : words) {
    if (word_starts(w, {"infer", "generat", "predict", "sampl", "demo", "inpaint", "translat"}) ||
        word_is(w, {"serve", "server", "serving", "chat", "forward"})) {
      return "infer";
    }
  }
  return "other";
}

bool is_env_assignment(const std::string& w) {
  const auto eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    const char c = w[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::string join_from(const std::vector<std::string>& words, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < words.size(); ++i) out += (out.empty() ? "" : " ") + words[i];
  return out;
}

}  // namespace

std::string classify_words(std::string_view script, std::string_view arguments) {
  const auto by_script = classify_text(script);
  if (by_script != "other") return by_script;
  return classify_text(arguments);
}

std::optional<entry_point> command_entry_point(const scan_state& s, std::string_view command_text,
                                               const std::string& source, const std::string& file, int line) {
  std::string_view cmd = text::trim(command_text);
  if (text::starts_with(cmd, "$ ")) cmd = text::trim(cmd.substr(2));
  if (cmd.empty() || cmd.front() == '#') return std::nullopt;
  // The workload is the last segment of a `cd x && ...` chain.
  for (std::string_view sep : {"&&", ";"}) {
    if (auto pos = cmd.rfind(sep); pos != std::string_view::npos) cmd = text::trim(cmd.substr(pos + sep.size()));
  }
  auto words = text::shell_words(cmd);
  std::size_t i = 0;
  while (i < words.size() && (is_env_assignment(words[i]) || words[i] == "env" || words[i] == "nohup")) ++i;
  if (i >= words.size()) return std::nullopt;

  entry_point e;
  e.command = std::string(cmd);
  e.source = source;
  e.file = file;
  e.line = line;
  std::string script;  // repository file the command runs, when any
  std::string module;  // python -m module
  std::size_t args_from = words.size();
  const std::string& w0 = words[i];
  auto python_like = [](const std::string& w) {
    return w == "python" || w == "python3" || text::starts_with(w, "python3.");
  };
  auto take_python = [&](std::size_t at) {
    // at: index of the first word after the interpreter; skip interpreter flags (-u, -O, -W x).
    while (at < words.size() && words[at].size() > 1 && words[at][0] == '-' && words[at] != "-m" && words[at] != "-c") {
      at += (words[at] == "-W" || words[at] == "-X") ? 2 : 1;
    }
    if (at >= words.size()) return false;
    if (words[at] == "-m" && at + 1 < words.size()) {
      module = words[at + 1];
      args_from = at + 2;
    } else if (words[at] == "-c") {
      e.runnable = false;
      e.why_not = "`python -c` snippet, not the repository's workload";
      args_from = at + 1;
    } else {
      script = words[at];
      args_from = at + 1;
    }
    return true;
  };

  if (python_like(w0)) {
    e.launcher = "python";
    if (!take_python(i + 1)) return std::nullopt;
    if (!module.empty()) e.launcher = "python-module";
  } else if (w0 == "torchrun" || w0 == "deepspeed") {
    e.launcher = w0;
    std::size_t at = i + 1;
    while (at < words.size() && text::starts_with(words[at], "-")) {
      const bool has_value = words[at].find('=') == std::string::npos && at + 1 < words.size() &&
                             !text::starts_with(words[at + 1], "-") && !text::contains(words[at + 1], ".py");
      at += has_value ? 2 : 1;
    }
    if (at < words.size() && words[at] == "-m" && at + 1 < words.size()) {
      module = words[at + 1];
      args_from = at + 2;
    } else if (at < words.size()) {
      script = words[at];
      args_from = at + 1;
    }
  } else if (w0 == "accelerate" && i + 1 < words.size() && words[i + 1] == "launch") {
    e.launcher = "accelerate";
    std::size_t at = i + 2;
    while (at < words.size() && text::starts_with(words[at], "-")) {
      const bool has_value = words[at].find('=') == std::string::npos && at + 1 < words.size() &&
                             !text::starts_with(words[at + 1], "-") && !text::contains(words[at + 1], ".py");
      at += has_value ? 2 : 1;
    }
    if (at < words.size()) {
      script = words[at];
      args_from = at + 1;
    }
  } else if ((w0 == "bash" || w0 == "sh") && i + 1 < words.size() && text::contains(words[i + 1], ".sh")) {
    e.launcher = "shell";
    script = words[i + 1];
    args_from = i + 2;
  } else if (text::starts_with(w0, "./") && text::contains(w0, ".sh")) {
    e.launcher = "shell";
    script = w0;
    args_from = i + 1;
  } else if (w0 == "vllm" && i + 1 < words.size() && words[i + 1] == "serve") {
    e.launcher = "vllm";
    module = "vllm serve";
    args_from = i + 2;
    e.kind = "infer";
  } else {
    return std::nullopt;
  }
  const std::string args = join_from(words, args_from);
  for (std::size_t a = args_from; a < words.size(); ++a) {
    if (words[a] == "--help" || words[a] == "-h" || words[a] == "--version") {
      e.runnable = false;
      e.why_not = "prints usage (" + words[a] + "), does not run the workload";
    }
  }
  if (!script.empty()) {
    std::string rel = script;
    if (text::starts_with(rel, "./")) rel = rel.substr(2);
    if (e.runnable && !s.files.empty() && !s.files.count(rel)) {
      e.runnable = false;
      e.why_not = "runs " + rel + ", which is not in the repository";
    }
    e.own = s.files.count(rel) > 0 && text::contains(rel, ".py");
  }
  if (!module.empty() && e.launcher != "vllm") {
    std::string path = module;
    std::replace(path.begin(), path.end(), '.', '/');
    const bool local = s.files.count(path + ".py") || s.files.count(path + "/__main__.py");
    e.own = local;
    const std::string top = module.substr(0, module.find('.'));
    if (top == "pip" || top == "venv" || top == "ensurepip" || module == "torch.utils.collect_env") {
      return std::nullopt;
    }
    if (!local && s.local_modules.count(top) && e.runnable) {
      e.runnable = false;
      e.why_not = "module " + module + " is not in the repository";
    }
  }
  if (e.kind.empty()) {
    e.kind = classify_words(script.empty() ? module : script, args);
    if (e.kind == "other" && (e.launcher == "torchrun" || e.launcher == "deepspeed" || e.launcher == "accelerate")) {
      e.kind = "train";  // distributed launchers run training unless their words say otherwise
    }
  }
  return e;
}

}  // namespace r2r::planning::detail
