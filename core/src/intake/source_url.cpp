// SPDX-License-Identifier: MIT
// Source strings -> URLs, credential redaction, and the bounded TCP reachability probe.
#include <r2r/planning/intake.hpp>

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>
#include <cerrno>
#include <cstring>
#include <regex>

namespace r2r::planning {
namespace {

std::string redact(const std::string& url) {
  static const std::regex userinfo(R"(^([a-z][a-z0-9+.\-]*://)[^/@]*@)");
  return std::regex_replace(url, userinfo, "$1");
}

}  // namespace

core::result<parsed_source> parse_source(const std::string& source) {
  if (source.empty()) return core::fail(core::phase::usage, "SOURCE is empty: give a repository URL or a local path");
  parsed_source p;
  static const std::regex url_re(R"(^(https?|ssh|git)://(?:[^/@]*@)?(\[[^\]]+\]|[^/:]+)(?::(\d+))?(/.*)?$)");
  static const std::regex scp_re(R"(^(?:[A-Za-z0-9._\-]+@)?([A-Za-z0-9.\-]+):(?!//)(.+)$)");
  std::smatch m;
  if (std::regex_match(source, m, url_re)) {
    p.kind = source_kind::remote;
    p.url = source;
    p.redacted = redact(source);
    p.host = m[2].str();
    if (p.host.size() > 2 && p.host.front() == '[') p.host = p.host.substr(1, p.host.size() - 2);
    const std::string scheme = m[1].str();
    p.port = m[3].matched        ? std::stoi(m[3].str())
             : scheme == "https" ? 443
             : scheme == "http"  ? 80
             : scheme == "ssh"   ? 22
                                 : 9418;
    return p;
  }
  if (source.rfind("file://", 0) == 0) {
    p.kind = source_kind::file_url;
    p.url = source;
    p.redacted = source;
    const std::filesystem::path path = source.substr(7);
    if (!std::filesystem::exists(path)) {
      return core::fail(core::phase::usage, "no such path: " + path.string() + " (from " + source +
                                                "); expected an existing git repository");
    }
    return p;
  }
  if (!std::filesystem::exists(source) && std::regex_match(source, m, scp_re) && source.find('/') != 0) {
    p.kind = source_kind::remote;
    p.url = source;
    p.redacted = source;
    p.host = m[1].str();
    p.port = 22;
    return p;
  }
  std::error_code ec;
  const auto abs = std::filesystem::absolute(source, ec);
  if (ec || !std::filesystem::exists(abs)) {
    return core::fail(core::phase::usage, "no such path: " + source +
                                              "; expected a local git repository or a URL (https://, ssh://, "
                                              "git@host:path, file://)");
  }
  p.kind = source_kind::local_path;
  p.url = abs.lexically_normal().string();
  while (p.url.size() > 1 && p.url.back() == '/') p.url.pop_back();
  p.redacted = p.url;
  return p;
}

core::result<void> probe_host(const std::string& host, int port, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return core::fail(core::phase::io, "cannot resolve host " + host + ": " + gai_strerror(rc) +
                                           "; check the URL and that this machine has network access");
  }
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd pfd{fd, POLLOUT, 0};
      rc = poll(&pfd, 1, static_cast<int>(timeout.count()));
      if (rc == 0) {
        last = "no answer within " + std::to_string(timeout.count()) + " ms";
        close(fd);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      if (err) last = std::strerror(err);
    } else if (rc != 0) {
      last = std::strerror(errno);
    }
    close(fd);
    if (rc == 0) {
      freeaddrinfo(found);
      return {};
    }
  }
  freeaddrinfo(found);
  return core::fail(core::phase::io, "cannot reach " + where + " (" + last +
                                         "); check the URL, the network, or use a local path or file:// URL");
}

}  // namespace r2r::planning
