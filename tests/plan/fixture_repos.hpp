// SPDX-License-Identifier: MIT
// Realistic fixture repositories written into a directory (then made a real git repository with
// the git CLI): a PyTorch training repo with flash-attn, a CUDAExtension and README commands; a JAX
// repo; a Poetry repo; a vLLM-based server; a repo whose README only shows --help; a repo with
// nothing runnable; and one with malformed dependency files.
#pragma once

#include <filesystem>
#include <string>

namespace r2r::test {

void write_file(const std::filesystem::path& root, const std::string& rel, const std::string& text);

void make_torch_training_repo(const std::filesystem::path& root);
void make_jax_repo(const std::filesystem::path& root);
void make_poetry_repo(const std::filesystem::path& root);
void make_vllm_server_repo(const std::filesystem::path& root);
void make_help_only_repo(const std::filesystem::path& root);
void make_nothing_runnable_repo(const std::filesystem::path& root);
void make_malformed_repo(const std::filesystem::path& root);

/// git init (if needed) + add -A + commit; returns the new commit SHA. Throws on failure.
std::string git_commit_all(const std::filesystem::path& root, const std::string& message);
/// Runs `git -C root ARGS`; returns stdout trimmed. Throws on failure.
std::string git(const std::filesystem::path& root, const std::string& args);

}  // namespace r2r::test
