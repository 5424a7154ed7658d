// SPDX-License-Identifier: MIT
#include <r2r/support/shell_computed.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace r2r::shell {

namespace {

bool is_shell(const std::string& name) {
  static const std::set<std::string> shells{"sh", "bash", "zsh", "dash", "ksh", "ash"};
  return shells.count(name) > 0;
}

bool is_expansion(const std::string& word) {
  return word.find('$') != std::string::npos || word.find('`') != std::string::npos;
}

std::string joined(const simple_command& cmd) {
  std::string out;
  for (const auto& [k, v] : cmd.env) out += k + "=" + v + " ";
  for (const auto& w : cmd.argv) out += w + " ";
  if (!out.empty()) out.pop_back();
  if (out.size() > 160) out = out.substr(0, 157) + "...";
  return out;
}

/// Where an interpreter takes its program from: the index of the code word (`python -c CODE`,
/// `perl -e CODE`); argv.size() when it reads standard input (no operand, `-`, `/dev/stdin`, `sh -s`);
/// 0 when it runs a file operand, a module (`python -m`) or a shell's `-c` script (which analyze
/// already parsed).
std::size_t code_source(const std::vector<std::string>& a, bool shell) {
  for (std::size_t k = 1; k < a.size(); ++k) {
    const std::string& w = a[k];
    if (w == "-" || w == "/dev/stdin") return a.size();
    if (w == "--") return k + 1 < a.size() && a[k + 1] != "-" ? 0 : a.size();
    if (w.size() < 2 || w[0] != '-' || w[1] == '-') {
      if (w.rfind("--", 0) == 0) continue;  // long options take no separate value here
      return 0;                             // a file operand
    }
    if (shell) {
      if (w.find('c') != std::string::npos) return 0;
      if (w.find('s') != std::string::npos) return a.size();
      if (w == "-o" || w == "+o") ++k;
      continue;
    }
    if (w == "-m") return 0;
    if (w == "-c" || w == "-e" || w == "-E" || w == "-r") return k + 1 < a.size() ? k + 1 : 0;
  }
  return a.size();
}

}  // namespace

bool is_interpreter(const std::string& program) {
  static const std::regex interpreters(R"((python|pypy)(\d+(\.\d+)?)?|perl|ruby|node|php)");
  return is_shell(program) || std::regex_match(program, interpreters);
}

std::vector<computed_command> find_computed(const std::vector<simple_command>& commands) {
  std::vector<computed_command> out;
  for (const auto& cmd : commands) {
    if (cmd.argv.empty()) continue;
    const std::string name = program_name(cmd.argv[0]);
    const std::string& first = cmd.argv[0];
    if (is_expansion(name) || first.rfind("$(", 0) == 0 || first.rfind("`", 0) == 0) {
      out.push_back({"runs a command whose name is computed at run time (`" + cmd.argv[0] + "`)", joined(cmd)});
      continue;
    }
    const bool sourcing = name == "source" || name == ".";
    if (sourcing && (cmd.argv.size() < 2 || is_expansion(cmd.argv[1]))) {
      out.push_back({"sources a script that is computed at run time", joined(cmd)});
      continue;
    }
    if (!is_interpreter(name)) continue;
    const auto source = code_source(cmd.argv, is_shell(name));
    if (source == cmd.argv.size()) {
      const bool from_file = std::any_of(cmd.redirects.begin(), cmd.redirects.end(), [](const redirect& r) {
        return r.op == "<" || r.op == "<<" || r.op == "<<<";
      });
      if (cmd.stdin_piped && !from_file)
        out.push_back({"pipes text computed at run time into " + name, joined(cmd)});
      else if (cmd.process_substitutions > 0)
        out.push_back({"runs " + name + " on a process substitution computed at run time", joined(cmd)});
    } else if (source > 0 && (cmd.argv[source][0] == '$' || cmd.argv[source][0] == '`')) {
      out.push_back({"runs " + name + " code that is computed at run time", joined(cmd)});
    }
  }
  return out;
}

}  // namespace r2r::shell
