// SPDX-License-Identifier: MIT
#include "example_session.hpp"

#include <algorithm>
#include <fstream>
#include <random>

namespace r2r::conformance {
namespace fs = std::filesystem;

example_session::example_session(std::string kind, std::vector<std::string> methods)
    : kind_(std::move(kind)), methods_(std::move(methods)) {
  if (kind_ == "sandbox") {
    const std::vector<std::string> order{"info",       "create",   "exec",    "copy_in", "copy_out",
                                         "checkpoint", "rollback", "destroy", "cleanup"};
    std::stable_sort(methods_.begin(), methods_.end(), [&](const std::string& a, const std::string& b) {
      const auto rank = [&](const std::string& m) {
        const auto it = std::find(order.begin(), order.end(), m);
        // Methods this runner does not know go after the work and before destroy.
        return it == order.end() ? 6 : static_cast<int>(it - order.begin());
      };
      return rank(a) < rank(b);
    });
  }
  if (kind_ == "scheduler") {
    const std::vector<std::string> order{"capabilities", "submit", "status", "cancel"};
    std::stable_sort(methods_.begin(), methods_.end(), [&](const std::string& a, const std::string& b) {
      const auto rank = [&](const std::string& m) {
        const auto it = std::find(order.begin(), order.end(), m);
        return it == order.end() ? 2 : static_cast<int>(it - order.begin());
      };
      return rank(a) < rank(b);
    });
  }
  std::random_device rd;
  scratch_ = fs::temp_directory_path() / ("r2r-conformance-" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(scratch_ / "in");
  std::ofstream(scratch_ / "in" / "conformance.txt") << "copied in by r2r-plugin-conformance\n";
}

example_session::~example_session() {
  std::error_code ec;
  fs::remove_all(scratch_, ec);
}

std::optional<nlohmann::json> example_session::prepare(const std::string& method, const nlohmann::json& example,
                                                       std::string& why_not) {
  nlohmann::json request = example;
  if (kind_ == "scheduler" && request.is_object()) {
    // A job runs for real: its state directory is this session's, and status/cancel ask about it.
    if (request.contains("state_dir")) request["state_dir"] = (scratch_ / ("job" + std::to_string(++jobs_))).string();
    if (!job_id_.empty() && request.contains("ids")) request["ids"] = nlohmann::json::array({job_id_});
    if (!job_id_.empty() && request.contains("id")) request["id"] = job_id_;
    return request;
  }
  if (kind_ != "sandbox" || !request.is_object()) return request;
  if (method == "create" && request.contains("gpu")) {
    std::error_code ec;
    const std::string kfd = request["gpu"].value("host_kfd", std::string("/dev/kfd"));
    if (!fs::exists(kfd, ec)) {
      why_not = "the example asks for a ROCm GPU and " + kfd + " does not exist here";
      return std::nullopt;
    }
    if (!sandbox_id_.empty()) {
      why_not = "one sandbox at a time: the GPU example runs when no other sandbox of this run is open";
      return std::nullopt;
    }
  }
  if (method == "cleanup" && request.value("all", false)) {
    why_not = "cleanup {all: true} would remove sandboxes this run did not create";
    return std::nullopt;
  }
  if (request.contains("sandbox_id")) {
    if (sandbox_id_.empty()) {
      why_not = "no sandbox is open (create did not succeed)";
      return std::nullopt;
    }
    request["sandbox_id"] = sandbox_id_;
  }
  if (request.contains("host_path")) {
    if (method == "copy_in") {
      request["host_path"] = (scratch_ / "in").string();
    } else {
      const fs::path out = scratch_ / ("out" + std::to_string(++copies_out_));
      fs::create_directories(out);
      request["host_path"] = out.string();
    }
  }
  return request;
}

std::vector<std::pair<std::string, nlohmann::json>> example_session::after(const std::string& method) const {
  if (kind_ != "sandbox" || method != "create" || sandbox_id_.empty()) return {};
  // The copy_out example reads /workspace/outputs; a real exec writes it first.
  return {{"exec",
           {{"sandbox_id", sandbox_id_},
            {"command", "mkdir -p /workspace/outputs && echo conformance > /workspace/outputs/result.txt && echo ok"},
            {"timeout_s", 60}}}};
}

void example_session::observe(const std::string& method, const nlohmann::json& response) {
  if (kind_ == "scheduler" && method == "submit") job_id_ = response.value("id", std::string());
  if (kind_ != "sandbox") return;
  if (method == "create") sandbox_id_ = response.value("sandbox_id", std::string());
  if (method == "destroy") sandbox_id_.clear();
}

}  // namespace r2r::conformance
