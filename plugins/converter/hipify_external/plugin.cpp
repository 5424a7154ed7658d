// SPDX-License-Identifier: MIT
// Registration only; the runner is in external_hipify.cpp.
#include "external_hipify.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::converter::external_hipify)
