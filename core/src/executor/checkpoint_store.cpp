// SPDX-License-Identifier: MIT
#include "checkpoint_store.hpp"

#include <r2r/support/workspace_snapshot.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>

namespace r2r::executor {
namespace fs = std::filesystem;

namespace {

std::string sanitise(const std::string& label) {
  std::string out;
  for (char c : label) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isalnum(u) != 0 ? static_cast<char>(std::tolower(u)) : (c == '.' || c == '-' ? c : '_');
  }
  return out.substr(0, 48);
}

std::string turn_file(std::int64_t turn) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "turn-%06lld.tar", static_cast<long long>(turn));
  return buf;
}

}  // namespace

nlohmann::json checkpoint_record::to_json() const {
  return {{"label", label}, {"name", name}, {"image", image}, {"archive", archive}, {"turn", turn}};
}

checkpoint_record checkpoint_record::from_json(const nlohmann::json& j) {
  checkpoint_record r;
  r.label = j.value("label", std::string());
  r.name = j.value("name", std::string());
  r.image = j.value("image", std::string());
  r.archive = j.value("archive", std::string());
  r.turn = j.value("turn", std::int64_t{-1});
  return r;
}

checkpoint_store::checkpoint_store(sandbox_driver& driver, fs::path run_dir)
    : driver_(driver), run_dir_(std::move(run_dir)) {}

core::result<void> checkpoint_store::archive_workspace(const fs::path& file) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.parent_path() / ("." + file.filename().string() + ".tmp");
  try {
    tarball::take_snapshot(driver_.workspace(), tmp);
  } catch (const std::exception& e) {
    return core::fail(core::phase::io, std::string("cannot archive the workspace: ") + e.what(), {}, tmp.string());
  }
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!synced || ::rename(tmp.c_str(), file.c_str()) != 0) {
    return core::fail(core::phase::io, "cannot store the workspace archive", {}, file.string());
  }
  return {};
}

core::result<checkpoint_record> checkpoint_store::take(const std::string& label, std::int64_t turn) {
  checkpoint_record r;
  r.label = label;
  r.turn = turn;
  r.name = (turn < 0 ? std::string("start") : "t" + std::to_string(turn)) + "-" + sanitise(label);
  r.archive = "checkpoints/" + r.name + ".tar";
  auto image = driver_.checkpoint(r.name);
  if (!image) return tl::unexpected(image.error());
  r.image = *image;
  if (auto a = archive_workspace(run_dir_ / r.archive); !a) return tl::unexpected(a.error());
  records_.push_back(r);
  return r;
}

core::result<checkpoint_record> checkpoint_store::rollback(const std::string& label) {
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    if (it->label != label) continue;
    if (driver_.has_checkpoint(it->name)) {
      if (auto r = driver_.rollback(it->name); !r) return tl::unexpected(r.error());
      return *it;
    }
    if (!it->image.empty() && it->image != driver_.image()) {
      if (auto c = driver_.create(it->image); !c) return tl::unexpected(c.error());
    }
    if (auto r = restore(it->archive); !r) return tl::unexpected(r.error());
    return *it;
  }
  std::string known;
  for (const auto& l : labels()) known += (known.empty() ? "" : ", ") + l;
  return core::fail(core::phase::run, "no checkpoint labelled '" + label +
                                          "'; checkpoints: " + (known.empty() ? std::string("none") : known));
}

void checkpoint_store::remember(checkpoint_record record) {
  records_.push_back(std::move(record));
}

std::vector<std::string> checkpoint_store::labels() const {
  std::vector<std::string> out;
  for (const auto& r : records_) out.push_back(r.label);
  return out;
}

core::result<std::string> checkpoint_store::snapshot(std::int64_t turn) {
  const std::string name = "state/" + turn_file(turn);
  if (auto a = archive_workspace(run_dir_ / name); !a) return tl::unexpected(a.error());
  return name;
}

core::result<void> checkpoint_store::restore(const std::string& archive) {
  try {
    tarball::restore_snapshot(run_dir_ / archive, driver_.workspace());
  } catch (const std::exception& e) {
    return core::fail(core::phase::io, std::string("cannot restore the workspace: ") + e.what(), {},
                      (run_dir_ / archive).string());
  }
  return {};
}

void checkpoint_store::prune_snapshots(const std::string& keep) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir_ / "state", ec)) {
    const auto rel = "state/" + entry.path().filename().string();
    if (rel != keep && entry.path().filename().string().rfind("turn-", 0) == 0) fs::remove(entry.path(), ec);
  }
}

}  // namespace r2r::executor
