// The key registry (scenario/keys.cpp): each key declared once, and what is produced from it
// (the typed reads of resolve.cpp, `ddlsim keys`, docs/keys.md, the planning commands' keys).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"
#include "plan/plan_keys.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

// The default scenario with one key set; the InputError's text, or "" when it resolves.
std::string resolve_with(const std::string& key, const std::string& value) {
  try {
    resolve_scenario(read_scenario("", {"--" + key + "=" + value}).settings, ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(Keys, DocsPageIsTheCommandsOutput) {
  const auto r = testutil::run_ddlsim("keys --format markdown");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, testutil::slurp(testutil::source_dir() + "/docs/keys.md"))
      << "docs/keys.md is generated: build/ddlsim keys --format markdown > docs/keys.md";
}

TEST(Keys, DefaultsAndRangesLieWithinTheDeclaredValues) {
  for (const KeySpec& k : scenario_keys()) {
    SCOPED_TRACE(k.key);
    const bool numeric = k.type == KeyType::Integer || k.type == KeyType::Real;
    if (numeric) {
      EXPECT_LT(k.min, k.max);
      if (!k.default_value.empty()) {
        const double d = std::stod(k.default_value);
        EXPECT_TRUE(k.min_open ? d > k.min : d >= k.min);
        EXPECT_LE(d, k.max);
      }
    }
    if (k.type == KeyType::Choice) {
      EXPECT_FALSE(k.choices.empty());
      if (!k.default_value.empty()) EXPECT_TRUE(contains(k.choices, k.default_value));
    }
    if (!k.vary) continue;
    if (k.vary->values.empty()) {
      ASSERT_TRUE(numeric) << "a key varied over a range must be a number";
      EXPECT_LT(k.vary->lo, k.vary->hi);
      EXPECT_GE(k.vary->lo, k.min);
      EXPECT_LE(k.vary->hi, k.max);
      if (k.vary->log) EXPECT_GT(k.vary->lo, 0);
    } else if (k.type == KeyType::Choice) {
      for (const auto& v : k.vary->values) EXPECT_TRUE(contains(k.choices, v)) << v;
    }
  }
}

// Every declared value of a choice or flag is read by resolve.cpp as declared (a mismatch between
// the declaration and the code that reads it is a logic_error); the value itself may still be
// refused in this scenario (an InputError), never unread.
TEST(Keys, EveryDeclaredValueIsReadAsDeclared) {
  for (const KeySpec& k : scenario_keys()) {
    std::vector<std::string> values = k.choices;
    if (k.type == KeyType::Bool) values = {"true", "false"};
    for (const auto& v : values) {
      SCOPED_TRACE(k.key + " = " + v);
      EXPECT_NO_THROW(resolve_with(k.key, v));
      EXPECT_EQ(resolve_with(k.key, v).find("expected one of"), std::string::npos) << resolve_with(k.key, v);
    }
    if (k.type == KeyType::Choice) {
      const std::string e = resolve_with(k.key, "no_such_value");
      EXPECT_NE(e.find(k.key), std::string::npos) << e;
      EXPECT_NE(e.find("expected one of"), std::string::npos) << e;
    }
  }
}

// A number past its declared bounds is refused naming the key and the bounds.
TEST(Keys, NumbersPastTheirDeclaredBoundsAreRefusedNamingTheKey) {
  int checked = 0;
  for (const KeySpec& k : scenario_keys()) {
    if (k.type != KeyType::Integer && k.type != KeyType::Real) continue;
    SCOPED_TRACE(k.key);
    const std::string above = k.type == KeyType::Integer ? std::to_string((long long)k.max + 1) : format_number(k.max * 2);
    const std::string e = resolve_with(k.key, above);
    EXPECT_NE(e.find(k.key), std::string::npos) << e;
    EXPECT_NE(e.find("expected"), std::string::npos) << e;
    const std::string below = resolve_with(k.key, "-1e30");
    EXPECT_NE(below.find(k.key), std::string::npos) << below;
    ++checked;
  }
  EXPECT_GT(checked, 40);
  EXPECT_NE(resolve_with("comm.interference", "10.5").find("expected a number >= 0 and <= 10"), std::string::npos);
  EXPECT_NE(resolve_with("simulation.timeout_s", "0").find("expected a number > 0"), std::string::npos);
}

// advise and map vary exactly the keys declared with a range or values (and model.params).
TEST(Keys, PlanningCommandsVaryTheDeclaredKeys) {
  std::vector<std::string> declared{kModelParamsKey};
  for (const KeySpec& k : scenario_keys())
    if (k.vary) declared.push_back(k.key);
  EXPECT_EQ(plan_key_names(), declared);
  const PlanKey bw = find_plan_key("cluster.inter_bw_GBps", "test");
  EXPECT_EQ(bw.kind, KeyKind::Real);
  EXPECT_EQ(bw.unit, "GB/s");
  EXPECT_TRUE(bw.log);
  EXPECT_EQ(find_plan_key("training.batch_per_gpu", "test").kind, KeyKind::Integer);
  EXPECT_EQ(find_plan_key("input.storage", "test").choices.size(), 4u);
  EXPECT_THROW(find_plan_key("model.file", "test"), InputError);
}
