// SPDX-License-Identifier: MIT
// Registration only; the sandbox logic is in local_sandbox.cpp.
#include "local_sandbox.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::sandbox::local::local_sandbox)
