// SPDX-License-Identifier: MIT
// Registration only; the backend is replay_backend.cpp, cassettes are cassette.cpp.
#include "r2r_plugin_info.hpp"
#include "replay_backend.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::llm::replay_backend)
