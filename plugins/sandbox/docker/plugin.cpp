// SPDX-License-Identifier: MIT
// Registration only; the sandbox logic is in docker_sandbox.cpp.
#include "docker_sandbox.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::sandbox::docker::docker_sandbox)
