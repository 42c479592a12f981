// The table of a sweep (DIR/sweep.csv): one row per run, columns
//   index, <every varied key>, status, error, <scalar summary.json fields>,
//   <requested metrics' columns (MetricColumns: body.box.position is
//   body.box.position.x, .y, .z)>, <estimates>
// (a metric with the name of a summary field, e.g. max_penetration_m, shares
// its column: the two are the same quantity). CSV per RFC 4180 (fields with
// ',', '"' or a line break are quoted, '"' doubled); numbers with 9
// significant digits; an undefined (NaN) or infinite metric is an empty
// cell (no table holds nan, inf or null; the summary fields are finite by
// RunSimulation's checks). Varied values are written as given.
#pragma once

#include <string>
#include <vector>

#include "sapcontact/studies/sweep_runner.h"

namespace sapcontact {

struct SweepTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  /// Index of a column, or -1.
  int Column(const std::string& name) const;
};

/// The table of `rows` (their order kept).
SweepTable MakeSweepTable(const std::vector<SweepAxis>& axes,
                          const std::vector<std::string>& metric_names,
                          const std::vector<SweepRow>& rows);

/// One CSV line of `cells` (quoted as above), with its line break.
std::string CsvLine(const std::vector<std::string>& cells);

/// Writes the CSV (through a temporary file renamed at the end).
/// @throws std::runtime_error when the file cannot be written.
void WriteSweepCsv(const SweepTable& table, const std::string& path);

/// Reads a CSV written by WriteSweepCsv. @throws std::runtime_error naming
/// the file and line on a missing file, a row with the wrong number of
/// fields or an unterminated quote.
SweepTable ReadSweepCsv(const std::string& path);

/// Joins shard tables: identical columns required, rows sorted by the
/// integer `index` column. @throws std::runtime_error naming the table
/// (`names`, one per table) on different columns, a bad index or an index
/// present twice.
SweepTable MergeSweepTables(const std::vector<SweepTable>& tables,
                            const std::vector<std::string>& names);

/// Indices in [0, total) that no row has.
std::vector<int> MissingIndices(const SweepTable& table, int total);

/// A cell as a number: NaN for an empty or non-numeric cell ("inf" parses).
double CellNumber(const std::string& cell);

}  // namespace sapcontact
