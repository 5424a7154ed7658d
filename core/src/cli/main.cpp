// SPDX-License-Identifier: MIT
// repo2rocm command line. Global options may appear anywhere; each command accepts only its own
// options on top of them (an option of another command is a usage error, exit 2).
#include "cli_context.hpp"
#include "exit_codes.hpp"

#include <r2r/plugin_api.h>
#include <r2r/core/logging.hpp>

#include <boost/program_options.hpp>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <typeinfo>
#include <vector>

#ifndef R2R_VERSION
#error "R2R_VERSION must be defined by the build"
#endif

namespace po = boost::program_options;

namespace {

struct command {
  const char* name;      // "plugins list"
  const char* synopsis;  // usage line
  const char* help;
  std::set<std::string> options;  // command-specific options it accepts
  int (*run)(const r2r::cli::cli_context&);
};

const std::vector<command>& commands() {
  static const std::vector<command> list = {
      {"plugins list",
       "repo2rocm plugins list [--kind KIND] [--pipeline FILE] [--json]",
       "List every plugin found on the plugin path with kind, id, version and ABI, and every file that\n"
       "could not be used, with the reason.",
       {"kind", "pipeline"},
       &r2r::cli::run_plugins_list},
      {"plugins describe",
       "repo2rocm plugins describe ID [--pipeline FILE] [--json]",
       "Show a plugin's kind, version, ABI, library, config schema and example config.",
       {"pipeline"},
       &r2r::cli::run_plugins_describe},
      {"plugins call",
       "repo2rocm plugins call ID METHOD [REQUEST] [--config JSON] [--request JSON]",
       "Create one instance of a plugin (config defaults to its example) and call METHOD with REQUEST\n"
       "(JSON text, @FILE or - for standard input). Prints the JSON response. For plugin authors.",
       {"config", "request", "pipeline"},
       &r2r::cli::run_plugins_call},
      {"sandbox doctor",
       "repo2rocm sandbox doctor [--json]",
       "Say which sandbox engines answer here (dockerd, Podman, bubblewrap) and their versions, which AMD\n"
       "GPUs were found, and what a run on this host can and cannot verify. Exit 0 when at least one\n"
       "engine answers, 1 when none does.",
       {},
       &r2r::cli::run_sandbox_doctor},
      {"plan",
       "repo2rocm plan SOURCE [--commit REF] [--arch GFX] [--out DIR] [--base-image REF] [--pipeline FILE] "
       "[--cache-dir DIR] [--state-dir DIR] [--paper FILE|URL] [--json]",
       "Clone or open SOURCE (URL or local git repository) at --commit (SHA, tag or branch; default: the\n"
       "default branch), fingerprint it, rank ROCm base images for --arch with the pipeline's `rank` stage\n"
       "(default: r2r.ranker.jaccard), and write fingerprint.json, plan.json, Dockerfile and repo.tar\n"
       "(the tree at the pinned commit, in the Dockerfile's build context) to --out (default ./r2r-plan).\n"
       "--base-image overrides the chosen base. Clones are cached in --cache-dir (default\n"
       "$R2R_CACHE_DIR or ~/.cache/repo2rocm/repos); image failures are read from --state-dir (default\n"
       "$R2R_STATE_DIR or ~/.local/state/repo2rocm). A private https repository's token is read from\n"
       "R2R_GIT_TOKEN. Exit 0 when the plan was written (it may still list blocking hazards), 1 when\n"
       "the source could not be read or planning failed, 2 for usage errors (missing path, unknown commit).\n"
       "--paper FILE|URL (PDF, .txt, .md or .tex; an http(s) URL is downloaded into OUT/paper/) takes the\n"
       "Mode 2 target from the paper's results when one is tied to the workload by name; the plan lists\n"
       "the candidates otherwise (docs/mode2-paper.md).",
       {"commit", "arch", "out", "base-image", "pipeline", "cache-dir", "state-dir", "paper"},
       &r2r::cli::run_plan},
      {"llm ping",
       "repo2rocm llm ping --pipeline FILE [--instance NAME] [--json]",
       "Send one tiny request through the pipeline's llm instance (the only one, or --instance NAME) with\n"
       "its plugin, config, API key and caps, and print the model that answered, the latency and the\n"
       "tokens. Exit 0 when it answered, 1 when the call failed, 2 for a bad pipeline or instance.",
       {"pipeline", "instance"},
       &r2r::cli::run_llm_ping},
      {"validate",
       "repo2rocm validate PIPELINE.json [--json]",
       "Validate a pipeline file: the whole file against the pipeline schema, then each plugin's config\n"
       "against that plugin's schema. Every problem is printed with its JSON pointer and plugin id.\n"
       "Exit 0 when valid, 2 when not.",
       {},
       &r2r::cli::run_validate},
      {"port",
       "repo2rocm port SOURCE [--arch gfx90a,gfx942] [--rocm VERSION] [--out DIR] [--pipeline FILE] [--json]",
       "Port a local CUDA project to HIP: copy SOURCE to DIR/tree (default ./<name>-rocm), run the convert\n"
       "stages on the copy (hipify, hazard scan, offline hipcc build check for each --arch; the built-in\n"
       "configs/pipelines/port.json unless --pipeline), and write DIR/patch.diff and DIR/convert.json\n"
       "(per-file statistics, diagnostics with file:line:column, hazards, build results). SOURCE is never\n"
       "written. Exit 0 when every stage ran, 1 when one failed, 2 on usage or configuration errors.",
       {"arch", "rocm", "out", "pipeline"},
       &r2r::cli::run_port},
      {"run",
       "repo2rocm run SOURCE [--mode 0|1|2] [--pipeline FILE] [--gpu N] [--arch GFX] [--run-dir DIR] [--commit REF] "
       "[--base-image REF] [--no-pull] [--cache-dir DIR] [--state-dir DIR] [--paper FILE|URL] [--until STAGE] [--json]",
       "Make SOURCE (URL or local git repository) run on ROCm and verify it: intake, plan, port (hipify,\n"
       "hazard scan, hipcc build check), environment (the plan's image, built in the sandbox: Docker when an\n"
       "engine answers, else bubblewrap; a base the engine lacks is pulled and pinned by digest, unless\n"
       "--no-pull), execute, verify, bundle, in --run-dir (default\n"
       "runs/<repo>-<commit12>-<utc>; an existing one is resumed, completed stages are skipped). Mode 0 runs\n"
       "the README's own commands in the sandbox with no agent, as the baseline. Live progress on a terminal,\n"
       "JSON events on stdout otherwise (--json forces them); always RUN_DIR/events.jsonl. Pipeline: the\n"
       "built-in configs/pipelines/run.json (mode 2: mode2.json) unless --pipeline; it names every plugin the\n"
       "run uses. --until STAGE stops after that stage (exit 0). Exit 0 verified (mode 0: the README ran on a\n"
       "ROCm device), 3 not verified (mode 0: a README step failed), 4 no ROCm device, 1 error (or a stage\n"
       "not available in this build), 2 usage. See docs/run.md.",
       {"pipeline", "commit", "arch", "base-image", "cache-dir", "state-dir", "mode", "gpu", "run-dir", "paper",
        "until", "no-pull"},
       &r2r::cli::run_run},
      {"execute",
       "repo2rocm execute --plan PLAN.json --pipeline FILE --run-dir DIR [--workspace SRC] [--max-turns N] "
       "[--max-seconds S] [--mode 0|1|2] [--arch GFX] [--json]",
       "Run the guarded executor alone: the pipeline's policy proposes one action per turn, every guard\n"
       "stage checks it, the sandbox stage runs it, and each turn is appended to DIR/trajectory.jsonl\n"
       "(DIR/commands.log lists the commands). --workspace copies a directory into DIR/workspace first.\n"
       "Exit 0 when the success claim was allowed, 1 for any other outcome (gave_up, cap_reached, stuck,\n"
       "error), 2 for usage or configuration errors. See docs/executor.md.",
       {"plan", "pipeline", "run-dir", "workspace", "max-turns", "max-seconds", "mode", "arch"},
       &r2r::cli::run_execute},
      {"resume",
       "repo2rocm resume RUN_DIR [--json]",
       "Continue a run that stopped (crash, kill, power loss) from RUN_DIR/trajectory.jsonl and the last\n"
       "workspace snapshot, with the pipeline recorded in RUN_DIR/run.json. A torn last line is discarded\n"
       "and reported. Exit codes as for `execute`.",
       {},
       &r2r::cli::run_resume},
      {"verify",
       "repo2rocm verify BUNDLE [--trusted-key FILE] [--state-dir DIR] [--json]",
       "Re-check an audit bundle: MANIFEST.sha256 signed (MANIFEST.sig) by the trusted key (--trusted-key\n"
       "FILE, a PEM public key; else this host's own bundle key under --state-dir); every file listed with\n"
       "a matching SHA-256 and none unlisted; repo.tar a complete archive that patch.diff applies to;\n"
       "report.json valid against its schema and equal to the report recomputed from plan.json,\n"
       "trajectory.jsonl and the verifiers' responses, each verifier's stored evidence re-judged by its\n"
       "plugin (ledger, verdict, PFS and its inputs; a Mode 1 pass needs Mode 1's five checks from stored\n"
       "evidence). Prints the signer's key fingerprint and the verdict. Exit 0 when\n"
       "intact and consistent, 1 naming the file and what is wrong otherwise (unsigned, re-signed with\n"
       "another key, regenerated manifest, ...), 2 when BUNDLE is not a directory.",
       {"trusted-key", "state-dir"},
       &r2r::cli::run_verify},
      {"verify-evidence",
       "repo2rocm verify-evidence --plan plan.json EVIDENCE_DIR [--mode 1|2] [--json]",
       "Re-judge raw stored verifier evidence and print its Mode 1 verdict: EVIDENCE_DIR is RUN_DIR/evidence,\n"
       "a bundle's evidence/, or one verifier's directory under it (holding capture.json). Each capture goes\n"
       "through its verifier plugin's `judge` method (the directory's name, else the Mode 1 verifier of the\n"
       "capture's vendor) with the plugin's schema defaults; nothing is run. Prints each check and\n"
       "the combined verdict. Exit 0 when the evidence was judged (whatever the verdict), 1 when it cannot\n"
       "be judged, 2 on a usage error or a directory without capture.json.",
       {"plan", "mode"},
       &r2r::cli::run_verify_evidence},
      {"batch",
       "repo2rocm batch MANIFEST [--mode 0|1|2] [--pipeline FILE] [--scheduler ID] [--scheduler-config JSON|@FILE] "
       "[--jobs N] [--gpus 0,1,...] [--arch GFX] [--max-usd X] [--max-tokens N] [--max-gpu-hours H] [--out DIR] "
       "[--resume] [--emit k8s DIR [--k8s-image IMAGE] [--k8s-pvc CLAIM] [--k8s-namespace NS]] [--json]",
       "Run every repository of MANIFEST (CSV with a header row: repo,commit,... as ResearchBench has it; or\n"
       "JSONL) as one `repo2rocm run` in DIR/runs/<key>, placed by a scheduler plugin (default\n"
       "r2r.scheduler.local: one job per GPU of --gpus, else of this host). DIR (--out, default ./batch) holds\n"
       "batch.json (state, replaced atomically), events.jsonl and summary.{json,csv,html}. Spend caps (--max-usd,\n"
       "--max-tokens, --max-gpu-hours) stop submitting, let running jobs finish and mark the rest `not started:\n"
       "spend cap`. --resume finishes a batch whose process died: no job runs twice, none is lost. --emit k8s\n"
       "writes Kubernetes Job manifests and runs nothing. Exit 0 when every job was run to its verdict, 3 when a\n"
       "cap stopped the batch, 1 on an error, 2 for usage errors. See docs/batch.md.",
       {"mode", "pipeline", "scheduler", "scheduler-config", "jobs", "gpus", "arch", "max-usd", "max-tokens",
        "max-gpu-hours", "out", "resume", "emit", "k8s-image", "k8s-pvc", "k8s-namespace"},
       &r2r::cli::run_batch},
      {"batch report",  // after "batch": the longer match wins
       "repo2rocm batch report DIR [--json]",
       "Rebuild a batch's summary.{json,csv,html} in DIR from DIR/runs (or DIR's run directories) alone.\n"
       "Exit 0 when written, 2 when DIR holds no run directory.",
       {},
       &r2r::cli::run_batch_report},
  };
  return list;
}

void print_usage(std::ostream& out, const po::options_description& global) {
  out << "repo2rocm " << R2R_VERSION << " - make CUDA research repositories run faithfully on AMD GPUs (ROCm)\n\n"
      << "usage: repo2rocm [global options] COMMAND [arguments]\n\ncommands:\n";
  for (const auto& c : commands()) out << "  " << c.synopsis << "\n";
  out << "\n"
      << global << "\nexit codes: 0 ok, 1 error, 2 usage or configuration error, 3 not verified, 4 no ROCm device\n"
      << "`repo2rocm COMMAND --help` describes one command.\n";
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description global("global options");
  global.add_options()("help,h", "show help (for a command: repo2rocm COMMAND --help)")(
      "version", "print the version and plugin ABI")("log-level", po::value<std::string>()->default_value("warn"),
                                                     "trace, debug, info, warn, error, critical, off")(
      "plugin-path", po::value<std::vector<std::string>>()->composing(),
      "directory or plugin file searched first (repeatable); then R2R_PLUGIN_PATH")(
      "json", "machine-readable JSON output on stdout");
  po::options_description specific("command options");
  specific.add_options()("kind", po::value<std::string>(), "plugins list: only this kind")(
      "pipeline", po::value<std::string>(), "pipeline file whose plugins.search_paths apply")(
      "config", po::value<std::string>(), "plugins call: instance config (JSON, @FILE or -)")(
      "request", po::value<std::string>(), "plugins call: request (JSON, @FILE or -)")(
      "commit", po::value<std::string>(), "plan: commit SHA, tag or branch to pin")(
      "arch", po::value<std::string>(),
      "plan: target GPU arch, e.g. gfx942 (or an alias such as mi300x); port: gfx targets to build-check, "
      "comma-separated")("rocm", po::value<std::string>(),
                         "port: target ROCm release (names HIP added later are reported)")(
      "out", po::value<std::string>(), "plan, port, batch: output directory")(
      "base-image", po::value<std::string>(), "plan: use this base image instead of the ranker's choice")(
      "cache-dir", po::value<std::string>(), "plan: clone cache directory")(
      "state-dir", po::value<std::string>(),
      "plan, run: state directory (image failures per arch, the bundle signing key); verify: where this host's "
      "bundle key is")("trusted-key", po::value<std::string>(),
                       "verify: the public key (PEM) bundles must be signed with")(
      "instance", po::value<std::string>(), "llm ping: the pipeline instance to use")(
      "mode", po::value<std::string>(),
      "run, execute, batch: 0 baseline, 1 functional (default), 2 functional + metrics")(
      "gpu", po::value<std::string>(), "run: index of the AMD GPU to pin (default 0)")(
      "run-dir", po::value<std::string>(),
      "run: run directory (an existing one is resumed); execute: new or empty run directory")(
      "plan", po::value<std::string>(), "execute, verify-evidence: plan.json of the run")(
      "paper", po::value<std::string>(),
      "plan, run: the paper (PDF, .txt, .md, .tex; a path or an http(s) URL) whose results give the Mode 2 "
      "target")("workspace", po::value<std::string>(), "execute: directory copied into the run's workspace")(
      "max-turns", po::value<std::string>(), "execute: turn cap (default 40)")(
      "max-seconds", po::value<std::string>(), "execute: wall-clock cap in seconds (default 3600)")(
      "until", po::value<std::string>(), "run: the last stage to run (intake, plan, port, environment, ...)")(
      "no-pull", po::value<std::string>()->zero_tokens()->implicit_value("1"),
      "run: never pull the base image; one the engine lacks fails the run (offline hosts)")(
      "scheduler", po::value<std::string>(), "batch: scheduler plugin id (default r2r.scheduler.local)")(
      "scheduler-config", po::value<std::string>(), "batch: the scheduler plugin's config (JSON or @FILE)")(
      "jobs", po::value<std::string>(), "batch: jobs in flight at most (default 0: the scheduler's slots)")(
      "gpus", po::value<std::string>(), "batch, r2r.scheduler.local: GPU indices of the pool, e.g. 0,1,2")(
      "max-usd", po::value<std::string>(), "batch: stop submitting once the runs spent this many USD")(
      "max-tokens", po::value<std::string>(), "batch: stop submitting once the runs used this many LLM tokens")(
      "max-gpu-hours", po::value<std::string>(), "batch: stop submitting once the jobs held GPUs this many hours")(
      "resume", "batch: finish the batch in --out")("emit", po::value<std::vector<std::string>>()->multitoken(),
                                                    "batch: k8s DIR: write Kubernetes Job manifests, run nothing")(
      "k8s-image", po::value<std::string>(), "batch --emit k8s: container image (default repo2rocm:latest)")(
      "k8s-pvc", po::value<std::string>(), "batch --emit k8s: claim for /runs (default repo2rocm-runs)")(
      "k8s-namespace", po::value<std::string>(), "batch --emit k8s: namespace");
  po::options_description hidden;
  hidden.add_options()("words", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(global).add(specific).add(hidden);
  po::positional_options_description positional;
  positional.add("words", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "repo2rocm: " << e.what() << "\nTry `repo2rocm --help`.\n";
    return r2r::cli::exit_usage;
  }

  if (vm.count("version")) {
    std::cout << "repo2rocm " << R2R_VERSION << " (plugin ABI " << R2R_ABI_MAJOR << "." << R2R_ABI_MINOR << ")\n";
    return r2r::cli::exit_ok;
  }
  const auto level = r2r::core::logging::parse_level(vm["log-level"].as<std::string>());
  if (!level) {
    std::cerr << "repo2rocm: --log-level must be one of trace, debug, info, warn, error, critical, off; found '"
              << vm["log-level"].as<std::string>() << "'\n";
    return r2r::cli::exit_usage;
  }
  r2r::core::logging::configure(*level);

  std::vector<std::string> words =
      vm.count("words") ? vm["words"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const command* chosen = nullptr;
  std::size_t consumed = 0;
  for (const auto& c : commands()) {
    const std::string name = c.name;
    const auto space = name.find(' ');
    if (space == std::string::npos) {
      if (!words.empty() && words[0] == name) chosen = &c, consumed = 1;
    } else if (words.size() >= 2 && words[0] == name.substr(0, space) && words[1] == name.substr(space + 1)) {
      chosen = &c, consumed = 2;
    }
  }
  if (chosen == nullptr) {
    if (words.empty() || vm.count("help")) {
      print_usage(vm.count("help") ? std::cout : std::cerr, global);
      return words.empty() && vm.count("help") ? r2r::cli::exit_ok : r2r::cli::exit_usage;
    }
    std::cerr << "repo2rocm: unknown command '" << words[0] << (words.size() > 1 ? " " + words[1] : std::string())
              << "'\n\n";
    print_usage(std::cerr, global);
    return r2r::cli::exit_usage;
  }
  if (vm.count("help")) {
    std::cout << "usage: " << chosen->synopsis << "\n\n" << chosen->help << "\n\n" << global;
    return r2r::cli::exit_ok;
  }
  // Command options: each must be one the chosen command accepts; all reach it in ctx.options.
  r2r::cli::cli_context ctx;
  for (const auto& option : specific.options()) {
    const std::string opt = option->long_name();
    if (vm.count(opt) == 0) continue;
    if (chosen->options.count(opt) == 0) {
      std::cerr << "repo2rocm: --" << opt << " is not an option of `" << chosen->name
                << "`\nusage: " << chosen->synopsis << "\n";
      return r2r::cli::exit_usage;
    }
    const auto& value = vm[opt].value();
    if (value.type() == typeid(std::vector<std::string>)) {
      ctx.lists[opt] = vm[opt].as<std::vector<std::string>>();
    } else {
      ctx.options[opt] = value.type() == typeid(std::string) ? vm[opt].as<std::string>() : std::string();
    }
  }
  ctx.words.assign(words.begin() + static_cast<long>(consumed), words.end());
  if (vm.count("plugin-path")) ctx.plugin_paths = vm["plugin-path"].as<std::vector<std::string>>();
  ctx.json = vm.count("json") != 0;
  ctx.log_level = vm["log-level"].as<std::string>();
  ctx.pipeline = ctx.option("pipeline");
  ctx.arch = ctx.option("arch");
  ctx.rocm = ctx.option("rocm");
  ctx.out_dir = ctx.option("out");
  ctx.out = &std::cout;
  ctx.err = &std::cerr;
  try {
    return chosen->run(ctx);
  } catch (const std::exception& e) {
    std::cerr << "repo2rocm: internal error: " << e.what() << "\n";
    return r2r::cli::exit_error;
  }
}
