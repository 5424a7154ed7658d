// SPDX-License-Identifier: MIT
// Registration only; the ranker's logic is in jaccard_ranker.cpp.
#include "jaccard_ranker.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::ranker::jaccard_ranker)
