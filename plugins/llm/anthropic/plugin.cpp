// SPDX-License-Identifier: MIT
// Registration only; the backend is anthropic_backend.cpp and anthropic_wire.cpp.
#include "anthropic_backend.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::llm::anthropic_backend)
