// SPDX-License-Identifier: MIT
// Fuzzes the audit bundle reader (`repo2rocm verify`): the input is split at lines "====" into
// report.json, trajectory.jsonl, plan.json and MANIFEST.sha256. When the first byte is even, the
// manifest is computed from the other files so the fuzzer reaches the checks behind the integrity
// check (schema, verdict, PFS, ledger); when odd, the fuzzed manifest is read as is.
#include "fuzz_support.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/manifest.hpp>

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
    r2r::fuzz::write_file(dir / "MANIFEST.sha256", r2r::report::render_manifest(*entries));
  }
  (void)r2r::report::parse_manifest(r2r::fuzz::as_text(data, size));
  (void)r2r::report::verify_bundle(dir);
  return 0;
}
