// SPDX-License-Identifier: MIT
// Fuzzes the audit bundle reader (`repo2rocm verify`): the input is split at lines "====" into
// report.json, trajectory.jsonl, plan.json and MANIFEST.sha256. When the first byte is even, the
// manifest is computed from the other files so the fuzzer reaches the checks behind the integrity
// check (schema, verdict, PFS, ledger), signed with a key the target makes once in its scratch
// state directory and trusts; when odd, the fuzzed manifest is read as is (and is unsigned).
#include "fuzz_support.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/manifest.hpp>
#include <r2r/report/signing.hpp>

namespace {

const r2r::report::signing_key& fuzz_key() {
  static const auto key = [] {
    auto k = r2r::report::host_signing_key(r2r::fuzz::scratch_dir() / "state");
    if (!k) std::abort();  // the scratch directory is ours: failing to make a key is a harness bug
    return *k;
  }();
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool computed_manifest = data[0] % 2 == 0;
  const auto dir = r2r::fuzz::scratch_dir() / "bundle";
  std::filesystem::remove_all(dir);
  std::string_view rest = r2r::fuzz::as_text(data + 1, size - 1);
  for (const char* name : {"report.json", "trajectory.jsonl", "plan.json", "MANIFEST.sha256"}) {
    const auto parts = r2r::fuzz::split_once(rest, "\n====\n");
    if (!computed_manifest || std::string_view(name) != "MANIFEST.sha256")
      r2r::fuzz::write_file(dir / name, parts.first);
    rest = parts.second;
  }
  // The files the reader only hashes; their content does not matter past the manifest.
  for (const char* name : {"Dockerfile", "repo.tar", "patch.diff", "commands.log", "report.html"})
    r2r::fuzz::write_file(dir / name, "");
  if (computed_manifest) {
    const auto entries = r2r::report::hash_directory(dir);
    if (!entries) return 0;
    const std::string manifest = r2r::report::render_manifest(*entries);
    r2r::fuzz::write_file(dir / "MANIFEST.sha256", manifest);
    if (const auto sig = r2r::report::sign_manifest(fuzz_key(), manifest))
      r2r::fuzz::write_file(dir / "MANIFEST.sig", *sig);
  }
  (void)r2r::report::parse_manifest(r2r::fuzz::as_text(data, size));
  r2r::report::verify_options options;
  options.trusted_key = fuzz_key().pub;
  options.trusted_key_source = "the fuzz target's own key";
  (void)r2r::report::verify_bundle(dir, options);
  return 0;
}
