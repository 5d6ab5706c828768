// netbench CSVs and the network fit (`ddlsim netfit`).
#include "calibration/netfit.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_one(data, size, [](const std::string& text) {
    const auto samples = ddlsim::parse_netbench_csv(text, "fuzz.csv");
    ddlsim::fit_network(samples, "fuzz.csv");
  });
}
