// SPDX-License-Identifier: MIT
// acquire_repository() through libgit2: the only file of the project that uses libgit2 (with
// source_url.cpp for URL handling). See intake.hpp for the contract.
#include <r2r/planning/intake.hpp>

#include "git_dir_check.hpp"

#include <git2.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>

namespace r2r::planning {
namespace {

using clock_type = std::chrono::steady_clock;

struct libgit2_session {
  libgit2_session() { git_libgit2_init(); }
  ~libgit2_session() { git_libgit2_shutdown(); }
};

template <class T, void (*Free)(T*)>
struct git_ptr {
  T* p = nullptr;
  ~git_ptr() {
    if (p) Free(p);
  }
  git_ptr() = default;
  git_ptr(const git_ptr&) = delete;
  git_ptr& operator=(const git_ptr&) = delete;
};
using repo_ptr = git_ptr<git_repository, git_repository_free>;
using remote_ptr = git_ptr<git_remote, git_remote_free>;
using object_ptr = git_ptr<git_object, git_object_free>;
using submodule_ptr = git_ptr<git_submodule, git_submodule_free>;

std::string last_git_error() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

std::string oid_hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

/// State shared with libgit2 callbacks during one clone/fetch.
struct transfer_state {
  const intake_options* options = nullptr;
  clock_type::time_point deadline;
  clock_type::time_point last_print;
  int credential_attempts = 0;
  bool timed_out = false;
  std::string token;  // never logged
};

int on_transfer(const git_indexer_progress* stats, void* payload) {
  auto* st = static_cast<transfer_state*>(payload);
  const auto now = clock_type::now();
  if (now > st->deadline) {
    st->timed_out = true;
    return -1;
  }
  if (st->options->progress != nullptr &&
      (now - st->last_print > std::chrono::milliseconds(100) || stats->received_objects == stats->total_objects)) {
    st->last_print = now;
    *st->options->progress << "\rreceiving objects: " << stats->received_objects << "/" << stats->total_objects << " ("
                           << stats->received_bytes / 1024 << " KiB), indexed " << stats->indexed_objects
                           << (stats->indexed_objects == stats->total_objects ? "\n" : "") << std::flush;
  }
  return 0;
}

int on_sideband(const char*, int, void* payload) {
  auto* st = static_cast<transfer_state*>(payload);
  if (clock_type::now() > st->deadline) {
    st->timed_out = true;
    return -1;
  }
  return 0;
}

int on_credentials(git_credential** out, const char*, const char* username_from_url, unsigned int allowed,
                   void* payload) {
  auto* st = static_cast<transfer_state*>(payload);
  if (++st->credential_attempts > 2) return GIT_EAUTH;  // stop retry loops on rejected credentials
  if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && !st->token.empty()) {
    return git_credential_userpass_plaintext_new(out, username_from_url ? username_from_url : "x-access-token",
                                                 st->token.c_str());
  }
  if (allowed & GIT_CREDENTIAL_SSH_KEY)
    return git_credential_ssh_key_from_agent(out, username_from_url ? username_from_url : "git");
  return GIT_PASSTHROUGH;
}

void set_callbacks(git_remote_callbacks& cb, transfer_state& st) {
  cb.transfer_progress = on_transfer;
  cb.sideband_progress = on_sideband;
  cb.credentials = on_credentials;
  cb.payload = &st;
}

core::error transfer_error(const transfer_state& st, const std::string& what, const std::string& url) {
  if (st.timed_out) {
    return core::error{core::phase::io,
                       what + " " + url + " did not finish within " +
                           std::to_string(st.options->transfer_timeout.count() / 1000) +
                           " s; check the network or use a local clone",
                       "", url};
  }
  std::string hint = "check the URL";
  if (st.credential_attempts > 0) {
    hint = "check access rights; for a private https repository set " + st.options->token_env + " to a token";
  }
  return core::error{core::phase::io, what + " " + url + " failed: " + last_git_error() + "; " + hint, "", url};
}

std::string cache_key(const std::string& url) {
  git_oid oid;
  git_odb_hash(&oid, url.data(), url.size(), GIT_OBJECT_BLOB);
  return "repo-" + oid_hex(&oid).substr(0, 16);
}

/// Resolves SHA / tag / branch to a commit.
core::result<std::string> resolve_commit(git_repository* repo, const std::string& requested, const std::string& url,
                                         const std::string& default_ref, git_oid& out) {
  std::vector<std::string> candidates;
  if (requested.empty()) {
    candidates = {default_ref, "HEAD"};
  } else {
    candidates = {requested, "refs/remotes/origin/" + requested, "refs/tags/" + requested, "refs/heads/" + requested};
  }
  for (const auto& spec : candidates) {
    if (spec.empty()) continue;
    object_ptr obj, peeled;
    if (git_revparse_single(&obj.p, repo, spec.c_str()) != 0) continue;
    if (git_object_peel(&peeled.p, obj.p, GIT_OBJECT_COMMIT) != 0) continue;
    git_oid_cpy(&out, git_object_id(peeled.p));
    return oid_hex(&out);
  }
  if (requested.empty()) {
    return core::fail(core::phase::io, url + " has no default branch to check out (empty repository?); pass --commit");
  }
  return core::fail(core::phase::usage, "commit '" + requested + "' was not found in " + url +
                                            ": expected a commit SHA, tag or branch of that repository; run "
                                            "`git ls-remote " +
                                            url + "` to list its refs");
}

core::result<void> checkout_commit(git_repository* repo, const git_oid& id) {
  object_ptr commit;
  if (git_object_lookup(&commit.p, repo, &id, GIT_OBJECT_COMMIT) != 0) {
    return core::fail(core::phase::io, "cannot read commit " + oid_hex(&id) + ": " + last_git_error());
  }
  git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
  co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
  if (git_checkout_tree(repo, commit.p, &co) != 0 || git_repository_set_head_detached(repo, &id) != 0) {
    return core::fail(core::phase::io, "checking out " + oid_hex(&id) + " failed: " + last_git_error());
  }
  return {};
}

struct submodule_walk {
  std::vector<std::string> names;
};

int collect_submodule(git_submodule*, const char* name, void* payload) {
  static_cast<submodule_walk*>(payload)->names.emplace_back(name);
  return 0;
}

core::result<void> update_submodules(git_repository* repo, const std::string& prefix, transfer_state& st,
                                     std::vector<submodule_checkout>& out, std::vector<intake_note>& notes, int depth) {
  if (depth > 8) return core::fail(core::phase::io, "submodules nested deeper than 8 levels under " + prefix);
  submodule_walk walk;
  if (git_submodule_foreach(repo, collect_submodule, &walk) != 0) {
    return core::fail(core::phase::io, "reading .gitmodules failed: " + last_git_error());
  }
  for (const auto& name : walk.names) {
    submodule_ptr sm;
    if (git_submodule_lookup(&sm.p, repo, name.c_str()) != 0) {
      return core::fail(core::phase::io, "submodule " + name + ": " + last_git_error());
    }
    git_submodule_update_options so = GIT_SUBMODULE_UPDATE_OPTIONS_INIT;
    set_callbacks(so.fetch_opts.callbacks, st);
    so.checkout_opts.checkout_strategy = GIT_CHECKOUT_FORCE;
    const std::string path = prefix + git_submodule_path(sm.p);
    const char* url = git_submodule_url(sm.p);
    {
      git_buf resolved = GIT_BUF_INIT;
      const bool local = git_submodule_resolve_url(&resolved, repo, url ? url : "") == 0 &&
                         detail::is_local_url(std::string(resolved.ptr, resolved.size));
      const std::string where(resolved.ptr ? resolved.ptr : "", resolved.size);
      git_buf_dispose(&resolved);
      const char* allow = std::getenv("R2R_ALLOW_LOCAL_SUBMODULES");
      if (local && !(allow != nullptr && std::string(allow) == "1")) {
        return core::fail(core::phase::usage,
                          "submodule " + path + " names " + where +
                              ", a path on this machine; repo2rocm does not clone local paths that a repository "
                              "names (it could name any repository here). Give the submodule a remote URL, or set "
                              "R2R_ALLOW_LOCAL_SUBMODULES=1 when you trust the repository (like git's "
                              "protocol.file.allow=always)",
                          "", path);
      }
    }
    if (git_submodule_update(sm.p, 1, &so) != 0) {
      notes.push_back({"submodule_not_fetched", path,
                       "submodule " + path + " not fetched: kernels inside are not scanned (" +
                           std::string(url ? url : "?") + ": " + last_git_error() + ")"});
      continue;
    }
    const git_oid* head = git_submodule_head_id(sm.p);
    out.push_back({path, url ? url : "", head ? oid_hex(head) : ""});
    repo_ptr sub;
    if (git_submodule_open(&sub.p, sm.p) == 0) {
      if (auto r = update_submodules(sub.p, path + "/", st, out, notes, depth + 1); !r) return r;
    }
  }
  return {};
}

/// A plain directory's snapshot (see intake.hpp): blobs are read from `path` through a repository
/// whose git directory lives in the cache (nothing is written into `path`), committed with a fixed
/// signature, then checked out into the cache directory.
core::result<intake_result> snapshot_directory(const std::string& path, const parsed_source& parsed,
                                               const intake_options& options, intake_result result) {
  if (!options.commit.empty()) {
    return core::fail(core::phase::usage,
                      path + " is a plain directory (no .git): it has no commit '" + options.commit +
                          "' to check out; drop --commit (the plan pins the directory by a content hash)",
                      "", path);
  }
  std::error_code ec;
  const auto dir = options.cache_dir / cache_key("dir:" + parsed.redacted);
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) return core::fail(core::phase::io, "cannot create the snapshot directory: " + ec.message(), "", dir.string());
  repo_ptr repo;
  if (git_repository_init(&repo.p, dir.c_str(), 0) != 0 || git_repository_set_workdir(repo.p, path.c_str(), 0) != 0) {
    return core::fail(core::phase::io, "cannot start a snapshot of " + path + ": " + last_git_error(), "", path);
  }
  git_index* raw_index = nullptr;
  if (git_repository_index(&raw_index, repo.p) != 0) {
    return core::fail(core::phase::io, "cannot open the snapshot index: " + last_git_error(), "", path);
  }
  std::unique_ptr<git_index, void (*)(git_index*)> index(raw_index, git_index_free);
  git_oid tree_id, commit_id;
  git_signature* raw_sig = nullptr;
  if (git_index_add_all(index.get(), nullptr, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr) != 0 ||
      git_index_write_tree(&tree_id, index.get()) != 0 ||
      git_signature_new(&raw_sig, "repo2rocm", "repo2rocm@localhost", 0, 0) != 0) {
    return core::fail(core::phase::io, "reading " + path + " into a snapshot failed: " + last_git_error(), "", path);
  }
  std::unique_ptr<git_signature, void (*)(git_signature*)> sig(raw_sig, git_signature_free);
  object_ptr tree;
  if (git_object_lookup(&tree.p, repo.p, &tree_id, GIT_OBJECT_TREE) != 0 ||
      git_commit_create(&commit_id, repo.p, "HEAD", sig.get(), sig.get(), nullptr,
                        "repo2rocm snapshot of a plain directory\n", reinterpret_cast<git_tree*>(tree.p), 0,
                        nullptr) != 0) {
    return core::fail(core::phase::io, "committing the snapshot of " + path + " failed: " + last_git_error(), "", path);
  }
  if (git_repository_set_workdir(repo.p, dir.c_str(), 0) != 0) {
    return core::fail(core::phase::io, "cannot check out the snapshot: " + last_git_error(), "", dir.string());
  }
  if (auto r = checkout_commit(repo.p, commit_id); !r) return tl::unexpected(r.error());
  result.commit = oid_hex(&commit_id);
  result.content_hash = "git-tree:" + oid_hex(&tree_id);
  result.worktree = dir;
  result.notes.push_back({"unpinned_directory", path,
                          path +
                              " is a plain directory (no .git): no commit of the project pins it; planned from a "
                              "snapshot of its files, content hash " +
                              result.content_hash + " (snapshot commit " + result.commit +
                              "; the same files give the same hash)"});
  return result;
}

}  // namespace

core::result<intake_result> acquire_repository(const std::string& source, const intake_options& options) {
  static libgit2_session session;
  auto parsed = parse_source(source);
  if (!parsed) return tl::unexpected(parsed.error());
  if (options.cache_dir.empty()) return core::fail(core::phase::usage, "intake needs a cache directory");
  intake_result result;
  result.source = source;
  result.url = parsed->redacted;
  result.requested = options.commit;

  if (parsed->kind == source_kind::remote) {
    if (auto reach = probe_host(parsed->host, parsed->port, options.connect_timeout); !reach) {
      return tl::unexpected(reach.error());
    }
  } else {
    const std::string path = parsed->kind == source_kind::file_url ? parsed->url.substr(7) : parsed->url;
    if (auto checked = detail::check_local_git_dir(path); !checked) return tl::unexpected(checked.error());
    repo_ptr probe;
    if (git_repository_open_ext(&probe.p, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
      std::error_code dir_ec;
      if (std::filesystem::exists(std::filesystem::path(path) / ".git", dir_ec) ||
          !std::filesystem::is_directory(path, dir_ec)) {
        return core::fail(core::phase::usage,
                          path +
                              " is not a git repository: expected a directory with a .git (or a bare repository), or "
                              "a plain directory of files; give the repository's URL or the directory",
                          "", path);
      }
      return snapshot_directory(path, *parsed, options, std::move(result));
    }
  }

  transfer_state st;
  st.options = &options;
  st.deadline = clock_type::now() + options.transfer_timeout;
  if (const char* token = std::getenv(options.token_env.c_str())) st.token = token;

  std::error_code ec;
  std::filesystem::create_directories(options.cache_dir, ec);
  if (ec) {
    return core::fail(core::phase::io, "cannot create the clone cache: " + ec.message(), "",
                      options.cache_dir.string());
  }
  const auto dir = options.cache_dir / cache_key(parsed->redacted);
  repo_ptr repo;
  if (std::filesystem::exists(dir / ".git") && git_repository_open(&repo.p, dir.c_str()) == 0) {
    remote_ptr origin;
    const bool same = git_remote_lookup(&origin.p, repo.p, "origin") == 0 && git_remote_url(origin.p) != nullptr &&
                      parsed->url == git_remote_url(origin.p);
    if (same) {
      git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
      set_callbacks(fo.callbacks, st);
      fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
      fo.prune = GIT_FETCH_PRUNE;
      if (git_remote_fetch(origin.p, nullptr, &fo, "repo2rocm fetch") != 0) {
        return tl::unexpected(transfer_error(st, "fetching", parsed->redacted));
      }
      result.reused_cache = true;
    } else {
      git_repository_free(repo.p);
      repo.p = nullptr;
    }
  }
  if (!result.reused_cache) {
    std::filesystem::remove_all(dir, ec);
    git_clone_options co = GIT_CLONE_OPTIONS_INIT;
    set_callbacks(co.fetch_opts.callbacks, st);
    co.fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
    co.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;  // the pinned commit is checked out below
    if (git_clone(&repo.p, parsed->url.c_str(), dir.c_str(), &co) != 0) {
      auto err = transfer_error(st, "cloning", parsed->redacted);
      std::filesystem::remove_all(dir, ec);
      return tl::unexpected(err);
    }
  }

  // The remote's default branch (what `git clone` would check out).
  std::string default_ref;
  {
    remote_ptr origin;
    if (git_remote_lookup(&origin.p, repo.p, "origin") == 0) {
      git_remote_callbacks cb = GIT_REMOTE_CALLBACKS_INIT;
      set_callbacks(cb, st);
      if (git_remote_connect(origin.p, GIT_DIRECTION_FETCH, &cb, nullptr, nullptr) == 0) {
        git_buf buf = GIT_BUF_INIT;
        if (git_remote_default_branch(&buf, origin.p) == 0) {
          const std::string branch(buf.ptr, buf.size);
          const std::string prefix = "refs/heads/";
          if (branch.rfind(prefix, 0) == 0) default_ref = "refs/remotes/origin/" + branch.substr(prefix.size());
        }
        git_buf_dispose(&buf);
        git_remote_disconnect(origin.p);
      }
    }
  }
  git_oid id;
  auto sha = resolve_commit(repo.p, options.commit, parsed->redacted, default_ref, id);
  if (!sha) return tl::unexpected(sha.error());
  if (auto r = checkout_commit(repo.p, id); !r) return tl::unexpected(r.error());
  if (auto r = update_submodules(repo.p, "", st, result.submodules, result.notes, 0); !r)
    return tl::unexpected(r.error());
  result.commit = *sha;
  result.worktree = dir;
  return result;
}

}  // namespace r2r::planning
