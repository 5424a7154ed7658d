// SPDX-License-Identifier: MIT
// Registration only; Mode 2 is in mode2_verifier.cpp.
#include "mode2_verifier.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::verifier::mode2_verifier)
