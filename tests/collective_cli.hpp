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

// `ddlsim collective ARGS` exits 2 and its message holds `why`.
inline void expect_collective_refused(const std::string& args, const std::string& why) {
  const auto r = run_ddlsim("collective " + args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(why), std::string::npos) << args << "\n" << r.out;
}

}  // namespace testutil
