// Figures of a study report as gnuplot input: each figure is a script and a data file that stay
// beside the figure (report_files/NAME.gp, NAME.dat), so that `gnuplot NAME.gp` in that folder
// draws NAME.svg and NAME.png again; users restyle by editing the script. Text from the inputs
// (factor values, file names) reaches the script only as single-quoted strings with quotes and
// control characters replaced, and never as a command.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {
inline namespace study_layer {

struct CurvePoint {
  double x = 0;
  double y = 0;
  double spread = 0;  // error bar half-height (ErrorBars only)
  double lo = 0, hi = 0;  // the band's ends (Band only)
};

// Band: a shaded 80 % interval under its line (the same colour), drawn first.
enum class SeriesStyle { Line, ErrorBars, Reference, Band };

struct CurveSeries {
  std::string title;
  SeriesStyle style = SeriesStyle::Line;
  int color = 1;  // gnuplot line type, 1-based; the same for a prediction and its measurements
  std::vector<CurvePoint> points;
  int dash = 0;   // gnuplot dash type; 0: from the colour (a new dash every 8 colours)
};

// The y axis of a line figure: logarithmic where the values span more than a factor 10 (Auto).
enum class LogAxis { Auto, Log, Linear };

// One panel of lines: its title ("" for a figure of one panel) and its series.
struct LinePanel {
  std::string title;
  std::vector<CurveSeries> series;
};

// Lines against a numeric x axis (ranks): one panel, or small multiples (one panel per combination
// of the slow factors, two a row), each with its own legend. The y axis is logarithmic where the
// figure's values span more than a factor 10.
struct LineFigure {
  std::string name;  // file stem: NAME.gp, NAME.dat, NAME.svg, NAME.png
  std::string title, xlabel, ylabel;
  std::vector<LinePanel> panels;
  LogAxis log = LogAxis::Auto;
};

// One stacked bar per configuration.
struct StackedBars {
  std::string name;
  std::string title, xlabel, ylabel;
  std::vector<std::string> parts;               // legend, bottom to top
  std::vector<std::string> labels;              // one per bar
  std::vector<std::vector<double>> values;      // [bar][part]
};

// What gnuplot needs for one figure, and what the page says about it.
struct FigureSource {
  std::string name;
  std::string title;
  std::string script;  // NAME.gp
  std::string data;    // NAME.dat
  std::string caption; // what the page says under it
};

FigureSource line_figure_source(const LineFigure& f);
FigureSource bar_figure_source(const StackedBars& f);

// Text made safe for a single-quoted gnuplot string and a data file's quoted label.
std::string plot_text(const std::string& s);

}  // namespace study_layer
}  // namespace ddlsim
