// SPDX-License-Identifier: MIT
// SHA-256 through OpenSSL libcrypto (EVP). Lowercase hex digests, as sha256sum prints them.
// THREADING: every function is reentrant.
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace r2r::report {

/// Hex digest of `bytes`.
std::string sha256_hex(std::string_view bytes);

/// Hex digest of a file's content, read in blocks; fails (phase::io) naming the file.
core::result<std::string> sha256_file(const std::filesystem::path& file);

}  // namespace r2r::report
