// SPDX-License-Identifier: MIT
// r2r-numerics: the numerical gate's harness on the command line.
//   r2r-numerics driver KERNEL_SOURCE SPEC.json --dialect cuda|hip [--include PATH] -o DRIVER
//       writes the host driver for the spec's kernel (the driver #includes PATH, default KERNEL_SOURCE)
//   r2r-numerics compare REFERENCE.json CANDIDATE.json [--tolerance JSON]
//       exit 0: outputs match within tolerance; 1: they do not; 2: bad input
#include "driver_generator.hpp"
#include "output_compare.hpp"

#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace {

using namespace r2r::plugins::converter::numerics;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read '" + path + "'; check the path");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json read_json(const std::string& path) {
  try {
    return nlohmann::json::parse(read(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument("'" + path + "' is not JSON: " + e.what());
  }
}

int usage() {
  std::cerr << "usage: r2r-numerics driver KERNEL_SOURCE SPEC.json --dialect cuda|hip [--include PATH] -o DRIVER\n"
               "       r2r-numerics compare REFERENCE.json CANDIDATE.json [--tolerance JSON]\n";
  return 2;
}

int driver(const std::vector<std::string>& a) {
  if (a.size() < 2) return usage();
  std::string dialect_name;
  std::string include = a[0];
  std::string out;
  for (std::size_t i = 2; i + 1 < a.size(); i += 2) {
    if (a[i] == "--dialect")
      dialect_name = a[i + 1];
    else if (a[i] == "--include")
      include = a[i + 1];
    else if (a[i] == "-o")
      out = a[i + 1];
    else
      return usage();
  }
  if ((a.size() - 2) % 2 != 0 || out.empty() || (dialect_name != "cuda" && dialect_name != "hip")) return usage();
  const nlohmann::json spec = read_json(a[1]);
  const auto signature = parse_signature(read(a[0]), spec.value("kernel", std::string()));
  const std::string text =
      generate_driver(bind_spec(spec, signature), include, dialect_name == "cuda" ? dialect::cuda : dialect::hip);
  std::ofstream o(out, std::ios::binary);
  o << text;
  if (!o.flush()) throw std::invalid_argument("cannot write '" + out + "'");
  return 0;
}

int compare(const std::vector<std::string>& a) {
  if (a.size() != 2 && !(a.size() == 4 && a[2] == "--tolerance")) return usage();
  const nlohmann::json tol = a.size() == 4 ? nlohmann::json::parse(a[3]) : nlohmann::json::object();
  const comparison c = compare_outputs(read_json(a[0]), read_json(a[1]), tol);
  std::cout << c.summary() << "\n";
  return c.passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "driver") return driver(args);
    if (command == "compare") return compare(args);
    return usage();
  } catch (const std::exception& e) {
    std::cerr << "r2r-numerics " << command << ": " << e.what() << "\n";
    return 2;
  }
}
