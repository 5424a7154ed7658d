// SPDX-License-Identifier: MIT
#include "package_rules.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <vector>

namespace r2r::plugins::guard::accel {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_python(const std::string& name) {
  static const std::regex python(R"(python(\d+(\.\d+)?)?)");
  return std::regex_match(name, python);
}
bool is_pip(const std::string& name) {
  static const std::regex pip(R"(pip(\d+(\.\d+)?)?)");
  return std::regex_match(name, pip);
}

/// Option parsing shared by pip, uv and conda: values of index/channel options are recorded, other
/// valued options are skipped, and the remaining words are the verb and the packages.
void scan_arguments(const std::vector<std::string>& argv, std::size_t k, package_operation& op) {
  static const std::set<std::string> index_opts{"-i",           "--index-url", "--extra-index-url", "-f",
                                                "--find-links", "--index",     "--default-index"};
  static const std::set<std::string> channel_opts{"-c", "--channel"};
  static const std::set<std::string> valued{"-r",
                                            "--requirement",
                                            "--constraint",
                                            "-t",
                                            "--target",
                                            "--prefix",
                                            "--root",
                                            "--src",
                                            "--python",
                                            "--platform",
                                            "--python-version",
                                            "--implementation",
                                            "--abi",
                                            "--upgrade-strategy",
                                            "--cache-dir",
                                            "--log",
                                            "--proxy",
                                            "--retries",
                                            "--timeout",
                                            "--trusted-host",
                                            "--no-binary",
                                            "--only-binary",
                                            "-C",
                                            "--config-settings",
                                            "-n",
                                            "--name",
                                            "-p",
                                            "--file",
                                            "--progress-bar",
                                            "--global-option"};
  std::string verb;
  const bool conda = op.manager == "conda";
  for (; k < argv.size(); ++k) {
    const std::string& a = argv[k];
    const auto eq = a.find('=');
    const std::string flag = a.rfind("--", 0) == 0 && eq != std::string::npos ? a.substr(0, eq) : a;
    const bool inline_value = flag.size() != a.size();
    const std::string value = inline_value ? a.substr(eq + 1) : (k + 1 < argv.size() ? argv[k + 1] : "");
    if (a.size() > 1 && a[0] == '-') {
      const bool is_channel = conda && channel_opts.count(flag);
      if (index_opts.count(flag) || is_channel) {
        (is_channel ? op.channels : op.indexes).push_back(value);
      } else if (flag == "-e" || flag == "--editable") {
        if (!inline_value && k + 1 < argv.size()) op.packages.push_back(value);
      } else if (!(valued.count(flag) || (!conda && channel_opts.count(flag)))) {
        continue;
      }
      if (!inline_value) ++k;
    } else if (verb.empty()) {
      verb = a;
    } else {
      op.packages.push_back(a);
    }
  }
  static const std::set<std::string> installs{"install", "add", "create", "update", "upgrade", "sync", "inject"};
  static const std::set<std::string> removals{"uninstall", "remove", "rm"};
  op.removes = removals.count(verb) > 0;
  if (!op.removes && !installs.count(verb)) op.manager.clear();
}

/// Index and channel settings made by a manager's config command: `pip config set
/// global.extra-index-url URL`, `poetry source add NAME URL`, `conda config --add channels nvidia`,
/// `uv`/`pdm config ... URL`. nullopt when `argv` is no such command.
std::optional<package_operation> configured_sources(const std::string& manager, const std::vector<std::string>& a,
                                                    std::size_t k) {
  if (k >= a.size()) return std::nullopt;
  package_operation op;
  op.manager = manager;
  op.configures = true;
  const std::string& verb = a[k];
  if (verb == "config" && manager == "conda") {
    for (std::size_t i = k + 1; i + 2 < a.size() + 1; ++i)
      if ((a[i] == "--add" || a[i] == "--append" || a[i] == "--prepend") && i + 2 < a.size() && a[i + 1] == "channels")
        op.channels.push_back(a[i + 2]);
    return op.channels.empty() ? std::nullopt : std::optional(op);
  }
  if (verb == "config") {  // pip config set global.index-url URL, pdm config pypi.url URL, poetry config
    for (std::size_t i = k + 1; i < a.size(); ++i) {
      const bool url_key = a[i].find("index-url") != std::string::npos ||
                           a[i].find("find-links") != std::string::npos || a[i].find("pypi.url") != std::string::npos ||
                           a[i].rfind("repositories.", 0) == 0;
      if (url_key && i + 1 < a.size()) op.indexes.push_back(a[i + 1]);
      if (const auto eq = a[i].find('='); url_key && eq != std::string::npos) op.indexes.push_back(a[i].substr(eq + 1));
    }
    return op.indexes.empty() ? std::nullopt : std::optional(op);
  }
  if (verb == "source" && k + 1 < a.size() && a[k + 1] == "add") {  // poetry source add NAME URL
    for (std::size_t i = k + 2; i < a.size(); ++i)
      if (a[i].find("://") != std::string::npos) op.indexes.push_back(a[i]);
    return op.indexes.empty() ? std::nullopt : std::optional(op);
  }
  return std::nullopt;
}

}  // namespace

std::optional<package_operation> parse_package_command(const shell::simple_command& cmd) {
  if (cmd.argv.empty()) return std::nullopt;
  const std::string name = lower(shell::program_name(cmd.argv[0]));
  const auto& a = cmd.argv;
  package_operation op;
  std::size_t k = 1;
  if (is_pip(name)) {
    op.manager = "pip";
  } else if (is_python(name)) {
    const auto m = std::find(a.begin(), a.end(), "-m");
    if (m == a.end() || m + 1 == a.end() || !is_pip(*(m + 1))) return std::nullopt;
    op.manager = "pip";
    k = static_cast<std::size_t>(m - a.begin()) + 2;
  } else if (name == "uv") {
    op.manager = "uv";
    if (a.size() > 1 && a[1] == "pip") k = 2;
  } else if (name == "conda" || name == "mamba" || name == "micromamba") {
    op.manager = "conda";
  } else if (name == "apt" || name == "apt-get") {
    op.manager = "apt";
  } else if (name == "poetry" || name == "pdm" || name == "pipx") {
    op.manager = name;
    if (name == "pipx" && a.size() > 2 && (a[1] == "inject" || a[1] == "runpip")) {
      k = 3;  // pipx inject VENV pkg..., pipx runpip VENV install pkg...
      if (a[1] == "inject") {
        op.packages.assign(a.begin() + 3, a.end());
        op.packages.erase(std::remove_if(op.packages.begin(), op.packages.end(),
                                         [](const std::string& w) { return w.rfind('-', 0) == 0; }),
                          op.packages.end());
        return op;
      }
    }
  } else {
    return std::nullopt;
  }
  if (auto settings = configured_sources(op.manager, a, k)) return settings;
  for (const auto& [var, value] : cmd.env) {
    if (var == "PIP_INDEX_URL" || var == "POETRY_REPOSITORIES_URL" || var == "PDM_PYPI_URL" ||
        var == "PIP_EXTRA_INDEX_URL" || var == "PIP_FIND_LINKS" || var == "UV_INDEX_URL" ||
        var == "UV_EXTRA_INDEX_URL" || var == "UV_INDEX" || var == "UV_DEFAULT_INDEX")
      op.indexes.push_back(value);
  }
  scan_arguments(a, k, op);
  if (op.manager.empty()) return std::nullopt;
  return op;
}

std::string normalize_name(std::string_view spec) {
  std::string s = lower(spec);
  if (const auto at = s.find(" @ "); at != std::string::npos) s = s.substr(0, at);
  if (const auto ch = s.find("::"); ch != std::string::npos) s = s.substr(ch + 2);
  const bool path_like = s.find('/') != std::string::npos;
  if (path_like) {
    if (const auto egg = s.find("#egg="); egg != std::string::npos) {
      s = s.substr(egg + 5);
      s = s.substr(0, s.find('&'));
    } else {
      s = s.substr(0, s.find_first_of("#?"));
      while (!s.empty() && s.back() == '/') s.pop_back();
      std::vector<std::string> parts;
      for (std::size_t from = 0; from <= s.size();) {
        const auto slash = std::min(s.find('/', from), s.size());
        parts.push_back(s.substr(from, slash - from));
        from = slash + 1;
      }
      // github.com/OWNER/REPO/archive/... and .../REPO/releases/download/TAG/file: the repository
      // name, unless the file is a wheel or sdist that names its project.
      std::string last = parts.back();
      const auto archive = std::find(parts.begin(), parts.end(), "archive");
      const bool named_file =
          last.size() > 4 && (last.compare(last.size() - 4, 4, ".whl") == 0 ||
                              (last.size() > 7 && last.compare(last.size() - 7, 7, ".tar.gz") == 0));
      if (archive != parts.end() && archive != parts.begin() && !named_file) last = *(archive - 1);
      if (const auto at = last.find('@'); at != std::string::npos && !named_file) last = last.substr(0, at);
      if (last.size() > 4 && last.compare(last.size() - 4, 4, ".git") == 0) last.resize(last.size() - 4);
      if (last.size() > 4 && last.compare(last.size() - 4, 4, ".whl") == 0) last = last.substr(0, last.find('-'));
      if (last.size() > 7 && last.compare(last.size() - 7, 7, ".tar.gz") == 0) last = last.substr(0, last.rfind('-'));
      if (last.size() > 4 && last.compare(last.size() - 4, 4, ".zip") == 0) last = last.substr(0, last.rfind('-'));
      s = last;
    }
  }
  const auto end = s.find_first_of("[<>=!~; @");
  s = s.substr(0, end);
  std::replace(s.begin(), s.end(), '_', '-');
  std::replace(s.begin(), s.end(), '.', '-');
  if (s == "flash-attention") s = "flash-attn";
  if (s == "pytorch") s = "torch";
  return s;
}

std::string cuda_build_reason(std::string_view spec) {
  const std::string s = lower(spec);
  const std::string name = normalize_name(spec);
  if (s.rfind("nvidia::", 0) == 0) return "a package from the nvidia conda channel";
  if (name.rfind("nvidia-", 0) == 0) return "an NVIDIA CUDA runtime wheel";
  static const std::regex cu_suffix(R"(-(cu|cuda)1\d(x)?(-|$))");
  if (std::regex_search(name, cu_suffix) || name.rfind("cupy-cuda", 0) == 0) return "a CUDA-specific wheel";
  static const std::set<std::string> toolkits{"pytorch-cuda",   "cudatoolkit", "cuda-toolkit",
                                              "cuda-runtime",   "cuda-nvcc",   "cuda-cudart",
                                              "cuda-libraries", "cudnn",       "nccl"};
  if (toolkits.count(name)) return "the CUDA toolkit or a CUDA library";
  static const std::regex local_cuda(R"(\+cu\d{2,3})");
  if (std::regex_search(s, local_cuda)) return "a +cuXXX (CUDA) build";
  if (is_cuda_index(s)) return "a wheel from a CUDA index";
  return {};
}

std::string rocm_version_of(std::string_view spec_or_index) {
  static const std::regex rocm(R"((whl/(nightly/)?rocm|rocm-rel-|\+rocm)(\d+)\.(\d+))");
  std::smatch m;
  const std::string s = lower(spec_or_index);
  if (!std::regex_search(s, m, rocm)) return {};
  return m[3].str() + "." + m[4].str();
}

std::string target_rocm_version(const nlohmann::json& plan, const std::string& image) {
  static const std::regex rocm(R"(rocm[-_]?(\d+)\.(\d+))", std::regex::icase);
  std::vector<std::string> names;
  if (plan.is_object() && plan.contains("base_image") && plan["base_image"].is_object())
    for (const char* key : {"ref", "tag", "image"})
      if (plan["base_image"].contains(key) && plan["base_image"][key].is_string())
        names.push_back(plan["base_image"][key].get<std::string>());
  names.push_back(image);
  for (const auto& n : names) {
    std::smatch m;
    if (std::regex_search(n, m, rocm)) return m[1].str() + "." + m[2].str();
  }
  return {};
}

bool is_cuda_index(std::string_view url) {
  static const std::regex cuda(R"(download\.pytorch\.org/whl/(nightly/)?cu\d|pypi\.(ngc\.)?nvidia\.com)");
  return std::regex_search(lower(url), cuda);
}

}  // namespace r2r::plugins::guard::accel
