// SPDX-License-Identifier: MIT
#include <r2r/report/ledger.hpp>

#include <cctype>

namespace r2r::report {

bool operator==(const ledger_entry& a, const ledger_entry& b) {
  return a.component == b.component && a.level == b.level && a.source == b.source && a.note == b.note &&
         a.turn == b.turn;
}

std::optional<int> parse_level(std::string_view text) {
  if (text.size() != 2 || text[0] != 'D' || text[1] < '0' || text[1] > '5') return std::nullopt;
  return text[1] - '0';
}

std::string level_name(int level) {
  return "D" + std::to_string(level);
}

std::string_view source_kind(const ledger_entry& e) {
  const std::string_view s = e.source;
  return s.substr(0, s.find(':'));
}

std::string normalize_component(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == '.') c = '-';
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

nlohmann::json to_json(const ledger_entry& e) {
  return {{"component", e.component},
          {"level", level_name(e.level)},
          {"source", e.source},
          {"note", e.note},
          {"turn", e.turn ? nlohmann::json(*e.turn) : nlohmann::json(nullptr)}};
}

core::result<ledger_entry> ledger_entry_from_json(const nlohmann::json& j, const std::string& where) {
  auto bad = [&](const std::string& what) {
    return core::fail(core::phase::config, where + ": " + what + "; found " + j.dump().substr(0, 200));
  };
  if (!j.is_object()) return bad("expected a ledger object {component, level, ...}");
  ledger_entry e;
  const auto c = j.find("component");
  if (c == j.end() || !c->is_string() || c->get<std::string>().empty())
    return bad("expected a non-empty string \"component\"");
  e.component = c->get<std::string>();
  const auto l = j.find("level");
  const auto level = (l != j.end() && l->is_string()) ? parse_level(l->get<std::string>()) : std::nullopt;
  if (!level) return bad("expected \"level\" one of D0, D1, D2, D3, D4, D5");
  e.level = *level;
  if (const auto s = j.find("source"); s != j.end() && s->is_string()) e.source = s->get<std::string>();
  if (const auto n = j.find("note"); n != j.end() && n->is_string()) e.note = n->get<std::string>();
  if (const auto t = j.find("turn"); t != j.end() && t->is_number_integer()) e.turn = t->get<int>();
  return e;
}

core::result<std::vector<ledger_entry>> guard_ledger(const std::vector<nlohmann::json>& trajectory) {
  std::vector<ledger_entry> out;
  for (std::size_t i = 0; i < trajectory.size(); ++i) {
    const auto& rec = trajectory[i];
    const auto d = rec.find("decision");
    if (d == rec.end() || !d->is_object()) continue;
    const auto items = d->find("ledger");
    if (items == d->end() || items->is_null()) continue;
    const std::optional<int> turn = rec.contains("turn") && rec["turn"].is_number_integer()
                                        ? std::optional<int>(rec["turn"].get<int>())
                                        : std::nullopt;
    const std::string where = "trajectory.jsonl record " + std::to_string(i + 1) + " decision.ledger";
    if (!items->is_array()) return core::fail(core::phase::config, where + ": expected an array");
    const std::string guard = d->contains("guard") && (*d)["guard"].is_string() ? (*d)["guard"].get<std::string>() : "";
    for (std::size_t k = 0; k < items->size(); ++k) {
      auto e = ledger_entry_from_json((*items)[k], where + "[" + std::to_string(k) + "]");
      if (!e) return tl::unexpected(e.error());
      e->source = "guard:" + (guard.empty() ? std::string("unknown") : guard);
      e->turn = turn;
      out.push_back(std::move(*e));
    }
  }
  return out;
}

core::result<std::vector<ledger_entry>> verifier_ledger(const nlohmann::json& response, const std::string& plugin_id) {
  std::vector<ledger_entry> out;
  const auto items = response.find("ledger");
  if (items == response.end() || items->is_null()) return out;
  const std::string where = "verifier " + plugin_id + " ledger";
  if (!items->is_array()) return core::fail(core::phase::config, where + ": expected an array", plugin_id);
  for (std::size_t k = 0; k < items->size(); ++k) {
    auto e = ledger_entry_from_json((*items)[k], where + "[" + std::to_string(k) + "]");
    if (!e) return tl::unexpected(e.error());
    e->source = "verifier:" + plugin_id;
    e->turn.reset();
    out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace r2r::report
