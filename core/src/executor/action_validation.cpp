// SPDX-License-Identifier: MIT
#include <r2r/core/embedded_schemas.hpp>
#include <r2r/executor/action.hpp>
#include <r2r/support/shell.hpp>

#include <algorithm>
#include <filesystem>

namespace r2r::executor {
namespace {

// `pip install x`, `python3 -m pip install x`, `uv pip install x`, `apt-get install -y x`,
// `conda install x` -> {manager, packages}; an empty manager when the command is not one install.
std::pair<std::string, std::vector<std::string>> parse_install_argv(const std::vector<std::string>& argv) {
  if (argv.empty()) return {};
  const std::string prog = shell::program_name(argv[0]);
  std::size_t i = 1;
  std::string manager;
  if (prog == "pip" || prog == "pip3") {
    manager = "pip";
  } else if (prog.rfind("python", 0) == 0 && argv.size() > 3 && argv[1] == "-m" && argv[2] == "pip") {
    manager = "pip", i = 3;
  } else if (prog == "uv" && argv.size() > 2 && argv[1] == "pip") {
    manager = "uv", i = 2;
  } else if (prog == "apt" || prog == "apt-get") {
    manager = "apt";
  } else if (prog == "conda" || prog == "mamba" || prog == "micromamba") {
    manager = "conda";
  } else {
    return {};
  }
  if (i >= argv.size() || argv[i] != "install") return {};
  std::vector<std::string> packages;
  for (++i; i < argv.size(); ++i) {
    if ((manager == "apt" || manager == "conda") && (argv[i] == "-y" || argv[i] == "--yes")) continue;
    packages.push_back(argv[i]);
  }
  if (packages.empty()) return {};
  return {manager, packages};
}

std::pair<std::string, std::vector<std::string>> parse_install(const std::string& command) {
  const auto commands = shell::analyze(command);
  if (commands.size() != 1) return {};
  return parse_install_argv(commands[0].argv);
}

/// `python3 -m venv [--system-site-packages|--clear|...] DIR` or `. DIR/bin/activate` (`source`):
/// the steps that put a workspace virtual environment in front of an install (PEP 668).
bool is_venv_setup(const std::vector<std::string>& argv) {
  const std::string prog = argv.empty() ? std::string() : shell::program_name(argv[0]);
  if ((prog == "." || prog == "source") && argv.size() == 2) {
    const std::string& script = argv[1];
    const std::string suffix = "/bin/activate";
    return script.size() > suffix.size() && script.compare(script.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  if (prog.rfind("python", 0) != 0 || argv.size() < 4 || argv[1] != "-m" || argv[2] != "venv") return false;
  std::size_t dirs = 0;
  for (std::size_t i = 3; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--system-site-packages" || a == "--clear" || a == "--without-pip" || a == "--upgrade-deps" ||
        a == "--copies" || a == "--symlinks") {
      continue;
    }
    if (a.empty() || a[0] == '-') return false;
    ++dirs;
  }
  return dirs == 1;
}

}  // namespace

bool is_package_install(const std::string& command) {
  // `LD_PRELOAD=… pip install x` or `pip install x > f` would run or write more than the install
  // while the network is on: only the bare command counts, alone or after the steps that create or
  // activate a virtual environment for it (the playbook's PEP 668 fix:
  // `python3 -m venv --system-site-packages .venv && . .venv/bin/activate && pip install x`).
  const auto commands = shell::analyze(command);
  if (commands.empty()) return false;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const auto& c = commands[i];
    if (!c.env.empty() || !c.redirects.empty() || c.process_substitutions != 0 || c.depth != 0 || c.stdin_piped)
      return false;
    const bool last = i + 1 == commands.size();
    if (last ? parse_install_argv(c.argv).first.empty() : !is_venv_setup(c.argv)) return false;
  }
  return true;
}

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

validated_action validate_action(const nlohmann::json& proposed) {
  validated_action out;
  const auto* schema = core::embedded_schema("action.schema.json");
  if (schema == nullptr) {
    out.error = "action.schema.json is not embedded in this build";
    return out;
  }
  const auto violations = schema->validate(proposed);
  if (!violations.empty()) {
    for (const auto& v : violations) out.error += (out.error.empty() ? "" : "\n") + core::format_violation(v);
    return out;
  }
  out.action = proposed;
  if (proposed.at("type") == "install" && proposed.contains("command")) {
    auto [manager, packages] = parse_install(proposed.at("command").get<std::string>());
    if (manager.empty()) {
      out.error =
          "/command: expected one install command of pip, python -m pip, uv pip, apt-get, apt or conda "
          "(e.g. \"pip install einops==0.8.0\"); found \"" +
          proposed.at("command").get<std::string>() +
          "\". Use {\"type\":\"install\",\"manager\":...,\"packages\":[...]} or a `run` action.";
      return out;
    }
    out.action["manager"] = manager;
    out.action["packages"] = packages;
  }
  if (proposed.at("type") == "read_file" || proposed.at("type") == "write_file") {
    const std::filesystem::path p(proposed.at("path").get<std::string>());
    const auto norm = p.lexically_normal();
    if (p.is_absolute() || norm.empty() || *norm.begin() == "..") {
      out.error = "/path: expected a path relative to the workspace that stays inside it; found \"" + p.string() + "\"";
      return out;
    }
  }
  out.valid = true;
  return out;
}

std::string install_command(const nlohmann::json& a) {
  if (a.contains("command")) return a.at("command").get<std::string>();
  const std::string manager = a.at("manager").get<std::string>();
  std::string cmd = manager == "pip"   ? "python3 -m pip install"
                    : manager == "uv"  ? "uv pip install"
                    : manager == "apt" ? "apt-get install -y"
                                       : "conda install -y";
  for (const auto& p : a.at("packages")) cmd += " " + shell_quote(p.get<std::string>());
  return cmd;
}

bool build_file(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.substr(name.size() - s.size()) == s; };
  for (const char* exact :
       {"CMakeLists.txt", "Makefile", "GNUmakefile", "makefile", "setup.py", "setup.cfg", "pyproject.toml",
        "Dockerfile", "meson.build", "build.ninja", "BUILD", "BUILD.bazel", "WORKSPACE"}) {
    if (name == exact) return true;
  }
  if (ends(".cmake") || ends(".mk") || ends(".bzl")) return true;
  if (name.rfind("requirements", 0) == 0 && ends(".txt")) return true;
  if (name.rfind("environment", 0) == 0 && (ends(".yml") || ends(".yaml"))) return true;
  return false;
}

bool risky(const nlohmann::json& action) {
  const std::string type = action.value("type", std::string());
  if (type == "install" || type == "apply_patch" || type == "switch_image") return true;
  return type == "write_file" && build_file(action.value("path", std::string()));
}

bool may_change_workspace(const std::string& type) {
  return type != "read_file" && type != "checkpoint" && type != "claim_success" && type != "give_up";
}

}  // namespace r2r::executor
