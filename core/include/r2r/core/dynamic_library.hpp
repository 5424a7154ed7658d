// SPDX-License-Identifier: MIT
// A loaded shared library. The only Boost.DLL user is dynamic_library.cpp, so Boost version
// differences and its pitfalls stay in one file.
// OWNERSHIP: a dynamic_library owns the mapping. It is held by std::shared_ptr and every plugin
// instance keeps that pointer, so code is never unmapped while an instance lives.
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace r2r::core {

class dynamic_library {
 public:
  ~dynamic_library();
  dynamic_library(const dynamic_library&) = delete;
  dynamic_library& operator=(const dynamic_library&) = delete;

  /// Reads the ELF dynamic symbol table WITHOUT loading the file, so no code of a foreign or broken
  /// library (static constructors included) runs. True when `symbol` is exported.
  static result<bool> exports_symbol(const std::filesystem::path& file, const std::string& symbol);

  /// Loads `file` (must be absolute) with rtld_now | rtld_local. Errors carry the dlerror() text.
  static result<std::shared_ptr<dynamic_library>> open(const std::filesystem::path& file);

  /// Address of an exported symbol, or nullptr.
  void* symbol(const std::string& name) const;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  struct impl;
  dynamic_library(std::filesystem::path path, std::unique_ptr<impl> impl);
  std::filesystem::path path_;
  std::unique_ptr<impl> impl_;
};

/// Directory holding the running executable (for exe-relative plugin search paths).
std::filesystem::path program_directory();

}  // namespace r2r::core
