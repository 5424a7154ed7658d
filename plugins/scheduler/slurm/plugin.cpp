// SPDX-License-Identifier: MIT
// Registration only; the Slurm client is in slurm_scheduler.cpp.
#include "r2r_plugin_info.hpp"
#include "slurm_scheduler.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::scheduler::slurm_scheduler)
