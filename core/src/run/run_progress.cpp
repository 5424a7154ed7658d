// SPDX-License-Identifier: MIT
#include "run_progress.hpp"

#include <cstdio>

namespace r2r::run {
namespace {

double unix_seconds() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) / 1000.0;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%6.1fs", s);
  return buf;
}

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

/// Keeps a live line on one terminal row: the first line of `s`, at most `width` bytes.
std::string one_line(const std::string& s, std::size_t width) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > width) line = line.substr(0, width - 3) + "...";
  return line;
}

constexpr const char* spinner = "|/-\\";
constexpr const char* clear_line = "\r\x1b[2K";

}  // namespace

run_progress::run_progress(style s, std::ostream& out, std::ostream& err) : style_(s), out_(out), err_(err) {
  if (style_ == style::live) ticker_ = std::thread([this] { ticker(); });
}

run_progress::~run_progress() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

bool run_progress::attach(const std::filesystem::path& events_file) {
  std::lock_guard lock(mutex_);
  if (attached_) file_.close();
  file_.open(events_file, std::ios::app | std::ios::binary);
  if (!file_) return false;
  attached_ = true;
  for (const auto& line : pending_) file_ << line << "\n";
  pending_.clear();
  file_.flush();
  return true;
}

void run_progress::emit(nlohmann::json event) {
  event["t"] = unix_seconds();
  const std::string line = event.dump();
  if (style_ == style::events) out_ << line << std::endl;
  if (attached_) {
    file_ << line << "\n";
    file_.flush();
  } else {
    pending_.push_back(line);
  }
}

void run_progress::run_started(const nlohmann::json& fields) {
  std::lock_guard lock(mutex_);
  nlohmann::json e{{"event", "run_started"}};
  e.update(fields);
  emit(std::move(e));
  if (style_ == style::live) {
    err_ << "repo2rocm run " << fields.value("source", "") << " (mode " << fields.value("mode", 1) << ")\n";
    err_.flush();
  }
}

void run_progress::stage_started(const std::string& stage) {
  std::lock_guard lock(mutex_);
  emit({{"event", "stage_started"}, {"stage", stage}});
  current_ = stage;
  current_text_ = "running";
  current_start_ = std::chrono::steady_clock::now();
  if (style_ == style::live) draw_current_locked();
}

void run_progress::stage_progress(const std::string& stage, const std::string& text) {
  std::lock_guard lock(mutex_);
  emit({{"event", "stage_progress"}, {"stage", stage}, {"text", text}});
  if (stage == current_) current_text_ = text;
  if (style_ == style::live) draw_current_locked();
}

void run_progress::stage_finished(const std::string& stage, const std::string& status, const std::string& message,
                                  const nlohmann::json& results, double seconds) {
  std::lock_guard lock(mutex_);
  emit({{"event", "stage_finished"},
        {"stage", stage},
        {"status", status},
        {"message", message},
        {"seconds", seconds},
        {"results", results}});
  if (style_ == style::live) {
    const bool good = status == "ok" || status == "resumed";
    const char* color = good ? "\x1b[32m" : (status == "failed" ? "\x1b[31m" : "\x1b[33m");
    const char* mark = good ? "+" : (status == "failed" ? "x" : "-");
    err_ << clear_line << "  " << color << mark << "\x1b[0m " << padded(stage, 12) << seconds_text(seconds) << "  "
         << color << status << "\x1b[0m" << (message.empty() ? "" : ": " + one_line(message, 160)) << "\n";
    err_.flush();
  }
  current_.clear();
}

void run_progress::verdict(const std::string& outcome, int exit_code, const std::string& message,
                           const nlohmann::json& details) {
  std::lock_guard lock(mutex_);
  emit({{"event", "verdict"},
        {"outcome", outcome},
        {"exit_code", exit_code},
        {"message", message},
        {"details", details}});
  if (style_ == style::live) {
    const char* color = exit_code == 0 ? "\x1b[32m" : (exit_code == 4 ? "\x1b[33m" : "\x1b[31m");
    err_ << color << "result: " << message << "\x1b[0m (exit " << exit_code << ")\n";
    err_.flush();
  }
}

void run_progress::draw_current_locked() {
  if (current_.empty()) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - current_start_).count();
  err_ << clear_line << "  " << spinner[spin_ % 4] << " " << padded(current_, 12) << seconds_text(elapsed) << "  "
       << one_line(current_text_, 100);
  err_.flush();
}

void run_progress::ticker() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(120));
    if (stopping_) break;
    ++spin_;
    draw_current_locked();
  }
}

}  // namespace r2r::run
