// SPDX-License-Identifier: MIT
// r2r.llm.replay: deterministic llm exchanges from a cassette (cassette.hpp).
//   mode "replay": answers each request with the recorded response (or recorded error) of the
//     matching exchange; a request that matches none fails with replay_mismatch and the first
//     difference from the exchange it should have matched. match "sequential" (default) expects
//     the recorded order; "unordered" takes any unused exchange with an equal request.
//   mode "record": forwards each request to the pipeline instance named `target` (through the
//     host's call_service; plugins never call each other directly), and appends the exchange to
//     the cassette with secrets redacted. It answers with what it wrote, so the recorded run and
//     its replays see byte-identical responses.
// Requests are compared in normalised form after the same redaction, so a secret a recorded
// prompt held compares equal to its [REDACTED] stand-in.
// THREADING: the host serialises calls on an instance.
#pragma once

#include "accounting.hpp"
#include "cassette.hpp"
#include "secrets.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::llm {

class replay_backend {
 public:
  struct config {
    std::string mode = "replay";  // replay | record
    std::string cassette;         // file; replay: this or `exchanges`; record: required
    nlohmann::json exchanges;     // replay: inline exchanges instead of a file
    std::string match = "sequential";
    std::string target;  // record: the pipeline instance to record
    bool overwrite = false;
    std::vector<std::string> redact_env{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"};
    std::vector<std::string> redact_patterns;
    sdk::llm::limits limits;  // replay: caps checked against the recorded usage and cost
  };

  /// Replay: loads and checks every exchange (errors name FILE:LINE). Record: creates the cassette.
  replay_backend(const config& cfg, const sdk::host& host);
  ~replay_backend();

  sdk::llm::complete_response complete(const sdk::llm::complete_request& request, sdk::call_context& ctx);
  sdk::llm::totals_response totals(const sdk::llm::totals_request& request, sdk::call_context& ctx);

  static sdk::method_table<replay_backend> methods() { return sdk::llm::methods<replay_backend>(); }

 private:
  sdk::llm::complete_response replay(const nlohmann::json& request);
  sdk::llm::complete_response record(const nlohmann::json& request, const nlohmann::json& redacted,
                                     sdk::call_context& ctx);
  /// The index of the exchange that answers `request`, or throws replay_mismatch.
  std::size_t find(const nlohmann::json& request) const;

  config config_;
  sdk::host host_;
  redactor redactor_;
  std::vector<exchange> exchanges_;
  std::vector<bool> used_;
  std::size_t next_ = 0;      // sequential: the exchange the next request must match
  std::size_t requests_ = 0;  // requests seen, for messages
  std::string source_;        // where the exchanges came from, for messages
  std::unique_ptr<cassette_writer> writer_;
  ledger ledger_;
};

void from_json(const nlohmann::json& j, replay_backend::config& c);

}  // namespace r2r::plugins::llm
