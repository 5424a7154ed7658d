// SPDX-License-Identifier: MIT
// port_file IN OUT: convert_source (hipify with the idiom ports) of one file; exits 1 when the
// port reports an error-severity diagnostic, so the emulation test only runs a clean port.
#include <r2r/convert/hipify.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: port_file IN OUT\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const auto c = r2r::plugins::converter::convert_source(argv[1], text.str(), {});
  int errors = 0;
  for (const auto& d : c.diagnostics) {
    if (d.severity == "error") {
      std::cerr << d.file << ":" << d.line << ": " << d.category << ": " << d.message << "\n";
      ++errors;
    }
  }
  std::ofstream(argv[2], std::ios::binary) << c.text;
  return errors == 0 && !c.failed ? 0 : 1;
}
