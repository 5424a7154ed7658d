// SPDX-License-Identifier: MIT
// Registration only; the guard's logic is in image_switch_guard.cpp.
#include "image_switch_guard.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::guard::image_switch_guard)
