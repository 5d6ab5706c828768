// `ddlsim advise`: inverse questions answered with forward predictions.
//  * A continuous or integer key with a target (`efficiency=0.8`): the loosest value that reaches
//    it -- the least value when the metric improves as the key grows (bandwidth), the greatest when
//    it improves as the key shrinks (latency). The range is sampled (33 points); when the metric is
//    monotone over them the first sample reaching the target, seen from the loose end, brackets the
//    boundary and bisection narrows it (relative 1e-9, or to one integer). When it is not monotone
//    the advice says so and samples 257 points before bisecting the first bracket the same way.
//    The answer is the boundary rounded to 5 significant digits on the reaching side.
//  * A choice key (algorithm, framework, ...), an integer key without a target, or listed values
//    (`--values`): every value predicted and ranked by the objective; with a target, the best value
//    that reaches it.
//  * nodes_optimum: cluster.nodes ranked by epoch time; the answer is the fastest node count.
// Every answer is then predicted forward on its own (the `simulate` of that value), and with SimGrid
// when asked. A target that no value reaches is no error: the advice says so and names the best value.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan/evaluator.hpp"
#include "plan/plan_keys.hpp"

namespace ddlsim {
inline namespace plan_layer {

enum class Objective { EpochTime, Efficiency, GpuHours };
Objective parse_objective(const std::string& text);  // epoch_time, efficiency, gpu_hours
Metric objective_metric(Objective o);

struct Target {
  Metric metric;
  double value = 0;
  bool reached_by(double v) const { return metric.higher_is_better ? v >= value : v <= value; }
};
// "METRIC=VALUE"; throws InputError naming --target.
Target parse_target(const std::string& text);
// "LO..HI", two numbers with LO < HI; throws InputError naming `origin`.
std::pair<double, double> parse_range(const std::string& text, const std::string& origin);

struct AdviseRequest {
  std::string key;  // --vary
  std::optional<Target> target;
  std::optional<std::pair<double, double>> range;
  std::vector<std::string> values;  // --values: rank these
  Objective objective = Objective::EpochTime;
  bool nodes_optimum = false;
  bool verify_simgrid = false;
};

struct Candidate {
  std::string value;
  Outcome outcome;
  bool reaches = false;  // meets the target (false without one)
};

// Where the boundary lies as the target metric's 80 % interval sees it (predict/uncertainty.hpp):
// the value that reaches the target by its optimistic percentile and by its pessimistic one; ""
// where that percentile reaches it nowhere in the range.
struct AnswerInterval {
  std::string optimistic, pessimistic;
};

struct Advice {
  PlanKey key;
  std::optional<Target> target;
  Metric objective;
  std::string method;      // bisection, scan, ranking
  std::string searched;    // what was searched, in words
  bool reachable = true;
  std::string answer;      // the chosen value, as text
  std::optional<double> boundary;  // bisection: the boundary before rounding
  std::optional<AnswerInterval> interval;  // a boundary's, for a metric the interval covers
  std::string conclusion;  // one sentence
  std::vector<std::string> notes;
  std::vector<Candidate> ranked;  // ranking: best first, failed last
  Candidate check;                // forward prediction of the answer (the scenario's backend)
  std::optional<Candidate> simgrid_check;
};

// Throws InputError for a bad request (key, range, values) or when no value can be predicted.
Advice advise(const Evaluator& ev, const AdviseRequest& req);

}  // namespace plan_layer
}  // namespace ddlsim
