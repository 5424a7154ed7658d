// SPDX-License-Identifier: MIT
#include <r2r/core/logging.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <atomic>
#include <mutex>

namespace r2r::core::logging {
namespace {

std::atomic<spdlog::level::level_enum> g_level{spdlog::level::warn};

spdlog::sink_ptr shared_sink() {
  // Function-local static, intentionally never destroyed: plugin loggers may log during shutdown.
  static auto* sink = [] {
    auto* s = new spdlog::sink_ptr(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    (*s)->set_pattern("[%H:%M:%S.%e] [%n] [%^%l%$] %v");
    return s;
  }();
  return *sink;
}

}  // namespace

void configure(spdlog::level::level_enum level) {
  g_level = level;
  auto core = make_logger("repo2rocm");
  spdlog::set_default_logger(core);
}

spdlog::level::level_enum default_level() {
  return g_level;
}

std::shared_ptr<spdlog::logger> make_logger(const std::string& name, std::optional<spdlog::level::level_enum> level) {
  auto logger = std::make_shared<spdlog::logger>(name, shared_sink());
  logger->set_level(level.value_or(g_level.load()));
  return logger;
}

std::optional<spdlog::level::level_enum> parse_level(std::string_view text) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> names[] = {
      {"trace", spdlog::level::trace},       {"debug", spdlog::level::debug},  {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},         {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
      {"critical", spdlog::level::critical}, {"off", spdlog::level::off},
  };
  for (const auto& [name, level] : names) {
    if (name == text) return level;
  }
  return std::nullopt;
}

}  // namespace r2r::core::logging
