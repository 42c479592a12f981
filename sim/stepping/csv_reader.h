// Reading the CSV files a run writes (trajectory.csv, contacts.csv,
// steps.csv, replay_poses.csv: simulation.h), row by row, with the columns
// found by name in the header line and errors that name the file, the line
// and the column.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sapcontact {

/// A CSV file that cannot be read or is malformed; the message names the
/// file and, where there is one, the line and the column.
class CsvError : public std::runtime_error {
 public:
  explicit CsvError(const std::string& what) : std::runtime_error(what) {}
};

/// A comma-separated file with a header line, read one row at a time.
/// Fields are plain (no quoting: the run's files hold no commas in fields);
/// a trailing '\r' and blank lines are skipped.
class CsvReader {
 public:
  /// Opens `path` and reads its header. `what` says what writes the file
  /// (appended to the message when it cannot be opened).
  /// @throws CsvError when it cannot be opened or has no header line.
  explicit CsvReader(const std::filesystem::path& path,
                     const std::string& what = "");

  /// The index of column `name`. @throws CsvError ("FILE:1: no column
  /// 'NAME'") if the header lacks it.
  int Column(const std::string& name) const;
  /// Reads the next row; false at the end of the file.
  /// @throws CsvError when the row has a different number of fields than
  /// the header.
  bool Next();
  /// Field `column` of the current row as text.
  const std::string& Text(int column) const { return fields_[column]; }
  /// Field `column` of the current row as a finite number.
  /// @throws CsvError ("FILE:LINE: field 'NAME': 'TEXT' is not a finite
  /// number").
  double Number(int column) const;
  /// "FILE:LINE" of the current row.
  std::string Where() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::ifstream in_;
  std::vector<std::string> header_, fields_;
  std::string line_text_;
  int line_{0};
};

}  // namespace sapcontact
