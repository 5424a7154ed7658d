// SPDX-License-Identifier: MIT
// Host logging: one stderr sink and pattern shared by core and every plugin instance logger
// ("plugin.<instance>"). Plugins never see spdlog; their host log callback forwards here.
// THREADING: configure() once at start-up; loggers are thread-safe.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace r2r::core::logging {

/// Sets the default level and the shared sink (stderr). Safe to call again to change the level.
void configure(spdlog::level::level_enum level);

/// The default level set by configure() (warn when never configured).
spdlog::level::level_enum default_level();

/// A logger on the shared sink; `level` overrides the default for this logger only.
std::shared_ptr<spdlog::logger> make_logger(const std::string& name,
                                            std::optional<spdlog::level::level_enum> level = std::nullopt);

/// "trace", "debug", "info", "warn", "error", "critical", "off".
std::optional<spdlog::level::level_enum> parse_level(std::string_view text);

}  // namespace r2r::core::logging
