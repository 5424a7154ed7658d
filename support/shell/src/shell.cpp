// SPDX-License-Identifier: MIT
#include <r2r/support/shell.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace r2r::shell {

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// NAME=value with a valid NAME (used for words after `env`/`sudo`, where quoting is already gone).
bool looks_like_assignment(const std::string& w) {
  const auto eq = w.find('=');
  return eq != std::string::npos && is_identifier(std::string_view(w).substr(0, eq));
}

const std::set<std::string, std::less<>>& reserved_words() {
  static const std::set<std::string, std::less<>> words{"!",    "{",    "}",    "if",    "then",  "else",
                                                        "elif", "fi",   "do",   "done",  "while", "until",
                                                        "time", "esac", "then", "coproc"};
  return words;
}

/// Index just past the `)` matching the `(` at `open`, skipping quotes and escapes; s.size() if none.
std::size_t past_matching_paren(std::string_view s, std::size_t open) {
  int level = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\') {
      ++i;
    } else if (c == '\'') {
      const auto j = s.find('\'', i + 1);
      if (j == std::string_view::npos) return s.size();
      i = j;
    } else if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
    } else if (c == '(') {
      ++level;
    } else if (c == ')') {
      if (--level == 0) return i + 1;
    }
  }
  return s.size();
}

/// Index just past the backtick closing the one at `open`; s.size() if none.
std::size_t past_backtick(std::string_view s, std::size_t open) {
  for (std::size_t i = open + 1; i < s.size(); ++i) {
    if (s[i] == '\\')
      ++i;
    else if (s[i] == '`')
      return i + 1;
  }
  return s.size();
}

/// The script inside backticks, with `\``, `\\` and `\$` unescaped.
std::string backtick_body(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '`' || raw[i + 1] == '\\' || raw[i + 1] == '$')) ++i;
    out += raw[i];
  }
  return out;
}

/// First index at or after `k` that is not an option; options in `with_value` consume the next word.
std::size_t skip_options(const std::vector<std::string>& argv, std::size_t k, const std::set<std::string>& with_value) {
  while (k < argv.size()) {
    const std::string& a = argv[k];
    if (a == "--") return k + 1;
    if (a.size() < 2 || a[0] != '-') break;
    k += with_value.count(a) ? 2 : 1;
  }
  return k;
}

class parser {
 public:
  parser(std::string_view text, int depth, int max_depth, origin how, std::vector<simple_command>& out)
      : s_(text), depth_(depth), max_depth_(max_depth), how_(how), out_(out) {}

  void run() {
    while (i_ < s_.size()) step();
    end_command();
  }

 private:
  struct word {
    std::string text;
    bool assignment = false;
  };

  void step() {
    const char c = s_[i_];
    const char next = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
    if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
      ++i_;
    } else if (c == '\n' || c == ';') {
      end_command();
      ++i_;
    } else if (c == '&' && next == '>') {
      end_word();
      i_ += 2;
      if (i_ < s_.size() && s_[i_] == '>') ++i_;
      pending_op_ = "&>";
    } else if (c == '&' || c == '|') {
      end_command();
      piped_ = c == '|' && next != '|';
      i_ += (next == c || (c == '|' && next == '&')) ? 2 : 1;
    } else if (c == '(' || c == ')') {
      end_command();
      ++i_;
    } else if ((c == '<' || c == '>') && next == '(') {
      end_word();
      const auto end = past_matching_paren(s_, i_ + 1);
      const bool closed = end > i_ + 2 && s_[end - 1] == ')';
      nested(s_.substr(i_ + 2, end - i_ - 2 - (closed ? 1 : 0)), origin::substitution);
      ++process_substitutions_;
      i_ = end;
    } else if (c == '<' || c == '>') {
      redirection(c);
    } else if (c == '#' && !in_word_) {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else if (c == '\\') {
      if (next != '\n') {
        begin_word(true);
        if (i_ + 1 < s_.size()) cur_ += next;
      }
      i_ += 2;
    } else if (c == '\'') {
      begin_word(true);
      const auto j = s_.find('\'', i_ + 1);
      const auto end = j == std::string_view::npos ? s_.size() : j;
      cur_.append(s_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
    } else if (c == '"') {
      begin_word(true);
      double_quoted();
    } else if (c == '`' || (c == '$' && next == '(')) {
      begin_word(false);
      substitution();
    } else if (c == '$' && next == '{') {
      begin_word(false);
      const auto j = s_.find('}', i_);
      const auto end = j == std::string_view::npos ? s_.size() : j + 1;
      cur_.append(s_.substr(i_, end - i_));
      i_ = end;
    } else {
      if (c == '=' && in_word_ && !saw_quote_ && !saw_eq_ && is_identifier(cur_)) assignment_ = true;
      if (c == '=') saw_eq_ = true;
      begin_word(false);
      cur_ += c;
      ++i_;
    }
  }

  /// `$(...)`, `$((...))` or a backtick substitution at i_: kept raw in the word, analysed if a command.
  void substitution() {
    if (s_[i_] == '`') {
      const auto end = past_backtick(s_, i_);
      const auto raw = s_.substr(i_, end - i_);
      cur_.append(raw);
      nested(backtick_body(raw.substr(1, raw.size() >= 2 && raw.back() == '`' ? raw.size() - 2 : raw.size() - 1)),
             origin::substitution);
      i_ = end;
      return;
    }
    const auto end = past_matching_paren(s_, i_ + 1);
    const auto raw = s_.substr(i_, end - i_);
    cur_.append(raw);
    const bool arithmetic = raw.size() > 2 && raw[2] == '(';
    if (!arithmetic)
      nested(raw.substr(2, raw.size() >= 3 && raw.back() == ')' ? raw.size() - 3 : raw.size() - 2),
             origin::substitution);
    i_ = end;
  }

  void double_quoted() {
    ++i_;  // opening quote
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_];
      const char next = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
      if (c == '\\' && (next == '$' || next == '`' || next == '"' || next == '\\' || next == '\n')) {
        if (next != '\n') cur_ += next;
        i_ += 2;
      } else if (c == '`' || (c == '$' && next == '(')) {
        substitution();
      } else {
        cur_ += c;
        ++i_;
      }
    }
    ++i_;  // closing quote (or past the end)
  }

  void redirection(char c) {
    const bool fd_prefix = in_word_ && !cur_.empty() && std::all_of(cur_.begin(), cur_.end(), [](char d) {
                             return std::isdigit(static_cast<unsigned char>(d));
                           });
    if (fd_prefix)
      reset_word();
    else
      end_word();
    static const char* const ops[] = {"<<<", "<<-", ">>", ">&", ">|", "<<", "<&", "<>", ">", "<"};
    for (const char* op : ops) {
      const std::string_view o(op);
      if (s_.substr(i_, o.size()) == o) {
        pending_op_ = o == "<<-" ? "<<" : std::string(o);
        i_ += o.size();
        return;
      }
    }
    pending_op_ = std::string(1, c);
    ++i_;
  }

  void begin_word(bool quoted) {
    in_word_ = true;
    saw_quote_ = saw_quote_ || quoted;
  }

  void reset_word() {
    cur_.clear();
    in_word_ = saw_quote_ = saw_eq_ = assignment_ = false;
  }

  void end_word() {
    if (!in_word_) return;
    if (!pending_op_.empty()) {
      redirects_.push_back({pending_op_, cur_});
      pending_op_.clear();
    } else {
      words_.push_back({cur_, assignment_});
    }
    reset_word();
  }

  void end_command() {
    end_word();
    if (!pending_op_.empty()) redirects_.push_back({pending_op_, ""});
    pending_op_.clear();
    simple_command cmd;
    cmd.reached_by = how_;
    cmd.depth = depth_;
    cmd.redirects = std::move(redirects_);
    cmd.stdin_piped = piped_;
    cmd.process_substitutions = process_substitutions_;
    std::size_t k = 0;
    for (;;) {
      if (k < words_.size() && words_[k].assignment) {
        const auto eq = words_[k].text.find('=');
        cmd.env.emplace_back(words_[k].text.substr(0, eq), words_[k].text.substr(eq + 1));
        ++k;
      } else if (k < words_.size() && cmd.env.empty() && reserved_words().count(words_[k].text)) {
        ++k;
      } else {
        break;
      }
    }
    for (; k < words_.size(); ++k) cmd.argv.push_back(std::move(words_[k].text));
    words_.clear();
    redirects_.clear();
    const bool loop_header =
        !cmd.argv.empty() && (cmd.argv[0] == "for" || cmd.argv[0] == "select" || cmd.argv[0] == "case");
    if (!cmd.argv.empty() || !cmd.env.empty() || !cmd.redirects.empty()) {
      piped_ = false;  // an empty command (`| (`) passes the pipe on to the next one
      process_substitutions_ = 0;
    }
    if (!loop_header && (!cmd.argv.empty() || !cmd.env.empty() || !cmd.redirects.empty())) {
      out_.push_back(cmd);
      unwrap(cmd, out_, max_depth_);
    }
    for (auto& n : nested_) out_.push_back(std::move(n));
    nested_.clear();
  }

  void nested(std::string_view text, origin how) {
    if (depth_ + 1 > max_depth_) return;
    parser(text, depth_ + 1, max_depth_, how, nested_).run();
  }

 public:
  /// Appends the commands that `cmd` runs through a shell string or a wrapper.
  static void unwrap(const simple_command& cmd, std::vector<simple_command>& out, int max_depth) {
    if (cmd.argv.empty() || cmd.depth + 1 > max_depth) return;
    const std::string name = program_name(cmd.argv[0]);
    const auto& a = cmd.argv;
    static const std::set<std::string> shells{"bash", "sh", "zsh", "dash", "ksh", "ash"};
    if (shells.count(name)) {
      bool dash_c = false;
      for (std::size_t k = 1; k < a.size(); ++k) {
        if (a[k].size() > 1 && a[k][0] == '-' && a[k][1] != '-') {
          dash_c = dash_c || a[k].find('c') != std::string::npos;
        } else if (dash_c) {
          parser(a[k], cmd.depth + 1, max_depth, origin::shell_string, out).run();
          return;
        }
      }
      return;
    }
    if (name == "eval") {
      std::string script;
      for (std::size_t k = 1; k < a.size(); ++k) script += (k > 1 ? " " : "") + a[k];
      parser(script, cmd.depth + 1, max_depth, origin::shell_string, out).run();
      return;
    }
    simple_command inner;
    inner.env = cmd.env;
    inner.stdin_piped = cmd.stdin_piped;
    inner.process_substitutions = cmd.process_substitutions;
    inner.reached_by = origin::wrapper;
    inner.depth = cmd.depth + 1;
    std::size_t k = 0;
    if (name == "env") {
      k = skip_options(a, 1, {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"});
      const auto split =
          std::find_if(a.begin() + 1, a.end(), [](const std::string& w) { return w == "-S" || w == "--split-string"; });
      if (split != a.end() && split + 1 != a.end()) {
        parser(*(split + 1), cmd.depth + 1, max_depth, origin::shell_string, out).run();
        return;
      }
    } else if (name == "sudo") {
      k = skip_options(a, 1, {"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "-T"});
    } else if (name == "nohup" || name == "exec" || name == "command" || name == "time" || name == "builtin") {
      k = skip_options(a, 1, {"-a"});
    } else if (name == "nice" || name == "ionice") {
      k = skip_options(a, 1, {"-n", "--adjustment", "-c", "-p"});
    } else if (name == "stdbuf") {
      k = skip_options(a, 1, {"-i", "-o", "-e"});
    } else if (name == "timeout") {
      k = skip_options(a, 1, {"-s", "--signal", "-k", "--kill-after"}) + 1;  // then the duration
    } else if (name == "xargs") {
      k = skip_options(a, 1, {"-n", "-I", "-L", "-P", "-d", "-s", "-E", "-a", "--max-args", "--delimiter"});
    } else {
      return;
    }
    while (k < a.size() && (name == "env" || name == "sudo") && looks_like_assignment(a[k])) {
      const auto eq = a[k].find('=');
      inner.env.emplace_back(a[k].substr(0, eq), a[k].substr(eq + 1));
      ++k;
    }
    if (k >= a.size() && inner.env.size() == cmd.env.size()) return;
    inner.argv.assign(a.begin() + static_cast<std::ptrdiff_t>(std::min(k, a.size())), a.end());
    out.push_back(inner);
    unwrap(inner, out, max_depth);
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  int depth_;
  int max_depth_;
  origin how_;
  std::vector<simple_command>& out_;

  std::vector<word> words_;
  std::vector<redirect> redirects_;
  std::vector<simple_command> nested_;  // substitutions of the current command, emitted after it
  std::string pending_op_;              // a redirection waiting for its target word
  std::string cur_;
  bool in_word_ = false;
  bool saw_quote_ = false;
  bool saw_eq_ = false;
  bool assignment_ = false;
  bool piped_ = false;                     // the next command reads the previous one's output
  std::size_t process_substitutions_ = 0;  // of the current command
};

}  // namespace

std::string program_name(std::string_view argv0) {
  const auto slash = argv0.rfind('/');
  return std::string(slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1));
}

std::vector<simple_command> analyze(std::string_view command, int max_depth) {
  std::vector<simple_command> out;
  parser(command, 0, max_depth, origin::top_level, out).run();
  return out;
}

}  // namespace r2r::shell
