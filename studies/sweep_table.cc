#include "sapcontact/studies/sweep_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace {

std::string Number(double v) {
  if (!std::isfinite(v)) return "";  // never nan or inf in a table
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", v);
  return buffer;
}

std::string Quote(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string q = "\"";
  for (char c : field) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

int IndexOf(const std::vector<std::string>& list, const std::string& name) {
  const auto it = std::find(list.begin(), list.end(), name);
  return it == list.end() ? -1 : static_cast<int>(it - list.begin());
}

}  // namespace

int SweepTable::Column(const std::string& name) const {
  return IndexOf(columns, name);
}

double CellNumber(const std::string& cell) {
  if (cell.empty()) return std::nan("");
  const char* begin = cell.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end != begin + cell.size()) return std::nan("");
  return v;
}

SweepTable MakeSweepTable(const std::vector<SweepAxis>& axes,
                          const std::vector<std::string>& metric_names,
                          const std::vector<SweepRow>& rows) {
  SweepTable t;
  t.columns.push_back("index");
  for (const SweepAxis& axis : axes) {
    for (const std::string& key : axis.keys) t.columns.push_back(key);
  }
  t.columns.push_back("status");
  t.columns.push_back("error");
  for (const std::string& name : SummaryFieldNames()) {
    if (t.Column(name) < 0) t.columns.push_back(name);
  }
  for (const std::string& name : MetricColumns(metric_names)) {
    if (t.Column(name) < 0) t.columns.push_back(name);
  }
  for (const MetricDefinition& d : EstimateDefinitions()) {
    if (t.Column(d.name) < 0) t.columns.push_back(d.name);
  }
  for (const SweepRow& r : rows) {
    std::vector<std::string> cells(t.columns.size());
    cells[0] = std::to_string(r.index);
    int c = 1;
    for (size_t a = 0; a < axes.size(); ++a) {
      for (size_t k = 0; k < axes[a].keys.size(); ++k) {
        cells[c++] = a < r.values.size() ? r.values[a] : "";
      }
    }
    cells[t.Column("status")] = ToString(r.status);
    cells[t.Column("error")] = r.error;
    for (const auto& field : r.summary) {
      const int col = t.Column(field.first);
      if (col >= 0) cells[col] = field.second;
    }
    for (const auto* list : {&r.metrics, &r.estimates}) {
      for (const MetricValue& m : *list) {
        const int col = t.Column(m.name);
        if (col >= 0) cells[col] = Number(m.value);
      }
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::string CsvLine(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    line += (i ? "," : "") + Quote(cells[i]);
  }
  return line + "\n";
}

void WriteSweepCsv(const SweepTable& table, const std::string& path) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out << CsvLine(table.columns);
    for (const auto& row : table.rows) out << CsvLine(row);
    out.close();
    if (!out) throw std::runtime_error("error writing " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " +
                             ec.message());
  }
}

SweepTable ReadSweepCsv(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error("cannot read " + path +
                             " (missing or not a regular file)");
  }
  if (std::filesystem::file_size(path, ec) > (1ull << 30)) {
    throw std::runtime_error(path + ": larger than 1 GiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, any = false;
  int line = 1, record_line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) {
        record.push_back(field);
        records.push_back(record);
      }
      record.clear();
      field.clear();
      any = false;
      record_line = ++line;
    } else {
      field += c;
      any = true;
    }
  }
  if (quoted) {
    throw std::runtime_error(path + ":" + std::to_string(record_line) +
                             ": unterminated quoted field");
  }
  if (any || !field.empty()) {
    record.push_back(field);
    records.push_back(record);
  }
  if (records.empty()) throw std::runtime_error(path + ": empty file");
  SweepTable t;
  t.columns = records[0];
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != t.columns.size()) {
      throw std::runtime_error(path + ": record " + std::to_string(r + 1) +
                               " has " + std::to_string(records[r].size()) +
                               " fields, the header " +
                               std::to_string(t.columns.size()));
    }
    t.rows.push_back(records[r]);
  }
  return t;
}

SweepTable MergeSweepTables(const std::vector<SweepTable>& tables,
                            const std::vector<std::string>& names) {
  if (tables.empty()) throw std::runtime_error("sweep-merge: no tables");
  SweepTable merged;
  merged.columns = tables[0].columns;
  const int index_col = merged.Column("index");
  if (index_col < 0) {
    throw std::runtime_error(names.at(0) + ": no 'index' column");
  }
  std::vector<std::pair<long, std::vector<std::string>>> rows;
  std::vector<std::pair<long, size_t>> origin;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (tables[t].columns != merged.columns) {
      throw std::runtime_error(names.at(t) + ": columns differ from " +
                               names.at(0) + "'s (not the same sweep?)");
    }
    for (const auto& row : tables[t].rows) {
      const std::string& cell = row[index_col];
      char* end = nullptr;
      const long index = std::strtol(cell.c_str(), &end, 10);
      if (cell.empty() || end != cell.c_str() + cell.size() || index < 0) {
        throw std::runtime_error(names.at(t) + ": bad index '" + cell + "'");
      }
      rows.emplace_back(index, row);
      origin.emplace_back(index, t);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  std::stable_sort(origin.begin(), origin.end());
  for (size_t i = 1; i < origin.size(); ++i) {
    if (origin[i].first == origin[i - 1].first) {
      throw std::runtime_error("sweep-merge: index " +
                               std::to_string(origin[i].first) +
                               " is in both " + names.at(origin[i - 1].second) +
                               " and " + names.at(origin[i].second));
    }
  }
  for (auto& r : rows) merged.rows.push_back(std::move(r.second));
  return merged;
}

std::vector<int> MissingIndices(const SweepTable& table, int total) {
  std::set<long> present;
  const int col = table.Column("index");
  for (const auto& row : table.rows) {
    if (col >= 0) present.insert(std::strtol(row[col].c_str(), nullptr, 10));
  }
  std::vector<int> missing;
  for (int i = 0; i < total; ++i) {
    if (!present.count(i)) missing.push_back(i);
  }
  return missing;
}

}  // namespace sapcontact
