// SPDX-License-Identifier: MIT
// What the libFuzzer targets of tests/fuzz share: the input as text, a private scratch directory
// for parsers that read files, and writing a file into it.
// LIFETIME: the scratch directory lives as long as the fuzzing process and is removed at exit.
// THREADING: libFuzzer calls LLVMFuzzerTestOneInput from one thread; none of this is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace r2r::fuzz {

/// Runs `f`; a throw of `Allowed` is the parser's documented failure and is swallowed, anything
/// else escapes and libFuzzer reports it as a crash.
template <typename Allowed, typename F>
void allow_only(F&& f) {
  try {
    (void)f();
  } catch (const Allowed&) {
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(data), size};
}

/// A directory of its own under $TMPDIR (or /tmp), created on first use.
inline const std::filesystem::path& scratch_dir() {
  struct holder {
    std::filesystem::path dir;
    holder() {
      const char* base = std::getenv("TMPDIR");
      std::string tmpl = std::string(base && *base ? base : "/tmp") + "/r2r-fuzz-XXXXXX";
      if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a scratch directory " + tmpl);
      dir = tmpl;
    }
    ~holder() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  };
  static const holder h;
  return h.dir;
}

/// Writes `bytes` to `path` (replacing it), creating its parent directories.
inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// Splits the input at the first occurrence of `separator`: {before, after}; after is empty when
/// there is none. Lets one input carry two documents (a file and its companion).
inline std::pair<std::string_view, std::string_view> split_once(std::string_view text, std::string_view separator) {
  const auto at = text.find(separator);
  if (at == std::string_view::npos) return {text, {}};
  return {text.substr(0, at), text.substr(at + separator.size())};
}

}  // namespace r2r::fuzz
