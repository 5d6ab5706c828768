// `ddlsim collective` as the tests run it: the first row of its JSON report.
#pragma once
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_util.hpp"

namespace testutil {

// The first row of `ddlsim collective --format json ARGS` (an empty object, and a failure, when
// the command fails).
inline nlohmann::json collective_row(const std::string& args) {
  const auto r = run_ddlsim("collective --format json " + args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  return r.code == 0 ? nlohmann::json::parse(r.out)[0] : nlohmann::json::object();
}

}  // namespace testutil
