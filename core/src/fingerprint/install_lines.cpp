// SPDX-License-Identifier: MIT
// Install commands written in a README or a script: `pip install …` (also `python -m pip`, `pip3`,
// `uv pip`), `conda|mamba|micromamba install|create …` and `conda env create|update -f FILE`. Each
// named package becomes a dependency (source "readme"), `-r FILE` reads that requirements file,
// `-c nvidia` / `--extra-index-url …cu121` are recorded as CUDA channels and indices, and an
// environment file named by `-f` is read as a conda environment after the tree is listed.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <filesystem>

namespace r2r::planning::detail {
namespace {

bool one_of(const std::string& w, std::initializer_list<std::string_view> options) {
  for (auto o : options) {
    if (w == o) return true;
  }
  return false;
}

/// pip options that take a value (as the next word, or after '=').
bool pip_option_with_value(const std::string& w) {
  return one_of(w, {"-r",
                    "--requirement",
                    "-c",
                    "--constraint",
                    "-i",
                    "--index-url",
                    "--extra-index-url",
                    "-f",
                    "--find-links",
                    "-t",
                    "--target",
                    "--prefix",
                    "--root",
                    "-C",
                    "--config-settings",
                    "--platform",
                    "--python-version",
                    "--implementation",
                    "--abi",
                    "--global-option",
                    "--install-option",
                    "--trusted-host",
                    "--proxy",
                    "--cache-dir",
                    "--src",
                    "--upgrade-strategy",
                    "--progress-bar",
                    "--log",
                    "--timeout",
                    "--retries",
                    "--exists-action",
                    "--cert",
                    "--client-cert",
                    "--report",
                    "-e",
                    "--editable"});
}

std::string repo_relative(const std::string& path) {
  std::string p = std::filesystem::path(path).lexically_normal().generic_string();
  if (p.rfind("./", 0) == 0) p = p.substr(2);
  return p;
}

bool inside(const std::string& p) {
  return !p.empty() && p.front() != '/' && p != ".." && p.rfind("../", 0) != 0;
}

void add_index(scan_state& s, const std::string& value, const std::string& rel, int line, const std::string& cmd) {
  static const auto cuda = [](const std::string& u) {
    const std::string l = text::lower(u);
    return text::contains(l, "nvidia") || text::contains(l, "/cu1") || text::contains(l, "/cu9") ||
           text::contains(l, "cuda");
  };
  const bool c = cuda(value);
  s.fp.index_urls.push_back({c ? "cuda_index" : "index", value,
                             c ? "CUDA wheel index: its torch/nvidia wheels would replace ROCm builds" : cmd, rel,
                             line});
}

void pip_install(scan_state& s, const std::vector<std::string>& w, std::size_t at, const std::string& source,
                 const std::string& rel, int line, const std::string& cmd) {
  for (std::size_t i = at; i < w.size(); ++i) {
    std::string word = w[i];
    std::string value;
    if (word.size() > 1 && word.front() == '-') {
      const auto eq = word.find('=');
      if (eq != std::string::npos && word.rfind("--", 0) == 0) {
        value = word.substr(eq + 1);
        word = word.substr(0, eq);
      } else if (pip_option_with_value(word) && i + 1 < w.size()) {
        value = w[++i];
      } else if (word.size() > 2 && word[1] != '-' && pip_option_with_value(word.substr(0, 2))) {
        value = word.substr(2);  // -rrequirements.txt
        word = word.substr(0, 2);
      } else {
        continue;  // -U, --upgrade, --no-deps, --pre, --user ...
      }
      if (one_of(word, {"-r", "--requirement", "-c", "--constraint"})) {
        const std::string target = repo_relative(value);
        if (inside(target) && s.files.count(target)) {
          s.named_by_command.insert(target);
          scan_requirements_file(s, target, word == "-c" || word == "--constraint" ? "constraints" : "requirements");
        }
      } else if (one_of(word, {"-i", "--index-url", "--extra-index-url", "-f", "--find-links"})) {
        add_index(s, value, rel, line, cmd);
      }
      continue;
    }
    if (word == "." || word.rfind("./", 0) == 0 || word.rfind("../", 0) == 0 || word.front() == '/' ||
        word.front() == '.' || text::contains(word, ".whl") || text::contains(word, ".tar.gz") ||
        text::contains(word, "$")) {
      continue;  // the repository itself, a local path, an archive or a shell variable
    }
    std::string error;
    if (auto d = parse_requirement(word, error)) {
      d->source = source;
      d->file = rel;
      d->line = line;
      s.fp.dependencies.push_back(std::move(*d));
    }
  }
}

void conda_install(scan_state& s, const std::vector<std::string>& w, std::size_t at, const std::string& source,
                   const std::string& rel, int line) {
  for (std::size_t i = at; i < w.size(); ++i) {
    const std::string& word = w[i];
    if (word.size() > 1 && word.front() == '-') {
      if (one_of(word, {"-c", "--channel"}) && i + 1 < w.size()) {
        note_conda_channel(s, w[++i], rel, line);
      } else if (one_of(word, {"-n", "--name", "-p", "--prefix", "--file"}) && i + 1 < w.size()) {
        if (word == "--file") conda_file_named(s, w[i + 1]);
        ++i;
      } else if (one_of(word, {"-f"}) && i + 1 < w.size()) {
        conda_file_named(s, w[++i]);
      }
      continue;
    }
    if (text::contains(word, "$")) continue;
    add_conda_spec(s, rel, word, line, source);
  }
}

}  // namespace

void conda_file_named(scan_state& s, const std::string& path) {
  const std::string target = repo_relative(path);
  if (inside(target)) {
    s.conda_files_named.insert(target);
    s.named_by_command.insert(target);
  }
}

void scan_install_command(scan_state& s, std::string_view command, const std::string& source, const std::string& rel,
                          int line) {
  const std::string cmd(text::trim(command));
  // Each segment of a `a && b; c` chain is its own command.
  std::size_t start = 0;
  while (start <= cmd.size()) {
    std::size_t end = cmd.size();
    std::size_t skip = 0;
    for (std::string_view sep : {"&&", "||", ";", "|"}) {
      const auto p = cmd.find(sep, start);
      if (p != std::string::npos && p < end) {
        end = p;
        skip = sep.size();
      }
    }
    const auto w = text::shell_words(std::string_view(cmd).substr(start, end - start));
    std::size_t i = 0;
    while (i < w.size() && (w[i] == "sudo" || w[i] == "!" || (w[i].find('=') != std::string::npos && w[i][0] != '-')))
      ++i;
    const auto is = [&](std::size_t k, std::string_view v) { return k < w.size() && w[k] == v; };
    if (i < w.size()) {
      const std::string& w0 = w[i];
      if ((w0 == "pip" || w0 == "pip3") && is(i + 1, "install")) {
        pip_install(s, w, i + 2, source, rel, line, cmd);
      } else if ((w0 == "python" || w0 == "python3") && is(i + 1, "-m") && is(i + 2, "pip") && is(i + 3, "install")) {
        pip_install(s, w, i + 4, source, rel, line, cmd);
      } else if (w0 == "uv" && is(i + 1, "pip") && is(i + 2, "install")) {
        pip_install(s, w, i + 3, source, rel, line, cmd);
      } else if (w0 == "conda" || w0 == "mamba" || w0 == "micromamba") {
        if (is(i + 1, "install") || is(i + 1, "create")) {
          conda_install(s, w, i + 2, source, rel, line);
        } else if (is(i + 1, "env") && (is(i + 2, "create") || is(i + 2, "update"))) {
          conda_install(s, w, i + 3, source, rel, line);  // only -f FILE (and -n) are expected here
        }
      }
    }
    if (end == cmd.size()) break;
    start = end + skip;
  }
}

}  // namespace r2r::planning::detail
