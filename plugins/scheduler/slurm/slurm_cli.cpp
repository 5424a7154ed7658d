// SPDX-License-Identifier: MIT
#include "slurm_cli.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

extern char** environ;

namespace r2r::plugins::scheduler {

command_result run_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  command_result r;
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.output = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos && env.count(kv.substr(0, eq))) continue;
    env_text.push_back(kv);
  }
  for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipefd[1]);
  if (rc != 0) {
    ::close(pipefd[0]);
    r.output = "cannot run " + argv[0] + ": " + std::strerror(rc);
    r.exit_code = 127;
    return r;
  }
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (r.output.size() < (4u << 20)) r.output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::map<std::string, std::string> parse_squeue_json(const std::string& text) {
  std::map<std::string, std::string> out;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return out;
  for (const auto& job : j.value("jobs", nlohmann::json::array())) {
    if (!job.is_object() || !job.contains("job_id")) continue;
    const auto& id = job["job_id"];
    const std::string key = id.is_number() ? std::to_string(id.get<long long>()) : id.dump();
    const auto& st = job.value("job_state", nlohmann::json());
    if (st.is_string()) out[key] = st.get<std::string>();
    if (st.is_array() && !st.empty() && st[0].is_string()) out[key] = st[0].get<std::string>();
  }
  return out;
}

std::optional<std::string> parse_scontrol_state(const std::string& text) {
  const auto at = text.find("JobState=");
  if (at == std::string::npos) return std::nullopt;
  std::string state;
  for (std::size_t i = at + 9; i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])); ++i)
    state += text[i];
  return state.empty() ? std::nullopt : std::optional<std::string>(state);
}

std::string parse_sbatch_id(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::string id = line.substr(0, line.find(';'));
    if (!id.empty() &&
        std::all_of(id.begin(), id.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return id;
  }
  return {};
}

int parse_sinfo_gpus(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::set<std::string> seen;
  int total = 0;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string node, gres;
    if (!(s >> node >> gres) || !seen.insert(node).second) continue;
    std::istringstream parts(gres);
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part.rfind("gpu", 0) != 0) continue;
      const std::string bare = part.substr(0, part.find('('));  // "gpu:2(S:0)" -> "gpu:2"
      const std::string count = bare.substr(bare.rfind(':') + 1);
      try {
        total += std::stoi(count);
      } catch (const std::exception&) {
      }
    }
  }
  return total;
}

}  // namespace r2r::plugins::scheduler
