// SPDX-License-Identifier: MIT
// Tying a paper's candidates to the chosen workload (issue 21): a candidate becomes the Mode 2
// target only when the names it belongs to (its model/setting and its dataset) are named by the
// workload's command, a config file the command names, or the README lines around the command,
// and exactly one distinct result is so tied. An optional ranking (an `llm` stage) may pick among
// the candidates; its pick is accepted only when that candidate's deterministic tie holds, so a
// model can narrow a choice but never invent a target. Pure functions except gather_context,
// which reads files beneath the repository root without following links (safe_fs).
#pragma once

#include <r2r/paper/candidates.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::paper {

/// The names the workload is known by: squashed tokens (metrics.hpp squash) and where each came from.
struct tie_context {
  std::string command;
  std::map<std::string, std::string> names;  // squashed name -> "the command", "configs/a.yaml", "README.md:12"
  std::string text;                          // all sources, lower case (for metric mentions)
  std::vector<std::pair<std::string, std::string>> sources;  // where, text as read (for a ranking prompt)
  void add(const std::string& text, const std::string& where);
};

/// The context of `workload` (plan.workload: command, source, file, line) in the repository at
/// `tree`: the command, each config file it names (.yaml .yml .json .toml .cfg .ini .conf, read
/// beneath `tree`, at most 256 KiB each, links refused), and, for a README command, the README's
/// lines from 15 before to 5 after it. Unreadable files are skipped (never thrown).
tie_context gather_context(const std::filesystem::path& tree, const nlohmann::json& workload);

struct tie {
  bool tied = false;
  std::string why;  // "model 'ResNet-50' in the command; dataset 'CIFAR-10' in configs/c10.yaml" or why not
};

struct target_choice {
  std::optional<std::size_t> index;  // into the candidates; set only for an unambiguous tie
  std::vector<tie> ties;             // one per candidate
  std::string note;                  // why this target, or "no Mode 2 target: ..." with the candidates
};

/// `ranked` is an optional pick (an index from a ranking stage); it is honoured only when that
/// candidate is tied, and then wins over other tied candidates.
target_choice choose_target(const std::vector<candidate>& candidates, const tie_context& ctx,
                            std::optional<std::size_t> ranked = std::nullopt);

}  // namespace r2r::paper
