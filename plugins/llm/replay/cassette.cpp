// SPDX-License-Identifier: MIT
#include "cassette.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace r2r::plugins::llm {
namespace {

using nlohmann::json;

std::optional<r2r_status> status_from_name(const std::string& name) {
  for (r2r_status s : {R2R_ERR_INVALID_ARGUMENT, R2R_ERR_UNKNOWN_METHOD, R2R_ERR_FAILED, R2R_ERR_CANCELLED,
                       R2R_ERR_UNAVAILABLE, R2R_ERR_INTERNAL}) {
    if (name == r2r_status_name(s)) return s;
  }
  return std::nullopt;
}

exchange parse_exchange(const json& line, const std::string& origin) {
  auto bad = [&](const std::string& what) {
    return sdk::invalid_argument(origin + ": " + what +
                                 "; a cassette entry is {\"request\": {...}, \"response\": {...}} or {\"request\": "
                                 "{...}, \"error\": {\"status\": ..., \"message\": ...}}");
  };
  if (!line.is_object()) throw bad("expected a JSON object, found " + std::string(line.type_name()));
  if (auto f = line.find("format"); f != line.end() && *f != cassette_format) {
    throw sdk::invalid_argument(origin + ": cassette format " + f->dump() + " is not supported; this plugin reads " +
                                cassette_format);
  }
  if (!line.contains("request")) throw bad("no `request`");
  if (line.contains("response") == line.contains("error")) throw bad("expected exactly one of `response` and `error`");
  exchange e;
  e.origin = origin;
  try {
    e.request = json(line["request"].get<sdk::llm::complete_request>());
    if (line.contains("response")) e.response = json(line["response"].get<sdk::llm::complete_response>());
  } catch (const sdk::error& x) {
    throw bad(x.what());
  } catch (const json::exception& x) {
    throw bad(std::string("the recorded message has the wrong shape: ") + x.what());
  }
  if (line.contains("error")) {
    const json& err = line["error"];
    if (!err.is_object() || !err.contains("status") || !err.contains("message") || !err["status"].is_string() ||
        !err["message"].is_string()) {
      throw bad("`error` needs string fields status and message");
    }
    const auto status = status_from_name(err["status"].get<std::string>());
    if (!status) throw bad("unknown error status " + err["status"].dump());
    e.error = recorded_error{*status, err["message"].get<std::string>()};
  }
  return e;
}

}  // namespace

std::vector<exchange> read_cassette(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw sdk::invalid_argument("cannot read cassette " + file.string() + ": " + std::strerror(errno) +
                                " (relative paths are resolved from the working directory)");
  }
  std::vector<exchange> out;
  std::string text;
  for (std::size_t number = 1; std::getline(in, text); ++number) {
    const std::string origin = file.string() + ":" + std::to_string(number);
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    json line;
    try {
      line = json::parse(text);
    } catch (const json::parse_error& e) {
      throw sdk::invalid_argument(origin + ": not valid JSON (" + std::string(e.what()) +
                                  "); a cassette holds one JSON object per line");
    }
    out.push_back(parse_exchange(line, origin));
  }
  return out;
}

std::vector<exchange> exchanges_from_json(const json& array, const std::string& origin) {
  if (!array.is_array()) throw sdk::invalid_argument(origin + " must be an array of exchanges");
  std::vector<exchange> out;
  for (std::size_t i = 0; i < array.size(); ++i)
    out.push_back(parse_exchange(array[i], origin + "/" + std::to_string(i)));
  return out;
}

json to_line(const exchange& e, std::size_t seq) {
  json line{{"format", cassette_format}, {"seq", seq}, {"request", e.request}};
  if (e.response) line["response"] = *e.response;
  if (e.error) line["error"] = json{{"status", r2r_status_name(e.error->status)}, {"message", e.error->message}};
  return line;
}

cassette_writer::cassette_writer(const std::filesystem::path& file, bool overwrite) : path_(file) {
  std::error_code ec;
  if (!overwrite && std::filesystem::exists(file, ec)) {
    throw sdk::invalid_argument("cassette " + file.string() +
                                " already exists; set \"overwrite\": true to replace it, or choose another path");
  }
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  // Created 0600 before anything is written: prompts may hold private code.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw sdk::invalid_argument("cannot create cassette " + file.string() + ": " + std::strerror(errno));
  }
  ::fchmod(fd, 0600);  // an existing file keeps its mode under O_TRUNC
  ::close(fd);
  out_.open(file, std::ios::binary | std::ios::trunc);
  if (!out_) throw sdk::invalid_argument("cannot open cassette " + file.string() + " for writing");
}

void cassette_writer::append(const exchange& e) {
  out_ << to_line(e, ++seq_).dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  out_.flush();
  if (!out_) throw sdk::failed("writing cassette " + path_.string() + " failed (disk full?)");
}

}  // namespace r2r::plugins::llm
