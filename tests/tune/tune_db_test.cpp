// Tests of the tuning database: WAL mode, round trips, one run per folder.
#include "ladle/tune/tune_db.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

TEST(TuneDb, KeepsTrialsRoundsAndSettingsAcrossReopening) {
  test::TempDir dir;
  const std::string path = (dir.path() / "tune.db").string();
  {
    TuneDb db = TuneDb::create(path, {{"run_id", "abcd1234"}, {"settings", "{}"}});
    std::vector<Trial> trials(2);
    trials[0].layout = "tp=1";
    trials[0].round = 1;
    trials[0].predicted_tokens_per_s_per_gpu = 6000.5;
    trials[1].layout = "tp=2";
    trials[1].round = 1;
    RoundRecord r0{0,     "constants: {}", "{\"gemm_efficiency\": 0.5}", 0, 0, 0, 0.15,
                   133.9, "continue"};
    db.add_trials(trials, r0);
    EXPECT_EQ(trials[0].id, 1);
    EXPECT_EQ(trials[1].id, 2);
    trials[1].state = TrialState::scored;
    trials[1].measured_tokens_per_s_per_gpu = 5900.25;
    trials[1].job_id = "17";
    db.update_trial(trials[1]);
    db.record_submission("ladle-abcd1234-2", 2, "17");
  }
  const TuneDb db = TuneDb::open(path);
  EXPECT_EQ(db.meta("run_id"), "abcd1234");
  const std::vector<Trial> trials = db.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].measured_tokens_per_s_per_gpu, std::nullopt);
  EXPECT_EQ(trials[0].predicted_tokens_per_s_per_gpu, 6000.5);
  EXPECT_EQ(trials[1].state, TrialState::scored);
  EXPECT_EQ(trials[1].measured_tokens_per_s_per_gpu, 5900.25);
  ASSERT_EQ(db.rounds().size(), 1u);
  EXPECT_EQ(db.rounds()[0].memory_limit_gib, 133.9);
  ASSERT_EQ(db.submissions().size(), 1u);
  EXPECT_EQ(db.submissions()[0].second, "17");

  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
}

TEST(TuneDb, RefusesAFolderHoldingAnotherRunAndAFileThatIsNotOne) {
  test::TempDir dir;
  const std::string path = (dir.path() / "tune.db").string();
  TuneDb::create(path, {{"run_id", "feedbeef"}});
  EXPECT_LADLE_ERROR(TuneDb::create(path, {{"run_id", "other"}}), usage,
                     "already holds run feedbeef");
  EXPECT_LADLE_ERROR(TuneDb::open((dir.path() / "none.db").string()), usage,
                     "no tuning database here");
  sqlite3* raw = nullptr;
  const std::string other = (dir.path() / "other.db").string();
  sqlite3_open(other.c_str(), &raw);
  sqlite3_exec(raw, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  EXPECT_LADLE_ERROR(TuneDb::open(other), usage, "not a ladle tuning database");
}

// Every connection opened while it is registered may hold at most kPages pages: a disk that
// fills up, as SQLite sees one (SQLITE_FULL).
constexpr int kPages = 12;
int limit_pages(sqlite3* db, const char**, const void*) {
  return sqlite3_exec(db, fmt::format("PRAGMA max_page_count={}", kPages).c_str(), nullptr, nullptr,
                      nullptr);
}

TEST(TuneDb, AFullDiskIsNamedAndNotHiddenBehindAFailedRollback) {
  test::TempDir dir;
  const std::string path = (dir.path() / "tune.db").string();
  TuneDb::create(path, {{"run_id", "feedbeef"}});
  ASSERT_EQ(sqlite3_auto_extension(reinterpret_cast<void (*)()>(limit_pages)), SQLITE_OK);
  try {
    TuneDb db = TuneDb::open(path);
    std::vector<Trial> trials(8);
    for (Trial& t : trials) t.detail = std::string(64 * 1024, 'x');  // more pages than allowed
    EXPECT_LADLE_ERROR(db.add_trials(trials), io, "disk full writing " + path);
    // Nothing of the failed transaction is left, and the database still works.
    EXPECT_TRUE(db.trials().empty());
    EXPECT_EQ(db.meta("run_id"), "feedbeef");
  } catch (...) {
    sqlite3_reset_auto_extension();
    throw;
  }
  sqlite3_reset_auto_extension();
}

TEST(TuneDb, ACopiedRunReadsTheTrialFilesOfItsOwnFolder) {
  test::TempDir dir;
  const std::filesystem::path a = dir.path() / "a";
  std::filesystem::create_directories(a);
  {
    TuneDb db = TuneDb::create((a / "tune.db").string(), {{"run_id", "feedbeef"}});
    std::vector<Trial> trials(2);
    trials[0].script_path = (a / "trials" / "1" / "job.sh").string();
    trials[0].log_path = (a / "trials" / "1" / "job.log").string();
    trials[1].script_path = "/elsewhere/job.sh";  // outside the folder: kept as it is
    db.add_trials(trials);
    trials[1].log_path = (a / "trials" / "2" / "job.log").string();
    db.update_trial(trials[1]);
  }
  const std::filesystem::path b = dir.path() / "b";
  std::filesystem::copy(a, b, std::filesystem::copy_options::recursive);
  const TuneDb copy = TuneDb::open((b / "tune.db").string());
  EXPECT_EQ(copy.folder(), b);
  const std::vector<Trial> trials = copy.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].script_path, (b / "trials" / "1" / "job.sh").string());
  EXPECT_EQ(trials[0].log_path, (b / "trials" / "1" / "job.log").string());
  EXPECT_EQ(trials[1].script_path, "/elsewhere/job.sh");
  EXPECT_EQ(trials[1].log_path, (b / "trials" / "2" / "job.log").string());
}

TEST(TuneDb, AReadOnlyRunCanBeReadAndIsNotWritten) {
  test::TempDir dir;
  const std::filesystem::path run = dir.path() / "run";
  std::filesystem::create_directories(run);
  const std::string path = (run / "tune.db").string();
  {
    TuneDb db = TuneDb::create(path, {{"run_id", "feedbeef"}});
    std::vector<Trial> trials(1);
    trials[0].layout = "tp=1";
    db.add_trials(trials);
  }
  namespace fs = std::filesystem;
  const auto read_only = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                         fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(dir.path(), read_only);
  fs::permissions(run, read_only);
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  // Permissions do not bind root: read as an unprivileged user then.
  const bool as_root = ::geteuid() == 0;
  if (as_root) {
    ASSERT_EQ(::seteuid(65534), 0);
  }
  std::vector<Trial> trials;
  std::string error;
  try {
    const TuneDb db = TuneDb::open(path, TuneDb::Access::read_only);
    trials = db.trials();
  } catch (const Error& e) {
    error = e.describe();
  }
  if (as_root) {
    ASSERT_EQ(::seteuid(0), 0);
  }
  fs::permissions(dir.path(), fs::perms::owner_all);
  fs::permissions(run, fs::perms::owner_all);
  EXPECT_EQ(error, "");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].layout, "tp=1");
  // A read-only handle refuses writes in one line naming the file.
  TuneDb db = TuneDb::open(path, TuneDb::Access::read_only);
  EXPECT_LADLE_ERROR(db.set_meta("x", "y"), io, path + " is read-only");
}

}  // namespace
}  // namespace ladle::tune
