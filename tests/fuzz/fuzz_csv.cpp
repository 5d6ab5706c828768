// Measured CSVs (compare, fit, validate) and nccl-tests / OSU output.
#include "compare/bench_output.hpp"
#include "compare/csv_table.hpp"
#include "compare/measurements.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_one(data, size, [](const std::string& text) {
    if (ddlsim::is_bench_output(text)) {
      ddlsim::parse_bench_output(text, "fuzz.txt");
      return;
    }
    const ddlsim::CsvTable t = ddlsim::parse_csv(text, "fuzz.csv");
    ddlsim::read_measured(t, {}, "");
  });
}
