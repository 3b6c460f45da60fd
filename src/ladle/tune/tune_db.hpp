#pragma once
// tune_db.hpp: the state of one tuning run, DIR/tune.db (SQLite in WAL mode): the run's settings,
// every round (the calibration refitted after it, the best so far, the stop decision) and every
// trial (layout, script, job name and id, state, prediction, score). Each change is one
// transaction, so a kill at any moment leaves the state before or after it.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ladle/tune/trial.hpp"

struct sqlite3;

namespace ladle::tune {

/// What the loop decided after one exploration round.
struct RoundRecord {
  int64_t round = 0;
  std::string calibration_yaml;  ///< the calibration refitted on every measurement so far
  std::string constants_json;    ///< {"name": value} of the fitted constants, for reports
  int64_t best_trial = 0;        ///< 0 when nothing is measured yet
  double best_tokens_per_s_per_gpu = 0;
  double best_expected_improvement = 0;  ///< relative, of the best remaining candidate
  double sigma = 0;  ///< residual spread of log(measured / predicted) after the refit (belief.hpp)
  double memory_limit_gib = 0;           ///< predicted memory a proposal must stay under
  std::string decision;                  ///< "continue", or why the loop stopped
  bool operator==(const RoundRecord&) const = default;
};

/// An open tuning database.
class TuneDb {
 public:
  /// Creates `path` with the run's settings. Throws Error(usage) when a database is already there
  /// (naming its run), Error(io) when it cannot be written.
  static TuneDb create(const std::string& path, const std::map<std::string, std::string>& meta);
  /// How a database is opened: read_only writes nothing (not even the WAL index when the folder
  /// is read-only), for `tune status`.
  enum class Access { read_write, read_only };
  /// Opens an existing database; throws Error(usage) when there is none or it is not ladle's.
  /// SQLite's errors are Error(io) in one line naming the fault ("disk full writing PATH").
  static TuneDb open(const std::string& path, Access access = Access::read_write);

  TuneDb(TuneDb&&) noexcept;
  TuneDb& operator=(TuneDb&&) noexcept;
  ~TuneDb();

  const std::string& path() const { return path_; }
  /// The run's folder (the database's own): trial paths are stored relative to it, so a copied
  /// or moved run works on the files of its new place.
  std::filesystem::path folder() const;
  std::optional<std::string> meta(const std::string& key) const;
  void set_meta(const std::string& key, const std::string& value);

  /// Every trial, by id.
  std::vector<Trial> trials() const;
  /// Inserts `trials` (ids assigned in order, written back) and, when given, the round record,
  /// in one transaction.
  void add_trials(std::vector<Trial>& trials,
                  const std::optional<RoundRecord>& round = std::nullopt);
  /// Writes every field of an existing trial.
  void update_trial(const Trial& trial);
  /// Every round record, by round.
  std::vector<RoundRecord> rounds() const;
  void add_round(const RoundRecord& round);

  /// Job names ever handed to the scheduler, with the trial and job id (one row per submission).
  std::vector<std::pair<std::string, std::string>> submissions() const;
  void record_submission(const std::string& job_name, int64_t trial, const std::string& job_id);

 private:
  TuneDb(std::string path, sqlite3* db);
  static TuneDb open_read_only(const std::string& path);
  void check_schema() const;
  void exec(const std::string& sql) const;
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace ladle::tune
