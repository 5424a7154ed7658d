// SPDX-License-Identifier: MIT
#include "bwrap_args.hpp"

namespace r2r::plugins::sandbox::local {

std::vector<std::string> bwrap_args(const sdk::sandbox::create_request& plan, const bwrap_inputs& in,
                                    const std::string& command) {
  std::vector<std::string> a{in.bwrap, "--unshare-all"};
  if (in.share_net) a.push_back("--share-net");
  for (const char* flag : {"--die-with-parent", "--new-session", "--cap-drop", "ALL"}) a.push_back(flag);
  for (const auto& path : in.ro_binds) {
    a.insert(a.end(), {"--ro-bind-try", path, path});
  }
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  // Install steps write image-level files under /opt (the plan's /opt/r2r/image-constraints.txt):
  // the sandbox's own directory there keeps them for the next command, as a container would.
  if (!in.host_opt.empty()) a.insert(a.end(), {"--bind", in.host_opt, "/opt"});
  a.insert(a.end(), {"--bind", in.host_workspace, in.sandbox_workspace});
  // After /opt, so a mount beneath it (/opt/r2r-assets) is not hidden by the sandbox's own /opt.
  for (const auto& m : plan.mounts) a.insert(a.end(), {"--ro-bind", m.source, m.target});
  if (plan.gpu) {
    const auto& g = *plan.gpu;
    const std::string inside = "/dev/dri/renderD" + std::to_string(g.render_minor);
    a.insert(a.end(), {"--dev-bind", g.host_kfd, "/dev/kfd", "--dev-bind",
                       g.host_render.empty() ? inside : g.host_render, inside});
  }
  a.insert(a.end(), {"--chdir", in.workdir.empty() ? in.sandbox_workspace : in.workdir, "--clearenv"});
  for (const auto& [k, v] : in.env) a.insert(a.end(), {"--setenv", k, v});
  a.insert(a.end(), {"--", "/bin/sh", "-c", command});
  return a;
}

}  // namespace r2r::plugins::sandbox::local
