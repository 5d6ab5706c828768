// `ddlsim collective` output: as nccl-tests prints (size, count, time, algbw, busbw), as OSU's
// micro-benchmarks print (size, average latency), or as a table, CSV or JSON of the same rows.
#pragma once
#include <string>

#include "predict/collective_prediction.hpp"

namespace ddlsim {
inline namespace report_layer {

enum class CollectiveFormat { Nccl, Osu, Table, Csv, Json };
CollectiveFormat parse_collective_format(const std::string& text);

std::string render_collective(const CollectivePrediction& p, CollectiveFormat f);

}  // namespace report_layer
}  // namespace ddlsim
