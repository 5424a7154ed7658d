// SPDX-License-Identifier: MIT
#include "agentic_converter.hpp"

#include "compile_log.hpp"
#include "degradation.hpp"
#include "hazard_scanner.hpp"
#include "prompt.hpp"
#include "region_edit.hpp"

#include <r2r/convert/file_io.hpp>
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/transform_files.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace r2r::plugins::converter {
namespace {

namespace fs = std::filesystem;
using sdk::converter::diagnostic;
using sdk::converter::hazard;

int severity_rank(std::string_view s) {
  if (s == "note") return 0;
  if (s == "warning") return 1;
  if (s == "error") return 2;
  return -1;
}

std::string truncate(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\n[... " + std::to_string(s.size() - cut) + " more bytes]";
}

std::string to_utf8(std::string text) {
  for (std::size_t at = plugins::converter::first_invalid_utf8(text); at != std::string::npos;
       at = plugins::converter::first_invalid_utf8(text)) {
    text[at] = '?';
  }
  return text;
}

diagnostic make_diag(const std::string& file, std::int64_t line, std::string severity, std::string name,
                     std::string message, std::string hint) {
  diagnostic d;
  d.file = file;
  d.line = line;
  d.column = 1;
  d.severity = std::move(severity);
  d.category = name == "agentic-edit" ? "manual_port" : "tool";
  d.name = std::move(name);
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

sdk::llm::message text_message(std::string role, std::string text) {
  return sdk::llm::message{std::move(role), {sdk::llm::content_block::make_text(std::move(text))}};
}

/// Spending over one request, checked before each llm call.
struct budget {
  std::int64_t tokens = 0;
  double cost = 0;
};

}  // namespace

void from_json(const nlohmann::json& j, agentic_converter::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  const agentic_converter::config d;
  c.llm_service = j.value("llm_service", d.llm_service);
  c.source_extensions = j.value("source_extensions", d.source_extensions);
  c.min_severity = j.value("min_severity", d.min_severity);
  c.context_lines = j.value("context_lines", d.context_lines);
  c.max_attempts = j.value("max_attempts", d.max_attempts);
  if (j.contains("max_total_tokens")) c.max_total_tokens = j.at("max_total_tokens").get<std::int64_t>();
  if (j.contains("max_cost_usd")) c.max_cost_usd = j.at("max_cost_usd").get<double>();
  c.max_tokens_per_call = j.value("max_tokens_per_call", d.max_tokens_per_call);
  c.allow_degradations = j.value("allow_degradations", d.allow_degradations);
  c.hipcc = j.value("hipcc", d.hipcc);
  c.search_dirs = j.value("search_dirs", d.search_dirs);
  c.default_arch = j.value("default_arch", d.default_arch);
  c.flags = j.value("flags", d.flags);
  c.timeout_seconds = j.value("timeout_seconds", d.timeout_seconds);
  c.max_log_bytes = j.value("max_log_bytes", d.max_log_bytes);
  c.max_file_bytes = j.value("max_file_bytes", d.max_file_bytes);
  if (const auto n = j.find("numerics"); n != j.end()) {
    if (!n->is_object()) throw sdk::invalid_argument("numerics must be a JSON object");
    c.numerics.enabled = n->value("enabled", d.numerics.enabled);
    c.numerics.nvcc = n->value("nvcc", d.numerics.nvcc);
    c.numerics.search_dirs = n->value("search_dirs", d.numerics.search_dirs);
    c.numerics.spec_suffix = n->value("spec_suffix", d.numerics.spec_suffix);
    c.numerics.timeout_seconds = n->value("timeout_seconds", d.numerics.timeout_seconds);
  }
}

agentic_converter::agentic_converter(const config& cfg, const sdk::host& host)
    : config_(cfg), min_rank_(severity_rank(cfg.min_severity)), host_(host) {
  if (min_rank_ < 0) {
    throw sdk::invalid_argument("min_severity must be note, warning or error; found '" + cfg.min_severity + "'");
  }
  if (cfg.max_attempts < 1) throw sdk::invalid_argument("max_attempts must be at least 1");
  if (cfg.context_lines < 0) throw sdk::invalid_argument("context_lines must not be negative");
  static const std::regex gfx("^gfx[0-9a-f]+(:[a-z0-9_]+[+-])*$");
  for (const auto& arch : cfg.default_arch) {
    if (!std::regex_match(arch, gfx)) {
      throw sdk::invalid_argument("default_arch: expected gfx target names like gfx90a, found '" + arch + "'");
    }
  }
}

hipcc_toolchain& agentic_converter::toolchain() {
  if (!toolchain_) {
    toolchain_ = hipcc_toolchain::find(config_.hipcc, config_.search_dirs);
    if (!toolchain_) {
      throw sdk::unavailable("hipcc ('" + config_.hipcc +
                             "') was not found, so no rewrite can be checked; install ROCm's hipcc or set `hipcc` in "
                             "the r2r.converter.agentic config");
    }
  }
  return *toolchain_;
}

const plugins::converter::numerics::device_tools& agentic_converter::devices() {
  if (!devices_)
    devices_ =
        plugins::converter::numerics::probe_devices(config_.numerics.nvcc, config_.hipcc, config_.numerics.search_dirs);
  return *devices_;
}

sdk::converter::convert_response agentic_converter::convert(const sdk::converter::convert_request& request,
                                                            sdk::call_context& ctx) {
  const std::vector<std::string> archs = request.target.arch.empty() ? config_.default_arch : request.target.arch;
  const auto cancelled = [&ctx] { return ctx.cancelled(); };
  plugins::converter::scratch_dir scratch("r2r-agentic");
  budget spent;
  std::string llm_budget_spent;  // set once the llm instance refuses a call for its budget
  std::vector<hazard> remaining;
  std::vector<sdk::converter::build_result> builds;
  int unit_index = 0;

  // Compiles `text` (as `path`) for every target; the first failure's log, or empty when all pass.
  const auto compile_all = [&](const std::string& path, const std::string& text,
                               std::vector<sdk::converter::build_result>& out) -> std::string {
    hipcc_toolchain& hipcc = toolchain();
    const fs::path dir = scratch.path() / ("unit" + std::to_string(unit_index++));
    plugins::converter::write_output(dir.string(), path, text);
    const fs::path source = dir / path;
    std::vector<std::string> includes{source.parent_path().string()};
    if (!request.root.empty()) {
      includes.push_back((fs::path(request.root) / fs::path(path).parent_path()).string());
      includes.push_back(request.root);
    }
    for (const auto& arch : archs) {
      sdk::converter::build_result b;
      b.file = path;
      b.arch = arch;
      const auto r = hipcc.compile(source.string(), (dir / (arch + ".o")).string(), arch, includes, config_.flags,
                                   std::chrono::seconds(config_.timeout_seconds), cancelled, b.command);
      if (r.cancelled) throw sdk::cancelled();
      b.seconds = r.seconds;
      const std::string log = to_utf8(truncate(r.start_error + r.err + r.out, config_.max_log_bytes));
      if (!r.ok()) {
        const compile_verdict v = classify_compile_failure(log);
        if (v.failure_class == "target_unknown") {
          b.status = "not_checkable_here";
          b.failure_class = "target_unknown";
          b.message = "hipcc cannot compile for " + arch + ": not checkable here, so the rewrite is not accepted";
        } else {
          b.status = "failed";
          b.failure_class = v.failure_class;
          b.message = v.message;
        }
        b.log = log;
        out.push_back(std::move(b));
        return "hipcc --offload-arch=" + arch + " failed:\n" + log;
      }
      b.status = "passed";
      b.failure_class = "none";
      b.message = "compiled for " + arch;  // the numerics outcome is appended once the gate decided
      out.push_back(std::move(b));
    }
    return {};
  };

  // The numerical gate for `path` when a harness spec is beside its original (base_root) or its
  // input (root); nullopt when there is none or the gate is disabled. A bad spec is an error
  // diagnostic, not a verdict.
  // `why_not` says why there is no verdict when it returns nullopt.
  const auto run_numerics = [&](const std::string& path, const std::string& candidate,
                                plugins::converter::conversion& result,
                                std::string& why_not) -> std::optional<plugins::converter::numerics::gate_result> {
    const fs::path rel(path);
    const fs::path spec_rel = rel.parent_path() / (rel.stem().string() + config_.numerics.spec_suffix);
    if (!config_.numerics.enabled) {
      why_not = "the numerical gate is disabled (numerics.enabled is false)";
      return std::nullopt;
    }
    why_not = "no harness spec " + spec_rel.string() + " beside the file";
    std::optional<fs::path> spec_path;
    for (const auto& dir : {request.base_root, request.root}) {
      std::error_code ec;
      if (!dir.empty() && fs::is_regular_file(fs::path(dir) / spec_rel, ec)) {
        spec_path = fs::path(dir) / spec_rel;
        break;
      }
    }
    if (!spec_path) return std::nullopt;
    plugins::converter::numerics::gate_input in;
    in.original_name = rel.filename().string();
    if (!request.base_root.empty()) {
      in.original_text = plugins::converter::read_base(request.base_root, path, config_.max_file_bytes).value_or("");
    }
    in.rewritten_name = in.original_name;
    in.rewritten_text = candidate;
    in.archs = archs;
    if (!request.root.empty()) in.include_dirs.push_back((fs::path(request.root) / rel.parent_path()).string());
    try {
      std::ifstream spec_in(*spec_path, std::ios::binary);
      in.spec = nlohmann::json::parse(spec_in);
      const fs::path dir = scratch.path() / ("numerics" + std::to_string(unit_index++));
      fs::create_directories(dir);
      return plugins::converter::numerics::run_gate(in, devices(), dir,
                                                    std::chrono::seconds(config_.numerics.timeout_seconds), cancelled);
    } catch (const std::exception& e) {
      if (ctx.cancelled()) throw sdk::cancelled();
      why_not = "the harness spec could not be used (see the numerics-spec diagnostic)";
      result.diagnostics.push_back(make_diag(path, 1, "error", "numerics-spec",
                                             "the numerical gate could not run: " + std::string(e.what()),
                                             "fix " + spec_path->string()));
      return std::nullopt;
    }
  };

  std::map<std::string, const std::vector<hazard>*> passed;  // files[].hazards of the request
  for (const auto& f : request.files)
    if (f.hazards) passed[f.path] = &*f.hazards;

  // The file's hazards: those the request passed when they fit the text, else a scan here.
  const auto hazards_of = [&](const plugins::converter::loaded_input& input, plugins::converter::conversion& result,
                              bool& failed) {
    failed = false;
    const auto it = passed.find(input.path);
    if (it != passed.end()) {
      const auto lines = static_cast<std::int64_t>(agentic::split_lines(input.text).size());
      std::string misfit;
      for (const auto& h : *it->second) {
        if (h.file != input.path) misfit = "a hazard names file '" + h.file + "'";
        if (h.line < 1 || h.line > lines) misfit = "hazard line " + std::to_string(h.line) + " is past the end";
      }
      if (misfit.empty()) {
        result.stats["hazards_from_request"] += static_cast<std::int64_t>(it->second->size());
        return *it->second;
      }
      result.diagnostics.push_back(
          make_diag(input.path, 1, "warning", "hazards-stale",
                    "the hazards passed with the file do not fit its text (" + misfit + "), so it was scanned again",
                    "run the hazard scan right before this stage"));
    }
    const auto scan = scan_hazards(input.path, input.text);
    failed = scan.failed;
    result.stats["hazards_scanned"] += static_cast<std::int64_t>(scan.hazards.size());
    return scan.hazards;
  };

  const auto transform = [&](const plugins::converter::loaded_input& input, plugins::converter::file_kind what) {
    plugins::converter::conversion result;
    result.text = input.text;
    if (what != plugins::converter::file_kind::source) return result;
    bool scan_failed = false;
    std::vector<hazard> hazards;
    for (const auto& h : hazards_of(input, result, scan_failed))
      if (severity_rank(h.severity) >= min_rank_) hazards.push_back(h);
    if (scan_failed || hazards.empty()) {
      remaining.insert(remaining.end(), hazards.begin(), hazards.end());
      return result;
    }
    toolchain();  // no llm call (and no spending) when no rewrite could be checked
    const auto line_count = static_cast<std::int64_t>(agentic::split_lines(input.text).size());
    const auto regions = agentic::hazard_regions(hazards, line_count, config_.context_lines);
    auto llm_request =
        agentic::first_request(input.path, input.text, hazards, regions, archs, config_.max_tokens_per_call);
    std::string stop;  // why the loop ended without an accepted rewrite
    std::int64_t attempts = 0;
    for (; attempts < config_.max_attempts; ++attempts) {
      ctx.throw_if_cancelled();
      if (config_.max_total_tokens && spent.tokens >= *config_.max_total_tokens) {
        stop = "token budget spent: " + std::to_string(spent.tokens) + " of max_total_tokens " +
               std::to_string(*config_.max_total_tokens);
        break;
      }
      if (!llm_budget_spent.empty()) {
        stop = llm_budget_spent;
        break;
      }
      if (config_.max_cost_usd && spent.cost >= *config_.max_cost_usd) {
        stop = "cost budget spent: $" + std::to_string(spent.cost) + " of max_cost_usd $" +
               std::to_string(*config_.max_cost_usd);
        break;
      }
      sdk::llm::complete_response answer;
      try {
        answer = ctx.call_service(config_.llm_service, "complete", llm_request).get<sdk::llm::complete_response>();
      } catch (const sdk::error& e) {
        if (e.status() == R2R_ERR_UNAVAILABLE || e.status() == R2R_ERR_CANCELLED) throw;
        // The llm instance's own caps (its error reaches us wrapped by the host's call chain).
        const std::string message = e.what();
        if (const auto at = message.find("budget_exceeded: "); at != std::string::npos) {
          // No later file of this request gets a call either.
          llm_budget_spent = "the llm instance '" + config_.llm_service + "' refused the call, its budget is spent (" +
                             message.substr(at) + "); raise its `limits` to continue";
          stop = llm_budget_spent;
          break;
        }
        stop = std::string("the llm call failed: ") + e.what();
        break;
      }
      spent.tokens += answer.usage.all_input() + answer.usage.output_tokens;
      spent.cost += answer.cost_usd;
      result.stats["llm_tokens"] += answer.usage.all_input() + answer.usage.output_tokens;
      llm_request.messages.push_back(text_message("assistant", answer.text()));
      const auto parsed = agentic::parse_answer(answer.text(), regions);
      std::string kind;
      std::string problem;
      std::string candidate;
      std::string degradation;
      if (!parsed.problem.empty()) {
        kind = "unusable answer";
        problem = parsed.problem;
      } else {
        candidate = agentic::apply_edits(input.text, parsed.edits);
        degradation = agentic::find_degradation(input.text, candidate);
        if (!degradation.empty() && !config_.allow_degradations) {
          kind = "refused degradation";
          problem = degradation;
          result.stats["agentic_refused"] += 1;
          result.diagnostics.push_back(make_diag(input.path, parsed.edits.front().range.first, "warning",
                                                 "agentic-refused", "refused a rewrite: " + degradation,
                                                 "set allow_degradations to accept such rewrites as degradations"));
        }
      }
      std::vector<sdk::converter::build_result> attempt_builds;
      if (kind.empty()) {
        const std::string log = compile_all(input.path, candidate, attempt_builds);
        if (!log.empty()) {
          kind = "compile error";
          problem = log;
        }
      }
      std::optional<plugins::converter::numerics::gate_result> gate;
      std::string no_gate_why;
      if (kind.empty()) {
        gate = run_numerics(input.path, candidate, result, no_gate_why);
        if (gate && gate->verdict == "fail") {
          kind = "numerical mismatch";
          problem = gate->summary();
        }
      }
      if (!kind.empty()) {
        stop = kind + ": " + truncate(problem, 400);
        llm_request.messages.push_back(text_message("user", agentic::feedback_message(kind, problem)));
        continue;
      }
      // Accepted. What the numerical gate actually did, as the build results and edit notes say it.
      const std::string numerics_note =
          gate ? (gate->verdict == "pass" ? std::string("numerics matched the CUDA original")
                                          : "numerics " + gate->verdict + " (reference: " + gate->reference + ")")
               : "numerics unchecked: " + no_gate_why;
      for (std::size_t i = 0; i < attempt_builds.size(); ++i) {
        auto& b = attempt_builds[i];
        if (b.status != "passed") continue;
        b.message += "; " + numerics_note;
        if (gate && i < gate->candidate.size()) b.message += "; rewrite: " + gate->candidate[i];
      }
      for (const auto& e : parsed.edits) {
        std::string fixes;
        for (const auto& h : hazards) {
          if (h.line >= e.range.first && h.line <= e.range.last) {
            fixes += (fixes.empty() ? "" : ", ") + h.rule + " (line " + std::to_string(h.line) + ")";
          }
        }
        if (fixes.empty()) fixes = "none directly (context of a hazard region)";
        result.diagnostics.push_back(make_diag(input.path, e.range.first, "note", "agentic-edit",
                                               "lines " + std::to_string(e.range.first) + "-" +
                                                   std::to_string(e.range.last) +
                                                   " rewritten by the llm; fixes: " + fixes,
                                               "review the diff; " + numerics_note));
      }
      if (gate) {
        result.stats[gate->verdict == "pass" ? "numerics_pass" : "numerics_unchecked"] += 1;
        result.diagnostics.push_back(
            make_diag(input.path, parsed.edits.front().range.first, gate->verdict == "pass" ? "note" : "warning",
                      "numerics", gate->summary(),
                      gate->verdict == "pass" ? "outputs match the CUDA original on the harness inputs"
                                              : "run the gate where an NVIDIA GPU and a ROCm device are present"));
      }
      if (!degradation.empty()) {
        result.stats["degradations"] += 1;
        result.diagnostics.push_back(make_diag(input.path, parsed.edits.front().range.first, "warning", "degradation",
                                               "accepted as a degradation (allow_degradations): " + degradation,
                                               "restore the kernel before relying on this port"));
      }
      result.text = candidate;
      result.changed = candidate != input.text;
      result.stats["agentic_edits"] += static_cast<std::int64_t>(parsed.edits.size());
      builds.insert(builds.end(), attempt_builds.begin(), attempt_builds.end());
      for (const auto& h : scan_hazards(input.path, candidate).hazards)
        if (severity_rank(h.severity) >= min_rank_) remaining.push_back(h);
      result.stats["agentic_attempts"] = attempts + 1;
      return result;
    }
    if (attempts == config_.max_attempts) {
      stop = "attempt budget spent: max_attempts " + std::to_string(config_.max_attempts) + "; last problem: " + stop;
    }
    result.stats["agentic_attempts"] = attempts;
    result.diagnostics.push_back(make_diag(input.path, hazards.front().line, "error", "agentic-stopped",
                                           "agentic rewrite stopped without an accepted rewrite: " + stop,
                                           "port the hazards by hand or raise the budget"));
    remaining.insert(remaining.end(), hazards.begin(), hazards.end());
    return result;
  };

  plugins::converter::transform_options options;
  options.converter_id = "r2r.converter.agentic";
  options.source_extensions = config_.source_extensions;
  options.build_files = false;
  options.max_file_bytes = config_.max_file_bytes;
  auto response =
      plugins::converter::transform_files(request, options, transform, [&ctx] { ctx.throw_if_cancelled(); });
  response.hazards = std::move(remaining);
  response.builds = std::move(builds);
  if (toolchain_) response.tool = sdk::converter::tool_info{"hipcc", toolchain_->path(), toolchain_->version()};
  plugins::converter::summarize(response);
  return response;
}

}  // namespace r2r::plugins::converter
