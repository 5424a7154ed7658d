// SPDX-License-Identifier: MIT
// Registration only; the build check is in build_checker.cpp.
#include "build_checker.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::converter::build_checker)
