// SPDX-License-Identifier: MIT
// Turns a kind's schema examples into requests a live plugin can serve, in an order that makes
// sense for the kind. Schema examples are shapes ("sbx1", "/srv/r2r/patches"); against a real
// engine a sandbox's examples must act on the sandbox this run created, with host paths the run
// owns; a scheduler's job gets a state directory the run owns, and status/cancel ask about the job
// submit started. Other kinds get their examples unchanged, in the SDK's method order.
// OWNERSHIP: owns a scratch directory, removed with the session. THREADING: one thread.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::conformance {

class example_session {
 public:
  example_session(std::string kind, std::vector<std::string> methods);
  ~example_session();
  example_session(const example_session&) = delete;
  example_session& operator=(const example_session&) = delete;

  /// The methods in the order to call them (sandbox: info, create, exec, ..., destroy, cleanup).
  const std::vector<std::string>& methods() const noexcept { return methods_; }

  /// The request to send for `example` of `method`, or nullopt with `why_not` when this example
  /// must not run here (it needs a device this host lacks, or would touch sandboxes it did not create).
  std::optional<nlohmann::json> prepare(const std::string& method, const nlohmann::json& example, std::string& why_not);

  /// Extra calls that make the next examples meaningful (sandbox: a workspace file for copy_out),
  /// each with the response it must give; run right after `method` succeeded.
  std::vector<std::pair<std::string, nlohmann::json>> after(const std::string& method) const;

  /// Records what a successful call returned (sandbox: the id create gave).
  void observe(const std::string& method, const nlohmann::json& response);

  /// The sandbox this session created and has not destroyed ("" when none).
  const std::string& open_sandbox() const noexcept { return sandbox_id_; }

 private:
  std::string kind_;
  std::vector<std::string> methods_;
  std::filesystem::path scratch_;
  std::string sandbox_id_;
  int copies_out_ = 0;
  std::string job_id_;  // scheduler: the id submit gave
  int jobs_ = 0;
};

}  // namespace r2r::conformance
