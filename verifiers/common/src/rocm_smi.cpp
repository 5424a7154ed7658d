// SPDX-License-Identifier: MIT
#include <r2r/verify/csv_table.hpp>
#include <r2r/verify/rocm_smi.hpp>
#include <r2r/verify/text.hpp>

#include <nlohmann/json.hpp>

#include <regex>

namespace r2r::plugins::verifier {
namespace {

std::optional<long long> known_int(std::string_view v) {
  return v == "UNKNOWN" ? std::nullopt : to_int(v);
}

card_product from_fields(std::string card, const auto& get) {
  card_product p;
  p.card = std::move(card);
  p.series = get("Card Series");
  p.model = get("Card Model");
  p.vendor = get("Card Vendor");
  p.sku = get("Card SKU");
  p.gfx_version = get("GFX Version");
  return p;
}

}  // namespace

std::vector<kfd_process> parse_rocm_smi_showpids(std::string_view text) {
  constexpr std::string_view tool = "rocm-smi --showpids";
  std::vector<kfd_process> out;
  bool in_table = false, seen = false;
  const std::string clean = strip_ansi(strip_source_header(text));  // owns the text the views point into
  for (const auto raw : split_lines(clean)) {
    const std::string_view line = trim(raw);
    if (line.starts_with("KFD process information") || line.starts_with("No KFD PIDs")) {
      seen = true;
      in_table = false;
      continue;
    }
    if (line.starts_with("PID") && line.find("PROCESS NAME") != std::string_view::npos) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.empty() || line.starts_with("=")) {
      in_table = false;
      continue;
    }
    auto f = split_ws(line);
    if (f.size() < 6) {
      throw parse_error(tool, "PID, PROCESS NAME, GPU(s), VRAM USED, SDMA USED, CU OCCUPANCY", excerpt(line),
                        "The row is cut off; capture `rocm-smi --showpids` again");
    }
    kfd_process p;
    const auto pid = to_int(f[0]);
    if (!pid) throw parse_error(tool, "a numeric PID", excerpt(f[0]), "Capture `rocm-smi --showpids` again");
    p.pid = *pid;
    std::string name;
    for (std::size_t i = 1; i + 4 < f.size(); ++i) name += (name.empty() ? "" : " ") + std::string(f[i]);
    p.name = name == "UNKNOWN" ? "" : name;
    p.gpu = std::string(f[f.size() - 4]);
    if (const auto v = known_int(f[f.size() - 3])) p.vram_bytes = static_cast<double>(*v);
    p.sdma = known_int(f[f.size() - 2]);
    p.cu_occupancy = known_int(f[f.size() - 1]);
    out.push_back(std::move(p));
  }
  if (!seen) {
    throw parse_error(tool, "a 'KFD process information:' block", excerpt(strip_source_header(text)),
                      "Run `rocm-smi --showpids` (ROCm 5.x/6.x) or use the amd-smi process parser for amd-smi");
  }
  return out;
}

std::vector<card_product> parse_rocm_smi_productname(std::string_view text) {
  constexpr std::string_view tool = "rocm-smi --showproductname";
  const std::string_view body = trim(strip_source_header(text));
  std::vector<card_product> out;
  if (body.starts_with("{")) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(body);
    } catch (const nlohmann::json::exception& e) {
      throw parse_error(tool, "one complete JSON object (--json)", e.what(), "Capture the --json output in full");
    }
    for (const auto& item : j.items()) {
      const auto& fields = item.value();  // not a structured binding: clang 14 cannot capture one
      if (!fields.is_object()) continue;
      out.push_back(from_fields(item.key(), [&](const char* k) { return fields.value(k, std::string()); }));
    }
    return out;
  }
  if (body.starts_with("device,")) {
    const csv_table t = parse_csv_table(body, tool);
    for (const auto& row : t.rows) {
      out.push_back(from_fields(row[0], [&](const char* k) {
        const auto c = t.column({k});
        return c ? row[*c] : std::string();
      }));
    }
    return out;
  }
  static const std::regex kv(R"(^(GPU\[\d+\])\s*:\s*([^:]+):\s*(.*)$)");
  std::string card;
  std::map<std::string, std::string> fields;
  const auto flush = [&] {
    if (!card.empty()) out.push_back(from_fields(card, [&](const char* k) { return fields[k]; }));
    fields.clear();
  };
  for (const auto raw : split_lines(body)) {
    const std::string line(trim(raw));
    std::smatch m;
    if (!std::regex_match(line, m, kv)) continue;
    if (m[1] != card) {
      flush();
      card = m[1];
    }
    fields[std::string(trim(m[2].str()))] = std::string(trim(m[3].str()));
  }
  flush();
  if (out.empty()) {
    throw parse_error(tool, "'GPU[n] : Card Series: ...' lines, a JSON object or a CSV table", excerpt(body),
                      "Run `rocm-smi --showproductname` (optionally with --json or --csv)");
  }
  return out;
}

std::vector<concise_row> parse_rocm_smi_concise(std::string_view text) {
  constexpr std::string_view tool = "rocm-smi (concise table)";
  std::vector<concise_row> out;
  bool header = false;
  const std::string clean = strip_ansi(strip_source_header(text));  // owns the text the views point into
  for (const auto raw : split_lines(clean)) {
    const std::string_view line = trim(raw);
    if (line.find("VRAM%") != std::string_view::npos && line.find("GPU%") != std::string_view::npos) {
      header = true;
      continue;
    }
    if (!header || line.empty() || !std::isdigit(static_cast<unsigned char>(line.front()))) continue;
    const auto f = split_ws(line);
    if (f.size() < 3) continue;
    concise_row r;
    r.device = static_cast<int>(to_int(f[0]).value_or(-1));
    r.vram_percent = std::string(f[f.size() - 2]);
    r.gpu_percent = std::string(f[f.size() - 1]);
    out.push_back(std::move(r));
  }
  if (!header) {
    throw parse_error(tool, "the Concise Info header with VRAM% and GPU%", excerpt(strip_source_header(text)),
                      "Run plain `rocm-smi` and capture its stdout");
  }
  return out;
}

}  // namespace r2r::plugins::verifier
