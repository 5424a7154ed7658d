// SPDX-License-Identifier: MIT
#include <r2r/report/sha256.hpp>
#include <r2r/report/signing.hpp>

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

namespace r2r::report {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view key_file = "bundle-ed25519.key";
constexpr std::string_view pub_file = "bundle-ed25519.pub";
constexpr std::string_view sig_header = "repo2rocm-bundle-signature 1";
/// Domain separation: the signed message is this prefix followed by MANIFEST.sha256's bytes.
constexpr std::string_view message_prefix = "repo2rocm bundle manifest v1\n";

struct pkey_deleter {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
struct bio_deleter {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};
struct md_deleter {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_deleter>;
using bio_ptr = std::unique_ptr<BIO, bio_deleter>;
using md_ptr = std::unique_ptr<EVP_MD_CTX, md_deleter>;

std::string hex(const std::uint8_t* p, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(digits[p[i] >> 4]);
    out.push_back(digits[p[i] & 0xf]);
  }
  return out;
}

bool unhex(std::string_view text, std::uint8_t* out, std::size_t n) {
  if (text.size() != 2 * n) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

tl::unexpected<core::error> io_error(const std::string& message, const fs::path& path) {
  return core::fail(core::phase::io, message, "", path.string());
}

/// Refuses a path that is a link, is owned by someone else or is open to group or others.
core::result<void> check_private(const fs::path& path, bool directory) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return io_error("cannot stat " + path.string() + ": " + std::strerror(errno), path);
  const bool kind_ok = directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
  if (!kind_ok)
    return io_error(path.string() + " is not a " + (directory ? "directory" : "regular file") +
                        " (a link is refused); remove it and let repo2rocm make the bundle key again",
                    path);
  if (st.st_uid != ::geteuid())
    return io_error(path.string() + " belongs to another user; the bundle key must be the current user's own", path);
  if ((st.st_mode & 077) != 0) {
    std::ostringstream mode;
    mode << std::oct << (st.st_mode & 0777);
    return io_error(path.string() + " has mode " + mode.str() + "; the bundle key must be private: chmod " +
                        (directory ? "700" : "600") + " it",
                    path);
  }
  return {};
}

core::result<public_key> public_of(EVP_PKEY* k, const fs::path& where) {
  if (EVP_PKEY_get_id(k) != EVP_PKEY_ED25519)
    return io_error(where.string() + " does not hold an Ed25519 key; pass the bundle-ed25519.pub of the run's host",
                    where);
  public_key pub;
  std::size_t n = pub.raw.size();
  if (EVP_PKEY_get_raw_public_key(k, pub.raw.data(), &n) != 1 || n != pub.raw.size())
    return io_error("cannot read the Ed25519 public key in " + where.string(), where);
  return pub;
}

core::result<signing_key> key_of(EVP_PKEY* k, const fs::path& where) {
  auto pub = public_of(k, where);
  if (!pub) return tl::unexpected(pub.error());
  signing_key key;
  key.pub = *pub;
  std::size_t n = key.seed.size();
  if (EVP_PKEY_get_raw_private_key(k, key.seed.data(), &n) != 1 || n != key.seed.size())
    return io_error("cannot read the Ed25519 private key in " + where.string(), where);
  return key;
}

core::result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot read " + path.string(), path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes `text` to a new file `dir/name.tmp-<random>` with `mode` (O_EXCL, no link followed),
/// fsynced; returns its path.
core::result<fs::path> write_new(const fs::path& dir, std::string_view name, const std::string& text, mode_t mode) {
  std::random_device rd;
  const fs::path tmp = dir / (std::string(name) + ".tmp-" + std::to_string(rd()));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return io_error("cannot create " + tmp.string() + ": " + std::strerror(errno), tmp);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return io_error("cannot write " + tmp.string(), tmp);
    }
    done += static_cast<std::size_t>(w);
  }
  const bool ok = ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    return io_error("cannot fsync " + tmp.string(), tmp);
  }
  return tmp;
}

core::result<std::string> pem_public(EVP_PKEY* k) {
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), k) != 1)
    return core::fail(core::phase::io, "cannot encode the bundle public key as PEM");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

core::result<pkey_ptr> pkey_from_pem(const std::string& pem, bool private_key, const fs::path& where) {
  bio_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  pkey_ptr k(private_key ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                         : PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!k)
    return io_error(where.string() + " is not a PEM " + (private_key ? "private" : "public") +
                        " key; expected the file `openssl pkey" + (private_key ? "" : " -pubout") + "` writes",
                    where);
  return k;
}

/// Makes the public key file from the private key when it is missing.
core::result<void> ensure_public_file(const fs::path& dir, EVP_PKEY* k) {
  const fs::path file = dir / pub_file;
  if (fs::exists(fs::symlink_status(file))) return {};
  auto pem = pem_public(k);
  if (!pem) return tl::unexpected(pem.error());
  auto tmp = write_new(dir, pub_file, *pem, 0644);
  if (!tmp) return tl::unexpected(tmp.error());
  std::error_code ec;
  fs::rename(*tmp, file, ec);
  if (ec) {
    fs::remove(*tmp, ec);
    return io_error("cannot write " + file.string(), file);
  }
  return {};
}

}  // namespace

std::string public_key::fingerprint() const {
  return "SHA256:" + sha256_hex(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

fs::path signing_dir(const fs::path& state_dir) {
  return state_dir / "signing";
}

fs::path host_public_key_file(const fs::path& state_dir) {
  return signing_dir(state_dir) / pub_file;
}

core::result<signing_key> host_signing_key(const fs::path& state_dir) {
  const fs::path dir = signing_dir(state_dir);
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec) return io_error("cannot create the state directory " + state_dir.string() + ": " + ec.message(), state_dir);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return io_error("cannot create " + dir.string() + ": " + std::strerror(errno), dir);
  if (auto r = check_private(dir, true); !r) return tl::unexpected(r.error());
  const fs::path file = dir / key_file;
  if (!fs::exists(fs::symlink_status(file))) {
    pkey_ptr fresh(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
    if (!fresh) return core::fail(core::phase::io, "OpenSSL could not generate an Ed25519 key");
    bio_ptr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), fresh.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
      return core::fail(core::phase::io, "cannot encode the new bundle key as PEM");
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    auto tmp = write_new(dir, key_file, std::string(data, static_cast<std::size_t>(n)), 0600);
    if (!tmp) return tl::unexpected(tmp.error());
    // link() never replaces: when another process made the key first, its key is the one used.
    const int linked = ::link(tmp->c_str(), file.c_str());
    const int link_errno = errno;
    ::unlink(tmp->c_str());
    if (linked != 0 && link_errno != EEXIST)
      return io_error("cannot create " + file.string() + ": " + std::strerror(link_errno), file);
  }
  if (auto r = check_private(file, false); !r) return tl::unexpected(r.error());
  auto pem = read_file(file);
  if (!pem) return tl::unexpected(pem.error());
  auto k = pkey_from_pem(*pem, true, file);
  if (!k) return tl::unexpected(k.error());
  if (auto r = ensure_public_file(dir, k->get()); !r) return tl::unexpected(r.error());
  return key_of(k->get(), file);
}

core::result<std::optional<public_key>> host_public_key(const fs::path& state_dir) {
  const fs::path file = host_public_key_file(state_dir);
  if (!fs::exists(file)) return std::optional<public_key>();
  auto k = read_public_key(file);
  if (!k) return tl::unexpected(k.error());
  return std::optional<public_key>(*k);
}

core::result<public_key> read_public_key(const fs::path& file) {
  auto pem = read_file(file);
  if (!pem) return tl::unexpected(pem.error());
  auto k = pkey_from_pem(*pem, false, file);
  if (!k) return tl::unexpected(k.error());
  return public_of(k->get(), file);
}

core::result<std::string> sign_manifest(const signing_key& key, std::string_view manifest) {
  pkey_ptr k(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, key.seed.data(), key.seed.size()));
  md_ptr ctx(EVP_MD_CTX_new());
  if (!k || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1)
    return core::fail(core::phase::io, "OpenSSL cannot set up Ed25519 signing");
  std::string message(message_prefix);
  message += manifest;
  std::array<std::uint8_t, 64> sig{};
  std::size_t n = sig.size();
  if (EVP_DigestSign(ctx.get(), sig.data(), &n, reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      n != sig.size())
    return core::fail(core::phase::io, "OpenSSL could not sign MANIFEST.sha256");
  return std::string(sig_header) + "\nalgorithm ed25519\nkey " + key.pub.fingerprint() + "\npublic-key " +
         hex(key.pub.raw.data(), key.pub.raw.size()) + "\nsignature " + hex(sig.data(), sig.size()) + "\n";
}

core::result<public_key> check_manifest_signature(std::string_view text, std::string_view manifest) {
  const std::string where(signature_name);
  auto malformed = [&](const std::string& what) {
    return core::fail(core::phase::io,
                      where + " is malformed (" + what +
                          "); expected the five lines repo2rocm writes: header, algorithm, key, public-key, signature",
                      "", where);
  };
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return malformed("the last line has no newline");
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (lines.size() != 5) return malformed(std::to_string(lines.size()) + " lines");
  auto field = [&](std::size_t i, std::string_view name) -> std::optional<std::string_view> {
    const std::string prefix = std::string(name) + " ";
    if (lines[i].substr(0, prefix.size()) != prefix) return std::nullopt;
    return lines[i].substr(prefix.size());
  };
  if (lines[0] != sig_header) return malformed("unknown header");
  if (field(1, "algorithm") != std::optional<std::string_view>("ed25519")) return malformed("algorithm");
  const auto fp = field(2, "key");
  const auto pk = field(3, "public-key");
  const auto sg = field(4, "signature");
  public_key pub;
  std::array<std::uint8_t, 64> sig{};
  if (!pk || !unhex(*pk, pub.raw.data(), pub.raw.size())) return malformed("public-key is not 64 hex digits");
  if (!sg || !unhex(*sg, sig.data(), sig.size())) return malformed("signature is not 128 hex digits");
  if (!fp || *fp != pub.fingerprint()) return malformed("the key fingerprint does not name the public key");
  pkey_ptr k(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, pub.raw.data(), pub.raw.size()));
  md_ptr ctx(EVP_MD_CTX_new());
  if (!k || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1)
    return malformed("the public key is not a valid Ed25519 key");
  std::string message(message_prefix);
  message += manifest;
  if (EVP_DigestVerify(ctx.get(), sig.data(), sig.size(), reinterpret_cast<const unsigned char*>(message.data()),
                       message.size()) != 1)
    return core::fail(core::phase::io,
                      "MANIFEST.sha256 does not match its signature in " + where +
                          ": the manifest was regenerated or edited after the bundle was signed",
                      "", "MANIFEST.sha256");
  return pub;
}

}  // namespace r2r::report
