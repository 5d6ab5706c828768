// `ddlsim advise` output: a table for people, CSV (one row per candidate and check) or JSON.
#pragma once
#include <string>

#include "plan/advise.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace plan_layer {

std::string render_advice(const Advice& a, Format f);

}  // namespace plan_layer
}  // namespace ddlsim
