#include "compare/csv_table.hpp"

#include <cmath>
#include <csv.h>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

// State shared with libcsv's callbacks: the record being built and the line being fed.
struct Collector {
  std::vector<CsvRow> records;
  CsvRow current;
  bool in_record = false;
  int line = 0;
};

void on_field(void* data, std::size_t len, void* self) {
  auto* c = static_cast<Collector*>(self);
  if (!c->in_record) {
    c->current = CsvRow{c->line, {}};
    c->in_record = true;
  }
  c->current.cells.emplace_back(data ? static_cast<const char*>(data) : "", data ? len : 0);
}

void on_record(int, void* self) {
  auto* c = static_cast<Collector*>(self);
  if (!c->in_record) return;
  c->records.push_back(std::move(c->current));
  c->in_record = false;
}

std::vector<CsvRow> parse_records(const std::string& text, const std::string& file) {
  csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) throw InputError(file + ": cannot start the CSV parser");
  Collector c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++c.line;
    line += '\n';
    if (csv_parse(&p, line.data(), line.size(), on_field, on_record, &c) != line.size()) {
      const std::string why = csv_strerror(csv_error(&p));
      csv_free(&p);
      throw InputError(file + ":" + std::to_string(c.line) + ": malformed CSV (" + why + ")");
    }
  }
  const int done = csv_fini(&p, on_field, on_record, &c);
  csv_free(&p);
  if (done != 0) throw InputError(file + ":" + std::to_string(c.line) + ": malformed CSV (unterminated quote)");
  return c.records;
}

}  // namespace

int CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return int(i);
  return -1;
}

std::string CsvTable::where(const CsvRow& row, int column) const {
  return file + ":" + std::to_string(row.line) + ": column '" + header.at(column) + "'";
}

CsvTable parse_csv(const std::string& text, const std::string& file) {
  std::vector<CsvRow> records = parse_records(text, file);
  if (records.empty()) throw InputError(file + ": empty CSV; expected a header row and data rows");
  CsvTable t;
  t.file = file;
  for (const auto& h : records.front().cells) {
    const std::string name = trim(h);
    const std::string place = file + ":" + std::to_string(records.front().line) + ": ";
    if (name.empty()) throw InputError(place + "empty column name in the header");
    if (t.column(name) >= 0) throw InputError(place + "column '" + clip(name) + "' appears twice");
    t.header.push_back(name);
  }
  for (std::size_t i = 1; i < records.size(); ++i) {
    CsvRow& r = records[i];
    if (r.cells.size() != t.header.size())
      throw InputError(file + ":" + std::to_string(r.line) + ": " + std::to_string(r.cells.size()) +
                       " cells, expected " + std::to_string(t.header.size()) + " (one per header column)");
    for (auto& cell : r.cells) cell = trim(cell);
    t.rows.push_back(std::move(r));
  }
  if (t.rows.empty()) throw InputError(file + ": no data rows after the header");
  return t;
}

CsvTable read_csv_file(const std::string& path) {
  return parse_csv(read_text_file(path, "CSV file"), path);
}

double csv_number(const CsvTable& t, const CsvRow& row, int column) {
  const std::string& cell = row.cells.at(column);
  if (const auto v = parse_real(cell, -HUGE_VAL, HUGE_VAL)) return *v;
  throw InputError(t.where(row, column) + " = '" + clip(cell) + "': expected a number");
}

}  // namespace compare_layer
}  // namespace ddlsim
