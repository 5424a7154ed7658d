// SPDX-License-Identifier: MIT
// The causal memory: error signature -> fix (an action) -> outcome, with provenance, kept across runs
// in one SQLite file. hints() ranks remembered fixes for a signature: the exact signature first, then
// similar ones (token Jaccard), weighted by a recency-weighted success rate and a preference for the
// same arch and image. Hints are advice for the policy (propose request `hints`); they never bypass
// guards: a remembered fix is proposed as an action like any other and judged by the guard chain.
//
// The file: WAL journal, a busy timeout, schema versioned with PRAGMA user_version (migrations run
// in one transaction on open) and marked with PRAGMA application_id, so concurrent runs (processes)
// may record into one file. A file that is not SQLite, is another application's database, or has a
// newer schema is refused with an error that says what to do.
// THREADING: one object per thread; it owns its connection (moveable, not copyable).
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/sdk/kinds/policy.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace r2r::memory {

template <class T>
using result = core::result<T>;

enum class outcome { fixed, not_fixed, made_worse };
std::string_view to_string(outcome o) noexcept;

/// Where a record comes from.
struct provenance {
  std::string run_id;
  std::string repository;
  std::string commit;
  std::string image;
  std::string arch;
  std::chrono::system_clock::time_point time = std::chrono::system_clock::now();
};

/// What the hints are for: the current run's arch and image are preferred.
struct query_context {
  std::string arch;
  std::string image;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

class causal_memory {
 public:
  static constexpr int schema_version = 1;

  /// Opens (creating when absent) the memory at `path`, migrating an older schema. Errors (phase
  /// io): unreadable or corrupt file, another application's database, a newer schema.
  static result<causal_memory> open(const std::string& path);

  causal_memory(causal_memory&&) noexcept = default;
  causal_memory& operator=(causal_memory&&) noexcept = default;
  ~causal_memory();

  /// Appends one observation. `fix_action` must be an action object with a "type".
  result<void> record(const std::string& signature, const nlohmann::json& fix_action, outcome result_of_fix,
                      const provenance& from);

  /// Up to `k` hints (source "memory", `fix` set) for `signature`, best first. Only fixes that
  /// fixed a signature at least once are hinted; their text gives the counts.
  result<std::vector<sdk::policy::hint>> hints(const std::string& signature, const query_context& context,
                                               std::size_t k) const;

  const std::string& path() const noexcept { return path_; }

 private:
  struct closer {
    void operator()(sqlite3* db) const noexcept;
  };
  causal_memory(std::unique_ptr<sqlite3, closer> db, std::string path);

  std::unique_ptr<sqlite3, closer> db_;
  std::string path_;
};

/// Lower-case alphanumeric tokens of a signature ("missing_python_module:timm" -> missing, python,
/// module, timm).
std::vector<std::string> signature_tokens(std::string_view signature);
/// |A ∩ B| / |A ∪ B| of the token sets; 1 for two empty sets.
double jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace r2r::memory
