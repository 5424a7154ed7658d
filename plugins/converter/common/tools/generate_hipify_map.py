#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the CUDA->HIP mapping table of the converter plugins.

Inputs (all committed in the repository):
  third_party/hipify-tables/*.md      AMD HIPIFY's CUDA->HIP tables (MIT, see LICENSE-HIPIFY.txt)
  plugins/converter/common/data/project_map.json
                                      project-authored rules the tables do not carry (headers,
                                      link libraries, namespaces, device intrinsics they omit)
Output:
  plugins/converter/common/generated/hipify_map.inc
                                      a sorted C++ table compiled into the converter library

Usage: generate_hipify_map.py [--tables DIR] [--project-map FILE] [--out FILE] [--check]
  --check   regenerate in memory and exit 1 when the committed output differs (used by a test)

Nothing here is typed by hand: every name comes from a table row. Rules applied to the rows:
  * the HIP column is the mapping; a HIP name without a ROCm version (A column) is recorded as
    listed but unreleased (no usable mapping);
  * the ROC/MIOPEN column, when present, is kept as an alternative for hints;
  * a name in several tables keeps the row of the first table in TABLES order; differing rows are
    counted as conflicts and listed in the output header;
  * a HIP name that is itself a CUDA name mapping elsewhere would make conversion non-idempotent:
    the generator fails on it.
"""
import argparse
import json
import os
import re
import sys

# (file, api) in priority order: earlier tables win for names listed twice.
TABLES = [
    ("CUDA_Runtime_API_functions_supported_by_HIP.md", "runtime"),
    ("CUDA_Driver_API_functions_supported_by_HIP.md", "driver"),
    ("CUDA_Device_API_supported_by_HIP.md", "device"),
    ("CUDA_RTC_API_supported_by_HIP.md", "rtc"),
    ("cuComplex_API_supported_by_HIP.md", "complex"),
    ("CUBLAS_API_supported_by_HIP_and_ROC.md", "blas"),
    ("CURAND_API_supported_by_HIP_and_ROC.md", "rand"),
    ("CUFFT_API_supported_by_HIP.md", "fft"),
    ("CUSPARSE_API_supported_by_HIP_and_ROC.md", "sparse"),
    ("CUSOLVER_API_supported_by_HIP_and_ROC.md", "solver"),
    ("CUDNN_API_supported_by_HIP_and_MIOPEN.md", "dnn"),
    ("CUB_API_supported_by_HIP.md", "cub"),
]
# Every api value the C++ side knows (mapping.hpp enum api); project_map.json may use the extra ones.
APIS = ["runtime", "driver", "device", "rtc", "complex", "blas", "rand", "fft", "sparse", "solver", "dnn",
        "cub", "nccl", "thrust", "libcudacxx", "samples"]
SOURCE_NOTE = "ROCm/HIPIFY docs/tables at commit 014177bc2e43"
VERSION_RE = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?$")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def version_code(text, where):
    """'5.2.0' -> 50200, '11.3' -> 110300, '' -> 0."""
    text = text.strip()
    if not text:
        return 0
    m = VERSION_RE.match(text)
    if not m:
        sys.exit(f"{where}: version '{text}' is not N[.N[.N]]")
    major, minor, patch = (int(g) if g else 0 for g in m.groups())
    if minor > 99 or patch > 99:
        sys.exit(f"{where}: version '{text}' has a component above 99")
    return major * 10000 + minor * 100 + patch


def strip_name(cell):
    cell = cell.strip()
    if cell.startswith("`") and cell.endswith("`"):
        cell = cell[1:-1]
    return cell


def parse_table(path, api):
    """Yields one dict per row of every table in a HIPIFY markdown file."""
    section = ""
    columns = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            where = f"{os.path.basename(path)}:{number}"
            if line.startswith("## "):
                section = re.sub(r"^\d+\.\s*", "", line[3:].strip().strip("*")).strip()
                columns = None
                continue
            if line.startswith("|**"):
                columns = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
                if columns[:6] != ["CUDA", "A", "D", "C", "R", "HIP"] and columns[:6] != [
                        "CUDA", "A", "D", "C", "R", "ROC"]:
                    sys.exit(f"{where}: unexpected header row {columns}")
                continue
            if not line.startswith("|`"):
                continue
            if columns is None:
                sys.exit(f"{where}: table row before a header row")
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != len(columns):
                sys.exit(f"{where}: {len(cells)} cells, header has {len(columns)}")
            row = {"api": api, "section": section, "where": where}
            row["cuda"] = strip_name(cells[0])
            row["cuda_a"], row["cuda_d"], row["cuda_c"], row["cuda_r"] = (
                version_code(cells[i], where) for i in range(1, 5))
            row["hip"] = strip_name(cells[5])
            row["hip_a"], row["hip_d"], row["hip_c"], row["hip_r"] = (
                version_code(cells[i], where) for i in range(6, 10))
            row["hip_e"] = cells[10] != ""
            row["alt"], row["alt_a"] = "", 0
            if len(columns) > 11:
                row["alt"] = strip_name(cells[11])
                row["alt_a"] = version_code(cells[12], where)
            if not IDENT_RE.match(row["cuda"]):
                sys.exit(f"{where}: CUDA name '{row['cuda']}' is not an identifier")
            yield row


def entity_of(section):
    return "data" if "type" in section.lower() else "function"


def cxx_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def load(tables_dir):
    rows = {}
    conflicts = []
    for file_name, api in TABLES:
        for row in parse_table(os.path.join(tables_dir, file_name), api):
            previous = rows.get(row["cuda"])
            if previous is None:
                rows[row["cuda"]] = row
            elif (previous["hip"], previous["hip_a"]) != (row["hip"], row["hip_a"]):
                conflicts.append(f"{row['cuda']}: {previous['where']} -> '{previous['hip']}' kept, "
                                 f"{row['where']} -> '{row['hip']}' dropped")
    return rows, conflicts


def check_idempotent(rows):
    problems = []
    for name, row in rows.items():
        hip = row["hip"]
        if not hip or not row["hip_a"] or hip == name:
            continue
        other = rows.get(hip)
        if other is not None and other["hip"] and other["hip_a"] and other["hip"] != hip:
            problems.append(f"{name} -> {hip}, but {hip} -> {other['hip']} ({other['where']})")
    if problems:
        sys.exit("mapping would not be idempotent:\n  " + "\n  ".join(problems))


def render(rows, conflicts, project, license_text):
    sections = sorted({r["section"] for r in rows.values()})
    section_index = {s: i for i, s in enumerate(sections)}
    out = []
    w = out.append
    w("// SPDX-License-Identifier: MIT")
    w("// GENERATED by plugins/converter/common/tools/generate_hipify_map.py. Do not edit: change the")
    w("// inputs and run the script (a test fails when this file is out of date).")
    w("//")
    w(f"// Name rows: third_party/hipify-tables/*.md, from {SOURCE_NOTE}.")
    w("// Header, library and namespace rows: plugins/converter/common/data/project_map.json (project-authored).")
    w("// The HIPIFY tables are distributed under this licence:")
    for line in license_text.strip().splitlines():
        w(("//   " + line).rstrip())
    w("//")
    w(f"// {len(rows)} CUDA names; {len(conflicts)} names listed in two tables with different HIP names")
    w("// (the first table in the generator's TABLES order wins):")
    for c in conflicts:
        w(f"//   {c}")
    w("// clang-format off")
    w("")
    w("namespace r2r::plugins::converter::generated {")
    w("")
    w(f"inline constexpr std::string_view section_names[] = {{")
    for s in sections:
        w(f"    {cxx_string(s)},")
    w("};")
    w("")
    w("// {cuda, hip (usable), listed (HIP name in the table, even unreleased), alternative (ROC/MIOpen),")
    w("//  api, entity, section, cuda added/deprecated/removed, hip added/deprecated/removed, experimental,")
    w("//  alternative added}; versions are major*10000+minor*100+patch, 0 when not given. Sorted by cuda.")
    w("inline constexpr name_row names[] = {")
    for name in sorted(rows):
        r = rows[name]
        usable = r["hip"] if r["hip_a"] else ""
        w("    {%s, %s, %s, %s, api::%s, entity::%s, %d, %d, %d, %d, %d, %d, %d, %s, %d}," % (
            cxx_string(name), cxx_string(usable), cxx_string(r["hip"]), cxx_string(r["alt"]), r["api"],
            entity_of(r["section"]), section_index[r["section"]], r["cuda_a"], r["cuda_d"], r["cuda_r"],
            r["hip_a"], r["hip_d"], r["hip_r"], "true" if r["hip_e"] else "false", r["alt_a"]))
    w("};")
    w("")
    w("// {cuda include path, hip include path, api, action, since (0: not version-checked), hint}")
    for key, var in (("headers", "headers"), ("header_prefixes", "header_prefixes")):
        w(f"inline constexpr header_row {var}[] = {{")
        for h in sorted(project[key], key=lambda h: h["cuda"]):
            if h["api"] not in APIS:
                sys.exit(f"project_map.json: {key} {h['cuda']}: unknown api '{h['api']}'")
            if h["action"] not in ("rewrite", "keep", "manual"):
                sys.exit(f"project_map.json: {key} {h['cuda']}: unknown action '{h['action']}'")
            w("    {%s, %s, api::%s, header_action::%s, %d, %s}," % (
                cxx_string(h["cuda"]), cxx_string(h["hip"]), h["api"], h["action"],
                version_code(h.get("since", ""), f"project_map.json {h['cuda']}"), cxx_string(h.get("hint", ""))))
        w("};")
        w("")
    w("// {cuda library, hip library, CUDA CMake target, HIP CMake target, manual}")
    w("inline constexpr library_row libraries[] = {")
    for lib in sorted(project["libraries"], key=lambda x: x["cuda"]):
        w("    {%s, %s, %s, %s, %s}," % (cxx_string(lib["cuda"]), cxx_string(lib["hip"]), cxx_string(lib["cmake_cuda"]),
                                       cxx_string(lib["cmake_hip"]),
                                       "true" if lib.get("action") == "manual" else "false"))
    w("};")
    w("")
    w("// {cuda name, api, hint}: device intrinsics the tables do not list (project-authored, sorted)")
    w("inline constexpr unlisted_row unlisted_names[] = {")
    unlisted = sorted(project["unlisted_device_names"], key=lambda x: x["cuda"])
    for u in unlisted:
        if u["cuda"] in rows:
            sys.exit(f"project_map.json: unlisted name {u['cuda']} is in the tables ({rows[u['cuda']]['where']})")
        w("    {%s, api::%s, %s}," % (cxx_string(u["cuda"]), u["api"], cxx_string(u["hint"])))
    w("};")
    w("")
    w("// {cuda namespace, hip namespace, api}")
    w("inline constexpr namespace_row namespaces[] = {")
    for ns in sorted(project["namespaces"], key=lambda x: x["cuda"]):
        w("    {%s, %s, api::%s}," % (cxx_string(ns["cuda"]), cxx_string(ns["hip"]), ns["api"]))
    w("};")
    w("")
    w("}  // namespace r2r::plugins::converter::generated")
    w("// clang-format on")
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=os.path.join(repo, "third_party", "hipify-tables"))
    parser.add_argument("--project-map", default=os.path.join(here, "..", "data", "project_map.json"))
    parser.add_argument("--out", default=os.path.join(here, "..", "generated", "hipify_map.inc"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    rows, conflicts = load(args.tables)
    check_idempotent(rows)
    with open(args.project_map, encoding="utf-8") as f:
        project = json.load(f)
    with open(os.path.join(args.tables, "LICENSE-HIPIFY.txt"), encoding="utf-8") as f:
        license_text = f.read()
    text = render(rows, conflicts, project, license_text)

    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            sys.exit(f"cannot read {args.out}: {e}")
        if current != text:
            sys.exit(f"{args.out} is out of date; run {os.path.relpath(__file__, repo)} and commit the result")
        print(f"{args.out}: up to date ({len(rows)} names)")
        return
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}: {len(rows)} names, {len(conflicts)} conflicts")


if __name__ == "__main__":
    main()
