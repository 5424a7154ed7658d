// SPDX-License-Identifier: MIT
// Registration only; the pool is in local_scheduler.cpp.
#include "local_scheduler.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::scheduler::local_scheduler)
