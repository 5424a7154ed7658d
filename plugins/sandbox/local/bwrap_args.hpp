// SPDX-License-Identifier: MIT
// The bubblewrap command line of one command. Pure function, unit-tested. What it guarantees:
// every namespace unshared (the network too unless `share_net`: one exec the policy lets out), all
// capabilities dropped, a new session, death with the parent; the listed system paths bound
// read-only; a private /tmp, /proc and minimal /dev; the workspace and the sandbox's own /opt the
// only writable host paths (both persist from one command to the next, like a container's file
// system); a GPU passed as /dev/kfd and one render node; the environment cleared and set explicitly.
#pragma once

#include <r2r/sdk/kinds/sandbox.hpp>

#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::local {

struct bwrap_inputs {
  std::string bwrap;  // absolute path of the bwrap binary
  std::vector<std::string> ro_binds;
  std::string host_workspace;
  std::string sandbox_workspace = "/workspace";
  std::string host_opt;                    // the sandbox's private directory bound at /opt; empty: none
  std::string workdir;                     // empty: sandbox_workspace
  std::map<std::string, std::string> env;  // complete environment inside
  bool share_net = false;                  // this exec alone gets the host's network (--share-net)
};

std::vector<std::string> bwrap_args(const sdk::sandbox::create_request& plan, const bwrap_inputs& in,
                                    const std::string& command);

}  // namespace r2r::plugins::sandbox::local
