// Pieces of `compare`: CSV reading with lines, grouping, error statistics, baselines, SVG plot.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>

#include "compare/compare_report.hpp"
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

// The streaming reader (a sweep CSV of any size) gives the rows parse_csv gives, with their lines,
// and refuses what it refuses, naming the line.
TEST(CompareCsv, StreamedRowsAreParsedRows) {
  const std::string text = "a,\"b, c\"\n1,\"x\ny\"\n\n2, 3 \n";
  char tmpl[] = "/tmp/ddlsim-csv-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const auto file = [&](const std::string& name, const std::string& body) {
    std::ofstream(dir + "/" + name) << body;
    return dir + "/" + name;
  };
  const CsvTable t = parse_csv(text, "m.csv");
  std::vector<CsvRow> rows;
  stream_csv_file(file("m.csv", text), "CSV", [&](const CsvTable& head, CsvRow& r) {
    EXPECT_EQ(head.header, t.header);
    rows.push_back(r);
  });
  ASSERT_EQ(rows.size(), t.rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].line, t.rows[i].line);
    EXPECT_EQ(rows[i].cells, t.rows[i].cells);
  }
  const auto error = [&](const std::string& body) {
    try {
      stream_csv_file(file("bad.csv", body), "CSV", [](const CsvTable&, CsvRow&) {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("a,b\n1,2\n3\n").find("bad.csv:3: 1 cells, expected 2"), std::string::npos);
  EXPECT_NE(error("a\n1\n\"open\n").find("bad.csv:3: malformed CSV"), std::string::npos);
  EXPECT_NE(error("").find("empty CSV"), std::string::npos);
  EXPECT_NE(error("a,b\n").find("no data rows"), std::string::npos);
  EXPECT_NE(error("a,a\n1,2\n").find("appears twice"), std::string::npos);
  std::system(("rm -rf '" + dir + "'").c_str());
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

TEST(CompareMaps, CellValuesAndMetricColumnsNamedOtherwise) {
  const CsvTable t = parse_csv("nodes,strategy,img_per_sec\n1,fit,100\n2,fit,180\n2,custom,190\n", "m.csv");
  const MeasuredSet s = read_measured(t, {"nodes=cluster.nodes", "strategy=training.framework"},
                                      "img_per_sec=samples_per_s",
                                      {"strategy:fit=tf_mirrored", "strategy:custom=tf_custom_accum"});
  EXPECT_EQ(s.metric, Metric::SamplesPerSecond);
  EXPECT_EQ(s.metric_column, "img_per_sec");
  ASSERT_EQ(s.configs.size(), 3u);
  ASSERT_NE(s.configs[1].find("training.framework"), nullptr);
  EXPECT_EQ(*s.configs[1].find("training.framework"), "tf_mirrored");
  EXPECT_EQ(*s.configs[2].find("training.framework"), "tf_custom_accum");
  EXPECT_NE(s.configs[2].values[1].origin.find("'custom' by --value"), std::string::npos);
  // A cell no --value names keeps its own text.
  const MeasuredSet plain = read_measured(t, {"nodes=cluster.nodes", "strategy=training.framework"},
                                          "img_per_sec=samples_per_s", {"strategy:fit=tf_mirrored"});
  EXPECT_EQ(*plain.configs[2].find("training.framework"), "custom");
}

TEST(CompareMaps, BadValueAndMetricMapsAreInputErrors) {
  const CsvTable t = parse_csv("nodes,strategy,img_per_sec\n1,fit,100\n", "m.csv");
  const std::vector<std::string> maps = {"nodes=cluster.nodes"};
  EXPECT_THROW(read_measured(t, maps, "img_per_sec=speed"), InputError);          // not a metric name
  EXPECT_THROW(read_measured(t, maps, "nope=samples_per_s"), InputError);         // no such column
  EXPECT_THROW(read_measured(t, maps, "img_per_sec=samples_per_s", {"strategy:fit=x"}), InputError);  // unmapped
  EXPECT_THROW(read_measured(t, maps, "img_per_sec=samples_per_s", {"fit=x"}), InputError);           // no colon
  try {
    read_measured(t, maps, "img_per_sec=samples_per_s", {"colour:red=x"});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.csv:1: missing column 'colour'"), std::string::npos) << e.what();
  }
}

TEST(CompareMaps, LongConfigurationLabelsKeepTheColumnsAligned) {
  const CsvTable t = parse_csv("cluster.nodes,training.framework,samples_per_s\n1,tf_mirrored,100\n"
                               "2,tf_custom_accum,180\n", "m.csv");
  const MeasuredSet s = read_measured(t, {}, "");
  Prediction p1, p2;
  p1.ranks = 1;
  p2.ranks = 2;
  p1.samples_per_s = p2.samples_per_s = 100;
  const std::string table = render_comparison(compare_with(s, {p1, p2}), Format::Table);
  // The "n" column (count 1) starts at the same offset on the header and on both rows.
  std::vector<std::size_t> at;
  std::size_t pos = 0;
  for (int line = 0; line < 5; ++line) {
    const std::size_t end = table.find('\n', pos);
    const std::string l = table.substr(pos, end - pos);
    if (l.find("configuration") != std::string::npos) at.push_back(l.find(" n "));
    if (l.find("cluster.nodes=") != std::string::npos) at.push_back(l.find(" 1 ", l.find("accum") != std::string::npos ? l.find("accum") : l.find("mirrored")));
    pos = end + 1;
  }
  ASSERT_EQ(at.size(), 3u) << table;
  EXPECT_EQ(at[0], at[1]) << table;
  EXPECT_EQ(at[1], at[2]) << table;
}
