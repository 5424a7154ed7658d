// SPDX-License-Identifier: MIT
// Single-thread throughput of the conversion engine on a directory of CUDA sources: the files are
// read into memory first, then each phase runs over all of them and is timed on its own:
//   hipify   token-aware conversion (r2r::plugins::converter::convert_source), diagnostics included
//   diff     unified diff of every changed file against its original
//   hazards  the hazard scan of the converted text
// Prints MB/s and files/s per phase (MB = 10^6 bytes of input) from wall time, then the phase's
// CPU time (this thread's) and MB per CPU second, which stays meaningful on a machine shared with
// other jobs, and the process's peak RSS.
// --dump FILE writes every file's hipify result (output text, changed/failed, stats, diagnostics)
// to FILE in a fixed format, so two builds can be checked for identical output with cmp.
// Usage: r2r-bench-convert DIR [--repeat N] [--dump FILE]
#include "hazard_scanner.hpp"

#include <r2r/convert/hipify.hpp>
#include <r2r/convert/unified_diff.hpp>

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct source {
  std::string path;
  std::string text;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

/// Wall time and CPU time of one phase.
struct phase_time {
  std::chrono::steady_clock::time_point wall_start = std::chrono::steady_clock::now();
  double cpu_start = thread_cpu_seconds();
  double wall = 0, cpu = 0;
  void stop() {
    wall = seconds_since(wall_start);
    cpu = thread_cpu_seconds() - cpu_start;
  }
};

void print(const char* phase, const phase_time& t, std::size_t bytes, std::size_t files, int repeat) {
  const double mb = static_cast<double>(bytes) * repeat / 1e6;
  std::printf("%-8s %8.3f s  %8.1f MB/s  %9.0f files/s  cpu %8.3f s  %8.1f MB/cpu-s\n", phase, t.wall, mb / t.wall,
              static_cast<double>(files) * repeat / t.wall, t.cpu, mb / t.cpu);
}

/// Every field of one conversion, in a fixed order; length-prefixed text so no content can forge a record.
void dump(std::FILE* f, const std::string& path, const r2r::plugins::converter::conversion& c) {
  std::fprintf(f, "== %s changed=%d failed=%d text=%zu\n", path.c_str(), c.changed ? 1 : 0, c.failed ? 1 : 0,
               c.text.size());
  std::fwrite(c.text.data(), 1, c.text.size(), f);
  std::fputc('\n', f);
  for (const auto& [k, v] : c.stats) std::fprintf(f, "stat %s=%lld\n", k.c_str(), static_cast<long long>(v));
  for (const auto& d : c.diagnostics) {
    std::fprintf(f, "diag %s:%lld:%lld %s %s name=%zu:%s message=%zu:%s hint=%zu:%s\n", d.file.c_str(),
                 static_cast<long long>(d.line), static_cast<long long>(d.column), d.severity.c_str(),
                 d.category.c_str(), d.name.size(), d.name.c_str(), d.message.size(), d.message.c_str(), d.hint.size(),
                 d.hint.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: r2r-bench-convert DIR [--repeat N] [--dump FILE]\n");
    return 2;
  }
  int repeat = 1;
  const char* dump_path = nullptr;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--dump") dump_path = argv[i + 1];
  }
  const std::vector<std::string> extensions{".cu", ".cuh", ".cpp", ".h", ".hpp"};
  std::vector<source> sources;
  std::size_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[1])) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(entry.path(), argv[1]).generic_string();
    if (r2r::plugins::converter::classify_path(rel, extensions) != r2r::plugins::converter::file_kind::source) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    sources.push_back({rel, s.str()});
    bytes += sources.back().text.size();
  }
  std::sort(sources.begin(), sources.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  std::printf("corpus: %zu files, %.1f MB (%.1f MiB), repeat %d, one thread\n", sources.size(), bytes / 1e6,
              bytes / 1048576.0, repeat);

  r2r::plugins::converter::hipify_options options;
  for (const auto& s : sources) r2r::plugins::converter::collect_defined_names(s.text, options.project_names);
  std::vector<r2r::plugins::converter::conversion> outputs(sources.size());
  std::size_t diagnostics = 0;
  std::size_t renamed = 0;
  phase_time hipify_t;
  for (int r = 0; r < repeat; ++r) {
    diagnostics = renamed = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      outputs[i] = r2r::plugins::converter::convert_source(sources[i].path, sources[i].text, options);
      diagnostics += outputs[i].diagnostics.size();
      renamed += static_cast<std::size_t>(outputs[i].stats["renamed"]);
    }
  }
  hipify_t.stop();
  if (dump_path != nullptr) {
    std::FILE* f = std::fopen(dump_path, "wb");
    if (f == nullptr) {
      std::fprintf(stderr, "r2r-bench-convert: cannot write --dump file %s\n", dump_path);
      return 1;
    }
    for (std::size_t i = 0; i < sources.size(); ++i) dump(f, sources[i].path, outputs[i]);
    std::fclose(f);
  }

  std::size_t diff_bytes = 0;
  phase_time diff_t;
  for (int r = 0; r < repeat; ++r) {
    diff_bytes = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (outputs[i].changed)
        diff_bytes += r2r::plugins::converter::unified_diff(sources[i].path, sources[i].text, outputs[i].text).size();
    }
  }
  diff_t.stop();

  std::size_t hazards = 0;
  phase_time hazards_t;
  for (int r = 0; r < repeat; ++r) {
    hazards = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      hazards += r2r::plugins::converter::scan_hazards(sources[i].path, outputs[i].text).hazards.size();
    }
  }
  hazards_t.stop();
  phase_time total_t = hipify_t;
  total_t.wall = hipify_t.wall + diff_t.wall + hazards_t.wall;
  total_t.cpu = hipify_t.cpu + diff_t.cpu + hazards_t.cpu;

  print("hipify", hipify_t, bytes, sources.size(), repeat);
  print("diff", diff_t, bytes, sources.size(), repeat);
  print("hazards", hazards_t, bytes, sources.size(), repeat);
  print("total", total_t, bytes, sources.size(), repeat);
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("renamed %zu names, %zu diagnostics, %zu hazards, %.1f MB of diffs; peak RSS %.1f MiB\n", renamed,
              diagnostics, hazards, diff_bytes / 1e6, usage.ru_maxrss / 1024.0);
  return 0;
}
