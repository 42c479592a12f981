#include "sapcontact/sim/stepping/csv_reader.h"

#include <cmath>
#include <cstdlib>

namespace sapcontact {
namespace {

void Split(const std::string& text, std::vector<std::string>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out->push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

}  // namespace

CsvReader::CsvReader(const std::filesystem::path& path, const std::string& what)
    : path_(path), in_(path) {
  if (!in_) {
    throw CsvError("cannot read " + path.string() +
                   (what.empty() ? "" : " (" + what + ")"));
  }
  std::string header;
  if (!std::getline(in_, header)) {
    throw CsvError(path.string() + ": empty file (no header line)");
  }
  if (!header.empty() && header.back() == '\r') header.pop_back();
  line_ = 1;
  Split(header, &header_);
}

int CsvReader::Column(const std::string& name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return static_cast<int>(i);
  }
  throw CsvError(path_.string() + ":1: header: no column '" + name + "'");
}

bool CsvReader::Next() {
  while (std::getline(in_, line_text_)) {
    ++line_;
    if (!line_text_.empty() && line_text_.back() == '\r') line_text_.pop_back();
    if (line_text_.empty()) continue;
    Split(line_text_, &fields_);
    if (fields_.size() != header_.size()) {
      throw CsvError(Where() + ": " + std::to_string(fields_.size()) +
                     " fields, the header has " +
                     std::to_string(header_.size()));
    }
    return true;
  }
  return false;
}

double CsvReader::Number(int column) const {
  const std::string& s = fields_[column];
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v)) {
    throw CsvError(Where() + ": field '" + header_[column] + "': '" + s +
                   "' is not a finite number");
  }
  return v;
}

std::string CsvReader::Where() const {
  return path_.string() + ":" + std::to_string(line_);
}

}  // namespace sapcontact
