// SPDX-License-Identifier: MIT
// Cassette files: lines written and read back, file mode, overwrite protection, and errors that
// name FILE:LINE.
#include "cassette.hpp"

#include <r2r/sdk/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using namespace r2r::plugins::llm;
using nlohmann::json;
using ::testing::HasSubstr;

const json request = json::parse(R"({"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})");
const json response =
    json::parse(R"({"id":"m1","model":"x","provider":"anthropic","content":[{"type":"text","text":"yo"}],
  "stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_write_tokens":0},
  "latency_ms":5,"attempts":1,"cost_usd":0.25})");

struct temp_file {
  std::filesystem::path path;
  temp_file() {
    path = std::filesystem::temp_directory_path() /
           ("r2r-cassette-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++) + "/c.jsonl");
  }
  ~temp_file() { std::filesystem::remove_all(path.parent_path()); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  void write(const std::string& text) const {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::string read() const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

std::string load_error(const std::filesystem::path& p) {
  try {
    read_cassette(p);
  } catch (const r2r::sdk::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(Cassette, WritesOneFlushedLinePerExchangeAndReadsThemBack) {
  temp_file f;
  {
    cassette_writer w(f.path, false);
    exchange ok;
    ok.request = request;
    ok.response = response;
    w.append(ok);
    exchange failed;
    failed.request = request;
    failed.error = recorded_error{R2R_ERR_UNAVAILABLE, "connect: refused"};
    w.append(failed);
    // Flushed as written: readable before the writer is gone.
    EXPECT_EQ(read_cassette(f.path).size(), 2u);
  }
  const auto text = f.read();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_THAT(text, HasSubstr(R"("format":"r2r.llm.cassette/1")"));
  EXPECT_THAT(text, HasSubstr(R"("seq":2)"));
  EXPECT_THAT(text, HasSubstr(R"("error":{"message":"connect: refused","status":"unavailable"})"));
  const auto back = read_cassette(f.path);
  EXPECT_EQ(back[0].request, request);
  EXPECT_EQ(*back[0].response, response);
  EXPECT_EQ(back[1].error->status, R2R_ERR_UNAVAILABLE);
  EXPECT_EQ(back[1].origin, f.path.string() + ":2");
  struct stat st {};
  ASSERT_EQ(::stat(f.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(Cassette, RefusesToOverwriteUnlessAsked) {
  temp_file f;
  f.write("old\n");
  EXPECT_THROW(cassette_writer(f.path, false), r2r::sdk::invalid_argument);
  EXPECT_NO_THROW(cassette_writer(f.path, true));
  EXPECT_EQ(f.read(), "");
}

TEST(Cassette, BadLinesAreReportedWithFileAndLine) {
  temp_file f;
  f.write(json{{"request", request}, {"response", response}}.dump() + "\n\n{not json\n");
  EXPECT_THAT(load_error(f.path), HasSubstr(f.path.string() + ":3: not valid JSON"));

  f.write(json{{"request", request}}.dump() + "\n");
  EXPECT_THAT(load_error(f.path), HasSubstr(":1: expected exactly one of `response` and `error`"));

  f.write(json{{"format", "r2r.llm.cassette/9"}, {"request", request}, {"response", response}}.dump() + "\n");
  EXPECT_THAT(load_error(f.path), HasSubstr("cassette format \"r2r.llm.cassette/9\" is not supported"));

  f.write(json{{"request", {{"messages", "no"}}}, {"response", response}}.dump() + "\n");
  EXPECT_THAT(load_error(f.path), HasSubstr(":1: the recorded message has the wrong shape"));

  EXPECT_THAT(load_error("/nonexistent/c.jsonl"), HasSubstr("cannot read cassette /nonexistent/c.jsonl"));
}

TEST(Cassette, NormalisesWhatItReads) {
  // A hand-written request with defaults spelled out compares equal to the recorded form.
  temp_file f;
  json verbose = request;
  verbose["tools"] = json::array();
  verbose["cache_system"] = false;
  verbose["messages"][0]["content"][0]["cache"] = false;
  f.write(json{{"request", verbose}, {"response", response}}.dump() + "\n");
  EXPECT_EQ(read_cassette(f.path)[0].request, request);
}

}  // namespace
