// SPDX-License-Identifier: MIT
#include <r2r/verify/accelerator_components.hpp>
#include <r2r/verify/kernel_class.hpp>
#include <r2r/verify/text.hpp>

#include <algorithm>
#include <set>

namespace r2r::plugins::verifier {
namespace {

namespace v = sdk::verifier;
using nlohmann::json;

bool mentions_flash(const std::string& s) {
  const std::string l = lower(s);
  return l.find("flash_attn") != std::string::npos || l.find("flash-attn") != std::string::npos ||
         l.find("flash_attention") != std::string::npos || l.find("flash-attention") != std::string::npos;
}

/// A dispatched name is kernel `k` when it holds `k` as a whole identifier ("void k<float>(float*)")
/// or is a Triton specialisation of it ("k_0d1d2de").
bool names_kernel(std::string_view dispatched, const std::string& k) {
  if (contains_identifier(dispatched, k)) return true;
  if (!dispatched.starts_with(k) || dispatched.size() <= k.size() + 1 || dispatched[k.size()] != '_') return false;
  return std::all_of(dispatched.begin() + static_cast<std::ptrdiff_t>(k.size()) + 1, dispatched.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == 'd' || c == 'c' || c == 'e' || c == '_';
  });
}

std::string last_component(const std::string& module) {
  const auto dot = module.rfind('.');
  return dot == std::string::npos ? module : module.substr(dot + 1);
}

/// The file path of a code-object URI (file:///a/b.so#offset=…&size=… -> /a/b.so); memory:// URIs give "".
std::string uri_path(const std::string& uri) {
  if (!uri.starts_with("file://")) return "";
  std::string p = uri.substr(7);
  const auto cut = p.find_first_of("#?");
  if (cut != std::string::npos) p.resize(cut);
  return p;
}

std::string basename(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

/// Whether a shared object at `path` is the build of extension module `module` ("pkg._C" ->
/// …/pkg/_C.cpython-310-x86_64-linux-gnu.so or …/pkg/_C.so; a JIT "name" -> …/name/name.so).
bool object_is_module(const std::string& path, const std::string& module) {
  if (path.empty() || module.empty()) return false;
  const std::string base = basename(path);
  const std::string leaf = last_component(module);
  if (!(base.starts_with(leaf + ".") && base.find(".so") != std::string::npos)) return false;
  if (module.find('.') == std::string::npos) return true;
  const std::string pkg_dir = "/" + module.substr(0, module.rfind('.')) + "/";
  std::string dotted_path = path;
  std::replace(dotted_path.begin(), dotted_path.end(), '.', '/');
  std::string pkg_path = pkg_dir;
  std::replace(pkg_path.begin(), pkg_path.end(), '.', '/');
  return dotted_path.find(pkg_path) != std::string::npos;
}

bool file_is(const std::string& path, const std::string& rel) {
  return !rel.empty() && (path == rel || path.ends_with("/" + rel));
}

enum class outcome { pass, fail, not_verified };

std::string_view word(outcome o) {
  return o == outcome::pass ? "pass" : o == outcome::fail ? "fail" : "not_verified";
}

struct build_result {
  outcome status = outcome::not_verified;
  std::string detail;
  json evidence;
};

/// The first object of a GPU process of the workload that `is` accepts and that predates the run,
/// as "host: …"; "" when none, with the first refusal in `refused`.
template <class Pred>
std::string host_object(const host_code& host, Pred is, std::string& refused) {
  for (const auto& [path, pid] : host.objects) {
    if (!is(path)) continue;
    const auto why = object_written_before_run(host, path);
    if (why.empty()) return "host: GPU process " + std::to_string(pid) + " mapped " + path;
    if (refused.empty()) refused = why;
  }
  return "";
}

bool is_triton_runtime(const std::string& path) {
  return path.find("libtriton") != std::string::npos || path.find("/triton/_C/") != std::string::npos;
}

build_result judge_build(const planned_build& b, const std::vector<dispatched_kernel>& kernels,
                         const std::vector<loaded_code>& code, const host_code& host, const std::string& host_gap) {
  build_result r;
  r.evidence = {{"build", b.name}, {"kind", b.kind}, {"module", b.module}, {"planned_kernels", b.kernels}};
  if (b.kernels.empty()) {
    r.detail = b.name +
               ": the plan records no kernel names for this build, so nothing can show it ran "
               "(re-plan: the planner reads __global__ / @triton.jit names from its sources)";
    return r;
  }
  json ran = json::object();
  std::string tool_by, foreign;
  for (const auto& d : kernels) {
    const auto k =
        std::find_if(b.kernels.begin(), b.kernels.end(), [&](const auto& n) { return names_kernel(d.name, n); });
    if (k == b.kernels.end()) continue;
    ran[d.name.substr(0, 120)] = d.count;
    if (d.code_object.empty() || b.kind == "triton") continue;
    if (object_is_module(uri_path(d.code_object), b.module)) {
      if (tool_by.empty()) tool_by = "tracer: code object " + d.code_object;
    } else if (foreign.empty()) {
      foreign = d.name.substr(0, 80) + " from " + d.code_object;
    }
  }
  // In-process confirmation: detail only, never enough to pass.
  std::string probe_says;
  for (const auto& c : code) {
    if (b.kind == "triton") {
      for (const auto& t : c.triton)
        if (std::find(b.kernels.begin(), b.kernels.end(), t.name) != b.kernels.end() && file_is(t.file, b.file) &&
            t.compiled.value_or(true))
          probe_says = "probe: Triton compiled " + t.name + " from " + t.file;
    } else {
      for (const auto& e : c.extensions)
        if (e.module == b.module && e.file.find(".so") != std::string::npos)
          probe_says = "probe: module " + e.module + " loaded from " + e.file;
    }
  }
  // Out-of-process attribution: the build's shared object (or, for Triton, Triton's runtime) mapped
  // by a process of the workload that the host saw on the GPU.
  // Setup-extension objects and Triton's runtime must predate the run (a file the workload wrote
  // under the module's name is its own); a JIT build is compiled during the run by design.
  std::string host_by, refused;
  if (b.kind == "triton") {
    if (!probe_says.empty()) host_by = host_object(host, is_triton_runtime, refused);
  } else if (b.kind == "jit") {
    for (const auto& [path, pid] : host.objects)
      if (object_is_module(path, b.module)) {
        host_by = "host: GPU process " + std::to_string(pid) + " mapped " + path + " (JIT-built during the run)";
        break;
      }
  } else {
    host_by = host_object(
        host, [&](const std::string& p) { return object_is_module(p, b.module); }, refused);
  }
  r.evidence["ran"] = ran;
  r.evidence["attributed_by"] = host_by;
  r.evidence["tracer_code_object"] = tool_by;
  r.evidence["probe"] = probe_says;
  std::string planned;
  for (const auto& k : b.kernels) planned += (planned.empty() ? "" : ", ") + k;
  if (ran.empty()) {
    r.status = outcome::fail;
    r.detail = b.name + ": none of its kernels (" + planned +
               ") was dispatched; the code ran without it "
               "(a Python or library fallback)";
  } else if (!foreign.empty() && tool_by.empty()) {
    r.status = outcome::fail;
    r.detail = b.name + ": kernels named like its own ran from another code object (" + foreign +
               "), not from module " + b.module;
  } else if (!host_by.empty()) {
    long long n = 0;
    for (const auto& [name, c] : ran.items()) n += c.get<long long>();
    r.status = outcome::pass;
    r.detail = b.name + ": " + std::to_string(n) + " dispatches of its kernels (" + host_by +
               (tool_by.empty() ? "" : "; " + tool_by) + (probe_says.empty() ? "" : "; " + probe_says) + ")";
  } else {
    r.status = outcome::not_verified;
    std::string why;
    if (!refused.empty())
      why = refused;
    else if (!host_gap.empty())
      why = host_gap;
    else if (b.kind == "triton")
      why = probe_says.empty() ? "no record shows " + planned + " compiled from " + b.file
                               : "no GPU process of the workload mapped Triton's runtime (host /proc/<pid>/maps)";
    else
      why = "no GPU process of the workload mapped module " + b.module + "'s shared object (host /proc/<pid>/maps)";
    r.detail = b.name + ": kernels named like its own ran (" + ran.begin().key() + ") but " + why +
               (probe_says.empty()
                    ? ""
                    : "; the probe's record (" + probe_says + ") is in-process evidence and cannot pass a build alone");
  }
  return r;
}

build_result judge_flash(const std::vector<dispatched_kernel>& kernels, const std::vector<loaded_code>& code,
                         const host_code& host, std::vector<v::ledger_entry>& ledger) {
  build_result r;
  bool flash_module = false;
  std::string flash_module_name;
  for (const auto& c : code)
    for (const auto& e : c.extensions)
      if (e.module.starts_with("flash_attn") && e.file.find(".so") != std::string::npos) {
        flash_module = true;
        flash_module_name = e.module;
      }
  std::string refused;  // a flash_attn object or Triton runtime written during the run
  const std::string host_flash = host_object(host, mentions_flash, refused);
  const std::string triton_rt = host_object(host, is_triton_runtime, refused);
  long long flash = 0, unconfirmed = 0, other = 0, unknown = 0;
  std::string other_names, flash_by, unconfirmed_by;
  json seen = json::array();
  for (const auto& d : kernels) {
    const auto fam = classify_kernel(d.name);
    if (fam != kernel_family::flash_attention && fam != kernel_family::sdpa_fallback) continue;
    std::string origin, confirmed_by;
    bool is_flash = false, known = true;
    const std::string path = uri_path(d.code_object);
    if (!d.code_object.empty()) {
      is_flash = mentions_flash(path);
      origin = "code object " + d.code_object;
      confirmed_by = host_flash;
    } else {
      const loaded_code::triton_function* tf = nullptr;
      for (const auto& c : code)
        for (const auto& t : c.triton)
          if (names_kernel(d.name, t.name) && t.compiled.value_or(true)) tf = &t;
      if (tf != nullptr) {
        is_flash = tf->module.starts_with("flash_attn");
        origin = "Triton function " + tf->module + "." + tf->name + " (" + tf->file + ")";
        confirmed_by = triton_rt;
      } else if (fam == kernel_family::sdpa_fallback) {
        origin = "named as PyTorch's memory-efficient SDPA kernel";  // a name may fail a run, never pass it
      } else if (flash_module) {
        is_flash = true;
        origin = "probe: module " + flash_module_name + " loaded";
        confirmed_by = host_flash;
      } else {
        known = false;
        origin = "no code-object or probe record";
      }
    }
    seen.push_back({{"kernel", d.name.substr(0, 120)},
                    {"count", d.count},
                    {"origin", origin},
                    {"flash_attn", is_flash},
                    {"host", confirmed_by}});
    if (is_flash && !confirmed_by.empty()) {
      flash += d.count;
      if (flash_by.empty()) flash_by = origin + "; " + confirmed_by;
    } else if (is_flash) {
      unconfirmed += d.count;
      if (unconfirmed_by.empty()) unconfirmed_by = origin;
    } else if (known) {
      other += d.count;
      if (other_names.size() < 200)
        other_names += (other_names.empty() ? "" : "; ") + d.name.substr(0, 60) + " (" + origin + ")";
    } else {
      unknown += d.count;
    }
  }
  r.evidence = {{"build", "flash-attn"}, {"kind", "flash_attention"}, {"attention_kernels", seen}};
  if (flash > 0) {
    r.status = outcome::pass;
    r.detail = "flash-attn: " + std::to_string(flash) + " flash-attention dispatches (" + flash_by + ")";
  } else if (other > 0) {
    r.status = outcome::fail;
    r.detail = "flash-attn: attention ran in kernels that are not flash-attn's: " + other_names;
    ledger.push_back({"flash-attention", "D2",
                      "PyTorch SDPA or another attention implementation ran instead of flash-attn: " + other_names});
  } else if (unconfirmed > 0) {
    r.status = outcome::not_verified;
    r.detail = "flash-attn: attention kernels attributed to flash_attn in-process (" + unconfirmed_by +
               ") but no GPU process of the workload mapped the flash_attn library (or, for its Triton backend, "
               "Triton's runtime) as the host saw it" +
               (refused.empty() ? std::string() : " (" + refused + ")") +
               ": in-process records cannot pass a build alone";
  } else if (unknown > 0) {
    r.status = outcome::not_verified;
    r.detail =
        "flash-attn: attention kernels ran but nothing attributes them to the flash_attn library (no "
        "code-object record, no flash_attn module in the probe)";
  } else {
    r.status = outcome::fail;
    r.detail = "flash-attn: no attention kernel was dispatched";
  }
  return r;
}

}  // namespace

component_plan components_from_plan(const json& plan, const std::vector<std::string>& configured_kernels) {
  component_plan p;
  const auto kbs = plan.find("kernel_builds");
  if (kbs != plan.end() && kbs->is_array()) {
    for (const auto& kb : *kbs) {
      if (!kb.is_object()) continue;
      const std::string name = kb.value("name", std::string()), kind = kb.value("kind", std::string());
      if (mentions_flash(name)) {
        p.flash_attention = true;
        continue;
      }
      if (kind != "setup_extension" && kind != "jit" && kind != "triton") continue;
      planned_build b;
      b.kind = kind;
      b.name = name;
      b.module = kb.value("module", name);
      b.file = kb.value("file", std::string());
      if (auto k = kb.find("kernels"); k != kb.end() && k->is_array())
        for (const auto& n : *k)
          if (n.is_string() && !n.get<std::string>().empty()) b.kernels.push_back(n);
      p.builds.push_back(std::move(b));
    }
  }
  if (auto hz = plan.find("hazards"); hz != plan.end() && hz->is_array()) {
    for (const auto& h : *hz)
      if (h.is_object() &&
          (mentions_flash(h.value("kind", std::string())) || mentions_flash(h.value("detail", std::string()))))
        p.flash_attention = true;
  }
  if (!configured_kernels.empty()) {
    planned_build b;
    b.kind = "configured";
    b.name = "configured custom kernels";
    b.kernels = configured_kernels;
    p.builds.push_back(std::move(b));
  }
  return p;
}

loaded_code parse_probe_code(std::string_view probe_json) {
  const auto doc = json::parse(probe_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw parse_error("probe", "a JSON object", std::string(probe_json.substr(0, 80)), "re-run the workload");
  loaded_code out;
  const auto c = doc.find("code");
  if (c == doc.end() || c->is_null()) return out;
  if (!c->is_object())
    throw parse_error("probe", "\"code\" as an object of extensions/triton/objects", c->dump().substr(0, 80),
                      "use the probe shipped with this verifier");
  out.present = true;
  auto str = [](const json& o, const char* k) {
    const auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (auto e = c->find("extensions"); e != c->end() && e->is_array())
    for (const auto& x : *e)
      if (x.is_object()) out.extensions.push_back({str(x, "module"), str(x, "file")});
  if (auto t = c->find("triton"); t != c->end() && t->is_array())
    for (const auto& x : *t) {
      if (!x.is_object()) continue;
      loaded_code::triton_function f{str(x, "name"), str(x, "module"), str(x, "file"), std::nullopt};
      if (auto cc = x.find("compiled"); cc != x.end() && cc->is_boolean()) f.compiled = cc->get<bool>();
      out.triton.push_back(std::move(f));
    }
  if (auto o = c->find("objects"); o != c->end() && o->is_array())
    for (const auto& x : *o)
      if (x.is_string()) out.objects.push_back(x);
  return out;
}

component_verdict check_accelerator_components(const component_plan& plan,
                                               const std::vector<dispatched_kernel>& kernels,
                                               const std::vector<loaded_code>& code, bool kernels_recorded,
                                               const host_code& host, const std::string& host_gap) {
  component_verdict out;
  out.evidence = json::array();
  if (!plan.flash_attention && plan.builds.empty()) {
    out.check = {"accelerator_components", "pass", "the plan names no accelerator-critical kernels"};
    return out;
  }
  if (!kernels_recorded) {
    out.check = {"accelerator_components", "not_verified",
                 "no kernel names were recorded (no tracer and no profiler output), so the planned kernels cannot "
                 "be confirmed"};
    return out;
  }
  std::vector<build_result> results;
  if (plan.flash_attention) results.push_back(judge_flash(kernels, code, host, out.ledger));
  for (const auto& b : plan.builds) {
    auto r = judge_build(b, kernels, code, host, host_gap);
    if (r.status == outcome::fail)
      out.ledger.push_back({b.name, "D3", "the build's own kernels did not run: " + r.detail});
    results.push_back(std::move(r));
  }
  outcome overall = outcome::pass;
  std::string detail;
  for (const auto& r : results) {
    if (r.status == outcome::fail) overall = outcome::fail;
    if (r.status == outcome::not_verified && overall == outcome::pass) overall = outcome::not_verified;
    detail += (detail.empty() ? "" : "; ") + r.detail;
    auto e = r.evidence;
    e["status"] = std::string(word(r.status));
    out.evidence.push_back(std::move(e));
  }
  out.check = {"accelerator_components", std::string(word(overall)), detail};
  return out;
}

}  // namespace r2r::plugins::verifier
