// SPDX-License-Identifier: MIT
#include <r2r/report/trajectory.hpp>

#include <fstream>
#include <sstream>

namespace r2r::report {
namespace {

/// Integer-or-number field as a double, 0 when absent or not a number.
double number_at(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

core::result<std::vector<nlohmann::json>> parse_trajectory(std::string_view text, const std::string& name) {
  std::vector<nlohmann::json> out;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return core::fail(core::phase::io,
                        name + " line " + std::to_string(line_no) +
                            ": expected one JSON object per line (the executor's record); found '" +
                            std::string(line.substr(0, 120)) + "'",
                        "", name);
    out.push_back(std::move(j));
  }
  return out;
}

core::result<std::vector<nlohmann::json>> read_trajectory(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return core::fail(core::phase::io, "cannot read the trajectory " + file.string() + "; check the path", "",
                      file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trajectory(text.str(), file.string());
}

usage_totals sum_usage(const std::vector<nlohmann::json>& trajectory) {
  usage_totals t;
  for (const auto& rec : trajectory) {
    ++t.turns;
    const auto u = rec.find("usage");
    if (u == rec.end() || !u->is_object()) continue;
    t.input_tokens += static_cast<long long>(number_at(*u, "input_tokens"));
    t.output_tokens += static_cast<long long>(number_at(*u, "output_tokens"));
    t.cost_usd += number_at(*u, "cost_usd");
  }
  return t;
}

std::vector<executed_install> successful_installs(const std::vector<nlohmann::json>& trajectory) {
  std::vector<executed_install> out;
  for (const auto& rec : trajectory) {
    const auto a = rec.find("action");
    if (a == rec.end() || !a->is_object()) continue;
    const auto mark = rec.find("install");
    const bool marked = mark != rec.end() && mark->is_object();
    if (!marked && a->value("type", "") != "install") continue;
    const auto d = rec.find("decision");
    if (d != rec.end() && d->is_object() && d->value("decision", "allow") != "allow") continue;
    const auto o = rec.find("observation");
    if (o == rec.end() || !o->is_object() || o->value("timed_out", false)) continue;
    const auto code = o->find("exit_code");
    if (code == o->end() || !code->is_number_integer() || code->get<int>() != 0) continue;
    executed_install install{rec.value("turn", 0), "", nlohmann::json::object()};
    if (marked) {
      install.command = mark->value("command", "");
      const auto index = mark->find("index");
      if (index != mark->end() && index->is_object()) install.index = *index;
    }
    if (install.command.empty()) install.command = a->value("command", "");
    if (install.command.empty() && a->contains("packages") && (*a)["packages"].is_array()) {
      install.command = "pip install";
      for (const auto& p : (*a)["packages"])
        if (p.is_string()) install.command += " " + p.get<std::string>();
    }
    if (install.command.empty()) continue;
    out.push_back(std::move(install));
  }
  return out;
}

}  // namespace r2r::report
