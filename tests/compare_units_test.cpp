// Pieces of `compare`: CSV reading with lines, grouping, error statistics, baselines, SVG plot.
#include <gtest/gtest.h>

#include "compare/comparison.hpp"
#include "compare/csv_table.hpp"
#include "compare/measurements.hpp"
#include "core/error.hpp"
#include "report/plot_svg.hpp"

using namespace ddlsim;

TEST(CompareCsv, QuotedCellsAndLines) {
  const CsvTable t = parse_csv("a,\"b, c\"\n1,\"x\ny\"\n\n2,3\n", "m.csv");
  ASSERT_EQ(t.header.size(), 2u);
  EXPECT_EQ(t.header[1], "b, c");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].line, 2);
  EXPECT_EQ(t.rows[0].cells[1], "x\ny");
  EXPECT_EQ(t.rows[1].line, 5);  // the quoted newline and the blank line count
  EXPECT_EQ(t.where(t.rows[1], 0), "m.csv:5: column 'a'");
  EXPECT_THROW(parse_csv("", "m.csv"), InputError);
  EXPECT_THROW(parse_csv("a,a\n1,2\n", "m.csv"), InputError);
  EXPECT_THROW(parse_csv("a\n\"unterminated\n", "m.csv"), InputError);
}

TEST(CompareStats, MapeMaxBias) {
  const ErrorStats s = error_stats({0.1, -0.2, 0.05, -0.05});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.mape, 0.1);
  EXPECT_DOUBLE_EQ(s.max_abs, 0.2);
  EXPECT_DOUBLE_EQ(s.bias, -0.025);
  EXPECT_DOUBLE_EQ(relative_error(110, 100), 0.1);
}

TEST(CompareGroups, ReplicationsMeanAndSampleSd) {
  const CsvTable t = parse_csv("cluster.nodes,seed,samples_per_s\n1,1,10\n2,1,18\n1,2,12\n1,3,14\n", "m.csv");
  const MeasuredSet s = read_measured(t, {}, "");
  EXPECT_EQ(s.metric, Metric::SamplesPerSecond);
  ASSERT_EQ(s.configs.size(), 2u);
  EXPECT_EQ(s.configs[0].count(), 3);
  EXPECT_DOUBLE_EQ(s.configs[0].mean, 12);
  EXPECT_DOUBLE_EQ(s.configs[0].stddev, 2);
  EXPECT_EQ(s.configs[0].lines, (std::vector<int>{2, 4, 5}));
  EXPECT_DOUBLE_EQ(s.configs[1].stddev, 0);
}

TEST(CompareBaseline, ScalesWithRanksByMetric) {
  const CsvTable t = parse_csv("cluster.nodes,samples_per_s\n1,100\n4,300\n", "m.csv");
  const MeasuredSet s = read_measured(t, {}, "");
  Prediction p1, p4;
  p1.ranks = 1;
  p4.ranks = 4;
  p1.samples_per_s = 100;
  p4.samples_per_s = 330;
  const Comparison c = compare_with(s, {p1, p4});
  ASSERT_TRUE(c.rows[1].baseline.has_value());
  EXPECT_DOUBLE_EQ(*c.rows[1].baseline, 400);
  EXPECT_DOUBLE_EQ(c.rows[1].baseline_error, 1.0 / 3);
  EXPECT_DOUBLE_EQ(c.rows[1].error, 0.1);
  EXPECT_FALSE(c.rows[0].baseline.has_value());
  EXPECT_EQ(c.baseline_scaled.n, 1);
}

TEST(ComparePlot, SvgHasOneMarkerPerPointAndEscapes) {
  ScatterPlot p;
  p.title = "a < b";
  p.unit = "s";
  p.series = {"model", "linear"};
  p.points = {{10, 11, 0, "x"}, {20, 18, 1, "y"}, {-1, 5, 0, "skipped"}};
  const std::string svg = render_scatter_svg(p);
  std::size_t circles = 0;
  for (std::size_t pos = 0; (pos = svg.find("<circle", pos)) != std::string::npos; ++pos) ++circles;
  EXPECT_EQ(circles, 2u + 2u);  // two points and two legend markers
  EXPECT_NE(svg.find("a &lt; b"), std::string::npos);
  EXPECT_EQ(svg, render_scatter_svg(p));
}
