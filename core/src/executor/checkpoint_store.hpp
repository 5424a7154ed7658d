// SPDX-License-Identifier: MIT
// Checkpoints of a run. Each one is a sandbox checkpoint (the engine's own: a committed image for
// container engines) plus a durable archive of the host workspace in RUN_DIR/checkpoints/, so a
// checkpoint taken before a crash can still be restored by the process that resumes. Also the
// per-turn workspace snapshots resume starts from (RUN_DIR/state/turn-NNNNNN.tar).
// OWNERSHIP: borrows the driver. THREADING: one thread.
#pragma once

#include "sandbox_driver.hpp"

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::executor {

struct checkpoint_record {
  std::string label;    // as the action or the executor named it
  std::string name;     // sandbox checkpoint name: t<turn>-<label, sanitised>
  std::string image;    // committed image, "" for engines without images
  std::string archive;  // relative to RUN_DIR
  std::int64_t turn = -1;

  nlohmann::json to_json() const;
  static checkpoint_record from_json(const nlohmann::json& j);
};

class checkpoint_store {
 public:
  checkpoint_store(sandbox_driver& driver, std::filesystem::path run_dir);

  core::result<checkpoint_record> take(const std::string& label, std::int64_t turn);
  /// Restores the most recent checkpoint labelled `label`: through the sandbox when the live
  /// sandbox took it, else from its archive (re-creating the sandbox on its image when it has one).
  core::result<checkpoint_record> rollback(const std::string& label);
  /// Adds a checkpoint recorded by an earlier process (resume).
  void remember(checkpoint_record record);
  const checkpoint_record* last() const { return records_.empty() ? nullptr : &records_.back(); }
  std::vector<std::string> labels() const;

  /// Archives the workspace as state/turn-<turn>.tar; returns that name relative to RUN_DIR.
  core::result<std::string> snapshot(std::int64_t turn);
  /// Replaces the workspace's contents with an archive (relative to RUN_DIR).
  core::result<void> restore(const std::string& archive);
  /// Removes state/turn-*.tar files other than `keep`.
  void prune_snapshots(const std::string& keep);

 private:
  core::result<void> archive_workspace(const std::filesystem::path& file);
  sandbox_driver& driver_;
  std::filesystem::path run_dir_;
  std::vector<checkpoint_record> records_;
};

}  // namespace r2r::executor
