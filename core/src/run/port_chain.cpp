// SPDX-License-Identifier: MIT
#include "port_chain.hpp"

#include <r2r/core/stage_runner.hpp>

#include <algorithm>

#include <chrono>
#include <map>

namespace r2r::run {
namespace {

using nlohmann::json;

int status_rank(const std::string& status) {
  if (status == "error") return 3;
  if (status == "converted") return 2;
  if (status == "unchanged") return 1;
  return 0;  // skipped
}

struct file_entry {
  std::string status = "skipped";
  json stages = json::object();
  json diagnostics = json::array();
  std::string diff;
  // The hazards of the file's current text, from the last stage that scanned it; null when its
  // text changed after the last scan (or it was never scanned). Passed on as files[].hazards.
  json current_hazards;
};

struct chain_state {
  std::map<std::string, file_entry> files;  // sorted by path: deterministic report and patch
  json hazards = json::array();
  json builds = json::array();
  json stages = json::array();
};

void add_counts(json& into, const json& from) {
  if (!from.is_object()) return;
  for (const auto& [key, value] : from.items()) {
    if (value.is_number_integer()) into[key] = into.value(key, std::int64_t{0}) + value.get<std::int64_t>();
  }
}

void merge_response(chain_state& state, const std::string& stage, const json& response) {
  // A stage that reports hazards scanned every file it did not skip: its list (possibly empty) is
  // the file's current one. Any other stage that changes a file makes the earlier list stale.
  const json& hazards = response.value("hazards", json::array());
  const bool scanner = !hazards.empty();
  for (const auto& f : response.at("files")) {
    const std::string path = f.at("path").get<std::string>();
    const std::string status = f.at("status").get<std::string>();
    auto& current = state.files[path].current_hazards;
    if (scanner && (status == "converted" || status == "unchanged")) {
      current = json::array();
    } else if (status != "unchanged" && status != "skipped") {
      current = nullptr;
    }
  }
  for (const auto& h : hazards) {
    const auto it = state.files.find(h.value("file", std::string()));
    if (it != state.files.end() && it->second.current_hazards.is_array()) it->second.current_hazards.push_back(h);
  }
  for (const auto& f : response.at("files")) {
    const std::string path = f.at("path").get<std::string>();
    auto& entry = state.files[path];
    const std::string status = f.at("status").get<std::string>();
    if (status_rank(status) > status_rank(entry.status)) entry.status = status;
    if (status != "skipped")
      entry.stages[stage] = json{{"status", status}, {"stats", f.value("stats", json::object())}};
    for (auto d : f.value("diagnostics", json::array())) {
      d["stage"] = stage;
      entry.diagnostics.push_back(std::move(d));
    }
    // Diffs are cumulative against the source (base_root): the last one is the file's whole change.
    if (const std::string diff = f.value("diff", std::string()); !diff.empty()) entry.diff = diff;
  }
  for (auto h : response.value("hazards", json::array())) {
    h["stage"] = stage;
    state.hazards.push_back(std::move(h));
  }
  for (auto b : response.value("builds", json::array())) {
    b["stage"] = stage;
    state.builds.push_back(std::move(b));
  }
}

json make_request(const chain_state& state, const port_inputs& in, std::size_t begin, std::size_t end) {
  json files = json::array();
  for (std::size_t i = begin; i < end; ++i) {
    json file{{"path", in.files[i]}};
    const auto it = state.files.find(in.files[i]);
    if (it != state.files.end() && it->second.current_hazards.is_array()) file["hazards"] = it->second.current_hazards;
    files.push_back(std::move(file));
  }
  json target = json::object();
  if (!in.rocm.empty()) target["rocm"] = in.rocm;
  if (!in.arch.empty()) target["arch"] = in.arch;
  return json{{"files", std::move(files)},       {"root", in.tree.string()}, {"out_root", in.tree.string()},
              {"base_root", in.source.string()}, {"return_text", false},     {"target", std::move(target)}};
}

core::result<void> run_member(chain_state& state, const port_inputs& in,
                              const core::pipeline_session::stage_member& member) {
  const auto start = std::chrono::steady_clock::now();
  const std::string& name = member.stage->name;
  json stage{{"name", name}, {"plugin", member.instance->info().id}, {"status", "ok"}, {"summary", json::object()}};
  const auto finish = [&] {
    stage["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.stages.push_back(stage);
  };
  const std::size_t batch = in.batch_size == 0 ? 1 : in.batch_size;
  for (std::size_t begin = 0; begin < in.files.size(); begin += batch) {
    const std::size_t end = std::min(in.files.size(), begin + batch);
    auto response = member.instance->call("convert", make_request(state, in, begin, end));
    if (!response) {
      if (response.error().status == R2R_ERR_UNAVAILABLE) {
        // A converter whose tool is not installed here: say so, and let the rest of the chain run.
        stage["status"] = "unavailable";
        stage["message"] = response.error().message;
        finish();
        return {};
      }
      stage["status"] = "failed";
      stage["message"] = response.error().message;
      finish();
      auto e = response.error();
      e.message = "convert stage '" + name + "': " + e.message;
      return tl::unexpected(e);
    }
    merge_response(state, name, *response);
    add_counts(stage["summary"], response->value("summary", json::object()));
    if (response->contains("tool")) stage["tool"] = response->at("tool");
  }
  finish();
  return {};
}

json summarize(const chain_state& state, const port_inputs& in) {
  json s{{"files_total", in.files.size()},
         {"files_considered", 0},
         {"converted", 0},
         {"unchanged", 0},
         {"error", 0},
         {"diagnostics_error", 0},
         {"diagnostics_warning", 0},
         {"diagnostics_note", 0},
         {"hazards", state.hazards.size()},
         {"builds", state.builds.size()}};
  for (const auto& [path, f] : state.files) {
    if (f.status == "skipped") continue;
    s["files_considered"] = s["files_considered"].get<std::int64_t>() + 1;
    s[f.status] = s[f.status].get<std::int64_t>() + 1;
    for (const auto& d : f.diagnostics) {
      const std::string key = "diagnostics_" + d.value("severity", std::string("error"));
      s[key] = s.value(key, std::int64_t{0}) + 1;
    }
  }
  for (const auto& h : state.hazards) {
    const std::string key = "hazards_" + h.value("severity", std::string("warning"));
    s[key] = s.value(key, std::int64_t{0}) + 1;
  }
  for (const auto& b : state.builds) {
    const std::string key = "builds_" + b.value("status", std::string("failed"));
    s[key] = s.value(key, std::int64_t{0}) + 1;
  }
  for (const auto& stage : state.stages) {
    for (const char* key : {"renamed", "includes_rewritten", "kernel_launches", "unsupported", "unknown_names",
                            "left_unconverted", "libraries_rewritten"}) {
      if (stage.at("summary").contains(key)) {
        s[key] = s.value(key, std::int64_t{0}) + stage.at("summary").at(key).get<std::int64_t>();
      }
    }
  }
  return s;
}

}  // namespace

core::result<port_outcome> run_port_chain(core::pipeline_session& session, const port_inputs& in) {
  const bool any = std::any_of(session.stages().begin(), session.stages().end(),
                               [](const auto& m) { return m.stage->stage == "convert"; });
  if (!any)
    return core::fail(core::phase::config,
                      "the pipeline has no convert stage; add hipify, hazards and build-check "
                      "(configs/pipelines/port.json)",
                      {}, session.config().file.string());
  chain_state state;
  core::stage_runner runner;
  runner.on("convert", [&](core::stage_context& ctx) -> core::result<void> {
    for (const auto& member : ctx.group.members) {
      if (auto done = run_member(state, in, member); !done) return done;
    }
    return {};
  });
  json run_state = json::object();
  for (const auto& r : runner.run_sequence(session, {"convert"}, run_state, {})) {
    if (!r.ok) return core::fail(core::phase::run, r.error);
  }

  port_outcome out;
  json files = json::array();
  for (const auto& [path, f] : state.files) {
    if (!f.diff.empty()) out.patch += f.diff;
    if (f.status == "skipped") continue;
    files.push_back({{"path", path},
                     {"status", f.status},
                     {"changed", !f.diff.empty()},
                     {"stages", f.stages},
                     {"diagnostics", f.diagnostics}});
  }
  json target = json::object();
  target["rocm"] = in.rocm;
  target["arch"] = in.arch;
  out.report = json{{"target", target},         {"stages", state.stages}, {"files", std::move(files)},
                    {"hazards", state.hazards}, {"builds", state.builds}, {"summary", summarize(state, in)}};
  return out;
}

}  // namespace r2r::run
