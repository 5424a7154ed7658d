// SPDX-License-Identifier: MIT
// Registration only; the guard's logic is in scale_down_guard.cpp.
#include "r2r_plugin_info.hpp"
#include "scale_down_guard.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::guard::scale_down_guard)
