// SPDX-License-Identifier: MIT
// Registration only; the converter's logic is in hipify_converter.cpp.
#include "hipify_converter.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::converter::hipify_converter)
