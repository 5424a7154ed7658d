// SPDX-License-Identifier: MIT
// Registration only; the guard's logic is in cpu_fallback_guard.cpp.
#include "cpu_fallback_guard.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::guard::cpu_fallback_guard)
