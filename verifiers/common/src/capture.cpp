// SPDX-License-Identifier: MIT
#include <r2r/verify/capture.hpp>

#include "output_encoding.hpp"

#include <r2r/sdk/error.hpp>

namespace r2r::plugins::verifier {

void to_json(nlohmann::json& j, const host_process& p) {
  j = {{"pid", p.pid}, {"nspid", p.nspid}, {"pidns", p.pidns}, {"uid", p.uid}};
  if (!p.objects.empty()) j["objects"] = p.objects;
  if (!p.object_ctimes.empty()) j["object_ctimes"] = p.object_ctimes;
  if (!p.objects_error.empty()) j["objects_error"] = p.objects_error;
}
void from_json(const nlohmann::json& j, host_process& p) {
  p.pid = j.at("pid").get<long long>();
  p.nspid = j.value("nspid", std::vector<long long>{});
  p.pidns = j.value("pidns", std::string());
  p.uid = j.value("uid", -1LL);
  p.objects = j.value("objects", std::vector<std::string>{});
  p.object_ctimes = j.value("object_ctimes", std::vector<double>{});
  p.objects_error = j.value("objects_error", std::string());
}
void to_json(nlohmann::json& j, const host_sample& s) {
  j = {{"t", s.t}, {"source", s.source}, {"procs", s.procs}};
  if (!s.apps.empty()) j["apps"] = s.apps;
  if (!s.pmon.empty()) j["pmon"] = s.pmon;
  if (!s.util.empty()) j["util"] = s.util;
  if (!s.kfd.empty()) j["kfd"] = s.kfd;
  if (!s.error.empty()) j["error"] = s.error;
}
void from_json(const nlohmann::json& j, host_sample& s) {
  s.t = j.at("t").get<double>();
  s.source = j.value("source", std::string());
  s.apps = j.value("apps", std::string());
  s.pmon = j.value("pmon", std::string());
  s.util = j.value("util", std::string());
  s.kfd = j.value("kfd", std::string());
  s.procs = j.value("procs", std::vector<host_process>{});
  s.error = j.value("error", std::string());
}

void to_json(nlohmann::json& j, const mode1_capture& c) {
  j = {{"format", c.format},
       {"vendor", c.vendor},
       {"nonce", c.nonce},
       {"collector",
        {{"exit_code", c.collector.exit_code},
         {"timed_out", c.collector.timed_out},
         {"truncated", c.collector.truncated},
         {"stdout_b64", plugins::sandbox::base64_encode(c.collector.stdout_text)}}},
       {"host_sampler", {{"ran", c.host_sampler}, {"note", c.host_sampler_note}, {"interval_s", c.host_interval_s}}},
       {"host_samples", c.host_samples},
       {"ledger", c.ledger}};
  if (c.scale_read.ran) {
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [f, content] : c.scale_read.files) files[f] = content ? nlohmann::json(*content) : nullptr;
    j["scale_read"] = {{"ok", c.scale_read.ok}, {"files", files}};
  }
}

void from_json(const nlohmann::json& j, mode1_capture& c) {
  const auto bad = [](const std::string& what) {
    throw sdk::invalid_argument("capture: " + what +
                                ". Pass the \"capture\" object of a Mode 1 verify response (format " + capture_format +
                                ")");
  };
  if (!j.is_object()) bad("expected a JSON object, found " + std::string(j.type_name()));
  if (j.value("format", std::string()) != capture_format)
    bad("format: expected \"" + std::string(capture_format) + "\", found " +
        j.value("format", nlohmann::json()).dump());
  c.format = capture_format;
  c.vendor = j.value("vendor", std::string());
  if (c.vendor != "amd" && c.vendor != "nvidia")
    bad("vendor: expected \"amd\" or \"nvidia\", found \"" + c.vendor + "\"");
  c.nonce = j.value("nonce", std::string());
  const auto col = j.find("collector");
  if (col == j.end() || !col->is_object()) bad("collector: expected an object, found none");
  c.collector.exit_code = col->value("exit_code", -1);
  c.collector.timed_out = col->value("timed_out", false);
  c.collector.truncated = col->value("truncated", false);
  try {
    c.collector.stdout_text = plugins::sandbox::base64_decode(col->value("stdout_b64", std::string()));
  } catch (const std::exception& e) {
    bad(std::string("collector.stdout_b64: expected base64, ") + e.what());
  }
  if (const auto hs = j.find("host_sampler"); hs != j.end() && hs->is_object()) {
    c.host_sampler = hs->value("ran", false);
    c.host_sampler_note = hs->value("note", std::string());
    c.host_interval_s = hs->value("interval_s", 0.0);
  }
  try {
    c.host_samples = j.value("host_samples", std::vector<host_sample>{});
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("host_samples: ") + e.what());
  }
  try {
    c.ledger = j.value("ledger", std::vector<sdk::verifier::ledger_entry>{});
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("ledger: ") + e.what());
  }
  if (const auto sr = j.find("scale_read"); sr != j.end()) {
    if (!sr->is_object()) bad("scale_read: expected an object");
    c.scale_read.ran = true;
    c.scale_read.ok = sr->value("ok", false);
    const auto files = sr->find("files");
    if (files == sr->end() || !files->is_object()) bad("scale_read.files: expected an object of file -> text|null");
    for (const auto& [f, v] : files->items()) {
      if (v.is_null())
        c.scale_read.files[f] = std::nullopt;
      else if (v.is_string())
        c.scale_read.files[f] = v.get<std::string>();
      else
        bad("scale_read.files: expected text or null for each file");
    }
  }
}

std::string fence_of(std::string_view out) {
  constexpr std::string_view decl = "@@R2R-FENCE ";
  if (!out.starts_with(decl)) return "";
  const auto nl = out.find('\n');
  std::string f(out.substr(decl.size(), nl == std::string_view::npos ? std::string_view::npos : nl - decl.size()));
  if (f.size() < 16) return "";
  for (const char ch : f)
    if (!std::isxdigit(static_cast<unsigned char>(ch))) return "";
  return f;
}

}  // namespace r2r::plugins::verifier
