// `ddlsim report` in a real browser: the Poti factorial sweep (scenarios/pcad_factorial.ini) with
// the made-up measured runs of tests/report/ is rendered by Debian's chromium, headless. The page
// must load with no console message, every figure's <svg> must be in the DOM, and the screenshot
// must be a real picture (far larger than a blank page's). Skipped when chromium or gnuplot is
// absent. A timed test because it starts a browser (seconds); CTest runs it alone.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_util.hpp"

using testutil::run_shell;
using testutil::slurp;
using testutil::TempFile;

namespace {

bool have(const std::string& program) { return run_shell("command -v " + program + " >/dev/null 2>&1").code == 0; }

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// chromium, headless, on a local file; `what` is --dump-dom or --screenshot=PNG. Its log (stderr,
// where console messages appear as "...:CONSOLE...") goes to LOG; the DOM, if asked, is returned.
testutil::RunResult chromium(const std::string& dir, const std::string& what, const std::string& page,
                             const std::string& log) {
  return run_shell("cd " + dir + " && timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir=" + dir +
                   "/profile --enable-logging=stderr --v=0 --window-size=1200,3000 " + what + " file://" + page + " 2>" +
                   log);
}

// The figure with this id holds an <svg> element in the DOM.
bool svg_in_figure(const std::string& dom, const std::string& id) {
  const auto at = dom.find("<figure id=\"" + id + "\"");
  if (at == std::string::npos) return false;
  const auto svg = dom.find("<svg", at), end = dom.find("</figure>", at);
  return svg != std::string::npos && svg < end;
}

std::size_t file_size(const std::string& path) { return slurp(path).size(); }

}  // namespace

TEST(ReportBrowser, PotiFactorialWithMeasuredRunsRendersEveryFigure) {
  if (!have("chromium")) GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium)";
  if (!have("gnuplot")) GTEST_SKIP() << "gnuplot is not installed (Debian: apt-get install gnuplot-nox)";
  TempFile dir("unused");
  const std::string d = dir.dir(), ddlsim = DDLSIM_BINARY, src = testutil::source_dir();
  auto r = run_shell("cd " + d + " && " + ddlsim + " sweep " + src + "/scenarios/pcad_factorial.ini --jobs 1 -o sweep.csv 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  r = run_shell("cd " + d + " && " + ddlsim + " report sweep.csv --measured " + src +
                "/tests/report/poti_measured_made_up.csv --map model=model.name --map strategy=training.framework"
                " --map batch=training.batch_per_gpu --map nodes=cluster.nodes --value strategy:fit=tf_mirrored"
                " --value strategy:custom=tf_custom_accum -o report.html 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string page = slurp(d + "/report.html");
  const int figures = count(page, "<figure id=");
  ASSERT_EQ(figures, 4);
  ASSERT_NE(page.find("(measured)"), std::string::npos);

  const auto dom = chromium(d, "--dump-dom", d + "/report.html", d + "/dom.log");
  ASSERT_EQ(dom.code, 0) << slurp(d + "/dom.log");
  EXPECT_EQ(count(dom.out, "<svg"), figures);
  for (const char* fig : {"fig-epoch_time", "fig-speedup", "fig-efficiency", "fig-step_breakdown"})
    EXPECT_TRUE(svg_in_figure(dom.out, fig)) << fig;
  EXPECT_NE(dom.out.find("<table id=\"measured\">"), std::string::npos);
  const std::string log = slurp(d + "/dom.log");
  EXPECT_EQ(log.find(":CONSOLE"), std::string::npos) << log;

  std::ofstream(d + "/blank.html") << "<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>\n";
  ASSERT_EQ(chromium(d, "--screenshot=" + d + "/blank.png", d + "/blank.html", d + "/blank.log").code, 0);
  ASSERT_EQ(chromium(d, "--screenshot=" + d + "/shot.png", d + "/report.html", d + "/shot.log").code, 0)
      << slurp(d + "/shot.log");
  EXPECT_EQ(slurp(d + "/shot.log").find(":CONSOLE"), std::string::npos) << slurp(d + "/shot.log");
  ASSERT_EQ(slurp(d + "/shot.png").substr(1, 3), "PNG");
  // A blank 1200x3000 page compresses to a few kB; the figures and tables make it far larger.
  EXPECT_GT(file_size(d + "/shot.png"), 10 * file_size(d + "/blank.png"))
      << file_size(d + "/shot.png") << " vs blank " << file_size(d + "/blank.png");

  // What a reader sees on the first screen (1400 x 900): the answer and the whole first figure, its
  // text at least 11 px (font size as drawn: the SVG's own times its scale on the page). A copy of
  // the page with a probe script (the page itself has none) writes the layout into the DOM.
  const std::string probe =
      "<script>const s=document.querySelector('figure svg'),r=s.getBoundingClientRect(),"
      "a=document.getElementById('answer').getBoundingClientRect(),k=r.width/s.viewBox.baseVal.width;let h=1e9;"
      "for(const t of s.querySelectorAll('text'))if(t.textContent.trim())"
      "h=Math.min(h,parseFloat(getComputedStyle(t).fontSize)*k);"
      "document.body.setAttribute('data-layout',[a.top,r.top,r.bottom,h].join(' '));</script></body>";
  std::string copy = page;
  copy.replace(copy.rfind("</body>"), 7, probe);
  std::ofstream(d + "/probe.html") << copy;
  const auto laid = run_shell("cd " + d + " && timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir=" +
                              d + "/profile --window-size=1400,900 --dump-dom file://" + d + "/probe.html 2>/dev/null");
  const auto at = laid.out.find("data-layout=\"");
  ASSERT_NE(at, std::string::npos) << laid.out.substr(0, 2000);
  std::istringstream layout(laid.out.substr(at + 13));
  double answer_top = 0, figure_top = 0, figure_bottom = 0, text_px = 0;
  layout >> answer_top >> figure_top >> figure_bottom >> text_px;
  EXPECT_LT(answer_top, figure_top);
  EXPECT_LE(figure_bottom, 900) << "the first figure ends below the first screen";
  EXPECT_GE(text_px, 11) << "the first figure's smallest text";
}
