// SPDX-License-Identifier: MIT
#include "batch_command.hpp"

#include "cli_context.hpp"
#include "exit_codes.hpp"

#include "engine.hpp"
#include "k8s_jobs.hpp"
#include "manifest.hpp"
#include "summary.hpp"

#include <r2r/core/logging.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_kind.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <boost/program_options.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace r2r::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* synopsis =
    "repo2rocm batch MANIFEST [--mode 0|1|2] [--pipeline FILE] [--scheduler ID] [--scheduler-config JSON|@FILE]\n"
    "                [--jobs N] [--gpus 0,1,...] [--arch GFX] [--max-usd X] [--max-tokens N] [--max-gpu-hours H]\n"
    "                [--out DIR] [--resume] [--json]\n"
    "repo2rocm batch MANIFEST --emit k8s DIR [--k8s-image IMAGE] [--k8s-pvc CLAIM] [--k8s-namespace NS]\n"
    "repo2rocm batch report DIR [--json]";

constexpr const char* help_text =
    "Run every repository of MANIFEST (CSV with a header row: repo,commit,... as ResearchBench has it; or\n"
    "JSONL) as one `repo2rocm run` in DIR/runs/<key>, placed by a scheduler plugin (default\n"
    "r2r.scheduler.local: one job per GPU of --gpus, else of this host). DIR (--out, default ./batch) holds\n"
    "batch.json (state, replaced atomically), events.jsonl and summary.{json,csv,html}. Spend caps (--max-usd,\n"
    "--max-tokens, --max-gpu-hours) stop submitting, let running jobs finish and mark the rest `not started:\n"
    "spend cap`. --resume finishes a batch whose process died: no job runs twice, none is lost.\n"
    "`batch report DIR` rebuilds the summary from DIR/runs alone. --emit k8s writes Kubernetes Job\n"
    "manifests and runs nothing. Exit 0 when every job was run to its verdict, 3 when a cap stopped the\n"
    "batch, 1 on an error, 2 for usage errors. See docs/batch.md.";

std::string read_arg(const std::string& value) {
  if (!value.empty() && value[0] == '@') {
    std::ifstream in(value.substr(1));
    if (!in) throw std::runtime_error("cannot read " + value.substr(1));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  return value;
}

int usage_error(const std::string& message) {
  std::cerr << "repo2rocm batch: " << message << "\nusage: " << synopsis << "\n";
  return exit_usage;
}

int run_report(const std::vector<std::string>& words, bool json) {
  if (words.size() != 1) return usage_error("`batch report` takes one directory (the batch's --out)");
  const fs::path dir = words[0];
  const fs::path runs = fs::is_directory(dir / "runs") ? dir / "runs" : dir;
  std::vector<fs::path> run_dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(runs, ec))
    if (e.is_directory() && fs::exists(e.path() / "events.jsonl")) run_dirs.push_back(e.path());
  if (ec || run_dirs.empty())
    return usage_error("no run directories (with events.jsonl) under " + runs.string() +
                       ": give the batch directory (holding runs/) or a directory of run directories");
  std::sort(run_dirs.begin(), run_dirs.end());
  std::vector<batch::summary_row> rows;
  for (const auto& d : run_dirs) rows.push_back(batch::row_from_run_dir(d));
  const auto summary = batch::build_summary(rows, "", {});
  batch::write_summary(dir, summary);
  if (json) {
    std::cout << summary.dump() << "\n";
  } else {
    std::cout << summary["headline"].get<std::string>() << "\n"
              << "summary: " << (dir / "summary.html").string() << ", summary.json, summary.csv\n";
  }
  return exit_ok;
}

}  // namespace

bool is_batch_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log-level" || a == "--plugin-path") {
      ++i;
      continue;
    }
    if (a.rfind("-", 0) == 0) continue;
    return a == "batch";
  }
  return false;
}

int run_batch_main(int argc, char** argv) {
  po::options_description opts("batch options");
  opts.add_options()("help,h", "show this help")("log-level", po::value<std::string>()->default_value("warn"),
                                                 "trace, debug, info, warn, error, critical, off")(
      "plugin-path", po::value<std::vector<std::string>>()->composing(), "directory or plugin file searched first")(
      "json", "JSON events (one per line) on stdout")("mode", po::value<std::string>()->default_value("1"),
                                                      "0 baseline, 1 functional, 2 functional + metrics")(
      "pipeline", po::value<std::string>(), "pipeline file for every run")(
      "scheduler", po::value<std::string>()->default_value("r2r.scheduler.local"), "scheduler plugin id")(
      "scheduler-config", po::value<std::string>(), "the scheduler plugin's config (JSON or @FILE)")(
      "jobs", po::value<int>()->default_value(0), "jobs in flight at most (default: the scheduler's slots)")(
      "gpus", po::value<std::string>(), "r2r.scheduler.local: GPU indices of the pool, e.g. 0,1,2")(
      "arch", po::value<std::string>(), "gfx target for entries that name none")(
      "max-usd", po::value<double>(), "stop submitting once the runs spent this many USD")(
      "max-tokens", po::value<long long>(), "stop submitting once the runs used this many LLM tokens")(
      "max-gpu-hours", po::value<double>(), "stop submitting once the jobs held GPUs this many hours")(
      "out", po::value<std::string>()->default_value("batch"), "batch directory")(
      "resume", "finish the batch in --out")("emit", po::value<std::vector<std::string>>()->multitoken(),
                                             "k8s DIR: write Kubernetes Job manifests, run nothing")(
      "k8s-image", po::value<std::string>()->default_value("repo2rocm:latest"), "--emit k8s: container image")(
      "k8s-pvc", po::value<std::string>()->default_value("repo2rocm-runs"), "--emit k8s: claim for /runs")(
      "k8s-namespace", po::value<std::string>(), "--emit k8s: namespace");
  po::options_description hidden;
  hidden.add_options()("words", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description positional;
  positional.add("words", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  std::vector<std::string> words =
      vm.count("words") ? vm["words"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (!words.empty() && words[0] == "batch") words.erase(words.begin());
  if (vm.count("help")) {
    std::cout << "usage: " << synopsis << "\n\n" << help_text << "\n\n" << opts;
    return exit_ok;
  }
  const auto level = core::logging::parse_level(vm["log-level"].as<std::string>());
  if (!level) return usage_error("--log-level must be one of trace, debug, info, warn, error, critical, off");
  core::logging::configure(*level);
  const bool json = vm.count("json") != 0;
  if (!words.empty() && words[0] == "report") return run_report({words.begin() + 1, words.end()}, json);

  const std::string mode = vm["mode"].as<std::string>();
  if (mode != "0" && mode != "1" && mode != "2") return usage_error("--mode must be 0, 1 or 2, found '" + mode + "'");

  if (vm.count("emit")) {
    const auto emit = vm["emit"].as<std::vector<std::string>>();
    if (emit.size() != 2 || emit[0] != "k8s") return usage_error("--emit takes `k8s DIR`");
    if (words.size() != 1) return usage_error("--emit k8s needs the MANIFEST");
    auto entries = batch::load_manifest(words[0]);
    if (!entries) return usage_error(entries.error().message);
    batch::k8s_options k;
    k.image = vm["k8s-image"].as<std::string>();
    k.pvc = vm["k8s-pvc"].as<std::string>();
    if (vm.count("k8s-namespace")) k.namespace_name = vm["k8s-namespace"].as<std::string>();
    k.mode = mode;
    if (vm.count("arch")) k.arch = vm["arch"].as<std::string>();
    if (vm.count("pipeline")) k.pipeline = vm["pipeline"].as<std::string>();
    auto written = batch::emit_k8s(*entries, k, emit[1]);
    if (!written) return usage_error(written.error().message);
    std::cout << "wrote " << written->size() - 1 << " Job manifests and README.md to " << emit[1] << "\n";
    return exit_ok;
  }

  batch::engine_options o;
  o.resume = vm.count("resume") != 0;
  if (words.size() > 1) return usage_error("one MANIFEST only, found " + std::to_string(words.size()) + " words");
  if (words.empty() && !o.resume) return usage_error("give the MANIFEST (CSV or JSONL of repositories)");
  if (!words.empty()) o.manifest = words[0];
  o.out_dir = vm["out"].as<std::string>();
  o.scheduler_id = vm["scheduler"].as<std::string>();
  o.mode = mode;
  o.jobs = vm["jobs"].as<int>();
  if (o.jobs < 0) return usage_error("--jobs must be 0 (the scheduler's slots) or more");
  if (vm.count("arch")) o.arch = vm["arch"].as<std::string>();
  if (vm.count("pipeline")) o.pipeline = fs::absolute(vm["pipeline"].as<std::string>()).string();
  if (vm.count("max-usd")) o.limits.max_usd = vm["max-usd"].as<double>();
  if (vm.count("max-tokens")) o.limits.max_tokens = vm["max-tokens"].as<long long>();
  if (vm.count("max-gpu-hours")) o.limits.max_gpu_hours = vm["max-gpu-hours"].as<double>();

  nlohmann::json sched_config = nlohmann::json::object();
  try {
    if (vm.count("scheduler-config"))
      sched_config = nlohmann::json::parse(read_arg(vm["scheduler-config"].as<std::string>()));
  } catch (const std::exception& e) {
    return usage_error(std::string("--scheduler-config is not JSON: ") + e.what());
  }
  if (vm.count("gpus")) {
    if (o.scheduler_id != "r2r.scheduler.local")
      return usage_error("--gpus is for r2r.scheduler.local; put GPUs in --scheduler-config");
    nlohmann::json gpus = nlohmann::json::array();
    std::stringstream s(vm["gpus"].as<std::string>());
    std::string g;
    while (std::getline(s, g, ','))
      if (!g.empty()) gpus.push_back(g);
    sched_config["gpus"] = gpus;
  }

  // Each job is this binary's `run` (R2R_BATCH_RUNNER replaces the binary: a program taking the
  // same arguments, for tests and benchmarks), with the same plugin path and log level.
  std::error_code ec;
  const char* runner_env = std::getenv("R2R_BATCH_RUNNER");
  o.runner.push_back(runner_env != nullptr && *runner_env != '\0' ? std::string(runner_env)
                                                                  : fs::read_symlink("/proc/self/exe", ec).string());
  cli_context ctx;
  if (vm.count("plugin-path")) {
    for (const auto& p : vm["plugin-path"].as<std::vector<std::string>>()) {
      ctx.plugin_paths.push_back(fs::absolute(p).string());
      o.runner.insert(o.runner.end(), {"--plugin-path", fs::absolute(p).string()});
    }
  }
  o.runner.insert(o.runner.end(), {"--log-level", vm["log-level"].as<std::string>()});
  if (json) o.on_event = [](const nlohmann::json& e) { std::cout << e.dump() << "\n" << std::flush; };

  auto registry = core::plugin_registry::load(ctx.search_path());
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  const auto* plugin = registry->find(o.scheduler_id);
  if (plugin == nullptr || plugin->info.kind != R2R_KIND_SCHEDULER)
    return usage_error("no scheduler plugin `" + o.scheduler_id +
                       "` on the plugin path; `repo2rocm plugins list --kind scheduler` lists them");
  core::instance_options io;
  io.name = o.scheduler_id;
  auto instance = core::plugin_instance::create(*plugin, sched_config, io);
  if (!instance) {
    std::cerr << "repo2rocm batch: " << instance.error().to_string() << "\n";
    return instance.error().where == core::phase::config ? exit_usage : exit_error;
  }
  // Ctrl-C / SIGTERM end this process only; the jobs keep running and `--resume` collects them.
  batch::scheduler_call call = [&](const std::string& method, const nlohmann::json& request) {
    return (*instance)->call(method, request);
  };
  auto result = batch::run_batch(o, call);
  if (!result) {
    std::cerr << "repo2rocm batch: " << result.error().message << "\n";
    return result.error().where == core::phase::config ? exit_usage : exit_error;
  }
  if (!json) {
    std::cout << result->summary["headline"].get<std::string>() << "\n";
    if (!result->summary.value("stopped", "").empty())
      std::cout << "stopped: " << result->summary["stopped"].get<std::string>() << "\n";
    std::cout << "summary: " << (fs::path(o.out_dir) / "summary.html").string() << ", summary.json, summary.csv\n";
  }
  return result->exit_code;
}

}  // namespace r2r::cli
