// SPDX-License-Identifier: MIT
// Registration of r2r.verifier.mode1-cuda: the shared Mode 1 verification (r2r/verify/mode1.hpp) with vendor nvidia.
#include "r2r_plugin_info.hpp"

#include <r2r/verify/mode1.hpp>

#include <r2r/sdk/plugin.hpp>

namespace r2r::plugins::verifier {

struct mode1_cuda_config : plugins::verifier::mode1_config {
  mode1_cuda_config() { vendor = "nvidia"; }
};
inline void from_json(const nlohmann::json& j, mode1_cuda_config& c) {
  plugins::verifier::from_json(j, static_cast<plugins::verifier::mode1_config&>(c));
}

/// THREADING: the host serialises calls; see mode1_verifier.
class mode1_cuda {
 public:
  using config = mode1_cuda_config;
  mode1_cuda(const config& cfg, const sdk::host& host) : impl_(cfg, host) {}
  sdk::verifier::verify_response verify(const sdk::verifier::verify_request& request, sdk::call_context& ctx) {
    return impl_.verify(request, ctx);
  }
  sdk::verifier::verify_response judge(const sdk::verifier::judge_request& request, sdk::call_context& ctx) {
    return impl_.judge(request, ctx);
  }
  static sdk::method_table<mode1_cuda> methods() { return sdk::verifier::methods<mode1_cuda>(); }

 private:
  plugins::verifier::mode1_verifier impl_;
};

}  // namespace r2r::plugins::verifier

R2R_PLUGIN_MAIN(r2r::plugins::verifier::mode1_cuda)
