// SPDX-License-Identifier: MIT
#include <r2r/memory/causal_memory.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <thread>

namespace r2r::memory {
namespace {

constexpr int application_id = 0x72327232;  // "r2r2"
constexpr double half_life_days = 30.0;
constexpr double min_similarity = 0.34;

using core::fail;
using core::phase;

std::string message_of(sqlite3* db) {
  return db != nullptr ? sqlite3_errmsg(db) : "out of memory";
}

/// A prepared statement, finalised on scope exit.
class statement {
 public:
  statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~statement() { sqlite3_finalize(stmt_); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  bool ok() const noexcept { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() const noexcept { return stmt_; }
  void bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p));
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

result<void> exec(sqlite3* db, const char* sql, const std::string& path, const char* what) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err != nullptr ? err : message_of(db);
    sqlite3_free(err);
    return fail(phase::io, std::string("causal memory: ") + what + " failed: " + m, {}, path);
  }
  return {};
}

result<std::int64_t> pragma_int(sqlite3* db, const char* sql, const std::string& path) {
  statement s(db, sql);
  if (!s.ok() || sqlite3_step(s.get()) != SQLITE_ROW) {
    return fail(phase::io, std::string("causal memory: reading ") + sql + " failed: " + message_of(db), {}, path);
  }
  return s.integer(0);
}

std::string not_a_memory(const std::string& path, const std::string& found) {
  return "causal memory " + path + " is not a usable repo2rocm memory (" + found +
         "); move the file aside (it is left untouched) or point the memory at another path, and a new memory "
         "will be created there";
}

/// PRAGMA journal_mode=WAL takes an exclusive lock and, while another connection holds the file,
/// answers SQLITE_BUSY without calling the busy handler; two processes opening one new memory at
/// once meet exactly that, so the switch is retried here within the same bound as the busy timeout.
result<void> switch_to_wal(sqlite3* db, const std::string& path, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    statement s(db, "PRAGMA journal_mode=WAL");
    const int rc = s.ok() ? sqlite3_step(s.get()) : sqlite3_errcode(db);
    if (rc == SQLITE_ROW && s.text(0) == "wal") return {};
    const int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || std::chrono::steady_clock::now() >= deadline) {
      const std::string found = rc == SQLITE_ROW ? "the journal stayed " + s.text(0) : message_of(db);
      return fail(phase::io, "causal memory: switching to WAL failed: " + found, {}, path);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

/// What the file's header says, read in one transaction so that another process creating the
/// schema cannot be seen half-way (an id of 0 beside a non-empty table list).
struct header {
  std::int64_t application = 0;
  std::int64_t version = 0;
  std::int64_t tables = 0;
};

result<header> read_header(sqlite3* db, const std::string& path) {
  if (auto r = exec(db, "BEGIN", path, "starting the header read"); !r) return tl::unexpected(r.error());
  auto read = [&]() -> result<header> {
    header h;
    // The first statement reads the file: one that is not SQLite fails here.
    auto app = pragma_int(db, "PRAGMA application_id", path);
    if (!app) return fail(phase::io, not_a_memory(path, message_of(db)), {}, path);
    auto version = pragma_int(db, "PRAGMA user_version", path);
    if (!version) return tl::unexpected(version.error());
    auto tables = pragma_int(db, "SELECT count(*) FROM sqlite_master", path);
    if (!tables) return fail(phase::io, not_a_memory(path, tables.error().message), {}, path);
    h.application = *app;
    h.version = *version;
    h.tables = *tables;
    return h;
  };
  auto h = read();
  // A read transaction writes nothing; ending it cannot lose data, so its own error is not the news.
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  return h;
}

std::int64_t unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string iso_date(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string_view to_string(outcome o) noexcept {
  switch (o) {
    case outcome::fixed:
      return "fixed";
    case outcome::not_fixed:
      return "not_fixed";
    case outcome::made_worse:
      return "made_worse";
  }
  return "not_fixed";
}

std::vector<std::string> signature_tokens(std::string_view signature) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : signature) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  std::vector<std::string> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  const double together = static_cast<double>(a.size() + b.size() - common.size());
  return static_cast<double>(common.size()) / together;
}

void causal_memory::closer::operator()(sqlite3* db) const noexcept {
  sqlite3_close_v2(db);
}

causal_memory::causal_memory(std::unique_ptr<sqlite3, closer> db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}

causal_memory::~causal_memory() = default;

result<causal_memory> causal_memory::open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<sqlite3, closer> db(raw);
  if (rc != SQLITE_OK) {
    return fail(phase::io,
                "causal memory " + path + " cannot be opened (" + message_of(raw) +
                    "); check that its directory exists and is writable",
                {}, path);
  }
  constexpr std::chrono::milliseconds lock_bound{10000};
  sqlite3_busy_timeout(db.get(), static_cast<int>(lock_bound.count()));
  sqlite3_extended_result_codes(db.get(), 1);
  auto h = read_header(db.get(), path);
  if (!h) return tl::unexpected(h.error());
  if (h->application != application_id && (h->application != 0 || h->tables != 0)) {
    return fail(phase::io, not_a_memory(path, "another application's SQLite database"), {}, path);
  }
  if (h->version > schema_version) {
    return fail(phase::io,
                "causal memory " + path + " has schema version " + std::to_string(h->version) +
                    ", newer than this repo2rocm supports (" + std::to_string(schema_version) +
                    "); upgrade repo2rocm or use another memory file",
                {}, path);
  }
  if (auto r = switch_to_wal(db.get(), path, lock_bound); !r) return tl::unexpected(r.error());
  if (auto r = exec(db.get(), "BEGIN IMMEDIATE", path, "starting the migration"); !r) return tl::unexpected(r.error());
  // Another process may have migrated between the check above and the lock.
  auto locked_version = pragma_int(db.get(), "PRAGMA user_version", path);
  if (!locked_version) return tl::unexpected(locked_version.error());
  if (*locked_version < 1) {
    const auto r = exec(db.get(),
                        "CREATE TABLE fixes ("
                        " id INTEGER PRIMARY KEY,"
                        " signature TEXT NOT NULL,"
                        " fix_action TEXT NOT NULL,"
                        " outcome TEXT NOT NULL CHECK (outcome IN ('fixed','not_fixed','made_worse')),"
                        " run_id TEXT NOT NULL, repository TEXT NOT NULL, commit_sha TEXT NOT NULL,"
                        " image TEXT NOT NULL, arch TEXT NOT NULL, recorded_at INTEGER NOT NULL);"
                        "CREATE INDEX fixes_signature ON fixes(signature);"
                        "PRAGMA application_id = 1915908658;"
                        "PRAGMA user_version = 1;",
                        path, "creating schema version 1");
    if (!r) {
      exec(db.get(), "ROLLBACK", path, "rolling back");
      return tl::unexpected(r.error());
    }
  }
  if (auto r = exec(db.get(), "COMMIT", path, "committing the migration"); !r) return tl::unexpected(r.error());
  return causal_memory(std::move(db), path);
}

result<void> causal_memory::record(const std::string& signature, const nlohmann::json& fix_action,
                                   outcome result_of_fix, const provenance& from) {
  if (signature.empty()) return fail(phase::usage, "causal memory: record needs a non-empty error signature");
  if (!fix_action.is_object() || !fix_action.contains("type") || !fix_action.at("type").is_string()) {
    return fail(phase::usage,
                "causal memory: the fix must be an action object with a string \"type\", found " + fix_action.dump());
  }
  statement s(db_.get(),
              "INSERT INTO fixes (signature, fix_action, outcome, run_id, repository, commit_sha, image, arch, "
              "recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!s.ok())
    return fail(phase::io, "causal memory: preparing the insert failed: " + message_of(db_.get()), {}, path_);
  s.bind(1, signature);
  s.bind(2, fix_action.dump());
  s.bind(3, std::string(to_string(result_of_fix)));
  s.bind(4, from.run_id);
  s.bind(5, from.repository);
  s.bind(6, from.commit);
  s.bind(7, from.image);
  s.bind(8, from.arch);
  s.bind(9, unix_seconds(from.time));
  if (sqlite3_step(s.get()) != SQLITE_DONE) {
    return fail(phase::io, "causal memory: recording failed: " + message_of(db_.get()), {}, path_);
  }
  return {};
}

result<std::vector<sdk::policy::hint>> causal_memory::hints(const std::string& signature, const query_context& context,
                                                            std::size_t k) const {
  std::vector<sdk::policy::hint> out;
  if (k == 0) return out;
  const auto wanted = signature_tokens(signature);
  std::map<std::string, double> similar;  // signature -> similarity
  {
    statement s(db_.get(), "SELECT DISTINCT signature FROM fixes");
    if (!s.ok())
      return fail(phase::io, "causal memory: reading signatures failed: " + message_of(db_.get()), {}, path_);
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      const std::string sig = s.text(0);
      const double sim = sig == signature ? 1.0 : jaccard(wanted, signature_tokens(sig));
      if (sig == signature || sim >= min_similarity) similar[sig] = sim;
    }
    if (rc != SQLITE_DONE) {
      return fail(phase::io, "causal memory: reading signatures failed: " + message_of(db_.get()), {}, path_);
    }
  }
  struct group {
    std::string signature;
    std::string action;
    double similarity = 0;
    double w_all = 0, w_fixed = 0, w_worse = 0;
    int n = 0, fixed = 0, worse = 0, same_arch = 0, same_image = 0;
    std::int64_t last_fixed = -1;
    std::string provenance;
    double score = 0;
  };
  std::map<std::pair<std::string, std::string>, group> groups;
  const std::int64_t now = unix_seconds(context.now);
  statement s(db_.get(),
              "SELECT fix_action, outcome, arch, image, recorded_at, run_id, repository, commit_sha FROM fixes "
              "WHERE signature = ?1");
  if (!s.ok()) return fail(phase::io, "causal memory: reading fixes failed: " + message_of(db_.get()), {}, path_);
  for (const auto& [sig, sim] : similar) {
    sqlite3_reset(s.get());
    s.bind(1, sig);
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      group& g = groups[{sig, s.text(0)}];
      g.signature = sig;
      g.action = s.text(0);
      g.similarity = sim;
      const std::string outcome = s.text(1);
      const std::int64_t at = s.integer(4);
      const double age_days = std::max<double>(0, static_cast<double>(now - at) / 86400.0);
      const double w = std::pow(0.5, age_days / half_life_days);
      ++g.n;
      g.w_all += w;
      if (!context.arch.empty() && s.text(2) == context.arch) ++g.same_arch;
      if (!context.image.empty() && s.text(3) == context.image) ++g.same_image;
      if (outcome == "fixed") {
        ++g.fixed;
        g.w_fixed += w;
        if (at >= g.last_fixed) {
          g.last_fixed = at;
          g.provenance = "run " + s.text(5) + ", " + s.text(6) + "@" + s.text(7) + ", image " + s.text(3) + ", arch " +
                         s.text(2) + ", " + iso_date(at);
        }
      } else if (outcome == "made_worse") {
        ++g.worse;
        g.w_worse += w;
      }
    }
    if (rc != SQLITE_DONE) {
      return fail(phase::io, "causal memory: reading fixes failed: " + message_of(db_.get()), {}, path_);
    }
  }
  std::vector<group> ranked;
  for (auto& [key, g] : groups) {
    if (g.fixed == 0) continue;
    const double rate = (g.w_fixed + 1.0) / (g.w_all + 2.0);
    const double worse_share = g.w_worse / g.w_all;
    const double context_bonus = 1.0 + 0.25 * g.same_arch / g.n + 0.1 * g.same_image / g.n;
    g.score = g.similarity * rate * (1.0 - 0.5 * worse_share) * context_bonus;
    ranked.push_back(std::move(g));
  }
  std::sort(ranked.begin(), ranked.end(), [&](const group& a, const group& b) {
    const bool ea = a.signature == signature, eb = b.signature == signature;
    if (ea != eb) return ea;
    if (a.score != b.score) return a.score > b.score;
    return a.last_fixed > b.last_fixed;
  });
  std::set<std::string> seen;
  for (const auto& g : ranked) {
    if (out.size() == k) break;
    if (!seen.insert(g.action).second) continue;  // the same fix under a less relevant signature
    sdk::policy::hint h;
    h.source = "memory";
    char sim[16];
    std::snprintf(sim, sizeof sim, "%.2f", g.similarity);
    h.text = "remembered fix for " + g.signature +
             (g.signature == signature ? std::string(" (same signature)")
                                       : " (similar signature, " + std::string(sim) + ")") +
             ": fixed it " + std::to_string(g.fixed) + " of " + std::to_string(g.n) + " times" +
             (g.worse > 0 ? ", made it worse " + std::to_string(g.worse) + " times" : std::string()) +
             "; advice only, guards judge the action";
    h.fix = nlohmann::json::parse(g.action);
    h.provenance = g.provenance;
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace r2r::memory
