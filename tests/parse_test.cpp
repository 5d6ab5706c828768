// core/parse: the number parsers every reader shares, and the one "expected one of" message.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/parse.hpp"

using namespace ddlsim;

TEST(Parse, IntegersAreWholeAndInRange) {
  EXPECT_EQ(parse_integer("42", 1, 100), 42);
  EXPECT_EQ(parse_integer("1", 1, 100), 1);
  EXPECT_EQ(parse_integer("100", 1, 100), 100);
  EXPECT_FALSE(parse_integer("0", 1, 100));
  EXPECT_FALSE(parse_integer("101", 1, 100));
  EXPECT_FALSE(parse_integer("4x", 1, 100));
  EXPECT_FALSE(parse_integer("", 1, 100));
  EXPECT_FALSE(parse_integer("2.5", 1, 100));
  EXPECT_FALSE(parse_integer("99999999999999999999", 1, 1LL << 62));  // overflows: ERANGE
  EXPECT_EQ(parse_integer("-3", -5, 5), -3);
}

TEST(Parse, RealsAreFiniteDecimalAndInRange) {
  EXPECT_EQ(parse_real("2.5", 0, 10), 2.5);
  EXPECT_EQ(parse_real("1e-3", 0, 10), 1e-3);
  EXPECT_EQ(parse_real("0", 0, 10), 0.0);
  EXPECT_FALSE(parse_real("0", 0, 10, /*min_open=*/true));
  EXPECT_FALSE(parse_real("10.5", 0, 10));
  EXPECT_FALSE(parse_real("0x10", 0, 100));  // strtod would read 16
  EXPECT_FALSE(parse_real("inf", 0, HUGE_VAL));
  EXPECT_FALSE(parse_real("nan", -HUGE_VAL, HUGE_VAL));
  EXPECT_FALSE(parse_real("1,5", 0, 10));
  EXPECT_FALSE(parse_real("", 0, 10));
}

TEST(Parse, SizesListsAndByteSizes) {
  EXPECT_EQ(parse_size("224", 1000), std::make_pair(224, 224));
  EXPECT_EQ(parse_size("224X160", 1000), std::make_pair(224, 160));
  EXPECT_FALSE(parse_size("1x2x3", 1000));
  EXPECT_FALSE(parse_size("0x5", 1000));
  EXPECT_FALSE(parse_size("2000", 1000));
  const auto list = parse_list<long long>("32, 64,8", [](const std::string& t) { return parse_integer(t, 1, 100); });
  ASSERT_TRUE(list);
  EXPECT_EQ(*list, (std::vector<long long>{32, 64, 8}));
  EXPECT_FALSE((parse_list<long long>("32,,64", [](const std::string& t) { return parse_integer(t, 1, 100); })));
  EXPECT_FALSE((parse_list<long long>("", [](const std::string& t) { return parse_integer(t, 1, 100); })));
  EXPECT_EQ(parse_byte_size("64K", 1LL << 30), 65536);
  EXPECT_EQ(parse_byte_size("1G", 1LL << 30), 1LL << 30);
  EXPECT_EQ(parse_byte_size("7", 1LL << 30), 7);
  EXPECT_FALSE(parse_byte_size("2G", 1LL << 30));
  EXPECT_FALSE(parse_byte_size("0", 1LL << 30));
  EXPECT_FALSE(parse_byte_size("4KB", 1LL << 30));
}

TEST(Parse, LookupNamesTheOriginAndEveryChoice) {
  const std::vector<std::pair<std::string, int>> table = {{"ring", 1}, {"tree", 2}};
  EXPECT_EQ(lookup(table, "TREE", "comm.algorithm"), 2);
  try {
    lookup(table, "star", "scenario.ini:4: comm.algorithm", "algorithm");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "scenario.ini:4: comm.algorithm = 'star': unknown algorithm; expected one of ring, tree");
  }
  try {
    lookup(table, "star", "--x", "", "ring");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--x = 'star': expected one of ring");
  }
}
