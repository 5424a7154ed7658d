// SPDX-License-Identifier: MIT
#include "loopback_server.hpp"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace r2r::plugins::llm::testkit {

struct loopback_server::impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;

  mutable std::mutex mutex;
  std::condition_variable stopping_cv;
  bool stopping = false;
  std::deque<scripted_response> queue;
  handler fallback;
  std::vector<recorded_request> seen;

  scripted_response next(const recorded_request& request) {
    handler h;
    {
      std::lock_guard<std::mutex> lock(mutex);
      seen.push_back(request);
      if (!queue.empty()) {
        scripted_response r = std::move(queue.front());
        queue.pop_front();
        return r;
      }
      h = fallback;
    }
    if (h) return h(request);
    scripted_response none;
    none.status = 418;  // a 4xx, so a client under test does not retry it
    none.body = R"({"error":{"type":"test_error","message":"loopback_server: no scripted response left"}})";
    return none;
  }

  // Sleeps for `delay`, or less when the server is being stopped.
  void pause(std::chrono::milliseconds delay) {
    std::unique_lock<std::mutex> lock(mutex);
    stopping_cv.wait_for(lock, delay, [this] { return stopping; });
  }

  void serve(const httplib::Request& req, httplib::Response& res) {
    recorded_request r;
    r.method = req.method;
    r.path = req.path;
    r.body = req.body;
    for (const auto& [name, value] : req.headers) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      r.headers[lower] = value;
    }
    scripted_response out = next(r);
    if (out.delay.count() > 0) pause(out.delay);
    res.status = out.status;
    for (const auto& [name, value] : out.headers) res.set_header(name, value);
    if (out.chunked) {
      const std::string body = out.body;
      res.set_chunked_content_provider(out.content_type.c_str(), [body](std::size_t offset, httplib::DataSink& sink) {
        if (offset >= body.size()) {
          sink.done();
          return true;
        }
        const std::size_t n = std::min<std::size_t>(64 * 1024, body.size() - offset);
        return sink.write(body.data() + offset, n);
      });
      return;
    }
    if (!out.cut_after_bytes) {
      res.set_content(out.body, out.content_type.c_str());
      return;
    }
    // Promise the whole body, deliver part of it, then fail the write so the connection drops.
    const std::string body = out.body;
    const std::size_t cut = std::min(*out.cut_after_bytes, body.size());
    res.set_content_provider(body.size(), out.content_type.c_str(),
                             [body, cut](std::size_t offset, std::size_t, httplib::DataSink& sink) {
                               if (offset < cut) {
                                 sink.write(body.data() + offset, cut - offset);
                                 return true;
                               }
                               return false;
                             });
  }
};

loopback_server::loopback_server() : impl_(std::make_unique<impl>()) {
  auto* self = impl_.get();
  self->server.Post(R"(.*)", [self](const httplib::Request& req, httplib::Response& res) { self->serve(req, res); });
  self->server.Get(R"(.*)", [self](const httplib::Request& req, httplib::Response& res) { self->serve(req, res); });
  self->server.set_keep_alive_max_count(100);
  self->port = self->server.bind_to_any_port("127.0.0.1");
  if (self->port <= 0) throw std::runtime_error("loopback_server: cannot bind 127.0.0.1");
  self->thread = std::thread([self] { self->server.listen_after_bind(); });
  // Stopping an httplib server before its accept loop has started leaves that loop running
  // forever, so the constructor returns only once the loop runs.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!self->server.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      self->server.stop();
      self->thread.join();
      throw std::runtime_error("loopback_server: the accept loop did not start within 10 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

loopback_server::~loopback_server() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->stopping_cv.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int loopback_server::port() const noexcept {
  return impl_->port;
}

std::string loopback_server::base_url(const std::string& suffix) const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + suffix;
}

void loopback_server::enqueue(scripted_response response) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->queue.push_back(std::move(response));
}

void loopback_server::set_handler(handler h) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->fallback = std::move(h);
}

std::vector<recorded_request> loopback_server::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->seen;
}

std::size_t loopback_server::request_count() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->seen.size();
}

}  // namespace r2r::plugins::llm::testkit
