// SPDX-License-Identifier: MIT
// `repo2rocm verify BUNDLE`: re-checks an audit bundle (r2r::report::verify_bundle).
#include "cli_context.hpp"
#include "exit_codes.hpp"

#include <r2r/report/bundle.hpp>

#include <ostream>

namespace r2r::cli {

int run_verify(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    *ctx.err << "repo2rocm verify: expected one argument, the bundle directory; found " << ctx.words.size()
             << "\nusage: repo2rocm verify BUNDLE [--json]\n";
    return exit_usage;
  }
  const auto outcome = report::verify_bundle(ctx.words[0]);
  if (!outcome) {
    const bool usage = outcome.error().where == core::phase::usage;
    if (ctx.json) {
      *ctx.out << nlohmann::json{{"intact", false}, {"error", outcome.error().message}, {"path", outcome.error().path}}
                      .dump(2)
               << "\n";
    } else {
      *ctx.err << "repo2rocm verify: bundle NOT verified: " << outcome.error().message << "\n";
    }
    return usage ? exit_usage : exit_error;
  }
  if (ctx.json) {
    *ctx.out << nlohmann::json{{"intact", true},
                               {"verdict", outcome->verdict},
                               {"pfs", outcome->pfs},
                               {"checked", outcome->notes}}
                    .dump(2)
             << "\n";
  } else {
    for (const auto& n : outcome->notes) *ctx.out << "ok  " << n << "\n";
    *ctx.out << "bundle intact: verdict " << outcome->verdict << ", PFS " << outcome->pfs << "\n";
  }
  return exit_ok;
}

}  // namespace r2r::cli
