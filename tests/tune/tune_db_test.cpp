// Tests of the tuning database: WAL mode, round trips, one run per folder.
#include "ladle/tune/tune_db.hpp"

#include <sqlite3.h>

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

}  // namespace
}  // namespace ladle::tune
