// SPDX-License-Identifier: MIT
// Registration only; the scan is in hazard_scanner.cpp and rules_*.cpp.
#include "hazards_converter.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::converter::hazards_converter)
