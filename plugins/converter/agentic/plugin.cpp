// SPDX-License-Identifier: MIT
// Registration only; the rewrite loop is in agentic_converter.cpp.
#include "agentic_converter.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::converter::agentic_converter)
