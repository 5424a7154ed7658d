// SPDX-License-Identifier: MIT
#include "hostile_repo.hpp"

#include "../plan/fixture_repos.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace r2r::test {
namespace {

namespace fs = std::filesystem;

const char* const honest_kernel =
    "#include <cuda_runtime.h>\n"
    "__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }\n"
    "int run() {\n  float* d = nullptr;\n  cudaMalloc(&d, 64 * sizeof(float));\n"
    "  scale<<<1, 64>>>(d);\n  cudaDeviceSynchronize();\n  return cudaFree(d) == cudaSuccess ? 0 : 1;\n}\n";

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what + ": " + std::strerror(errno));
}

void symlink_to(const std::string& target, const fs::path& link) {
  fs::create_directories(link.parent_path());
  check(::symlink(target.c_str(), link.c_str()) == 0, "symlink " + link.string());
}

/// `../` repeated often enough to reach / from any test directory, then `target` (absolute).
std::string climbing(const fs::path& target) {
  std::string up;
  for (int i = 0; i < 40; ++i) up += "../";
  return up + target.relative_path().string();
}

void list_into(int dir_fd, const std::string& prefix, const std::vector<fs::path>& excluded, const fs::path& host_dir,
               int depth, int max_depth, std::map<std::string, std::string>& out) {
  const int dup_fd = ::dup(dir_fd);
  DIR* d = ::fdopendir(dup_fd);
  if (d == nullptr) {
    ::close(dup_fd);
    out[prefix + "<unreadable>"] = std::strerror(errno);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  for (const auto& n : names) {
    const fs::path host = host_dir / n;
    bool skip = false;
    for (const auto& x : excluded) skip = skip || host == x;
    if (skip) continue;
    struct stat st {};
    if (::fstatat(dir_fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::ostringstream line;
    const char* type = S_ISREG(st.st_mode)    ? "file"
                       : S_ISDIR(st.st_mode)  ? "dir"
                       : S_ISLNK(st.st_mode)  ? "link"
                       : S_ISFIFO(st.st_mode) ? "fifo"
                       : S_ISCHR(st.st_mode)  ? "chardev"
                       : S_ISBLK(st.st_mode)  ? "blockdev"
                                              : "other";
    line << type << " " << (S_ISDIR(st.st_mode) ? 0 : st.st_size) << " " << st.st_mtim.tv_sec << "."
         << st.st_mtim.tv_nsec << " mode " << std::oct << (st.st_mode & 07777) << std::dec;
    if (S_ISLNK(st.st_mode)) {
      char buf[4096];
      const ssize_t len = ::readlinkat(dir_fd, n.c_str(), buf, sizeof buf);
      line << " -> " << std::string(buf, len > 0 ? static_cast<std::size_t>(len) : 0);
    }
    out[prefix + n] = line.str();
    if (S_ISDIR(st.st_mode) && depth < max_depth) {
      const int child = ::openat(dir_fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0) {
        list_into(child, prefix + n + "/", excluded, host, depth + 1, max_depth, out);
        ::close(child);
      }
    }
  }
}

}  // namespace

void make_canary(const fs::path& canary) {
  write_file(canary, "secret.cu", std::string("// ") + canary_secret + "\n__global__ void secret() {}\n");
  write_file(canary, "secret-reqs.txt", std::string(canary_package) + "==6.6.6\n");
  write_file(canary, "hardlinked.cu", std::string("// hardlink canary ") + canary_secret + "\n");
  write_file(canary, "fakegit/secret.cu", std::string("// ") + canary_secret + " in another repository\n");
  git_commit_all(canary / "fakegit", "a repository the hostile one points at");
}

std::string make_hostile_repo(const fs::path& root, const fs::path& canary) {
  write_file(root, "README.md", "# hostile\n\n```bash\npip install -r requirements.txt\npython train.py\n```\n");
  write_file(root, "train.py", "import torch\n\nif __name__ == '__main__':\n    print('loss 0.5')\n");
  write_file(
      root, "requirements.txt",
      "numpy\n-r reqs_link.txt\n-r " + climbing(canary / "secret-reqs.txt") + "\n-c passwd_dir/secret-reqs.txt\n");
  write_file(root, "kernels/ok.cu", honest_kernel);
  write_file(root, "-dash.cu", honest_kernel);
  write_file(root, "new\nline.cu", honest_kernel);
  write_file(root, "caf\xe9.cu", honest_kernel);
  symlink_to("ok.cu", root / "kernels/inside_link.cu");
  symlink_to((canary / "secret.cu").string(), root / "csrc_link.cu");
  symlink_to(climbing(canary / "secret.cu"), root / "kernels/rel_escape.cu");
  symlink_to(canary.string(), root / "passwd_dir");
  symlink_to((canary / "secret-reqs.txt").string(), root / "reqs_link.txt");
  symlink_to("missing/nothing.cu", root / "dangling.cu");
  symlink_to("loop_b.cu", root / "loop_a.cu");
  symlink_to("loop_a.cu", root / "loop_b.cu");
  return git_commit_all(root, "hostile entries");
}

std::vector<std::string> add_uncommittable_entries(const fs::path& root, const fs::path& canary,
                                                   const uncommittable_options& options) {
  std::vector<std::string> missing;
  check(::mkfifo((root / "pipe.cu").c_str(), 0644) == 0, "mkfifo");
  if (::mknod((root / "dev_null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) missing.push_back("dev_null");
  check(::link((canary / "hardlinked.cu").c_str(), (root / "hard.cu").c_str()) == 0, "link hard.cu");
  {
    const int fd = ::open((root / "huge.cu").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    check(fd >= 0 && ::ftruncate(fd, static_cast<off_t>(options.sparse_bytes)) == 0, "sparse huge.cu");
    ::close(fd);
  }
  write_file(root, "vendor/.git", "gitdir: " + (canary / "fakegit/.git").string() + "\n");
  write_file(root, "vendor/lib.cu", honest_kernel);
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  check(fd >= 0, "open root");
  for (int i = 0; i < options.depth; ++i) {
    const char* name = i == 0 ? "deep" : "d";
    check(::mkdirat(fd, name, 0755) == 0, "mkdirat");
    const int next = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    ::close(fd);
    check(next >= 0, "openat");
    fd = next;
  }
  const int leaf = ::openat(fd, "leaf.cu", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  check(leaf >= 0 && ::write(leaf, honest_kernel, std::strlen(honest_kernel)) > 0, "leaf.cu");
  ::close(leaf);
  ::close(fd);
  return missing;
}

std::map<std::string, std::string> listing(const fs::path& dir, const std::vector<fs::path>& excluded, int max_depth) {
  std::map<std::string, std::string> out;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  list_into(fd, "", excluded, dir, 0, max_depth, out);
  ::close(fd);
  return out;
}

std::string listing_diff(const std::map<std::string, std::string>& before,
                         const std::map<std::string, std::string>& after) {
  std::string out;
  for (const auto& [path, what] : before) {
    const auto it = after.find(path);
    if (it == after.end()) {
      out += "- " + path + " (" + what + ")\n";
    } else if (it->second != what) {
      out += "~ " + path + ": " + what + " => " + it->second + "\n";
    }
  }
  for (const auto& [path, what] : after) {
    if (!before.count(path)) out += "+ " + path + " (" + what + ")\n";
  }
  return out;
}

}  // namespace r2r::test
