// SPDX-License-Identifier: MIT
// Registration only; the guard's logic is in critical_source_edit_guard.cpp.
#include "critical_source_edit_guard.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::guard::critical_source_edit_guard)
