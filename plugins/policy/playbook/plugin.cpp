// SPDX-License-Identifier: MIT
// Registration only; the policy is in playbook_policy.cpp.
#include "playbook_policy.hpp"
#include "r2r_plugin_info.hpp"

#include <r2r/sdk/plugin.hpp>

R2R_PLUGIN_MAIN(r2r::plugins::policy::playbook_policy)
