// SPDX-License-Identifier: MIT
#include "k8s_jobs.hpp"

#include "durable_file.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/json_schema.hpp>

#include <cctype>
#include <functional>
#include <sstream>

namespace r2r::batch {
namespace fs = std::filesystem;

std::string k8s_name(const std::string& key) {
  std::string s;
  for (char c : key) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    s += std::isalnum(static_cast<unsigned char>(l)) ? l : '-';
  }
  std::string name = "r2r-" + s;
  if (name.size() > 63) {
    // Keep names unique when truncated: the tail is a hash of the whole key.
    std::ostringstream h;
    h << std::hex << (std::hash<std::string>{}(key)&0xffffffu);
    name = name.substr(0, 63 - 7) + "-" + h.str();
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

nlohmann::json k8s_job(const manifest_entry& e, const k8s_options& o) {
  const std::string name = k8s_name(e.key);
  std::vector<std::string> args{
      "run", e.repo, "--run-dir", "/runs/" + e.key, "--json", "--gpu", "0", "--mode", e.mode.empty() ? o.mode : e.mode};
  if (!e.commit.empty()) args.insert(args.end(), {"--commit", e.commit});
  const std::string arch = e.arch.empty() ? o.arch : e.arch;
  if (!arch.empty()) args.insert(args.end(), {"--arch", arch});
  if (!o.pipeline.empty()) args.insert(args.end(), {"--pipeline", o.pipeline});
  const nlohmann::json labels{{"app.kubernetes.io/name", "repo2rocm"}, {"repo2rocm.dev/batch-job", name}};
  nlohmann::json meta{{"name", name}, {"labels", labels}, {"annotations", {{"repo2rocm.dev/repository", e.repo}}}};
  if (!o.namespace_name.empty()) meta["namespace"] = o.namespace_name;
  nlohmann::json container{
      {"name", "repo2rocm"}, {"image", o.image}, {"command", nlohmann::json::array({"repo2rocm"})}, {"args", args}};
  container["resources"] = {{"limits", {{"amd.com/gpu", 1}}}, {"requests", {{"amd.com/gpu", 1}}}};
  container["volumeMounts"] = nlohmann::json::array({{{"name", "runs"}, {"mountPath", "/runs"}}});
  nlohmann::json pod{{"restartPolicy", "Never"}, {"containers", nlohmann::json::array({container})}};
  pod["volumes"] = nlohmann::json::array({{{"name", "runs"}, {"persistentVolumeClaim", {{"claimName", o.pvc}}}}});
  nlohmann::json spec{{"backoffLimit", 2}, {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod}}}};
  return {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", meta}, {"spec", spec}};
}

std::vector<std::string> check_k8s_job(const nlohmann::json& job) {
  const auto* schema = core::embedded_schema("k8s/job.schema.json");
  if (schema == nullptr) return {"the Kubernetes Job schema (k8s/job.schema.json) is not embedded in this build"};
  std::vector<std::string> out;
  for (const auto& v : schema->validate(job))
    out.push_back((v.pointer.empty() ? "<root>" : v.pointer) + ": " + v.message);
  return out;
}

core::result<std::vector<fs::path>> emit_k8s(const std::vector<manifest_entry>& entries, const k8s_options& o,
                                             const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return core::fail(core::phase::config, "cannot create " + dir.string() + ": " + ec.message());
  std::vector<fs::path> written;
  for (const auto& e : entries) {
    const auto job = k8s_job(e, o);
    const auto problems = check_k8s_job(job);
    if (!problems.empty())
      return core::fail(core::phase::config, "the Job for " + e.repo + " (manifest line " + std::to_string(e.line) +
                                                 ") is not a valid Kubernetes Job: " + problems.front() +
                                                 "; check --k8s-image and --k8s-pvc");
    const fs::path p = dir / (job["metadata"]["name"].get<std::string>() + ".job.json");
    write_atomic(p, job.dump(2) + "\n");
    written.push_back(p);
  }
  std::ostringstream readme;
  readme << "# repo2rocm batch: Kubernetes Jobs\n\n"
         << "Written by `repo2rocm batch --emit k8s`; one Job per repository (" << entries.size()
         << " here). Nothing was applied.\n\n"
         << "- Each Job runs `repo2rocm run` in the image `" << o.image << "` (build it with repo2rocm, its plugins,\n"
         << "  git and a container engine or bubblewrap for the sandbox) and asks for `amd.com/gpu: 1`, the resource\n"
         << "  the AMD GPU device plugin (ROCm/k8s-device-plugin) advertises; inside the pod that GPU is device 0.\n"
         << "- Run directories go to `/runs/<key>` on the PersistentVolumeClaim `" << o.pvc
         << "`; create it first\n  (ReadWriteMany when Jobs land on several nodes).\n"
         << "- Apply: `kubectl apply -f .` ; watch: `kubectl get jobs -l app.kubernetes.io/name=repo2rocm`.\n"
         << "- Summarise: copy or mount the claim and run `repo2rocm batch report /path/to/runs-parent` (the\n"
         << "  directory holding `runs/`).\n"
         << "- Every manifest was validated against repo2rocm's hand-written Job schema subset\n"
         << "  (configs/schema/k8s/job.schema.json, see its NOTICE.md).\n";
  write_atomic(dir / "README.md", readme.str());
  written.push_back(dir / "README.md");
  return written;
}

}  // namespace r2r::batch
