// SPDX-License-Identifier: MIT
// report.html as a browser renders it: headless Chromium with every host name unresolvable and an
// unreachable proxy (so any request would fail), dumping the DOM after layout. The page must show
// the verdict, the PFS and every check name, and must render without requesting anything (a
// control page with an external image shows the request detector works). Skips,
// saying why, only when chromium is not installed (scripts/bootstrap.sh installs it).
#include "bundle_fixture.hpp"

#include "../unit/test_support.hpp"

#include <r2r/report/bundle.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    const auto r = r2r::test::run_process(std::string("command -v ") + name);
    if (r.exit_code == 0) return r.out.substr(0, r.out.find('\n'));
  }
  return {};
}

struct rendering {
  r2r::test::process_result run;        // stdout: the DOM after layout
  std::set<std::string> page_requests;  // http(s) URLs requested, Chromium's own services left out
};

/// Renders `page` offline: every host name unresolvable, an unreachable proxy. Chromium itself
/// contacts its update, time and account services whatever the page is; those hosts are left out
/// of page_requests.
rendering render(const std::string& browser, const fs::path& page, const fs::path& work) {
  const auto net_log = work / "netlog.json";
  rendering out;
  out.run = r2r::test::run_process(
      "HOME='" + work.string() + "' timeout 120 '" + browser +
      "' --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run "
      "--disable-background-networking --user-data-dir='" +
      (work / "profile").string() +
      "' --host-resolver-rules='MAP * ~NOTFOUND' --proxy-server='http://127.0.0.1:9' --log-net-log='" +
      net_log.string() + "' --dump-dom 'file://" + page.string() + "' 2>/dev/null");
  std::ifstream in(net_log);
  const auto log = nlohmann::json::parse(in, nullptr, false);
  if (log.is_discarded() || !log.contains("events")) {
    out.page_requests.insert("(net log unreadable: " + net_log.string() + ")");
    return out;
  }
  static const std::regex own_service(R"(^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com)(/|:|$))");
  for (const auto& e : log["events"]) {
    if (!e.contains("params") || !e["params"].is_object() || !e["params"].contains("url")) continue;
    const std::string url = e["params"]["url"].get<std::string>();
    if (url.rfind("http", 0) == 0 && !std::regex_search(url, own_service)) out.page_requests.insert(url);
  }
  return out;
}

TEST(BundleBrowser, ChromiumRendersTheReportOffline) {
  const std::string browser = chromium();
  if (browser.empty())
    GTEST_SKIP() << "chromium is not installed; scripts/bootstrap.sh installs it (Debian package chromium)";
  r2r::test::temp_dir tmp;
  auto in = r2r::test::make_bundle_inputs(tmp.path(), {.extra_commands = {"echo '<script>document.title=1</script>'"}});
  const auto bundle = tmp.path() / "bundle";
  const auto s = r2r::report::write_bundle(in, bundle);
  ASSERT_TRUE(s) << s.error().to_string();

  // The detector works: a page with an external image is caught requesting it.
  fs::create_directories(tmp.path() / "control");
  std::ofstream(tmp.path() / "control" / "page.html") << "<html><body><img src=\"http://r2r-canary.invalid/x.png\">"
                                                         "</body></html>";
  const auto control = render(browser, tmp.path() / "control" / "page.html", tmp.path() / "control");
  ASSERT_EQ(control.run.exit_code, 0) << control.run.err;
  EXPECT_THAT(control.page_requests, ::testing::Contains(HasSubstr("r2r-canary.invalid")));

  fs::create_directories(tmp.path() / "report");
  const auto r = render(browser, bundle / "report.html", tmp.path() / "report");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const std::string& dom = r.run.out;
  EXPECT_THAT(dom, HasSubstr("id=\"verdict\" class=\"verdict v-pass\">pass</span>"));
  EXPECT_THAT(dom, HasSubstr("<strong id=\"pfs-score\">98.2</strong>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"check-name\">workload_exit</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"check-name\">kernels_on_gpu</td>"));
  EXPECT_THAT(dom, HasSubstr("flash-attn"));
  EXPECT_THAT(dom, HasSubstr("# ported by repo2rocm"));
  EXPECT_THAT(dom, HasSubstr("&lt;script&gt;document.title=1&lt;/script&gt;"));  // shown as text, never run
  EXPECT_THAT(dom, Not(HasSubstr("<script")));
  EXPECT_THAT(dom, HasSubstr("</html>"));  // rendered to the end
  EXPECT_THAT(r.page_requests, ::testing::IsEmpty());
}

}  // namespace
