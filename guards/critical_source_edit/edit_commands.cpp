// SPDX-License-Identifier: MIT
#include "edit_commands.hpp"

#include <regex>
#include <set>

namespace r2r::plugins::guard::critical {

namespace {

bool is_option(const std::string& a) {
  return a.size() > 1 && a[0] == '-';
}

/// Regex text of a sed/perl pattern as the line it matches: anchors, groups and escapes dropped.
std::string as_line(const std::string& pattern) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char n = pattern[++i];
      if (n == 's')
        out += ' ';
      else if (n != '(' && n != ')' && n != '<' && n != '>' && n != 'b')
        out += n;
      continue;
    }
    if (c == '^' || c == '$' || c == '(' || c == ')') continue;
    if (c == '.' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      ++i;
      continue;
    }
    out += c;
  }
  return out;
}

/// Removed and added lines of sed/perl scripts: s<d>pat<d>rep<d>, /addr/d, /addr/s<d>^<d>rep<d>.
void read_script(const std::string& script, file_change& change) {
  static const std::regex address_delete(R"re((?:^|[;\s])/((?:\\.|[^/])+)/\s*d\b)re");
  static const std::regex address_subst(
      R"re((?:^|[;\s])/((?:\\.|[^/])+)/\s*s([^\w\s\\])((?:\\.|(?!\2).)*)\2((?:\\.|(?!\2).)*)\2)re");
  static const std::regex subst(R"re((?:^|[;\s{])s([^\w\s\\])((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1)re");
  auto replaced = [](std::string rep, const std::string& matched) {
    std::string out;
    for (std::size_t i = 0; i < rep.size(); ++i) {
      if (rep[i] == '&')
        out += matched;
      else if (rep[i] == '\\' && i + 1 < rep.size() && std::isdigit(static_cast<unsigned char>(rep[i + 1]))) {
        out += matched;
        ++i;
      } else if (rep[i] == '$' && i + 1 < rep.size() && std::isdigit(static_cast<unsigned char>(rep[i + 1]))) {
        out += matched;
        ++i;
      } else if (rep[i] == '\\' && i + 1 < rep.size()) {
        out += rep[++i];
      } else {
        out += rep[i];
      }
    }
    return out;
  };
  for (auto it = std::sregex_iterator(script.begin(), script.end(), address_delete); it != std::sregex_iterator(); ++it)
    change.removed.push_back(as_line((*it)[1].str()));
  std::set<long> consumed;
  for (auto it = std::sregex_iterator(script.begin(), script.end(), address_subst); it != std::sregex_iterator();
       ++it) {
    const std::string line = as_line((*it)[1].str());
    const std::string pat = as_line((*it)[3].str());
    change.removed.push_back(line);
    change.added.push_back(pat.empty() ? replaced((*it)[4].str(), "") + line : replaced((*it)[4].str(), pat));
    consumed.insert(it->position(0) + it->length(0));
  }
  for (auto it = std::sregex_iterator(script.begin(), script.end(), subst); it != std::sregex_iterator(); ++it) {
    if (consumed.count(it->position(0) + it->length(0))) continue;
    const std::string pat = as_line((*it)[2].str());
    change.removed.push_back(pat);
    change.added.push_back(replaced((*it)[3].str(), pat));
  }
}

void sed_like(const shell::simple_command& cmd, const std::string& name, std::vector<command_edit>& out) {
  const auto& a = cmd.argv;
  const bool perl = name == "perl";
  bool in_place = false;
  std::vector<std::string> scripts;
  std::vector<std::string> files;
  bool script_from_e = false;
  for (std::size_t k = 1; k < a.size(); ++k) {
    const std::string& w = a[k];
    if (w == "--in-place" || w.rfind("--in-place=", 0) == 0 || (w.rfind("-i", 0) == 0 && !perl)) {
      in_place = true;
    } else if (w == "-e" || w == "--expression" || (w == "-E" && perl)) {
      if (k + 1 < a.size()) scripts.push_back(a[++k]);
      script_from_e = true;
    } else if (w.rfind("--expression=", 0) == 0) {
      scripts.push_back(w.substr(13));
      script_from_e = true;
    } else if (perl && is_option(w) && w.find('i') != std::string::npos && w.rfind("--", 0) != 0) {
      in_place = true;
      if (w.back() == 'e' && k + 1 < a.size()) {
        scripts.push_back(a[++k]);
        script_from_e = true;
      }
    } else if (perl && is_option(w) && w.back() == 'e' && w.rfind("--", 0) != 0) {
      if (k + 1 < a.size()) scripts.push_back(a[++k]);
      script_from_e = true;
    } else if (!perl && (w == "-f" || w == "--file")) {
      ++k;
    } else if (is_option(w)) {
      continue;
    } else if (!script_from_e && scripts.empty()) {
      scripts.push_back(w);
    } else {
      files.push_back(w);
    }
  }
  if (!in_place) return;
  for (const auto& f : files) {
    command_edit e;
    e.how = command_edit::kind::substitution;
    e.path = f;
    e.tool = name + " -i";
    e.change.path = f;
    for (const auto& s : scripts) read_script(s, e.change);
    out.push_back(std::move(e));
  }
}

void python_script(const std::string& script, std::vector<command_edit>& out) {
  static const std::regex open_w(R"re(open\(\s*(?:r|f)?['"]([^'"]+)['"]\s*,\s*(?:mode\s*=\s*)?['"][^'"]*[wax+])re");
  static const std::regex write_text(R"re(Path\(\s*['"]([^'"]+)['"]\s*\)\s*\.\s*write_(text|bytes))re");
  static const std::regex remove(
      R"re((?:os\.(?:remove|unlink)|shutil\.rmtree|Path\(\s*['"][^'"]+['"]\s*\)\.unlink)\(\s*['"]?([^'")]*)['"]?)re");
  for (auto it = std::sregex_iterator(script.begin(), script.end(), open_w); it != std::sregex_iterator(); ++it)
    out.push_back({command_edit::kind::overwrite, (*it)[1].str(), "", "python -c open(..., 'w')", {}});
  for (auto it = std::sregex_iterator(script.begin(), script.end(), write_text); it != std::sregex_iterator(); ++it)
    out.push_back({command_edit::kind::overwrite, (*it)[1].str(), "", "python -c write_text", {}});
  for (auto it = std::sregex_iterator(script.begin(), script.end(), remove); it != std::sregex_iterator(); ++it)
    if (!(*it)[1].str().empty())
      out.push_back({command_edit::kind::removal, (*it)[1].str(), "", "python -c os.remove", {}});
}

}  // namespace

std::vector<command_edit> edits_of(const shell::simple_command& cmd) {
  std::vector<command_edit> out;
  for (const auto& r : cmd.redirects)
    if (r.op == ">" || r.op == ">>" || r.op == ">|" || r.op == "&>" || r.op == "<>")
      if (r.target != "/dev/null" && r.target.rfind("&", 0) != 0)
        out.push_back({command_edit::kind::overwrite, r.target, "", r.op + " redirection", {}});
  if (cmd.argv.empty()) return out;
  const std::string name = shell::program_name(cmd.argv[0]);
  const auto& a = cmd.argv;
  std::vector<std::string> operands;
  for (std::size_t k = 1; k < a.size(); ++k) {
    if (name == "truncate" && (a[k] == "-s" || a[k] == "--size" || a[k] == "-r")) {
      ++k;
      continue;
    }
    if (!is_option(a[k])) operands.push_back(a[k]);
  }
  if (name == "sed" || name == "gsed" || name == "perl") {
    sed_like(cmd, name, out);
  } else if (name == "rm" || name == "unlink" || name == "shred" || name == "truncate") {
    for (const auto& f : operands) out.push_back({command_edit::kind::removal, f, "", name, {}});
  } else if ((name == "mv" || name == "cp" || name == "install" || name == "ln" || name == "rsync") &&
             operands.size() >= 2) {
    const std::string dest = operands.back();
    for (std::size_t i = 0; i + 1 < operands.size(); ++i) {
      out.push_back({command_edit::kind::rename, operands[i], dest, name, {}});
      if (name == "mv") out.push_back({command_edit::kind::removal, operands[i], dest, name, {}});
    }
    out.push_back({command_edit::kind::overwrite, dest, "", name + " onto", {}});
  } else if (name == "tee") {
    for (const auto& f : operands) out.push_back({command_edit::kind::overwrite, f, "", "tee", {}});
  } else if (name == "dd") {
    for (const auto& w : a)
      if (w.rfind("of=", 0) == 0) out.push_back({command_edit::kind::overwrite, w.substr(3), "", "dd of=", {}});
  } else if (name.rfind("python", 0) == 0) {
    for (std::size_t k = 1; k + 1 < a.size(); ++k)
      if (a[k] == "-c") python_script(a[k + 1], out);
  }
  return out;
}

}  // namespace r2r::plugins::guard::critical
