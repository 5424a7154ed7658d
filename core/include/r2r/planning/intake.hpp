// SPDX-License-Identifier: MIT
// Intake: turns SOURCE (https/http/ssh/git/file URL, scp-like `git@host:path`, or a local
// repository path) into a checked-out tree at a resolved commit, through libgit2.
// Contract:
//   - clones go to a cache directory keyed by the URL; a second intake of the same URL fetches
//     into the existing clone instead of cloning again;
//   - `commit` may be a SHA (full or abbreviated), a tag or a branch; the resolved 40-hex SHA is
//     returned; without it the remote's default branch head is used;
//   - submodules are initialised and checked out recursively; one that cannot be fetched (offline,
//     private, history rewritten) is a note (`submodule_not_fetched`), not an error: planning goes
//     on without its files;
//   - a local directory without .git (a downloaded archive) is planned from a snapshot: its files
//     (as `git add -A` would take them) are committed into the cache with a fixed author and date,
//     so the same content always gives the same commit; `content_hash` is the snapshot's git tree
//     id and a note (`unpinned_directory`) says that no commit of the project pins it;
//   - a token for private https repositories is read from the environment variable named by
//     `token_env` and is never logged or written anywhere (URLs are reported without credentials);
//   - remote hosts are probed with a bounded TCP connect (`connect_timeout`) and the whole transfer
//     is bounded by `transfer_timeout`, so unreachable hosts fail in bounded time;
//   - missing paths, non-repositories, unreachable hosts and unknown commits are errors with what
//     was expected, what was found and what to do.
#pragma once

#include <r2r/core/error.hpp>

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace r2r::planning {

struct intake_options {
  std::string commit;               // SHA, tag or branch; empty: default branch
  std::filesystem::path cache_dir;  // required: where clones are kept
  std::string token_env = "R2R_GIT_TOKEN";
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds transfer_timeout{600000};
  std::ostream* progress = nullptr;  // clone/fetch progress lines (give stderr when it is a terminal)
};

struct submodule_checkout {
  std::string path;  // relative to the top repository
  std::string url;
  std::string commit;
};

/// Something the plan must say about the intake: kind submodule_not_fetched or unpinned_directory.
struct intake_note {
  std::string kind;
  std::string path;    // the submodule path or the directory
  std::string detail;  // one sentence for plan.json and the terminal
};

struct intake_result {
  std::string source;              // as given
  std::string url;                 // clone URL without credentials
  std::filesystem::path worktree;  // checked out at `commit`
  std::string commit;              // 40-hex SHA
  std::string requested;           // the --commit text, empty when none
  bool reused_cache = false;       // true: fetched into an existing clone
  std::vector<submodule_checkout> submodules;
  std::vector<intake_note> notes;
  std::string content_hash;  // "git-tree:<40 hex>" for a plain directory's snapshot; empty for a repository
};

core::result<intake_result> acquire_repository(const std::string& source, const intake_options& options);

/// What kind of source a string is (exposed for tests and messages).
enum class source_kind { remote, file_url, local_path };
struct parsed_source {
  source_kind kind = source_kind::local_path;
  std::string url;       // for libgit2 (absolute path for local paths)
  std::string redacted;  // url with any user:password@ removed
  std::string host;      // remote only
  int port = 0;          // remote only
};
core::result<parsed_source> parse_source(const std::string& source);

/// Opens a TCP connection to host:port within `timeout` and closes it. Errors name the host,
/// the port and the cause.
core::result<void> probe_host(const std::string& host, int port, std::chrono::milliseconds timeout);

}  // namespace r2r::planning
