// SPDX-License-Identifier: MIT
#include <r2r/guards/command_view.hpp>

#include <regex>
#include <set>

namespace r2r::plugins::guard {

namespace {

constexpr int max_script_depth = 4;

std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_shell(const std::string& name) {
  static const std::set<std::string> shells{"sh", "bash", "zsh", "dash", "ksh", "ash"};
  return shells.count(name) > 0;
}

bool is_python(const std::string& name) {
  static const std::regex python(R"(python(\d+(\.\d+)?)?)");
  return std::regex_match(name, python);
}

/// The first operand of an interpreter that is not an option (skipping `-o name` of shells and
/// `-W arg`/`-X opt` of python); empty when it runs -c/-m code or reads stdin.
std::string script_operand(const std::vector<std::string>& a, bool shell) {
  for (std::size_t k = 1; k < a.size(); ++k) {
    const std::string& w = a[k];
    if (w == "--") return k + 1 < a.size() ? a[k + 1] : std::string();
    if (w.size() > 1 && w[0] == '-') {
      if (shell && w.find('c') != std::string::npos && w[1] != '-') return {};
      if (!shell && (w == "-c" || w == "-m")) return {};
      if ((shell && (w == "-o" || w == "+o")) || (!shell && (w == "-W" || w == "-X"))) ++k;
      continue;
    }
    return w;
  }
  return {};
}

/// The file a simple command runs as a script, and whether it is Python; empty path if none.
std::pair<std::string, bool> script_of(const shell::simple_command& cmd) {
  if (cmd.argv.empty()) return {};
  const auto& a = cmd.argv;
  const std::string name = shell::program_name(a[0]);
  if (is_shell(name)) {
    std::string path = script_operand(a, true);
    if (path.empty() && a.size() == 1)
      for (const auto& r : cmd.redirects)
        if (r.op == "<") path = r.target;
    return {path, false};
  }
  if (is_python(name)) {
    const std::string path = script_operand(a, false);
    return {path, true};
  }
  if ((name == "source" || name == ".") && a.size() > 1) return {a[1], false};
  if (a[0].find('/') != std::string::npos) return {a[0], ends_with(a[0], ".py")};
  return {};
}

class expander {
 public:
  expander(const known_files& files, std::size_t max_bytes) : files_(files), max_bytes_(max_bytes) {}

  void add(const std::string& text, int depth, command_view& view) {
    std::string head = text.size() > max_bytes_ ? text.substr(0, max_bytes_) : text;
    auto commands = shell::analyze(head);
    for (auto& c : shell::find_computed(commands)) view.computed.push_back(std::move(c));
    view.text += (view.text.empty() ? "" : "\n") + head;
    for (const auto& cmd : commands) {
      view.commands.push_back(cmd);
      if (depth >= max_script_depth) continue;
      const auto [path, python] = script_of(cmd);
      if (path.empty()) continue;
      const auto script = files_.agent_script(path);
      const std::string key = known_files::normalise(path);
      if (!script || !seen_.insert(key).second) continue;
      view.scripts.push_back(key);
      if (python || ends_with(key, ".py")) {
        for (const auto& line : python_shell_lines(*script)) add(line, depth + 1, view);
      } else {
        add(*script, depth + 1, view);
      }
    }
  }

 private:
  const known_files& files_;
  std::size_t max_bytes_;
  std::set<std::string> seen_;
};

}  // namespace

std::optional<std::string> command_text(const sdk::guard::action& action) {
  const std::string& t = action.type;
  if (t == "run" || t == "run_workload" || t == "build_kernel") return action.text("command");
  if (t != "install") return std::nullopt;
  if (action.fields.contains("command")) return action.text("command");
  const std::string manager = action.text("manager");
  std::string command = manager == "uv"      ? "uv pip install"
                        : manager == "apt"   ? "apt-get install -y"
                        : manager == "conda" ? "conda install -y"
                                             : "pip install";
  if (const auto it = action.fields.find("packages"); it != action.fields.end() && it->is_array())
    for (const auto& p : *it)
      if (p.is_string()) command += " " + quoted(p.get<std::string>());
  return command;
}

command_view view_command(const std::string& command, const known_files& files, std::size_t max_bytes) {
  command_view view;
  expander(files, max_bytes).add(command, 0, view);
  return view;
}

std::optional<command_view> view_action(const sdk::guard::action& action, const known_files& files,
                                        std::size_t max_bytes) {
  const auto text = command_text(action);
  if (!text) return std::nullopt;
  return view_command(*text, files, max_bytes);
}

std::optional<sdk::guard::decision> deny_computed(const command_view& view, const std::string& guard) {
  if (view.computed.empty()) return std::nullopt;
  const auto& c = view.computed.front();
  return sdk::guard::decision::deny(
      guard + ": the command " + c.what + " (`" + c.command + "`); no guard can see what it would run",
      "write the command out: run the exact commands as text (or write them to a script with write_file and run "
      "that script), so every guard can judge them");
}

std::vector<std::string> python_shell_lines(const std::string& source) {
  static const std::regex call(
      R"((os\.system|os\.popen|subprocess\.(run|call|check_call|check_output|Popen)|sp\.(run|call|check_call|check_output|Popen))\s*\(\s*)");
  static const std::regex string_literal(R"(^[rbfu]{0,2}("([^"\\]|\\.)*"|'([^'\\]|\\.)*'))", std::regex::icase);
  std::vector<std::string> out;
  for (std::sregex_iterator it(source.begin(), source.end(), call), end; it != end; ++it) {
    const std::string rest = source.substr(static_cast<std::size_t>(it->position(0) + it->length(0)), 4096);
    std::smatch m;
    if (std::regex_search(rest, m, string_literal)) {
      const std::string lit = m.str(1);
      out.push_back(lit.substr(1, lit.size() - 2));
    } else if (!rest.empty() && rest[0] == '[') {
      const std::string list = rest.substr(1, rest.find(']') == std::string::npos ? rest.size() : rest.find(']') - 1);
      std::string line;
      bool first = true;
      static const std::regex element(R"(\s*([rbfu]{0,2}("([^"\\]|\\.)*"|'([^'\\]|\\.)*')|[^,]+)\s*(,|$))",
                                      std::regex::icase);
      for (std::sregex_iterator e(list.begin(), list.end(), element), eend; e != eend; ++e) {
        std::string w = (*e)[1].str();
        if (w.empty()) continue;
        const auto q = w.find_first_of("\"'");
        if (q != std::string::npos && q <= 2)
          w = w.substr(q + 1, w.size() - q - 2);
        else if (first)
          w = "python";  // sys.executable and the like
        else
          w = "$" + w;  // a computed argument
        line += (line.empty() ? "" : " ") + w;
        first = false;
      }
      if (!line.empty()) out.push_back(line);
    }
  }
  return out;
}

bool is_shell_file(const std::string& path) {
  static const std::regex shell_file(
      R"((^|/)(\.bashrc|\.bash_profile|\.profile|\.zshrc|\.zprofile|\.envrc|\.env|[^/]*\.(sh|bash|zsh|env)|[^/]*\.env\.[^/]*)$)");
  return std::regex_search(path, shell_file);
}

}  // namespace r2r::plugins::guard
