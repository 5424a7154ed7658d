// SPDX-License-Identifier: MIT
// File operations confined beneath a root directory, for host-side work on directories that an
// untrusted party (an agent in a sandbox, a cloned repository) can write.
//
// CONTRACT: every path given to these functions is relative to a `root` and is resolved one
// component at a time without following any symbolic link (not even in the last component) and
// without leaving the root: absolute paths and `..` components are refused up front, and a link
// anywhere on the way is refused with an `error` naming the path. Resolution uses openat2(2) with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS and falls back to a walk with
// openat(O_NOFOLLOW | O_DIRECTORY) per component where openat2 is missing (ENOSYS) or filtered
// (EPERM, seccomp). Files are written as new inodes (O_CREAT | O_EXCL | O_NOFOLLOW, then renamed
// over the name inside its directory fd), so a write never goes through an existing link or into a
// hardlinked inode shared with something outside. Nothing blocks on FIFOs: files are opened with
// O_NONBLOCK and must be regular.
// The root's own path is trusted (the caller chose it); only what lies beneath is not.
// THREADING: functions are reentrant; a root may be shared between threads (its fd is read-only
// state). Concurrent writers beneath a root can make an operation fail, never escape.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::safe_fs {

/// An operation refused or failed; `path` is relative to the root (or a host path for roots),
/// `reason` says why, `code` is the errno behind it (0 for a refusal). what() is "<path>: <reason>".
class error : public std::runtime_error {
 public:
  error(std::string path, std::string reason, int code = 0);
  const std::string& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }
  int code() const noexcept { return code_; }

 private:
  std::string path_;
  std::string reason_;
  int code_ = 0;
};

/// Owns a file descriptor; closes it on destruction.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  ~unique_fd();
  unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  int get() const noexcept { return fd_; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// A directory that paths are resolved beneath. `label` names it in errors ("workspace",
/// "repository"): "x/probe.conf: a path component is a symbolic link; refusing to follow it out
/// of the workspace".
class root {
 public:
  /// Opens `dir` (which must be a directory; links in `dir` itself are followed: it is trusted).
  static root open(const std::filesystem::path& dir, std::string label = "root directory");
  int fd() const noexcept { return fd_.get(); }
  const std::filesystem::path& path() const noexcept { return path_; }
  const std::string& label() const noexcept { return label_; }

 private:
  root(unique_fd fd, std::filesystem::path path, std::string label);
  unique_fd fd_;
  std::filesystem::path path_;
  std::string label_;
};

/// How paths are resolved. `automatic` tries openat2 and remembers when the kernel refuses it.
enum class resolver { automatic, openat2, walk };
/// Process-wide choice (tests force each path; `openat2` fails with ENOSYS/EPERM where missing).
void set_resolver(resolver r) noexcept;
resolver current_resolver() noexcept;

/// Splits a relative path into components; "" and "." name the root itself (no components).
/// Throws `error` for absolute paths, `..` components and NUL bytes. Any other byte is allowed
/// (newlines, non-UTF-8, leading dashes).
std::vector<std::string> split(std::string_view rel);

/// Opens `rel` beneath `r` with `flags` (O_NOFOLLOW and O_CLOEXEC are always added). Throws `error`.
unique_fd open(const root& r, std::string_view rel, int flags, mode_t mode = 0);
/// Opens the directory `rel` beneath `r` ("" for the root itself).
unique_fd open_dir(const root& r, std::string_view rel);
/// Opens the regular file `rel` for reading; refuses FIFOs, devices, sockets and directories.
unique_fd open_regular(const root& r, std::string_view rel);
/// Same for the entry `name` of the directory `dir_fd` (one component, never a link).
unique_fd open_regular_at(int dir_fd, const std::string& name, const std::string& shown_path);

/// Reads a regular file; throws when it is larger than `max_bytes`.
std::string read_file(const root& r, std::string_view rel, std::uint64_t max_bytes = 1ULL << 30);
/// Writes `content` to `rel` as a new inode with permissions `mode`; the parent must exist.
/// Replaces a file or link named `rel` (the link itself, never its target); refuses a directory.
void write_file(const root& r, std::string_view rel, std::string_view content, mode_t mode = 0644);
/// Creates `rel` and its missing parents as directories (mkdir -p); returns the last one opened.
unique_fd make_dirs(const root& r, std::string_view rel, mode_t mode = 0755);
/// Creates (or replaces a non-directory at) `rel` as a symbolic link holding `target` verbatim.
void make_symlink(const root& r, std::string_view rel, const std::string& target);
/// Removes `rel` and, for a directory, everything beneath it; links are removed, never followed.
/// "" empties the root (the root itself stays). A missing `rel` is not an error.
void remove_tree(const root& r, std::string_view rel);

/// A new file being written beneath a root: created under a temporary name in the parent's
/// directory fd, it replaces `rel` on commit(); dropped without commit() it is removed.
class new_file {
 public:
  new_file(const root& r, std::string_view rel, mode_t mode = 0644);
  ~new_file();
  new_file(const new_file&) = delete;
  new_file& operator=(const new_file&) = delete;
  void write(const void* data, std::size_t size);
  /// Sets the modification time (seconds, nanoseconds) the file gets on commit.
  void set_mtime(std::int64_t seconds, long nanoseconds);
  void commit();

 private:
  unique_fd dir_;
  unique_fd fd_;
  std::string name_;
  std::string tmp_;
  std::string shown_;
  bool has_mtime_ = false;
  std::int64_t mtime_s_ = 0;
  long mtime_ns_ = 0;
};

enum class entry_type { regular, directory, symlink, fifo, socket, block_device, char_device, unknown };
const char* to_string(entry_type t) noexcept;

/// One entry of a directory as lstat sees it.
struct entry {
  std::string name;
  entry_type type = entry_type::unknown;
  mode_t mode = 0;  // permission bits
  std::uint64_t size = 0;
  std::int64_t mtime_s = 0;
  long mtime_ns = 0;
  std::uint64_t inode = 0;
  std::uint64_t links = 0;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

/// Entries of the directory `rel` (not `.`/`..`), sorted by name, from fstatat(AT_SYMLINK_NOFOLLOW).
std::vector<entry> list(const root& r, std::string_view rel);
/// The entry `rel` itself, not following a link in its last component.
entry stat(const root& r, std::string_view rel);

/// One object met by walk(): `path` is relative to the root, `dir_fd`/`name` locate it (valid only
/// during the callback). `link_target` is filled for links.
struct walk_entry {
  std::string path;
  entry info;
  int dir_fd = -1;
  std::string link_target;
};
/// Visits `rel` (unless it is the root) and, depth first, pre-order, everything beneath it, never
/// following links. The callback may open regular files with open_regular_at(dir_fd, name, path).
void walk(const root& r, std::string_view rel, const std::function<void(const walk_entry&)>& visit);

/// What copy_tree() copied and what it left out.
struct skipped_entry {
  std::string path;    // relative to the source root
  std::string reason;  // "a FIFO: not copied", ...
};
struct copy_report {
  std::uint64_t files = 0;
  std::uint64_t directories = 0;
  std::uint64_t symlinks = 0;
  std::uint64_t bytes = 0;
  std::vector<skipped_entry> skipped;
};

/// Copies `src_rel` beneath `src` to `dst_rel` beneath `dst` ("" for either root itself: a
/// directory's contents are merged into an existing directory). Regular files become new
/// independent files (hardlinks are not kept), links are recreated with the same target text and
/// never followed, directories are created or merged, FIFOs, sockets and devices are skipped and
/// reported. The parent of `dst_rel` must exist. Throws `error` on the first failure.
copy_report copy_tree(const root& src, std::string_view src_rel, const root& dst, std::string_view dst_rel);

}  // namespace r2r::safe_fs
