#include "compare/csv_table.hpp"

#include <cmath>
#include <csv.h>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <utility>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

// State shared with libcsv's callbacks: the record being built, the records completed since the
// last drain, and the line being fed. The callbacks never throw (libcsv is C): errors are raised
// after each feed.
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

// libcsv fed a line at a time; `take()` hands over the records completed so far.
class RecordParser {
 public:
  explicit RecordParser(std::string file) : file_(std::move(file)) {
    if (csv_init(&p_, CSV_STRICT | CSV_STRICT_FINI) != 0) throw InputError(file_ + ": cannot start the CSV parser");
  }
  ~RecordParser() { csv_free(&p_); }
  RecordParser(const RecordParser&) = delete;
  RecordParser& operator=(const RecordParser&) = delete;

  void feed(std::string line) {
    ++c_.line;
    line += '\n';
    if (csv_parse(&p_, line.data(), line.size(), on_field, on_record, &c_) != line.size())
      throw InputError(file_ + ":" + std::to_string(c_.line) + ": malformed CSV (" + csv_strerror(csv_error(&p_)) + ")");
  }
  void finish() {
    if (csv_fini(&p_, on_field, on_record, &c_) != 0)
      throw InputError(file_ + ":" + std::to_string(c_.line) + ": malformed CSV (unterminated quote)");
  }
  std::vector<CsvRow> take() { return std::exchange(c_.records, {}); }

 private:
  std::string file_;
  csv_parser p_{};
  Collector c_;
};

// The header row as parse_csv checks it: names trimmed, none empty or repeated.
CsvTable header_table(const CsvRow& head, const std::string& file) {
  CsvTable t;
  t.file = file;
  for (const auto& h : head.cells) {
    const std::string name = trim(h);
    const std::string place = file + ":" + std::to_string(head.line) + ": ";
    if (name.empty()) throw InputError(place + "empty column name in the header");
    if (t.column(name) >= 0) throw InputError(place + "column '" + clip(name) + "' appears twice");
    t.header.push_back(name);
  }
  return t;
}

// A data row with as many cells as the header, trimmed.
void check_row(const CsvTable& t, CsvRow& r) {
  if (r.cells.size() != t.header.size())
    throw InputError(t.file + ":" + std::to_string(r.line) + ": " + std::to_string(r.cells.size()) +
                     " cells, expected " + std::to_string(t.header.size()) + " (one per header column)");
  for (auto& cell : r.cells) cell = trim(cell);
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
  RecordParser parser(file);
  std::vector<CsvRow> records;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    parser.feed(line);
    for (CsvRow& r : parser.take()) records.push_back(std::move(r));
  }
  parser.finish();
  for (CsvRow& r : parser.take()) records.push_back(std::move(r));
  if (records.empty()) throw InputError(file + ": empty CSV; expected a header row and data rows");
  CsvTable t = header_table(records.front(), file);
  for (std::size_t i = 1; i < records.size(); ++i) {
    check_row(t, records[i]);
    t.rows.push_back(std::move(records[i]));
  }
  if (t.rows.empty()) throw InputError(file + ": no data rows after the header");
  return t;
}

CsvTable read_csv_file(const std::string& path) {
  return parse_csv(read_text_file(path, "CSV file"), path);
}

namespace {
// One line of at most kMaxInputFileBytes (a larger one is no CSV row of ours), without its '\n';
// false at the end of the stream.
bool next_line(std::streambuf& in, std::string& line, const std::string& path) {
  line.clear();
  for (int c = in.sbumpc(); c != std::char_traits<char>::eof(); c = in.sbumpc()) {
    if (c == '\n') return true;
    if (line.size() >= kMaxInputFileBytes)
      throw InputError(path + ": a line longer than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB (not a CSV row)");
    line.push_back(char(c));
  }
  return !line.empty();
}
}  // namespace

void stream_csv_file(const std::string& path, const std::string& what,
                     const std::function<void(const CsvTable&, CsvRow&)>& on_row) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the " + what);
  RecordParser parser(path);
  std::optional<CsvTable> head;
  std::size_t rows = 0;
  const auto handle = [&](std::vector<CsvRow> records) {
    for (CsvRow& r : records) {
      if (!head) {
        head = header_table(r, path);
        continue;
      }
      check_row(*head, r);
      on_row(*head, r);
      ++rows;
    }
  };
  for (std::string line; next_line(*in.rdbuf(), line, path);) {
    parser.feed(line);
    handle(parser.take());
  }
  parser.finish();
  handle(parser.take());
  if (!head) throw InputError(path + ": empty CSV; expected a header row and data rows");
  if (rows == 0) throw InputError(path + ": no data rows after the header");
}

double csv_number(const CsvTable& t, const CsvRow& row, int column) {
  const std::string& cell = row.cells.at(column);
  if (const auto v = parse_real(cell, -HUGE_VAL, HUGE_VAL)) return *v;
  throw InputError(t.where(row, column) + " = '" + clip(cell) + "': expected a number");
}

}  // namespace compare_layer
}  // namespace ddlsim
