// SPDX-License-Identifier: MIT
// The file edits a shell command performs, as r2r.guard.critical-source-edit sees them:
// `sed -i` / `perl -pi` scripts turned into removed and added lines (s/a/b/, /re/d, /re/s/^/#/),
// removals (rm, unlink, shred, truncate, mv away, python os.remove), renames (mv/cp between
// kernel-source names, e.g. x.cu -> x.hip), and opaque overwrites whose new content is not in
// the command (redirections, tee, cp/mv/ln onto a file, dd of=, python -c open(..., 'w')).
#pragma once

#include <r2r/guards/text_change.hpp>
#include <r2r/support/shell.hpp>

#include <string>
#include <vector>

namespace r2r::plugins::guard::critical {

struct command_edit {
  enum class kind { substitution, removal, rename, overwrite };
  kind how = kind::substitution;
  std::string path;    // the file edited (the source of a rename)
  std::string target;  // rename: the new name
  std::string tool;    // "sed -i", "rm", "> redirection", ...
  file_change change;  // substitution: the lines its scripts remove and add
};

/// Every edit `cmd` makes to a file. Paths are as written (relative to the command's directory).
std::vector<command_edit> edits_of(const shell::simple_command& cmd);

}  // namespace r2r::plugins::guard::critical
