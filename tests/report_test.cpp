// `ddlsim report`: the page's content (figures, assumptions, error bars with measured runs), the
// files beside it, deterministic bytes, and bad input (exit 2, nothing written).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include "core/text.hpp"
#include "study/figures.hpp"
#include "study/html_page.hpp"
#include "compare/csv_table.hpp"
#include "study/study_answer.hpp"
#include "study/study_figures.hpp"
#include "study/study_report.hpp"
#include "study/sweep_results.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using testutil::exists;
using testutil::run_ddlsim;
using testutil::run_shell;
using testutil::slurp;
using testutil::TempFile;

namespace {

const char* kStudyIni = R"([model]
name = resnet50
input_size = 64
classes = 200
[training]
framework = tf_mirrored
samples = 20000
batch_per_gpu = 64
[cluster]
platform = poti
nodes = 1
[sweep]
training.framework = tf_mirrored, tf_custom_accum
cluster.nodes = 1, 2, 3
)";

// Made-up measurements for the test (not from a real cluster): two replications each.
const char* kMeasured = R"(framework,nodes,epoch_time_s
tf_mirrored,1,60
tf_mirrored,1,64
tf_mirrored,2,40
tf_mirrored,2,44
tf_custom_accum,3,20
tf_custom_accum,3,22
)";

bool have_gnuplot() { return run_shell("command -v gnuplot >/dev/null 2>&1").code == 0; }

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A sweep CSV of the study above, in a fresh folder.
class Study : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox)";
    std::ofstream(dir.dir() + "/study.ini") << kStudyIni;
    std::ofstream(dir.dir() + "/measured.csv") << kMeasured;
    const auto r = run_ddlsim("sweep " + dir.dir() + "/study.ini --jobs 1 -o " + dir.dir() + "/sweep.csv");
    ASSERT_EQ(r.code, 0) << r.out;
  }
  testutil::RunResult report(const std::string& args) {
    return run_shell("cd " + dir.dir() + " && timeout 300 " + std::string(DDLSIM_BINARY) + " report " + args + " 2>&1");
  }
  TempFile dir{"unused"};
};

const std::string kMaps = " --measured measured.csv --map framework=training.framework --map nodes=cluster.nodes";

}  // namespace

TEST_F(Study, PageHasEveryFigureInlineAndTheAssumptions) {
  const auto r = report("sweep.csv -o report.html");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string page = slurp(dir.dir() + "/report.html");
  EXPECT_EQ(count(page, "<svg"), 4);  // epoch time, speed-up, efficiency, step breakdown
  for (const char* fig : {"fig-epoch_time", "fig-speedup", "fig-efficiency", "fig-step_breakdown"})
    EXPECT_NE(page.find(fig), std::string::npos) << fig;
  EXPECT_EQ(page.find("<?xml"), std::string::npos);
  EXPECT_NE(page.find("<table id=\"assumptions\">"), std::string::npos);
  for (const char* field : {">library<", ">algorithm<", ">platform<", ">device<", ">interference<", ">per_call_s<",
                            ">staging_GBps<", ">training.framework<", ">cluster.nodes<", ">model.name<"})
    EXPECT_NE(page.find(field), std::string::npos) << field;
  EXPECT_NE(page.find("Epoch time (s)"), std::string::npos);
  EXPECT_NE(page.find("Ranks (GPUs: nodes x GPUs per node)"), std::string::npos);
  EXPECT_NE(page.find("framework=tf_custom_accum"), std::string::npos);  // the legend names factor values
  EXPECT_EQ(page.find("measured, mean"), std::string::npos);
  for (const char* stem : {"epoch_time", "speedup", "efficiency", "step_breakdown"})
    for (const char* ext : {".gp", ".dat", ".svg", ".png"})
      EXPECT_TRUE(exists(dir.dir() + "/report_files/" + stem + ext)) << stem << ext;
  EXPECT_EQ(slurp(dir.dir() + "/report_files/epoch_time.png").substr(1, 3), "PNG");
}

TEST_F(Study, MeasuredRunsAreErrorBarsBesideThePrediction) {
  const auto r = report("sweep.csv" + kMaps + " -o report.html");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string page = slurp(dir.dir() + "/report.html");
  EXPECT_NE(page.find("<table id=\"measured\">"), std::string::npos);
  EXPECT_NE(page.find("(measured)"), std::string::npos);
  const std::string script = slurp(dir.dir() + "/report_files/epoch_time.gp");
  EXPECT_NE(script.find("with yerrorbars"), std::string::npos);
  // mean 62 +- sd 2.828 at one rank
  EXPECT_NE(slurp(dir.dir() + "/report_files/epoch_time.dat").find("1 62 2.82842712"), std::string::npos);
  EXPECT_EQ(slurp(dir.dir() + "/report_files/speedup.gp").find("yerrorbars"), std::string::npos);
}

TEST_F(Study, AMeasuredStepTimeGetsItsOwnFigure) {
  std::ofstream(dir.dir() + "/steps.csv") << "framework,nodes,step\ntf_mirrored,2,0.5\ntf_mirrored,2,0.7\n"
                                             "tf_mirrored,9,0.1\n";  // made up; 9 nodes are not in the sweep
  const auto r = report("sweep.csv --measured steps.csv --map framework=training.framework --map nodes=cluster.nodes"
                        " --metric step=step_time_s -o report.html");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 measured configuration(s) of steps.csv are not in the sweep"), std::string::npos) << r.out;
  const std::string page = slurp(dir.dir() + "/report.html");
  EXPECT_EQ(count(page, "<svg"), 5);
  EXPECT_NE(page.find("fig-step_time"), std::string::npos);
  EXPECT_NE(page.find("not in the sweep"), std::string::npos);
  EXPECT_NE(page.find("Step time (ms)"), std::string::npos);
  // mean 600 ms +- sd 141 ms at two ranks
  EXPECT_NE(slurp(dir.dir() + "/report_files/step_time.dat").find("2 600 141.42135"), std::string::npos);
  EXPECT_EQ(slurp(dir.dir() + "/report_files/epoch_time.gp").find("yerrorbars"), std::string::npos);
}

TEST_F(Study, FailedConfigurationsAreListed) {
  // the third line's configuration marked as failed (its error cell set)
  ASSERT_EQ(run_shell("cd " + dir.dir() + " && sed '3s/,$/,made-up failure/' sweep.csv > failed.csv").code, 0);
  const auto r = report("failed.csv -o report.html");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string page = slurp(dir.dir() + "/report.html");
  EXPECT_NE(page.find("<ul id=\"failed\">\n<li>line 3: made-up failure</li>"), std::string::npos);
  EXPECT_NE(page.find("5 configurations (1 more failed"), std::string::npos);
}

TEST_F(Study, CellTextCannotReachTheScriptOrThePageAsCode) {
  std::string csv = slurp(dir.dir() + "/sweep.csv");
  const std::string evil = "x');system('touch pwned');print(`touch pwned2`<b>&";
  for (auto at = csv.find(",tf_custom_accum,"); at != std::string::npos; at = csv.find(",tf_custom_accum,", at + 1))
    csv.replace(at + 1, std::string("tf_custom_accum").size(), evil);
  std::ofstream(dir.dir() + "/evil.csv") << csv;
  const auto r = report("evil.csv -o report.html");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(exists(dir.dir() + "/report_files/pwned"));
  EXPECT_FALSE(exists(dir.dir() + "/report_files/pwned2"));
  EXPECT_NE(slurp(dir.dir() + "/report_files/epoch_time.gp").find("framework=x?);system(?touch pwned?);print(?touch pwned2?<b>&"),
            std::string::npos);
  const std::string page = slurp(dir.dir() + "/report.html");
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_NE(page.find("x&#39;);system(&#39;touch pwned&#39;);print(`touch pwned2`&lt;b&gt;&amp;"), std::string::npos);
}

TEST(Report, NodesAndGpusPerNodeBothVaryingGiveALinePerGpusPerNode) {
  TempFile ini("g.ini", std::string(kStudyIni) + "cluster.gpus_per_node = 1, 2\n");
  ASSERT_EQ(run_ddlsim("sweep " + ini.path() + " --jobs 1 -o " + ini.dir() + "/g.csv").code, 0);
  const auto sw = ddlsim::read_sweep_results(ini.dir() + "/g.csv");
  EXPECT_EQ(sw.rank_keys, std::vector<std::string>{"cluster.nodes"});
  EXPECT_EQ(sw.factors, (std::vector<std::string>{"cluster.gpus_per_node", "training.framework"}));
  EXPECT_EQ(sw.factor_label(sw.ok.front()), "gpus_per_node=1 framework=tf_mirrored");
}

// Mixed clusters keep their composition: cluster.nodes = tupi:1+poti:1 and poti:2 (both 2 ranks) are
// two series, not one line.
TEST(Report, MixedClustersAreSeriesOfTheirOwn) {
  TempFile ini("m.ini", "[model]\nname = resnet50\ninput_size = 64\nclasses = 200\n[training]\n"
                        "framework = tf_mirrored\nsamples = 20000\n[cluster]\nplatform = poti\n"
                        "[sweep]\ncluster.nodes = poti:1, poti:2, tupi:1+poti:1\n");
  ASSERT_EQ(run_ddlsim("sweep " + ini.path() + " --jobs 1 -o " + ini.dir() + "/m.csv").code, 0);
  const auto sw = ddlsim::read_sweep_results(ini.dir() + "/m.csv");
  EXPECT_TRUE(sw.rank_keys.empty());
  EXPECT_EQ(sw.factors, std::vector<std::string>{"cluster.nodes"});
  EXPECT_EQ(sw.factor_label(sw.ok.back()), "nodes=tupi:1+poti:1");
}

// A negative or zero result (an edited CSV) is refused naming its line and column, not drawn.
TEST(Report, NegativeOrZeroResultsAreRefused) {
  TempFile ini("g.ini", std::string(kStudyIni));
  ASSERT_EQ(run_ddlsim("sweep " + ini.path() + " --jobs 1 -o " + ini.dir() + "/g.csv").code, 0);
  for (const auto& [column, value] : {std::pair{"epoch_time_s", "-3"}, std::pair{"efficiency", "0"},
                                      std::pair{"contention_s", "-0.5"}}) {
    ddlsim::CsvTable t = ddlsim::read_csv_file(ini.dir() + "/g.csv");
    t.rows.at(1).cells.at(std::size_t(t.column(column))) = value;
    const auto quoted = [](const std::vector<std::string>& cells) {
      std::string line;
      for (const auto& c : cells) {
        std::string q;
        for (char ch : c) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        line += (line.empty() ? "\"" : ",\"") + q + "\"";
      }
      return line + "\n";
    };
    std::string text = quoted(t.header);
    for (const auto& r : t.rows) text += quoted(r.cells);
    std::ofstream(ini.dir() + "/edited.csv") << text;
    try {
      ddlsim::read_sweep_results(ini.dir() + "/edited.csv");
      ADD_FAILURE() << column << " = " << value << " was taken";
    } catch (const ddlsim::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(":3: column '" + std::string(column) + "' = '" + value + "': expected a number"),
                std::string::npos) << what;
    }
  }
}

TEST_F(Study, SameInputsSameBytesAndTheScriptRedraws) {
  ASSERT_EQ(report("sweep.csv" + kMaps + " -o a.html").code, 0);
  ASSERT_EQ(run_shell("mkdir " + dir.dir() + "/b").code, 0);
  ASSERT_EQ(report("sweep.csv" + kMaps + " -o b/a.html").code, 0);
  EXPECT_EQ(slurp(dir.dir() + "/a.html"), slurp(dir.dir() + "/b/a.html"));
  const std::string svg = slurp(dir.dir() + "/a_files/speedup.svg");
  const auto redraw = run_shell("cd " + dir.dir() + "/a_files && rm speedup.svg && gnuplot speedup.gp 2>&1");
  ASSERT_EQ(redraw.code, 0) << redraw.out;
  EXPECT_EQ(slurp(dir.dir() + "/a_files/speedup.svg"), svg);
}

TEST_F(Study, FactorsAndStepPartsThatAddUpToTheStepTime) {
  const auto sw = ddlsim::read_sweep_results(dir.dir() + "/sweep.csv");
  EXPECT_EQ(sw.factors, std::vector<std::string>{"training.framework"});
  EXPECT_EQ(sw.rank_keys, std::vector<std::string>{"cluster.nodes"});
  ASSERT_EQ(sw.ok.size(), 6u);
  for (auto i : sw.ok) {
    double sum = 0;
    for (double part : ddlsim::step_breakdown(sw, i)) {
      EXPECT_GE(part, 0);
      sum += part;
    }
    EXPECT_NEAR(sum, sw.number(i, "step_time_s"), 1e-9 * sw.number(i, "step_time_s"));
  }
}

TEST_F(Study, SweepWritesTheReportToo) {
  const auto r = run_shell("cd " + dir.dir() + " && " + std::string(DDLSIM_BINARY) +
                           " sweep study.ini --jobs 1 -o s2.csv --report s2.html 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(count(slurp(dir.dir() + "/s2.html"), "<svg"), 4);
}

// The report's path is checked before the sweep runs, not after its last configuration.
TEST_F(Study, SweepRefusesAReportPathItCannotWriteBeforeRunning) {
  const auto r = run_shell("cd " + dir.dir() + " && " + std::string(DDLSIM_BINARY) +
                           " sweep study.ini --jobs 1 -o s3.csv --report nosuch/s3.html 2>&1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("nosuch is not a folder this user can write to"), std::string::npos) << r.out;
  EXPECT_FALSE(exists(dir.dir() + "/s3.csv"));
}

TEST_F(Study, BadInputExitsTwoNamingFileAndColumnAndWritesNothing) {
  // a sweep CSV without one of the step's parts
  ASSERT_EQ(run_shell("cd " + dir.dir() + " && sed 's/straggler_wait_s/stragglers_x/' sweep.csv > cut.csv").code, 0);
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"cut.csv -o r.html", "cut.csv:1: column 'straggler_wait_s' is missing"},
      {"measured.csv -o r.html", "measured.csv: not a sweep CSV"},
      {"nosuch.csv -o r.html", "nosuch.csv"},
      {"sweep.csv", "-o FILE.html is required"},
      {"sweep.csv --measured measured.csv -o r.html", "measured.csv"},  // no column maps to a key
      {"sweep.csv --measured measured.csv --map nodes=cluster.nodes -o r.html", "matches 2 rows"},
      {"sweep.csv --map nodes=cluster.nodes -o r.html", "--measured FILE.csv, which is missing"},
  };
  for (const auto& c : cases) {
    const auto r = report(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(exists(dir.dir() + "/r.html")) << c.args;
    struct stat st {};
    EXPECT_NE(::stat((dir.dir() + "/r_files").c_str(), &st), 0) << c.args;
  }
}

TEST_F(Study, MissingGnuplotIsAnInputError) {
  const auto r = run_shell("cd " + dir.dir() + " && env PATH=/nonexistent " + std::string(DDLSIM_BINARY) +
                           " report sweep.csv -o r.html 2>&1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("gnuplot-nox"), std::string::npos) << r.out;
  EXPECT_FALSE(exists(dir.dir() + "/r.html"));
}

TEST(Report, HelpListsTheOptions) {
  const auto r = run_ddlsim("report --help");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* o : {"--measured", "--map", "--metric", "--output"}) EXPECT_NE(r.out.find(o), std::string::npos) << o;
}

TEST(Report, TextFromInputsCannotBreakOutOfTheScript) {
  EXPECT_EQ(ddlsim::plot_text("a'b\"c`d\\e\nf"), "a?b?c?d?e?f");
  EXPECT_EQ(ddlsim::markup_escape("<a href='x'>&"), "&lt;a href=&#39;x&#39;&gt;&amp;");
}

TEST(Report, FilesFolderBesideThePage) {
  EXPECT_EQ(ddlsim::files_dir_for("report.html"), "report_files");
  EXPECT_EQ(ddlsim::files_dir_for("out.d/r.html"), "out.d/r_files");
  EXPECT_EQ(ddlsim::files_dir_for("out.d/page"), "out.d/page_files");
}

TEST(Report, InlineSvgGetsUniqueIds) {
  const std::string svg = "<?xml version='1.0'?>\n<svg><title>Gnuplot</title><g id=\"gnuplot_canvas\">"
                          "<path id='gpPt0'/><use xlink:href='#gpPt0'/></g></svg>\n";
  const std::string s = ddlsim::inline_svg(svg, "f1_", "Epoch <time>");
  EXPECT_EQ(s, "<svg><title>Epoch &lt;time&gt;</title><g id=\"f1_gnuplot_canvas\"><path id='f1_gpPt0'/>"
               "<use xlink:href='#f1_gpPt0'/></g></svg>");
}

// `sweep --intervals`: each row carries the 80 % interval `simulate` gives the same configuration,
// and the report shades it under each line (speed-up's from efficiency's ends times the ranks).
TEST_F(Study, IntervalSweepRowsAreSimulatesAndTheReportShadesThem) {
  const auto s = run_shell("cd " + dir.dir() + " && " + std::string(DDLSIM_BINARY) +
                           " sweep study.ini --jobs 1 --intervals -o iv.csv --report iv.html 2>&1");
  ASSERT_EQ(s.code, 0) << s.out;
  const ddlsim::CsvTable t = ddlsim::read_csv_file(dir.dir() + "/iv.csv");
  ASSERT_EQ(t.rows.size(), 6u);
  const ddlsim::CsvRow& last = t.rows.back();  // tf_custom_accum on 3 nodes
  const auto sim = run_shell(std::string(DDLSIM_BINARY) + " simulate " + dir.dir() + "/study.ini --format json "
                             "--training.framework=tf_custom_accum --cluster.nodes=3 2>/dev/null");  // no [sweep] note
  ASSERT_EQ(sim.code, 0) << sim.out;
  const auto j = nlohmann::json::parse(sim.out);
  for (const char* c : {"epoch_time_p10_s", "epoch_time_p90_s", "efficiency_p10", "efficiency_p90", "step_time_p90_s"}) {
    ASSERT_GE(t.column(c), 0) << c;
    EXPECT_DOUBLE_EQ(std::stod(last.cells[t.column(c)]), j[c].get<double>()) << c;
  }
  const std::string script = slurp(dir.dir() + "/iv_files/epoch_time.gp");
  // One band a line, drawn twice (SVG, then PNG).
  EXPECT_EQ(count(script, "with filledcurves"), 2 * 2) << script;
  EXPECT_EQ(count(script, "80 % interval (shaded)"), 1 * 2) << script;
  const std::string data = slurp(dir.dir() + "/iv_files/speedup.dat");
  const double eff_p10 = j["efficiency_p10"].get<double>(), eff_p90 = j["efficiency_p90"].get<double>();
  EXPECT_NE(data.find(fmt::format("{:.9g} {:.9g}", 3 * eff_p10, 3 * eff_p90)), std::string::npos) << data;
  EXPECT_NE(slurp(dir.dir() + "/iv.html").find("each with its 80 % interval shaded"), std::string::npos);
  // Without --intervals (the fixture's sweep): no band.
  ASSERT_EQ(report("sweep.csv -o plain.html").code, 0);
  EXPECT_EQ(slurp(dir.dir() + "/report_files/epoch_time.gp").find("filledcurves"), std::string::npos);
}

// Two models swept: one panel a model (small multiples), the answer first (each panel's fastest and
// slowest configuration, the framework's effect as the geometric mean of the epoch-time ratios of
// the configurations that differ only in it, on more than one rank), then the figures, the
// predicted numbers, and the settings last.
TEST_F(Study, AnswerFirstAndOnePanelAModel) {
  std::ofstream(dir.dir() + "/two.ini") << std::string(kStudyIni) << "model.name = resnet50, efficientnet_b0\n";
  auto r = run_ddlsim("sweep " + dir.dir() + "/two.ini --jobs 1 -o " + dir.dir() + "/two.csv");
  ASSERT_EQ(r.code, 0) << r.out;
  r = report("two.csv -o two.html");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string page = slurp(dir.dir() + "/two.html");
  const auto at = [&](const char* what) { return page.find(what); };
  ASSERT_NE(at("<h2>Answer</h2>"), std::string::npos);
  EXPECT_LT(at("<h2>Answer</h2>"), at("<figure"));
  EXPECT_LT(at("<figure"), at("<h2>Predicted numbers</h2>"));
  EXPECT_LT(at("<h2>Predicted numbers</h2>"), at("<h2>Settings</h2>"));
  EXPECT_NE(slurp(dir.dir() + "/two_files/epoch_time.gp").find("set multiplot layout 1,2"), std::string::npos);
  // The framework's effect on ResNet-50 by hand, from the CSV: 2 and 3 ranks.
  const ddlsim::SweepResults sw = ddlsim::read_sweep_results(dir.dir() + "/two.csv");
  std::map<std::string, double> epoch;  // "framework/nodes" -> epoch time, ResNet-50
  for (auto i : sw.ok)
    if (ddlsim::trim(sw.cell(i, "model.name")) == "resnet50")
      epoch[ddlsim::trim(sw.cell(i, "training.framework")) + "/" + ddlsim::trim(sw.cell(i, "ranks"))] = sw.number(i, "epoch_time_s");
  const double by_hand = std::sqrt(epoch.at("tf_mirrored/2") / epoch.at("tf_custom_accum/2") *
                                   epoch.at("tf_mirrored/3") / epoch.at("tf_custom_accum/3"));
  const auto answers = ddlsim::study_answer(sw, ddlsim::report_layout(sw, {}));
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].panel, "name=resnet50");
  ASSERT_EQ(answers[0].effects.size(), 1u);
  const ddlsim::FactorEffect& e = answers[0].effects[0];
  EXPECT_EQ(e.best, "tf_custom_accum");
  EXPECT_EQ(e.pairs, 2);
  EXPECT_NEAR(e.mean_ratio, by_hand, 1e-12 * by_hand);
  EXPECT_NE(page.find(fmt::format("framework: tf_custom_accum {:.1f}x faster than tf_mirrored (2 pairs", by_hand)),
            std::string::npos);
  EXPECT_EQ(answers[0].min_ranks, 2);
  EXPECT_EQ(answers[0].max_ranks, 3);
}

// --facets, --colour and --log choose what the defaults choose otherwise; a key the sweep does not
// vary, or another scale, is refused naming the option.
TEST_F(Study, LayoutOptionsChooseFacetsColoursAndTheAxis) {
  std::ofstream(dir.dir() + "/two.ini") << std::string(kStudyIni) << "model.name = resnet50, efficientnet_b0\n"
                                        << "training.batch_per_gpu = 32, 64\n";
  ASSERT_EQ(run_ddlsim("sweep " + dir.dir() + "/two.ini --jobs 1 -o " + dir.dir() + "/two.csv").code, 0);
  auto r = report("two.csv -o a.html --facets none --log none");
  ASSERT_EQ(r.code, 0) << r.out;
  std::string gp = slurp(dir.dir() + "/a_files/epoch_time.gp");
  EXPECT_EQ(gp.find("multiplot"), std::string::npos);
  EXPECT_EQ(gp.find("set logscale y"), std::string::npos);
  EXPECT_NE(slurp(dir.dir() + "/a.html").find("<tr><td>all</td>"), std::string::npos);
  r = report("two.csv -o b.html --facets training.framework --colour model.name --log y");
  ASSERT_EQ(r.code, 0) << r.out;
  gp = slurp(dir.dir() + "/b_files/epoch_time.gp");
  EXPECT_NE(gp.find("set multiplot layout 1,2"), std::string::npos);
  EXPECT_NE(gp.find("set title 'framework=tf_mirrored'"), std::string::npos);
  EXPECT_NE(gp.find("set logscale y"), std::string::npos);
  // Colour follows the model: every ResNet-50 line has the first colour, every EfficientNet-B0 line the second.
  std::istringstream lines(gp);
  int checked = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l.find("with linespoints") == std::string::npos) continue;
    const bool resnet = l.find("name=resnet50") != std::string::npos;
    EXPECT_NE(l.find(resnet ? "lc 1 " : "lc 2 "), std::string::npos) << l;
    ++checked;
  }
  EXPECT_EQ(checked, 2 * 2 * 2 * 2);  // 2 panels x 4 lines, drawn for the SVG and the PNG
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--facets model.precision", "--facets model.precision: not a key this sweep varies"},
           {"--colour cluster.platform", "--colour cluster.platform: not a key this sweep varies"},
           {"--facets model.name --colour model.name", "it is drawn as panels"},
           {"--log x", "--log"}}) {
    r = report("two.csv -o c.html " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
    EXPECT_FALSE(exists(dir.dir() + "/c.html"));
  }
}
