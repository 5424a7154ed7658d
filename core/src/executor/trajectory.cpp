// SPDX-License-Identifier: MIT
#include <r2r/executor/trajectory.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace r2r::executor {
namespace fs = std::filesystem;

namespace {

tl::unexpected<core::error> io_error(const std::string& what, const fs::path& path) {
  return core::fail(core::phase::io, what + ": " + std::strerror(errno), {}, path.string());
}

core::result<void> write_all(int fd, std::string_view text, const fs::path& path) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write", path);
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

core::result<void> fsync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open directory", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return io_error("cannot fsync directory", dir);
  return {};
}

}  // namespace

core::result<append_file> append_file::open(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot open for appending", file);
  return append_file(fd, file);
}

append_file::append_file(append_file&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

append_file& append_file::operator=(append_file&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

append_file::~append_file() {
  if (fd_ >= 0) ::close(fd_);
}

core::result<void> append_file::append(std::string_view text, bool durable) {
  if (auto w = write_all(fd_, text, path_); !w) return w;
  if (durable && ::fdatasync(fd_) != 0) return io_error("cannot fsync", path_);
  return {};
}

core::result<void> append_file::append_json(const nlohmann::json& line) {
  return append(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", true);
}

core::result<trajectory_contents> read_trajectory(const fs::path& file) {
  trajectory_contents out;
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(core::phase::io, "cannot read the trajectory", {}, file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::size_t start = 0;
  std::size_t number = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    ++number;
    if (end == std::string::npos) {
      out.torn_bytes = text.size() - start;  // no newline: the write was cut
      break;
    }
    const std::string_view line(text.data() + start, end - start);
    auto parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      if (end + 1 == text.size()) {  // a last line that ended but is not JSON: torn too
        out.torn_bytes = text.size() - start;
        break;
      }
      return core::fail(core::phase::io,
                        "line " + std::to_string(number) +
                            " of the trajectory is not a JSON object and is not the last line; the file was "
                            "edited or corrupted. Restore it from a copy; the executor never writes such a line.",
                        {}, file.string());
    }
    out.lines.push_back(std::move(parsed));
    start = end + 1;
    out.valid_bytes = start;
  }
  return out;
}

core::result<void> truncate_file(const fs::path& file, std::uintmax_t size) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open to truncate", file);
  const bool ok = ::ftruncate(fd, static_cast<off_t>(size)) == 0 && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return io_error("cannot truncate", file);
  return {};
}

core::result<void> write_file_atomic(const fs::path& file, std::string_view text) {
  const fs::path tmp = file.parent_path() / ("." + file.filename().string() + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create", tmp);
  auto w = write_all(fd, text, tmp);
  const bool synced = w && ::fsync(fd) == 0;
  ::close(fd);
  if (!w) return w;
  if (!synced) return io_error("cannot fsync", tmp);
  if (::rename(tmp.c_str(), file.c_str()) != 0) return io_error("cannot rename into place", file);
  return fsync_dir(file.parent_path().empty() ? fs::path(".") : file.parent_path());
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace r2r::executor
