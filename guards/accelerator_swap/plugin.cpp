// SPDX-License-Identifier: MIT
// Registration only; the guard's logic is in accelerator_swap_guard.cpp.
#include "accelerator_swap_guard.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::guard::accelerator_swap_guard)
