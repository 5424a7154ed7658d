// SPDX-License-Identifier: MIT
// `--paper URL` (issue 21): the paper downloaded from a real HTTP server on 127.0.0.1 (the llm
// tests' loopback server) serving a PDF written by the tests. Through the CLI: the plan's target
// equals the one of the same file given by path, redirects are followed and recorded, bad answers
// (404, HTML, a redirect to file://, an empty body) stop the plan with what to do, and credentials
// in the URL reach neither plan.json nor the output. Through the library: the paper's limits reach
// the GET (its cap and redirect limit; support/http's tests cover the GET itself), and a resumed
// run reads its kept copy (or says the paper changed).
#include "../plan/fixture_repos.hpp"
#include "../run/run_fixture.hpp"
#include "paper_source.hpp"
#include "test_pdfs.hpp"

#include <loopback_server.hpp>
#include <r2r/paper/fetch.hpp>
#include <r2r/report/sha256.hpp>
#include <test_helpers.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using r2r::plugins::llm::testkit::loopback_server;
using r2r::plugins::llm::testkit::recorded_request;
using r2r::plugins::llm::testkit::scripted_response;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;

scripted_response served(const std::string& body, const std::string& type, int status = 200) {
  scripted_response r;
  r.status = status;
  r.body = body;
  r.content_type = type;
  return r;
}

scripted_response redirect(const std::string& location) {
  scripted_response r = served("moved", "text/plain", 302);
  r.headers = {{"Location", location}};
  return r;
}

class PaperUrl : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = tmp.path() / "wide-resnet";
    r2r::test::write_file(repo, "README.md",
                          "# ResNets on CIFAR-10\n\nTrain ResNet-50 on CIFAR-10 and print its test top-1 accuracy:\n\n"
                          "```bash\npython train.py --config configs/default.yaml\n```\n");
    r2r::test::write_file(repo, "train.py", "print('top-1 accuracy: 94.0%')\n");
    r2r::test::write_file(repo, "configs/default.yaml", "arch: resnet50\ndataset: cifar10\nepochs: 3\n");
    r2r::test::git_commit_all(repo, "fixture");
    pdf_file = tmp.path() / "resnets.pdf";
    r2r::test::write_results_table_pdf(pdf_file);
    pdf = read_text(pdf_file);
    // Routes by path; anything else is a 404.
    server.set_handler([this](const recorded_request& req) {
      if (req.path == "/papers/resnets.pdf") return served(pdf, "application/octet-stream");
      if (req.path == "/old") return redirect("/papers/resnets.pdf");
      if (req.path == "/abs") return served("<!DOCTYPE html>\n<html><body>Abstract page</body></html>", "text/html");
      if (req.path == "/to-file") return redirect("file:///etc/passwd");
      if (req.path == "/empty") return served("", "application/pdf");
      if (req.path == "/notes.md")
        return served("# Results\n\nOur ResNet-50 achieves 94.6% top-1 accuracy on CIFAR-10.\n", "text/plain");
      return served("no such paper", "text/plain", 404);
    });
  }

  r2r::test::process_result plan(const std::string& paper, const std::string& out = "out") {
    const auto exe = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
    return run_process(exe.string() + " --plugin-path " + r2r::test::plugin_dir().string() + " plan '" + repo.string() +
                       "' --out '" + (tmp.path() / out).string() + "' --cache-dir '" + (tmp.path() / "cache").string() +
                       "' --state-dir '" + (tmp.path() / "state").string() + "' --paper '" + paper + "'");
  }
  json plan_json(const std::string& out = "out") { return json::parse(read_text(tmp.path() / out / "plan.json")); }

  r2r::test::temp_dir tmp;
  fs::path repo, pdf_file;
  std::string pdf;
  loopback_server server;
};

TEST_F(PaperUrl, ADownloadedPaperGivesTheSameTargetAsTheFileAndIsKeptBesideThePlan) {
  const auto by_file = plan(pdf_file.string(), "by-file");
  ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
  const std::string url = server.base_url("/papers/resnets.pdf");
  const auto by_url = plan(url);
  ASSERT_EQ(by_url.exit_code, 0) << by_url.out << by_url.err;
  const json file_plan = plan_json("by-file"), url_plan = plan_json();
  ASSERT_TRUE(url_plan["metric"].is_object()) << url_plan["metric_note"];
  EXPECT_EQ(url_plan["metric"], file_plan["metric"]);
  EXPECT_EQ(url_plan["metric"]["page"], 2);
  EXPECT_EQ(url_plan["metric"]["row"], 2);
  EXPECT_EQ(url_plan["paper"]["candidates"], file_plan["paper"]["candidates"]);
  EXPECT_EQ(url_plan["paper"]["target"], file_plan["paper"]["target"]);
  const json& p = url_plan["paper"];
  EXPECT_EQ(p["url"], url);
  EXPECT_EQ(p["final_url"], url);
  EXPECT_EQ(p["sha256"], r2r::report::sha256_hex(pdf));
  EXPECT_EQ(p["sha256"], file_plan["paper"]["sha256"]);  // the file path records its digest too
  EXPECT_EQ(p["size"], pdf.size());
  EXPECT_EQ(p["kept"], "paper/resnets.pdf");
  EXPECT_EQ(read_text(tmp.path() / "out/paper/resnets.pdf"), pdf);
  const json record = json::parse(read_text(tmp.path() / "out/paper/source.json"));
  EXPECT_EQ(record["sha256"], p["sha256"]);
  EXPECT_EQ(server.requests().back().method, "GET");
}

TEST_F(PaperUrl, TheTypeIsDecidedByTheBytesNotTheContentType) {
  // A PDF served as application/octet-stream (above); Markdown served as text/plain here.
  const auto r = plan(server.base_url("/notes.md"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = plan_json();
  EXPECT_EQ(p["paper"]["format"], "markdown");
  ASSERT_TRUE(p["metric"].is_object()) << p["metric_note"];
  EXPECT_DOUBLE_EQ(p["metric"]["value"].get<double>(), 94.6);
}

TEST_F(PaperUrl, RedirectsAreFollowedAndTheFinalUrlRecorded) {
  const auto r = plan(server.base_url("/old"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = plan_json();
  EXPECT_EQ(p["paper"]["url"], server.base_url("/old"));
  EXPECT_EQ(p["paper"]["final_url"], server.base_url("/papers/resnets.pdf"));
  EXPECT_TRUE(p["metric"].is_object());
}

TEST_F(PaperUrl, BadAnswersStopThePlanWithWhatWentWrong) {
  struct bad {
    std::string path, says;
  };
  for (const auto& b : std::vector<bad>{{"/missing.pdf", "HTTP 404 (Not Found)"},
                                        {"/abs", "an HTML page, not a paper"},
                                        {"/to-file", "'file:///etc/passwd', which is not http(s); refused"},
                                        {"/empty", "an empty body"}}) {
    const auto r = plan(server.base_url(b.path), "bad");
    EXPECT_EQ(r.exit_code, 1) << b.path << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(b.says)) << b.path;
    EXPECT_FALSE(fs::exists(tmp.path() / "bad/plan.json")) << b.path;
  }
  // Only http and https are downloaded; other schemes are usage errors before any request.
  const std::size_t before = server.request_count();
  for (const std::string url : {"file:///etc/passwd", "ftp://127.0.0.1/paper.pdf"}) {
    const auto r = plan(url, "bad");
    EXPECT_EQ(r.exit_code, 2) << url << r.err;
    EXPECT_THAT(r.err, HasSubstr("only http:// and https:// URLs are downloaded")) << url;
  }
  EXPECT_EQ(server.request_count(), before);
  // Nothing listens on the port any more: a connection failure, named as one.
  int dead_port = 0;
  {
    loopback_server gone;
    dead_port = gone.port();
  }
  const auto r = plan("http://127.0.0.1:" + std::to_string(dead_port) + "/p.pdf", "bad");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot connect to the server"));
}

TEST_F(PaperUrl, CredentialsInTheUrlAreUsedButNeverWrittenOrPrinted) {
  const std::string secret_url =
      "http://alice:s3cr3t-pw@127.0.0.1:" + std::to_string(server.port()) + "/papers/resnets.pdf";
  const auto r = plan(secret_url);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.requests().back().header("authorization"), "Basic YWxpY2U6czNjcjN0LXB3");  // alice:s3cr3t-pw
  for (const auto* file : {"plan.json", "paper/source.json", "fingerprint.json"}) {
    const std::string text = read_text(tmp.path() / "out" / file);
    EXPECT_THAT(text, Not(HasSubstr("s3cr3t"))) << file;
    EXPECT_THAT(text, Not(HasSubstr("alice"))) << file;
  }
  EXPECT_EQ(plan_json()["paper"]["url"],
            "http://***@127.0.0.1:" + std::to_string(server.port()) + "/papers/resnets.pdf");
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("s3cr3t")));
  // Nor in an error.
  const auto failed = plan("http://alice:s3cr3t-pw@127.0.0.1:" + std::to_string(server.port()) + "/nope", "bad");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_THAT(failed.err, HasSubstr("HTTP 404"));
  EXPECT_THAT(failed.out + failed.err, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(failed.out + failed.err, Not(HasSubstr("alice")));
}

TEST_F(PaperUrl, RunKeepsThePaperInTheRunDirectoryAndResumesWithTheSameBytes) {
  const std::string secret_url =
      "http://alice:s3cr3t-pw@127.0.0.1:" + std::to_string(server.port()) + "/papers/resnets.pdf";
  const fs::path dir = tmp.path() / "run";
  const std::string args = "'" + repo.string() + "' --mode 2 --json --until plan --run-dir '" + dir.string() +
                           "' --paper '" + secret_url + "'";
  const auto r = run_process(r2r::test::run_command(tmp.path(), args));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_text(dir / "paper/resnets.pdf"), pdf);
  const json plan = json::parse(read_text(dir / "plan.json"));
  EXPECT_EQ(plan["paper"]["sha256"], r2r::report::sha256_hex(pdf));
  EXPECT_TRUE(plan["metric"].is_object());
  for (const auto* file : {"run.json", "events.jsonl", "plan.json", "paper/source.json"}) {
    EXPECT_THAT(read_text(dir / file), Not(HasSubstr("s3cr3t"))) << file;
  }
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("s3cr3t")));
  // The same run resumed (same URL, credentials and all) is accepted.
  const auto resumed = run_process(r2r::test::run_command(tmp.path(), args));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  // Another URL is another run.
  const auto other = run_process(
      r2r::test::run_command(tmp.path(), "'" + repo.string() + "' --mode 2 --json --until plan --run-dir '" +
                                             dir.string() + "' --paper '" + server.base_url("/old") + "'"));
  EXPECT_EQ(other.exit_code, 2) << other.out << other.err;
  EXPECT_THAT(other.out + other.err, HasSubstr("holds a run with paper"));
}

TEST(PaperFetch, TheSizeCapStopsTheStreamNotTheFinishedDownload) {
  loopback_server server;
  scripted_response big = served(std::string(8u << 20, 'a'), "text/plain");
  big.chunked = true;  // no Content-Length: only the stream can tell
  server.enqueue(big);
  server.enqueue(served(std::string(8u << 20, 'a'), "text/plain"));  // with a Content-Length above the cap
  r2r::paper::fetch_limits limits;
  limits.max_bytes = 1u << 20;
  for (int i = 0; i < 2; ++i) {
    const auto got = r2r::paper::fetch_paper(server.base_url("/big.txt"), limits);
    ASSERT_FALSE(got) << i;
    EXPECT_THAT(got.error().message, HasSubstr("grew past 1 MiB")) << i;
  }
  // Within the cap, the same body comes through.
  server.enqueue(served(std::string(512u << 10, 'a'), "text/plain"));
  const auto small = r2r::paper::fetch_paper(server.base_url("/small.txt"), limits);
  ASSERT_TRUE(small) << small.error().message;
  EXPECT_EQ(small->bytes.size(), 512u << 10);
}

TEST(PaperFetch, MoreThanFiveRedirectsAreRefused) {
  loopback_server server;
  server.set_handler([](const recorded_request& req) {
    const int n = std::stoi(req.path.substr(1));
    return n == 0 ? served("%PDF-1.4 not really", "application/pdf") : redirect("/" + std::to_string(n - 1));
  });
  const auto five = r2r::paper::fetch_paper(server.base_url("/5"));
  ASSERT_TRUE(five) << five.error().message;
  EXPECT_EQ(five->redirects.size(), 5u);
  const auto six = r2r::paper::fetch_paper(server.base_url("/6"));
  ASSERT_FALSE(six);
  EXPECT_THAT(six.error().message, HasSubstr("more than 5 redirects"));
}

TEST(PaperFetch, UrlsAndKeptNamesAreReadFromTheText) {
  EXPECT_TRUE(r2r::paper::looks_like_url("HTTPS://h.org/x.pdf"));
  EXPECT_FALSE(r2r::paper::looks_like_url("papers/x.pdf"));
  EXPECT_FALSE(r2r::paper::looks_like_url("dir with ://colon/x.pdf"));
  EXPECT_EQ(r2r::paper::kept_name("https://h.org/pdf/2101.00001", "%PDF-1.7"), "2101.00001.pdf");
  EXPECT_EQ(r2r::paper::kept_name("https://h.org/", "text"), "paper.txt");
  EXPECT_EQ(r2r::paper::kept_name("https://h.org/..%2F..%2Fetc", "%PDF-"), "2F..2Fetc.pdf");
}

TEST_F(PaperUrl, AResumedRunReadsItsKeptCopyOrSaysThePaperChanged) {
  const fs::path run_dir = tmp.path() / "run";
  const std::string url = server.base_url("/papers/resnets.pdf");
  auto first = r2r::run::resolve_paper(url, run_dir);
  ASSERT_TRUE(first) << first.error().to_string();
  ASSERT_TRUE(first->kept);
  ASSERT_TRUE(r2r::run::write_kept_paper(run_dir, *first->kept));
  const std::size_t fetched = server.request_count();
  // The server's paper changes; the resumed run still reads the bytes it planned with.
  pdf = "%PDF-1.4 a different paper";
  auto again = r2r::run::resolve_paper(url, run_dir);
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(server.request_count(), fetched);
  EXPECT_EQ(again->provenance["sha256"], first->provenance["sha256"]);
  EXPECT_THAT(again->note, HasSubstr("kept in"));
  // Without a good kept copy it downloads again, and a different body is refused.
  std::ofstream(run_dir / "paper/resnets.pdf") << "damaged";
  auto changed = r2r::run::resolve_paper(url, run_dir);
  ASSERT_FALSE(changed);
  EXPECT_THAT(changed.error().message, HasSubstr("changed since this run planned with it"));
  EXPECT_EQ(server.request_count(), fetched + 1);
}

}  // namespace
