// SPDX-License-Identifier: MIT
#include <r2r/report/sha256.hpp>

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>

namespace r2r::report {
namespace {

struct md_ctx_deleter {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
using md_ctx = std::unique_ptr<EVP_MD_CTX, md_ctx_deleter>;

md_ctx start() {
  md_ctx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx, md.data(), &n) != 1) throw std::bad_alloc();
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (unsigned int i = 0; i < n; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 0xf]);
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  auto ctx = start();
  EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size());
  return finish(ctx.get());
}

core::result<std::string> sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return core::fail(core::phase::io, "cannot open " + file.string() + " to hash it; check it exists and is readable",
                      "", file.string());
  auto ctx = start();
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return core::fail(core::phase::io, "read error while hashing " + file.string(), "", file.string());
  return finish(ctx.get());
}

}  // namespace r2r::report
