#include "ladle/tune/tune_db.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "ladle/util/error.hpp"

namespace ladle::tune {

namespace {

constexpr const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds(
  round INTEGER PRIMARY KEY, calibration TEXT NOT NULL, constants TEXT NOT NULL,
  best_trial INTEGER NOT NULL, best_tokens_per_s_per_gpu REAL NOT NULL,
  best_expected_improvement REAL NOT NULL, sigma REAL NOT NULL, memory_limit_gib REAL NOT NULL,
  decision TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials(
  id INTEGER PRIMARY KEY, round INTEGER NOT NULL, kind TEXT NOT NULL, layout TEXT NOT NULL,
  attempt INTEGER NOT NULL, job_name TEXT NOT NULL, job_id TEXT NOT NULL, state TEXT NOT NULL,
  steps INTEGER NOT NULL, predicted REAL NOT NULL, sigma REAL NOT NULL, memory_gib REAL NOT NULL,
  expected_improvement REAL NOT NULL, measured REAL, step_time_s REAL, cv_percent REAL,
  gpu_hours REAL, detail TEXT NOT NULL, script_path TEXT NOT NULL, log_path TEXT NOT NULL,
  submitted_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS submissions(
  seq INTEGER PRIMARY KEY, job_name TEXT NOT NULL, trial INTEGER NOT NULL, job_id TEXT NOT NULL);
)SQL";

constexpr const char* kTrialColumns =
    "id, round, kind, layout, attempt, job_name, job_id, state, steps, predicted, sigma, "
    "memory_gib, "
    "expected_improvement, measured, step_time_s, cv_percent, gpu_hours, detail, script_path, "
    "log_path, "
    "submitted_at";

// One line naming what went wrong with the database file, in the words of the fault rather than
// SQLite's: a full disk, a read-only file, a damaged file, another process holding it.
std::string describe_sqlite_error(int code, const std::string& path, const std::string& what,
                                  const std::string& message) {
  switch (code & 0xff) {
    case SQLITE_FULL:
      return fmt::format("disk full writing {}", path);
    case SQLITE_READONLY:
      return fmt::format("{} is read-only (sqlite {}: {})", path, what, message);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return fmt::format("{} is damaged: not a readable tuning database ({})", path, message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format("{} is locked by another process ({})", path, message);
    case SQLITE_CANTOPEN:
      return fmt::format("cannot open {} ({})", path, message);
    case SQLITE_IOERR:
      return fmt::format("I/O error on {} (sqlite {}: {})", path, what, message);
    default:
      return fmt::format("{}: sqlite {}: {}", path, what, message);
  }
}

[[noreturn]] void throw_sqlite_error(sqlite3* db, int code, const std::string& path,
                                     const std::string& what) {
  throw Error(ErrorKind::io, describe_sqlite_error(code, path, what, sqlite3_errmsg(db)));
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), -1, SQLITE_TRANSIENT);
  }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void bind(int i, const std::optional<double>& v) {
    if (v) {
      sqlite3_bind_double(stmt_, i, *v);
    } else {
      sqlite3_bind_null(stmt_, i);
    }
  }
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail("step");
    return false;
  }
  std::string text(int i) const {
    const unsigned char* t = sqlite3_column_text(stmt_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t integer(int i) const { return sqlite3_column_int64(stmt_, i); }
  double real(int i) const { return sqlite3_column_double(stmt_, i); }
  std::optional<double> optional_real(int i) const {
    if (sqlite3_column_type(stmt_, i) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(stmt_, i);
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw_sqlite_error(db_, sqlite3_extended_errcode(db_), path_, what);
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string path_;
};

sqlite3* open_db(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error(ErrorKind::io, fmt::format("{}: cannot open the tuning database: {}", path, why));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, 10000);
  return db;
}

// `path` as an SQLite URI (file:...?immutable=1): read without the WAL index, for a database in a
// folder this process cannot write (where SQLite could not create the -shm file it needs).
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

// A trial's file path as stored: relative to the run's folder when it lies inside it, so that a
// copied or moved folder keeps working on its own files.
std::string stored_path(const std::string& path, const std::filesystem::path& folder) {
  if (path.empty() || folder.empty()) return path;
  const std::filesystem::path p(path);
  if (!p.is_absolute()) return path;
  const std::filesystem::path rel = p.lexically_normal().lexically_relative(folder);
  if (rel.empty() || *rel.begin() == "..") return path;
  return rel.string();
}

// A stored path back as a path on this machine, against the folder the database is in now.
std::string loaded_path(const std::string& path, const std::filesystem::path& folder) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (folder / path).string();
}

void bind_trial(Statement& s, const Trial& t, const std::filesystem::path& folder) {
  s.bind(1, t.id);
  s.bind(2, t.round);
  s.bind(3, std::string(to_string(t.kind)));
  s.bind(4, t.layout);
  s.bind(5, t.attempt);
  s.bind(6, t.job_name);
  s.bind(7, t.job_id);
  s.bind(8, std::string(to_string(t.state)));
  s.bind(9, t.steps);
  s.bind(10, t.predicted_tokens_per_s_per_gpu);
  s.bind(11, t.predicted_sigma);
  s.bind(12, t.predicted_memory_gib);
  s.bind(13, t.expected_improvement);
  s.bind(14, t.measured_tokens_per_s_per_gpu);
  s.bind(15, t.step_time_s);
  s.bind(16, t.step_time_cv_percent);
  s.bind(17, t.gpu_hours);
  s.bind(18, t.detail);
  s.bind(19, stored_path(t.script_path, folder));
  s.bind(20, stored_path(t.log_path, folder));
  s.bind(21, t.submitted_at);
}

}  // namespace

TuneDb::TuneDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
TuneDb::TuneDb(TuneDb&& other) noexcept : path_(std::move(other.path_)), db_(other.db_) {
  other.db_ = nullptr;
}
TuneDb& TuneDb::operator=(TuneDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    path_ = std::move(other.path_);
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}
TuneDb::~TuneDb() { sqlite3_close(db_); }

void TuneDb::exec(const std::string& sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : "unknown error";
    sqlite3_free(message);
    throw Error(ErrorKind::io,
                describe_sqlite_error(sqlite3_extended_errcode(db_), path_, "exec", why));
  }
}

TuneDb TuneDb::create(const std::string& path, const std::map<std::string, std::string>& meta) {
  if (std::filesystem::exists(path)) {
    std::string run = "an unknown run";
    try {
      const TuneDb existing = open(path);
      if (auto id = existing.meta("run_id")) run = "run " + *id;
    } catch (const Error&) {
    }
    throw_usage("{} already holds {}; resume it with 'ladle tune resume' or choose another --out",
                path, run);
  }
  TuneDb db(path, open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  db.exec(std::string("BEGIN IMMEDIATE;") + kSchema);
  for (const auto& [key, value] : meta) {
    Statement s(db.db_, "INSERT INTO meta(key, value) VALUES(?, ?)", path);
    s.bind(1, key);
    s.bind(2, value);
    s.step();
  }
  db.exec("COMMIT;");
  return db;
}

TuneDb TuneDb::open(const std::string& path, Access access) {
  if (!std::filesystem::exists(path))
    throw_usage("{}: no tuning database here (ladle tune --out creates one)", path);
  if (access == Access::read_only) return open_read_only(path);
  TuneDb db(path, open_db(path, SQLITE_OPEN_READWRITE));
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  db.check_schema();
  return db;
}

TuneDb TuneDb::open_read_only(const std::string& path) {
  // A WAL database needs its -shm file, which SQLite creates next to it; where the folder is
  // read-only to us and none is there, nobody can be writing the run either, so the file is read
  // as it stands.
  {
    TuneDb db(path, open_db(path, SQLITE_OPEN_READONLY));
    const int rc =
        sqlite3_exec(db.db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) {
      db.check_schema();
      return db;
    }
    // Only where this process cannot write the folder: elsewhere a writer may be at work, whose
    // latest changes are in the WAL that an immutable read would not see.
    const bool folder_read_only = ::faccessat(AT_FDCWD, db.folder().c_str(), W_OK, AT_EACCESS) != 0;
    if (!folder_read_only || ((rc & 0xff) != SQLITE_CANTOPEN && (rc & 0xff) != SQLITE_READONLY)) {
      throw_sqlite_error(db.db_, rc, path, "read");
    }
  }
  TuneDb db(path, open_db(immutable_uri(path), SQLITE_OPEN_READONLY));
  db.check_schema();
  return db;
}

void TuneDb::check_schema() const {
  Statement check(db_,
                  "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN "
                  "('meta','trials','rounds')",
                  path_);
  if (!check.step() || check.integer(0) != 3) throw_usage("{}: not a ladle tuning database", path_);
}

std::filesystem::path TuneDb::folder() const {
  return std::filesystem::absolute(path_).lexically_normal().parent_path();
}

std::optional<std::string> TuneDb::meta(const std::string& key) const {
  Statement s(db_, "SELECT value FROM meta WHERE key = ?", path_);
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

void TuneDb::set_meta(const std::string& key, const std::string& value) {
  Statement s(db_,
              "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = "
              "excluded.value",
              path_);
  s.bind(1, key);
  s.bind(2, value);
  s.step();
}

std::vector<Trial> TuneDb::trials() const {
  Statement s(db_, std::string("SELECT ") + kTrialColumns + " FROM trials ORDER BY id", path_);
  std::vector<Trial> out;
  while (s.step()) {
    Trial t;
    t.id = s.integer(0);
    t.round = s.integer(1);
    t.kind = parse_trial_kind(s.text(2));
    t.layout = s.text(3);
    t.attempt = s.integer(4);
    t.job_name = s.text(5);
    t.job_id = s.text(6);
    t.state = parse_trial_state(s.text(7));
    t.steps = s.integer(8);
    t.predicted_tokens_per_s_per_gpu = s.real(9);
    t.predicted_sigma = s.real(10);
    t.predicted_memory_gib = s.real(11);
    t.expected_improvement = s.real(12);
    t.measured_tokens_per_s_per_gpu = s.optional_real(13);
    t.step_time_s = s.optional_real(14);
    t.step_time_cv_percent = s.optional_real(15);
    t.gpu_hours = s.optional_real(16);
    t.detail = s.text(17);
    t.script_path = loaded_path(s.text(18), folder());
    t.log_path = loaded_path(s.text(19), folder());
    t.submitted_at = s.real(20);
    out.push_back(std::move(t));
  }
  return out;
}

void TuneDb::add_trials(std::vector<Trial>& trials, const std::optional<RoundRecord>& round) {
  exec("BEGIN IMMEDIATE;");
  try {
    Statement max_id(db_, "SELECT coalesce(max(id), 0) FROM trials", path_);
    max_id.step();
    int64_t next = max_id.integer(0) + 1;
    for (Trial& t : trials) {
      t.id = next++;
      Statement s(db_,
                  std::string("INSERT INTO trials(") + kTrialColumns +
                      ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                  path_);
      bind_trial(s, t, folder());
      s.step();
    }
    if (round) add_round(*round);
    exec("COMMIT;");
  } catch (...) {
    // SQLite may have rolled back already (a full disk does): a second rollback would fail and
    // hide the error that matters, so roll back only an open transaction, and keep the first error.
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
}

void TuneDb::update_trial(const Trial& t) {
  Statement s(
      db_,
      "UPDATE trials SET round=?2, kind=?3, layout=?4, attempt=?5, job_name=?6, job_id=?7, "
      "state=?8, "
      "steps=?9, predicted=?10, sigma=?11, memory_gib=?12, expected_improvement=?13, measured=?14, "
      "step_time_s=?15, cv_percent=?16, gpu_hours=?17, detail=?18, script_path=?19, log_path=?20, "
      "submitted_at=?21 WHERE id=?1",
      path_);
  bind_trial(s, t, folder());
  s.step();
}

std::vector<RoundRecord> TuneDb::rounds() const {
  Statement s(
      db_,
      "SELECT round, calibration, constants, best_trial, best_tokens_per_s_per_gpu, "
      "best_expected_improvement, sigma, memory_limit_gib, decision FROM rounds ORDER BY round",
      path_);
  std::vector<RoundRecord> out;
  while (s.step()) {
    out.push_back(RoundRecord{s.integer(0), s.text(1), s.text(2), s.integer(3), s.real(4),
                              s.real(5), s.real(6), s.real(7), s.text(8)});
  }
  return out;
}

void TuneDb::add_round(const RoundRecord& r) {
  Statement s(
      db_,
      "INSERT OR REPLACE INTO rounds(round, calibration, constants, best_trial, "
      "best_tokens_per_s_per_gpu, "
      "best_expected_improvement, sigma, memory_limit_gib, decision) VALUES(?,?,?,?,?,?,?,?,?)",
      path_);
  s.bind(1, r.round);
  s.bind(2, r.calibration_yaml);
  s.bind(3, r.constants_json);
  s.bind(4, r.best_trial);
  s.bind(5, r.best_tokens_per_s_per_gpu);
  s.bind(6, r.best_expected_improvement);
  s.bind(7, r.sigma);
  s.bind(8, r.memory_limit_gib);
  s.bind(9, r.decision);
  s.step();
}

std::vector<std::pair<std::string, std::string>> TuneDb::submissions() const {
  Statement s(db_, "SELECT job_name, job_id FROM submissions ORDER BY seq", path_);
  std::vector<std::pair<std::string, std::string>> out;
  while (s.step()) out.emplace_back(s.text(0), s.text(1));
  return out;
}

void TuneDb::record_submission(const std::string& job_name, int64_t trial,
                               const std::string& job_id) {
  Statement s(db_, "INSERT INTO submissions(job_name, trial, job_id) VALUES(?, ?, ?)", path_);
  s.bind(1, job_name);
  s.bind(2, trial);
  s.bind(3, job_id);
  s.step();
}

}  // namespace ladle::tune
