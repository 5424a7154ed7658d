// SPDX-License-Identifier: MIT
#include "replay_backend.hpp"

#include "errors.hpp"
#include "json_diff.hpp"
#include "request_checks.hpp"

namespace r2r::plugins::llm {
namespace {

using nlohmann::json;

const char* const record_hint =
    " If the conversation changed on purpose, record the cassette again (mode \"record\" with the live backend as "
    "target)";

}  // namespace

void from_json(const json& j, replay_backend::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object, found " + std::string(j.type_name()));
  c = replay_backend::config{};
  c.mode = j.value("mode", c.mode);
  c.cassette = j.value("cassette", c.cassette);
  c.exchanges = j.value("exchanges", json());
  c.match = j.value("match", c.match);
  c.target = j.value("target", c.target);
  c.overwrite = j.value("overwrite", c.overwrite);
  c.redact_env = j.value("redact_env", c.redact_env);
  c.redact_patterns = j.value("redact_patterns", c.redact_patterns);
  if (auto l = j.find("limits"); l != j.end()) c.limits = l->get<sdk::llm::limits>();
  if (c.mode != "replay" && c.mode != "record") {
    throw sdk::invalid_argument("mode must be replay or record; found '" + c.mode + "'");
  }
  if (c.match != "sequential" && c.match != "unordered") {
    throw sdk::invalid_argument("match must be sequential or unordered; found '" + c.match + "'");
  }
  if (c.mode == "replay" && c.cassette.empty() == c.exchanges.is_null()) {
    throw sdk::invalid_argument("mode replay needs exactly one of `cassette` (a JSONL file) and `exchanges` (inline)");
  }
  if (c.mode == "record" && (c.target.empty() || c.cassette.empty() || !c.exchanges.is_null())) {
    throw sdk::invalid_argument(
        "mode record needs `target` (the pipeline instance to record, e.g. \"llm-live\") and `cassette` (the file to "
        "write), and no `exchanges`");
  }
}

replay_backend::replay_backend(const config& cfg, const sdk::host& host)
    : config_(cfg), host_(host), ledger_(cfg.limits) {
  redactor_.add_env(config_.redact_env);
  redactor_.add_default_patterns();
  for (const auto& pattern : config_.redact_patterns) redactor_.add_pattern(pattern);
  if (config_.mode == "record") {
    writer_ = std::make_unique<cassette_writer>(config_.cassette, config_.overwrite);
    source_ = config_.cassette;
    R2R_LOG(host_, info, "recording instance '" << config_.target << "' to " << source_);
    return;
  }
  if (!config_.cassette.empty()) {
    exchanges_ = read_cassette(config_.cassette);
    source_ = "cassette " + config_.cassette;
  } else {
    exchanges_ = exchanges_from_json(config_.exchanges, "config /exchanges");
    source_ = "the config's exchanges";
  }
  for (auto& e : exchanges_) e.request = redactor_.apply_json(e.request);
  used_.assign(exchanges_.size(), false);
  R2R_LOG(host_, debug, "replaying " << exchanges_.size() << " exchanges from " << source_);
}

replay_backend::~replay_backend() {
  if (writer_) {
    R2R_LOG(host_, info, "recorded " << writer_->written() << " exchanges to " << source_);
    return;
  }
  std::size_t unused = 0;
  for (bool u : used_) unused += u ? 0 : 1;
  if (unused > 0 && requests_ > 0) {
    R2R_LOG(host_, warn, unused << " of " << exchanges_.size() << " exchanges of " << source_ << " were not used");
  }
}

sdk::llm::complete_response replay_backend::complete(const sdk::llm::complete_request& request,
                                                     sdk::call_context& ctx) {
  check_request(request);
  const json normal = request;
  const json redacted = redactor_.apply_json(normal);
  ++requests_;
  return writer_ ? record(normal, redacted, ctx) : replay(redacted);
}

sdk::llm::totals_response replay_backend::totals(const sdk::llm::totals_request&, sdk::call_context& ctx) {
  if (writer_) return ctx.call_service(config_.target, "totals", json::object()).get<sdk::llm::totals_response>();
  return ledger_.totals();
}

std::size_t replay_backend::find(const json& request) const {
  const std::string which = "request #" + std::to_string(requests_);
  if (config_.match == "sequential") {
    if (next_ >= exchanges_.size()) {
      throw llm_error(failure::replay_mismatch,
                      which + " has no exchange left: " + source_ + " holds " + std::to_string(exchanges_.size()) +
                          " and all were used. The extra request: " + excerpt(request.dump(), 300) + "." + record_hint);
    }
    const exchange& expected = exchanges_[next_];
    if (expected.request == request) return next_;
    const auto d = first_difference(expected.request, request, "recorded", "this run");
    throw llm_error(failure::replay_mismatch, which + " does not match exchange " + std::to_string(next_ + 1) + " (" +
                                                  expected.origin + "); first difference at " +
                                                  (d->pointer.empty() ? "/" : d->pointer) + ": " + d->description +
                                                  "." + record_hint);
  }
  std::optional<std::size_t> nearest;
  std::size_t best = 0;
  for (std::size_t i = 0; i < exchanges_.size(); ++i) {
    if (used_[i]) continue;
    if (exchanges_[i].request == request) return i;
    const std::size_t agree = common_prefix_length(exchanges_[i].request, request);
    if (!nearest || agree > best) nearest = i, best = agree;
  }
  if (!nearest) {
    throw llm_error(failure::replay_mismatch,
                    which + " has no exchange left: all " + std::to_string(exchanges_.size()) + " of " + source_ +
                        " were used. The extra request: " + excerpt(request.dump(), 300) + "." + record_hint);
  }
  const auto d = first_difference(exchanges_[*nearest].request, request, "recorded", "this run");
  throw llm_error(failure::replay_mismatch, which + " matches no unused exchange of " + source_ + "; the nearest is " +
                                                exchanges_[*nearest].origin + ", first difference at " +
                                                (d->pointer.empty() ? "/" : d->pointer) + ": " + d->description + "." +
                                                record_hint);
}

sdk::llm::complete_response replay_backend::replay(const json& request) {
  const std::size_t index = find(request);
  const exchange& e = exchanges_[index];
  if (e.error) {
    used_[index] = true;
    if (config_.match == "sequential") next_ = index + 1;
    throw sdk::error(e.error->status, e.error->message);
  }
  auto response = e.response->get<sdk::llm::complete_response>();
  ledger_.admit_known(response.usage, response.cost_usd);  // a refused call leaves the exchange unused
  used_[index] = true;
  if (config_.match == "sequential") next_ = index + 1;
  ledger_.record(response.usage, response.cost_usd);
  return response;
}

sdk::llm::complete_response replay_backend::record(const json& request, const json& redacted, sdk::call_context& ctx) {
  exchange e;
  e.request = redacted;
  json answer;
  try {
    answer = ctx.call_service(config_.target, "complete", request);
  } catch (const sdk::error& failure_seen) {
    e.error = recorded_error{failure_seen.status(), redactor_.apply(std::string(failure_seen.what()))};
    writer_->append(e);
    throw sdk::error(e.error->status, e.error->message);
  }
  e.response = redactor_.apply_json(json(answer.get<sdk::llm::complete_response>()));
  writer_->append(e);
  return e.response->get<sdk::llm::complete_response>();
}

}  // namespace r2r::plugins::llm
