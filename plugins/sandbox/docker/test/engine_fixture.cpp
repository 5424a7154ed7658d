// SPDX-License-Identifier: MIT
#include "engine_fixture.hpp"

#include "docker_engine.hpp"
#include "unix_http.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

namespace r2r::plugins::sandbox::docker::testing {
namespace fs = std::filesystem;
namespace {

bool on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const auto end = dirs.find(':', start);
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / tool;
    if (access(candidate.c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

pid_t spawn(const std::vector<std::string>& argv, const fs::path& log, const std::vector<std::string>& env) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
  }
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, 0);
  setpgid(0, 0);
  for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

}  // namespace

engine_fixture::engine_fixture(const std::string& kind, const std::string& plain_http_registry) {
  char templ[] = "/tmp/r2r-engine-XXXXXX";
  if (mkdtemp(templ) == nullptr) {
    why_ = "cannot create a temporary directory";
    return;
  }
  dir_ = templ;
  socket_ = (dir_ / "engine.sock").string();
  const bool started = kind == "podman" ? start_podman(plain_http_registry) : start_docker();
  ok_ = started && wait_ready() && import_busybox();
}

bool engine_fixture::start_docker() {
  if (!on_path("dockerd")) return why_ = "dockerd is not installed (scripts/bootstrap.sh installs docker.io)", false;
  pid_ = spawn({"dockerd", "--data-root", (dir_ / "data").string(), "--exec-root", (dir_ / "exec").string(),
                "--pidfile", (dir_ / "dockerd.pid").string(), "-H", "unix://" + socket_, "--storage-driver=overlay2",
                "--iptables=false", "--ip6tables=false", "--bridge=none"},
               dir_ / "engine.log", {});
  return pid_ > 0;
}

bool engine_fixture::start_podman(const std::string& plain_http_registry) {
  if (!on_path("podman")) return why_ = "podman is not installed (scripts/bootstrap.sh installs podman)", false;
  // ENVIRONMENT.md: podman here needs cgroupfs, runc and explicit default ulimits.
  std::ofstream(dir_ / "containers.conf") << "[containers]\n"
                                             "default_ulimits = [\"nofile=20000:20000\", \"nproc=32768:32768\"]\n"
                                             "[engine]\ncgroup_manager = \"cgroupfs\"\nruntime = \"runc\"\n"
                                             "events_logger = \"file\"\n";
  std::ofstream(dir_ / "storage.conf") << "[storage]\ndriver = \"overlay\"\nrunroot = \"" << (dir_ / "run").string()
                                       << "\"\ngraphroot = \"" << (dir_ / "root").string() << "\"\n";
  // Its own registries.conf: no search registries, and the one plain-HTTP registry when asked.
  std::ofstream registries(dir_ / "registries.conf");
  registries << "unqualified-search-registries = []\n";
  if (!plain_http_registry.empty())
    registries << "[[registry]]\nlocation = \"" << plain_http_registry << "\"\ninsecure = true\n";
  registries.close();
  pid_ = spawn({"podman", "--root", (dir_ / "root").string(), "--runroot", (dir_ / "run").string(), "--tmpdir",
                (dir_ / "tmp").string(), "system", "service", "--time=0", "unix://" + socket_},
               dir_ / "engine.log",
               {"CONTAINERS_CONF=" + (dir_ / "containers.conf").string(),
                "CONTAINERS_STORAGE_CONF=" + (dir_ / "storage.conf").string(),
                "CONTAINERS_REGISTRIES_CONF=" + (dir_ / "registries.conf").string()});
  return pid_ > 0;
}

bool engine_fixture::wait_ready() {
  docker_engine engine(socket_, "1.41", std::chrono::seconds(5));
  for (int i = 0; i < 300; ++i) {
    try {
      engine.ping();
      return true;
    } catch (...) {
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      std::ifstream log(dir_ / "engine.log");
      std::string text((std::istreambuf_iterator<char>(log)), {});
      why_ = "the engine exited at start: " + text.substr(text.size() > 2000 ? text.size() - 2000 : 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  why_ = "the engine did not answer /_ping within 15 s";
  return false;
}

bool engine_fixture::import_busybox() {
  const fs::path root = dir_ / "rootfs";
  fs::create_directories(root / "bin");
  fs::create_directories(root / "tmp");
  fs::create_directories(root / "etc");
  fs::create_directories(root / "workspace");
  const fs::path busybox = fs::exists("/bin/busybox") ? "/bin/busybox" : "/usr/bin/busybox";
  if (!fs::exists(busybox)) return why_ = "busybox is not installed (busybox-static)", false;
  fs::copy_file(busybox, root / "bin" / "busybox");
  for (const char* tool :
       {"sh",    "echo",   "cat", "ls",  "sleep", "env",   "id", "kill", "head",  "dd",   "rm",  "mkdir",
        "touch", "printf", "yes", "seq", "true",  "false", "wc", "tr",   "nproc", "stat", "grep"}) {
    fs::create_symlink("busybox", root / "bin" / tool);
  }
  std::ofstream(root / "etc" / "passwd") << "root:x:0:0:root:/root:/bin/sh\n";
  std::ofstream(root / "etc" / "group") << "root:x:0:\n";
  const fs::path tar = dir_ / "rootfs.tar";
  if (std::system(("tar -C " + root.string() + " -cf " + tar.string() + " .").c_str()) != 0) {
    return why_ = "tar of the busybox rootfs failed", false;
  }
  unix_http http(socket_, "/v1.41", std::chrono::seconds(60));
  unix_http::stream_options o;
  o.upload_file = tar;
  o.content_type = "application/x-tar";
  std::string answer;
  o.sink = [&](std::string_view chunk) { answer.append(chunk); };
  const auto r = http.stream(
      "POST", "/images/create?fromSrc=-&repo=local%2Fbusybox&tag=latest&changes=" + url_encode("ENV PATH=/bin"), o);
  if (r.status != 200)
    return why_ = "image import failed: HTTP " + std::to_string(r.status) + " " + r.error_body, false;
  return true;
}

engine_fixture::~engine_fixture() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {
      gone = waitpid(pid_, &status, WNOHANG) == pid_;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!gone) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  if (!dir_.empty()) {
    // Podman's conmon monitors outlive the service (they linger up to --exit-delay, 300 s): kill
    // every process whose command line names this engine's private root, so nothing is left behind.
    const std::string root = dir_.string();
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
      if (text.find(root + "/") != std::string::npos) kill(static_cast<pid_t>(std::stol(name)), SIGKILL);
    }
    // Engines can leave mounts under their root (Podman's overlay graph root); detach them first,
    // deepest first, so the directory can really be removed.
    std::vector<std::string> mounts;
    std::ifstream table("/proc/mounts");
    std::string device, point, rest;
    while (table >> device >> point && std::getline(table, rest)) {
      if (point.rfind(dir_.string() + "/", 0) == 0) mounts.push_back(point);
    }
    for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) umount2(it->c_str(), MNT_DETACH);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

}  // namespace r2r::plugins::sandbox::docker::testing
