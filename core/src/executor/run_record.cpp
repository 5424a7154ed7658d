// SPDX-License-Identifier: MIT
#include "run_record.hpp"

#include <cstdio>
#include <fstream>

namespace r2r::executor {

core::result<std::string> file_hash(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(core::phase::io, "cannot read the pipeline file", {}, file.string());
  std::uint64_t h = 14695981039346656037ULL;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 1099511628211ULL;
    }
  }
  char text[40];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return std::string(text);
}

nlohmann::json options_to_json(const run_options& o) {
  return {{"plan", o.plan},
          {"image", o.image},
          {"mode", o.mode},
          {"arch", o.arch},
          {"caps",
           {{"max_turns", o.caps.max_turns},
            {"max_seconds", o.caps.max_seconds},
            {"max_tokens", o.caps.max_tokens},
            {"max_usd", o.caps.max_usd}}},
          {"compaction", {{"max_bytes", o.compaction.max_bytes}, {"head_fraction", o.compaction.head_fraction}}},
          {"stuck", {{"hint_after", o.stuck.hint_after}, {"stop_after", o.stuck.stop_after}}},
          {"checkpoints",
           {{"milestones", o.checkpoints.milestones},
            {"rollback_failed_risky", o.checkpoints.rollback_failed_risky},
            {"before_risky", o.checkpoints.before_risky}}},
          {"command_timeout_s", o.command_timeout_s},
          {"history_turns", o.history_turns},
          {"sandbox_create", o.sandbox_create},
          {"sandbox_stage", o.sandbox_stage}};
}

core::result<run_options> options_from_json(const nlohmann::json& j) {
  try {
    run_options o;
    o.plan = j.at("plan");
    o.image = j.at("image").get<std::string>();
    o.mode = j.at("mode").get<int>();
    o.arch = j.at("arch").get<std::string>();
    const auto& c = j.at("caps");
    o.caps.max_turns = c.at("max_turns").get<std::int64_t>();
    o.caps.max_seconds = c.at("max_seconds").get<double>();
    o.caps.max_tokens = c.at("max_tokens").get<std::int64_t>();
    o.caps.max_usd = c.at("max_usd").get<double>();
    o.compaction.max_bytes = j.at("compaction").at("max_bytes").get<std::size_t>();
    o.compaction.head_fraction = j.at("compaction").at("head_fraction").get<double>();
    o.stuck.hint_after = j.at("stuck").at("hint_after").get<int>();
    o.stuck.stop_after = j.at("stuck").at("stop_after").get<int>();
    const auto& k = j.at("checkpoints");
    o.checkpoints.milestones = k.at("milestones").get<std::vector<std::string>>();
    o.checkpoints.rollback_failed_risky = k.at("rollback_failed_risky").get<bool>();
    o.checkpoints.before_risky = k.at("before_risky").get<bool>();
    o.command_timeout_s = j.at("command_timeout_s").get<double>();
    o.history_turns = j.at("history_turns").get<std::int64_t>();
    o.sandbox_create = j.value("sandbox_create", nlohmann::json::object());
    o.sandbox_stage = j.value("sandbox_stage", std::string());
    return o;
  } catch (const nlohmann::json::exception& e) {
    return core::fail(core::phase::io, std::string("run.json options are incomplete: ") + e.what() +
                                           "; the file was edited or written by another version. Start a new run.");
  }
}

}  // namespace r2r::executor
