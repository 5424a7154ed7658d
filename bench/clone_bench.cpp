// SPDX-License-Identifier: MIT
// r2r-bench-clone SOURCE CACHE_DIR: one intake (libgit2 clone + checkout) into an empty cache,
// printing the wall time in seconds. bench/README.md compares it with `git clone`.
#include <r2r/planning/intake.hpp>

#include <chrono>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: r2r-bench-clone SOURCE CACHE_DIR\n";
    return 2;
  }
  r2r::planning::intake_options o;
  o.cache_dir = argv[2];
  const auto start = std::chrono::steady_clock::now();
  auto r = r2r::planning::acquire_repository(argv[1], o);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (!r) {
    std::cerr << r.error().to_string() << "\n";
    return 1;
  }
  std::cout << took.count() << "\n";
  return 0;
}
