// SPDX-License-Identifier: MIT
// Registration only; the guard's logic is in success_claim_guard.cpp.
#include "r2r_plugin_info.hpp"
#include "success_claim_guard.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::guard::success_claim_guard)
