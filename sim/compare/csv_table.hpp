// Reading a measured CSV (RFC 4180, via libcsv): a header row and data rows, each cell kept as text
// with the line it starts on, so later errors can name file, line and column.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace ddlsim {
inline namespace compare_layer {

struct CsvRow {
  int line = 0;                    // 1-based line of the file where the record starts
  std::vector<std::string> cells;  // as many as the header has columns
};

struct CsvTable {
  std::string file;
  std::vector<std::string> header;  // trimmed column names
  std::vector<CsvRow> rows;

  // Index of a column, or -1.
  int column(const std::string& name) const;
  // "measured.csv:12: column 'nodes'" for error messages.
  std::string where(const CsvRow& row, int column) const;
};

// Parses CSV text; `file` names it in errors. Throws InputError for a syntax error, an empty
// file, a duplicated or empty column name, or a row with a different number of cells.
CsvTable parse_csv(const std::string& text, const std::string& file);
CsvTable read_csv_file(const std::string& path);
// The same checks on a file of any size, read a line at a time (bounded memory): `on_row` gets the
// header as a table without rows (for column() and where()) and each data row, trimmed, in order.
// `what` names the file in errors ("sweep CSV").
void stream_csv_file(const std::string& path, const std::string& what,
                     const std::function<void(const CsvTable&, CsvRow&)>& on_row);

// A cell as a finite number; throws InputError naming file, line and column otherwise.
double csv_number(const CsvTable& t, const CsvRow& row, int column);

}  // namespace compare_layer
}  // namespace ddlsim
