// SPDX-License-Identifier: MIT
// The only translation unit that includes Boost.DLL (PLUGIN_GUIDE.md, Part C). Boost 1.74 quirks
// handled here: <vector> must precede library_info.hpp; library_info throws an unhelpful iostream
// error on missing files, so existence is checked first; the error_code overload of load() drops
// the dlerror() text, so dlerror() is read right after a failed load.
#include <r2r/core/dynamic_library.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <vector>  // before library_info.hpp (Boost 1.74 misses this include)

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/library_info.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

namespace r2r::core {

struct dynamic_library::impl {
  boost::dll::shared_library library;
};

dynamic_library::dynamic_library(std::filesystem::path path, std::unique_ptr<impl> impl)
    : path_(std::move(path)), impl_(std::move(impl)) {}

dynamic_library::~dynamic_library() = default;

result<bool> dynamic_library::exports_symbol(const std::filesystem::path& file, const std::string& symbol) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return fail(phase::preflight, "not a regular file", {}, file.string());
  }
  try {
    boost::dll::library_info info(file, /*throw_if_not_native=*/true);
    const std::vector<std::string> symbols = info.symbols();
    return std::find(symbols.begin(), symbols.end(), symbol) != symbols.end();
  } catch (const std::exception& e) {
    return fail(phase::preflight,
                std::string("not a readable ELF shared library for this platform (") + e.what() +
                    "); remove the file from the plugin path or rebuild it",
                {}, file.string());
  }
}

result<std::shared_ptr<dynamic_library>> dynamic_library::open(const std::filesystem::path& file) {
  if (!file.is_absolute()) {
    return fail(phase::dlopen, "internal: library paths must be absolute before loading", {}, file.string());
  }
  // rtld_now: unresolved symbols fail here, not at the first call into the plugin.
  // rtld_local: a plugin's symbols never satisfy another plugin's references (no collisions).
  // RTLD_NODELETE: dlclose() never unmaps the code; libraries stay until exit (PLUGIN_GUIDE B8.2),
  //   because some libraries are never safe to unload and dlclose may be a no-op anyway.
  // Never rtld_deepbind: it breaks sanitizers and some allocators.
  const auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local |
                    static_cast<boost::dll::load_mode::type>(RTLD_NODELETE);
  auto holder = std::make_unique<impl>();
  std::error_code ec;
  ::dlerror();  // clear any stale message
  holder->library.load(file, mode, ec);
  if (ec || !holder->library.is_loaded()) {
    const char* detail = ::dlerror();
    return fail(phase::dlopen,
                std::string("cannot load: ") + (detail != nullptr ? detail : ec.message()) +
                    " (a missing dependency or undefined symbol; check `ldd` on the file)",
                {}, file.string());
  }
  return std::shared_ptr<dynamic_library>(new dynamic_library(file, std::move(holder)));
}

void* dynamic_library::symbol(const std::string& name) const {
  if (!impl_->library.has(name)) return nullptr;
  // get<char> yields a reference to the byte at the symbol's address; its address is the symbol.
  return static_cast<void*>(&impl_->library.get<char>(name));
}

std::filesystem::path program_directory() {
  std::error_code ec;
  auto location = boost::dll::program_location(ec);
  if (ec) return {};
  return location.parent_path();
}

}  // namespace r2r::core
