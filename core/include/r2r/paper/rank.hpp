// SPDX-License-Identifier: MIT
// The optional model ranking of a paper's candidates (issue 21). When the deterministic tie leaves
// several candidates tied to the workload and no target, a model (the pipeline's `paper-rank` llm
// instance) may be asked which one the workload reproduces. Contracts:
//   - the prompt lists the candidates by index and the workload (command, config files, README
//     run); it is pinned by a golden file (tests/paper/golden/);
//   - the reply must be strict JSON, `{"index": N, "reason": "..."}`; only those two keys are read,
//     so a reply can name a candidate but never carry a value into the plan;
//   - the pick then goes through choose_target(..., ranked), which accepts it only when that
//     candidate's deterministic tie holds.
// Pure functions.
#pragma once

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/target.hpp>

#include <tl/expected.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::paper {

/// The most candidates a prompt lists (the first ones, by index).
inline constexpr std::size_t max_ranked_candidates = 40;

struct rank_prompt {
  std::string system;
  std::string user;
};

/// True when a model may help: no target was chosen and at least two candidates are tied.
bool worth_ranking(const target_choice& choice);

rank_prompt make_rank_prompt(const std::vector<candidate>& candidates, const target_choice& choice,
                             const tie_context& ctx);

struct rank_pick {
  std::size_t index = 0;
  std::string reason;  // at most 300 bytes, valid UTF-8
};

/// What a model answered: its text and the model's name.
struct model_answer {
  std::string text;
  std::string model;
};

/// Sends one system prompt and one user message to a model; the error says why no answer came.
using model_call =
    std::function<tl::expected<model_answer, std::string>(const std::string& system, const std::string& user)>;

/// The reply text as strict JSON (white space around it allowed, nothing else): an object with a
/// non-negative integer `index` and a string `reason`. The error says what was wrong.
tl::expected<rank_pick, std::string> parse_rank_reply(std::string_view reply);

}  // namespace r2r::paper
