// SPDX-License-Identifier: MIT
// Registration only; the backend is openai_backend.cpp and openai_wire.cpp.
#include "openai_backend.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::llm::openai_backend)
