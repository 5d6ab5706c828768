// Reports: one prediction as a table, CSV or JSON; every number checked finite on the way out.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "model/model.hpp"
#include "predict/prediction.hpp"

namespace ddlsim {
inline namespace report_layer {

enum class Format { Table, Csv, Json };
Format parse_format(const std::string& text);

// The prediction as an ordered record (the JSON object; CSV columns in the same order).
nlohmann::ordered_json prediction_record(const Prediction& p);
// The table's interval section gives each uncertain input's values, source and step times with
// `explain_uncertainty` (simulate --explain-uncertainty).
std::string render_prediction(const Prediction& p, Format f, bool explain_uncertainty = false);

// CSV helpers shared by reports: RFC 4180 quoting, numbers in shortest round-trip form.
std::string csv_cell(const nlohmann::ordered_json& v);
std::string csv_escape(const std::string& s);

// `ddlsim profile`: one micro-batch's compute layer by layer (model order, or the `top` slowest
// when top > 0), with the step's totals; shares are of forward + backward + optimizer + framework.
struct ProfileContext {
  std::string device, precision;
  int batch = 0;
  bool calibrated = false;  // per-layer times from a calibration file
};
std::string render_compute_profile(const Model& m, const ComputeProfile& p, const ProfileContext& c, Format f,
                                   int top = 0);

// `ddlsim models NAME`: per-layer table and totals.
std::string render_model(const Model& m, Format f);
std::string render_model_list(Format f);

}  // namespace report_layer
}  // namespace ddlsim
