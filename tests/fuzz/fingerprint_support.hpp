// SPDX-License-Identifier: MIT
// A fresh scan state over the built-in knowledge, for the fingerprint scanner targets.
// LIFETIME: the state borrows the knowledge (static) and the fingerprint of the caller.
#pragma once

#include "fuzz_support.hpp"
#include "scan_parts.hpp"

#include <r2r/planning/knowledge.hpp>

namespace r2r::fuzz {

inline planning::detail::scan_state scan_state_for(planning::fingerprint& fp) {
  return planning::detail::scan_state{planning::builtin_knowledge(), fp, scratch_dir()};
}

}  // namespace r2r::fuzz
