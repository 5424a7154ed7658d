// SPDX-License-Identifier: MIT
// Small helpers for the llm tests: an environment variable set for a scope, a random key, the
// error a call throws, and a search of the fake host's log lines.
#pragma once

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <utility>

namespace r2r::plugins::llm::testkit {

/// Sets an environment variable until destroyed (then restores the previous state).
/// THREADING: setenv is not thread-safe; use before starting calls.
class scoped_env {
 public:
  scoped_env(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = old;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~scoped_env() {
    if (previous_) {
      ::setenv(name_.c_str(), previous_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

/// A fresh key-like secret, different in every test run, so a leak cannot match by accident.
inline std::string random_secret(const std::string& prefix) {
  std::random_device rd;
  std::mt19937_64 gen(rd());
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s = prefix;
  for (int i = 0; i < 40; ++i) s += alphabet[gen() % (sizeof alphabet - 1)];
  return s;
}

/// Runs fn, which must throw sdk::error; returns {status, message}. A call that succeeds gives
/// status R2R_OK and an empty message (and the test's expectations fail).
template <class Fn>
std::pair<r2r_status, std::string> error_of(Fn&& fn) {
  try {
    fn();
  } catch (const sdk::error& e) {
    return {e.status(), e.what()};
  }
  return {R2R_OK, std::string()};
}

/// True when any recorded log line contains `needle`.
inline bool logged(const sdk::testing::fake_host& host, const std::string& needle) {
  for (const auto& line : host.lines())
    if (line.message.find(needle) != std::string::npos) return true;
  return false;
}

/// Milliseconds since `start`.
inline long long ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace r2r::plugins::llm::testkit
