// SPDX-License-Identifier: MIT
#include "port_args.hpp"

#include <filesystem>
#include <regex>
#include <set>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;

bool inside(const fs::path& child, const fs::path& parent) {
  auto c = child.begin();
  for (auto p = parent.begin(); p != parent.end(); ++p, ++c) {
    if (c == child.end() || *c != *p) return false;
  }
  return true;
}

}  // namespace

core::result<std::vector<std::string>> parse_gfx_list(const std::string& text) {
  static const std::regex gfx("^gfx[0-9a-f]+(:[a-z0-9_]+[+-])*$");
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string arch = text.substr(start, comma - start);
    if (!std::regex_match(arch, gfx)) {
      return core::fail(core::phase::usage,
                        "--arch takes gfx targets separated by commas (e.g. gfx90a,gfx942); '" + arch + "' is not one");
    }
    if (seen.insert(arch).second) out.push_back(arch);
    start = comma + 1;
  }
  return out;
}

core::result<port_job> port_job_from(const port_args& args) {
  const std::string& given = args.source;
  if (given.find("://") != std::string::npos || given.rfind("git@", 0) == 0) {
    return core::fail(core::phase::usage,
                      "SOURCE must be a local directory; git URLs are not supported by this command yet "
                      "(clone the repository and pass its directory)");
  }
  std::error_code ec;
  const fs::path source = fs::weakly_canonical(fs::absolute(given), ec);
  if (ec || !fs::is_directory(source, ec))
    return core::fail(core::phase::usage, "SOURCE '" + given + "' is not a directory");
  auto arch = parse_gfx_list(args.arch);
  if (!arch) return tl::unexpected(arch.error());
  static const std::regex version("^[0-9]+\\.[0-9]+(\\.[0-9]+)?$");
  if (!args.rocm.empty() && !std::regex_match(args.rocm, version))
    return core::fail(core::phase::usage,
                      "--rocm takes a ROCm release such as 6.2 or 6.2.1; found '" + args.rocm + "'");
  const fs::path out = fs::weakly_canonical(
      fs::absolute(args.out_dir.empty() ? fs::current_path() / (source.filename().string() + "-rocm")
                                        : fs::path(args.out_dir)),
      ec);
  if (inside(out, source) || inside(source, out)) {
    return core::fail(core::phase::usage, "--out " + out.string() + " and SOURCE " + source.string() +
                                              " must not contain each other; choose an output directory outside "
                                              "the project");
  }
  port_job job;
  job.source = source;
  job.out_dir = out;
  job.arch = *arch;
  job.rocm = args.rocm;
  return job;
}

}  // namespace r2r::run
