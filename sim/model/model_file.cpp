// Reader of the plain model-file format (docs/model-file.md): one layer a line, sequential,
// mapped onto ModelBuilder. Every error names the file, the line and what was expected.
#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "model/builder.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

// One non-blank line, split into kind, positional arguments and key=value options.
struct Line {
  std::string kind;
  std::vector<std::string> args;
  std::map<std::string, std::string> opts;
};

struct LayerSpec {
  const char* kind;
  const char* usage;
  std::vector<std::string> options;
  Shape (*apply)(ModelBuilder&, Shape, const Line&);
};

[[noreturn]] void fail(const std::string& msg) { throw InputError(msg); }

Line tokenize(const std::string& text) {
  Line line;
  std::istringstream in(text);
  std::string tok;
  in >> line.kind;
  line.kind = to_lower(line.kind);
  while (in >> tok) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos) {
      line.args.push_back(tok);
      continue;
    }
    const std::string key = to_lower(tok.substr(0, eq));
    if (key.empty()) fail(fmt::format("'{}': option '{}' has no name before '='", line.kind, tok));
    if (!line.opts.emplace(key, tok.substr(eq + 1)).second)
      fail(fmt::format("'{}': option '{}' is given twice", line.kind, key));
  }
  return line;
}

int parse_positive(const Line& l, const std::string& text, const char* what) {
  if (const auto v = parse_integer(text, 1, 1000000000)) return int(*v);
  fail(fmt::format("'{}' expects a positive integer {}, got '{}'", l.kind, what, text));
}

int opt_positive(const Line& l, const std::string& key, int fallback, const char* what) {
  const auto it = l.opts.find(key);
  return it == l.opts.end() ? fallback : parse_positive(l, it->second, what);
}

bool opt_bool(const Line& l, const std::string& key, bool fallback) {
  const auto it = l.opts.find(key);
  if (it == l.opts.end()) return fallback;
  const std::string v = to_lower(it->second);
  if (v == "true" || v == "yes" || v == "1") return true;
  if (v == "false" || v == "no" || v == "0") return false;
  fail(fmt::format("'{}' expects {}=true or {}=false, got '{}'", l.kind, key, key, it->second));
}

Padding opt_padding(const Line& l, Padding fallback) {
  const auto it = l.opts.find("padding");
  if (it == l.opts.end()) return fallback;
  const std::string v = to_lower(it->second);
  if (v == "same") return Padding::Same;
  if (v == "valid") return Padding::Valid;
  fail(fmt::format("'{}' expects padding=same or padding=valid, got '{}'", l.kind, it->second));
}

// kernel=3 or kernel=1x7 (height x width); 3x3 when not given.
std::pair<int, int> opt_kernel(const Line& l) {
  const auto it = l.opts.find("kernel");
  if (it == l.opts.end()) return {3, 3};
  const auto x = to_lower(it->second).find('x');
  if (x == std::string::npos) {
    const int k = parse_positive(l, it->second, "kernel size (kernel=K or kernel=HxW)");
    return {k, k};
  }
  return {parse_positive(l, it->second.substr(0, x), "kernel height (kernel=HxW)"),
          parse_positive(l, it->second.substr(x + 1), "kernel width (kernel=HxW)")};
}

std::string check_activation(const Line& l, const std::string& name) {
  const std::string fn = to_lower(name);
  const auto& known = activation_names();
  if (fn != "linear" && std::find(known.begin(), known.end(), fn) == known.end())
    fail(fmt::format("'{}' expects an activation (linear, {}), got '{}'", l.kind, fmt::join(known, ", "), name));
  return fn;
}

// The optional activation=NAME on conv2d, depthwise_conv2d and dense: one Activation layer.
Shape fused_activation(ModelBuilder& b, Shape x, const Line& l) {
  const auto it = l.opts.find("activation");
  if (it == l.opts.end()) return x;
  const std::string fn = check_activation(l, it->second);
  return fn == "linear" ? x : b.activation(x, fn);
}

Shape apply_input(ModelBuilder& b, Shape, const Line& l) {
  Shape s;
  const char* what[] = {"height", "width", "channel count"};
  int* dims[] = {&s.h, &s.w, &s.c};
  const std::size_t n = l.args.size();
  for (std::size_t i = 0; i < n; ++i) *dims[3 - n + i] = parse_positive(l, l.args[i], what[3 - n + i]);
  if (n > 0 && !l.opts.empty()) fail("'input' takes either positional sizes or h=, w=, c=, not both");
  s.h = opt_positive(l, "h", s.h, "height (h=)");
  s.w = opt_positive(l, "w", s.w, "width (w=)");
  s.c = opt_positive(l, "c", s.c, "channel count (c=)");
  return b.input(s);
}

Shape apply_conv2d(ModelBuilder& b, Shape x, const Line& l) {
  const int filters = parse_positive(l, l.args.at(0), "filter count");
  const auto [kh, kw] = opt_kernel(l);
  const int stride = opt_positive(l, "stride", 1, "stride");
  const int groups = opt_positive(l, "groups", 1, "group count");
  x = b.conv2d(x, filters, kh, kw, stride, opt_padding(l, Padding::Same), opt_bool(l, "bias", true), {}, groups);
  return fused_activation(b, x, l);
}

Shape apply_depthwise(ModelBuilder& b, Shape x, const Line& l) {
  const auto [kh, kw] = opt_kernel(l);
  const int stride = opt_positive(l, "stride", 1, "stride");
  x = b.depthwise_conv2d(x, kh, kw, stride, opt_padding(l, Padding::Same), opt_bool(l, "bias", true));
  return fused_activation(b, x, l);
}

// `tied=true`: the weight is a token embedding's table (GPT's output projection, BERT's decoder),
// which must have come before with UNITS rows of the input's width.
Shape apply_dense(ModelBuilder& b, Shape x, const Line& l) {
  const int units = parse_positive(l, l.args.at(0), "unit count");
  if (!opt_bool(l, "tied", false)) {
    x = b.dense(x, units, opt_bool(l, "bias", true));
    return fused_activation(b, x, l);
  }
  const double table = double(units) * x.c;
  const auto& ls = b.layers();
  if (std::none_of(ls.begin(), ls.end(), [&](const Layer& e) {
        return e.kind == LayerKind::Embedding && e.out.c == x.c && double(e.params_trainable) == table;
      }))
    fail(fmt::format("'dense {} tied=true' needs a token embedding of {} rows and {} columns (the input's width) "
                     "before it, whose table it multiplies by",
                     units, units, x.c));
  x = b.tied_dense(x, units, opt_bool(l, "bias", true));
  return fused_activation(b, x, l);
}

Shape apply_batchnorm(ModelBuilder& b, Shape x, const Line& l) { return b.batchnorm(x, opt_bool(l, "scale", true)); }

Shape apply_activation(ModelBuilder& b, Shape x, const Line& l) {
  const std::string fn = check_activation(l, l.args.at(0));
  return fn == "linear" ? x : b.activation(x, fn);
}

Shape apply_pool(ModelBuilder& b, Shape x, const Line& l) {
  const int size = l.args.empty() ? 2 : parse_positive(l, l.args[0], "pool size");
  const int stride = opt_positive(l, "stride", size, "stride");
  const PoolKind kind = l.kind == "maxpool" ? PoolKind::Max : PoolKind::Avg;
  return b.pool(x, kind, size, stride, opt_padding(l, Padding::Valid));
}

Shape apply_global_pool(ModelBuilder& b, Shape x, const Line& l) {
  return b.global_pool(x, l.kind == "globalmaxpool" ? PoolKind::Max : PoolKind::Avg);
}

Shape apply_dropout(ModelBuilder& b, Shape x, const Line& l) {
  const auto rate = [](const std::string& t) { return parse_real(t, 0, 1).value_or(1); };
  if (!l.args.empty() && !(rate(l.args[0]) < 1))
    fail(fmt::format("'dropout' expects a rate in [0, 1), got '{}'", l.args[0]));
  return b.dropout(x);
}

Shape apply_zeropad(ModelBuilder& b, Shape x, const Line& l) {
  const int p = parse_positive(l, l.args.at(0), "padding width");
  return b.zero_padding(x, p, p, p, p);
}

Shape apply_flatten(ModelBuilder& b, Shape x, const Line&) { return b.flatten(x); }
Shape apply_rescaling(ModelBuilder& b, Shape x, const Line&) { return b.rescaling(x); }
Shape apply_normalization(ModelBuilder& b, Shape x, const Line&) { return b.normalization(x); }
Shape apply_layernorm(ModelBuilder& b, Shape x, const Line&) { return b.layer_norm(x); }
Shape apply_first_token(ModelBuilder& b, Shape x, const Line&) { return b.take_token(x); }

Shape apply_patch_embedding(ModelBuilder& b, Shape x, const Line& l) {
  return b.patch_embedding(x, parse_positive(l, l.args.at(0), "patch size"), parse_positive(l, l.args.at(1), "width"),
                           {});
}

// dropout=R: a rate in [0, 1).
double opt_rate(const Line& l) {
  const auto it = l.opts.find("dropout");
  if (it == l.opts.end()) return 0;
  if (const auto v = parse_real(it->second, 0, 1); v && *v < 1) return *v;
  fail(fmt::format("'{}' expects dropout=RATE with a rate in [0, 1), got '{}'", l.kind, it->second));
}

Shape apply_transformer_block(ModelBuilder& b, Shape x, const Line& l) {
  const auto act = l.opts.find("activation");
  const BlockStyle style{opt_bool(l, "causal", false),
                         opt_bool(l, "post_norm", false),
                         opt_rate(l),
                         opt_bool(l, "separate_qkv", false),
                         act == l.opts.end() ? "gelu" : act->second,
                         opt_bool(l, "scale_scores", false),
                         opt_bool(l, "attention_mask", false)};
  return b.encoder_block(x, parse_positive(l, l.args.at(0), "head count"), parse_positive(l, l.args.at(1), "MLP width"),
                         {}, style);
}

Shape apply_token_embedding(ModelBuilder& b, Shape x, const Line& l) {
  return b.token_embedding(x, parse_positive(l, l.args.at(0), "vocabulary size"), parse_positive(l, l.args.at(1), "width"),
                           parse_positive(l, l.args.at(2), "position count"),
                           l.opts.count("segments") ? parse_positive(l, l.opts.at("segments"), "segment count") : 0,
                           opt_bool(l, "norm", false), opt_rate(l), {});
}

const std::vector<LayerSpec>& layer_specs() {
  static const std::vector<LayerSpec> specs = {
      {"input", "input [[H] W] C | input h=H w=W c=C", {"h", "w", "c"}, apply_input},
      {"conv2d", "conv2d FILTERS [kernel=K|HxW] [stride=S] [padding=same|valid] [bias=true|false] [groups=G] "
                 "[activation=NAME]",
       {"kernel", "stride", "padding", "bias", "groups", "activation"}, apply_conv2d},
      {"depthwise_conv2d", "depthwise_conv2d [kernel=K|HxW] [stride=S] [padding=same|valid] [bias=..] [activation=..]",
       {"kernel", "stride", "padding", "bias", "activation"}, apply_depthwise},
      {"dense", "dense UNITS [activation=NAME] [bias=true|false] [tied=true|false]", {"activation", "bias", "tied"},
       apply_dense},
      {"batchnorm", "batchnorm [scale=true|false]", {"scale"}, apply_batchnorm},
      {"activation", "activation NAME", {}, apply_activation},
      {"maxpool", "maxpool [SIZE] [stride=S] [padding=valid|same]", {"stride", "padding"}, apply_pool},
      {"avgpool", "avgpool [SIZE] [stride=S] [padding=valid|same]", {"stride", "padding"}, apply_pool},
      {"globalavgpool", "globalavgpool", {}, apply_global_pool},
      {"globalmaxpool", "globalmaxpool", {}, apply_global_pool},
      {"flatten", "flatten", {}, apply_flatten},
      {"dropout", "dropout [RATE]", {}, apply_dropout},
      {"zeropad", "zeropad N", {}, apply_zeropad},
      {"rescaling", "rescaling", {}, apply_rescaling},
      {"normalization", "normalization", {}, apply_normalization},
      {"patch_embedding", "patch_embedding PATCH WIDTH", {}, apply_patch_embedding},
      {"transformer_block",
       "transformer_block HEADS MLP_WIDTH [causal=true|false] [post_norm=true|false] [dropout=RATE] "
       "[separate_qkv=true|false] [activation=gelu|gelu_new|...] [scale_scores=true|false] "
       "[attention_mask=true|false]",
       {"causal", "post_norm", "dropout", "separate_qkv", "activation", "scale_scores", "attention_mask"},
       apply_transformer_block},
      {"token_embedding", "token_embedding VOCAB WIDTH POSITIONS [segments=N] [norm=true|false] [dropout=RATE]",
       {"segments", "norm", "dropout"}, apply_token_embedding},
      {"layernorm", "layernorm", {}, apply_layernorm},
      {"first_token", "first_token", {}, apply_first_token},
  };
  return specs;
}

// Positional argument counts each kind accepts: {min, max}.
std::pair<std::size_t, std::size_t> arg_range(const std::string& kind) {
  if (kind == "input") return {0, 3};
  if (kind == "conv2d" || kind == "dense" || kind == "activation" || kind == "zeropad") return {1, 1};
  if (kind == "maxpool" || kind == "avgpool" || kind == "dropout") return {0, 1};
  if (kind == "patch_embedding" || kind == "transformer_block") return {2, 2};
  if (kind == "token_embedding") return {3, 3};
  return {0, 0};
}

const LayerSpec& find_spec(const Line& l) {
  const auto& specs = layer_specs();
  for (const auto& s : specs)
    if (l.kind == s.kind) return s;
  std::vector<std::string> kinds;
  for (const auto& s : specs) kinds.emplace_back(s.kind);
  fail(fmt::format("unknown layer kind '{}'; expected one of name, {}", l.kind, fmt::join(kinds, ", ")));
}

void check_shape_of_line(const Line& l, const LayerSpec& spec) {
  const auto [lo, hi] = arg_range(l.kind);
  if (l.args.size() < lo || l.args.size() > hi)
    fail(fmt::format("'{}' got {} positional argument(s); usage: {}", l.kind, l.args.size(), spec.usage));
  for (const auto& [key, value] : l.opts)
    if (std::find(spec.options.begin(), spec.options.end(), key) == spec.options.end())
      fail(fmt::format("'{}' does not take option '{}'; usage: {}", l.kind, key, spec.usage));
}

// The file's name without folder and extension, its control characters as '_' (it names the model
// where the file has no 'name' line, and reaches tables and terminals).
std::string stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string s = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = s.find_last_of('.');
  if (dot != std::string::npos && dot != 0) s = s.substr(0, dot);
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (const int n = invisible_control_length(s, i)) {
      out += '_';
      i += n - 1;
    } else {
      out += c < 0x20 || c == 0x7f ? '_' : s[i];
    }
  }
  return out;
}

// Applies one line; `name` collects a `name` directive.
Shape apply_line(ModelBuilder& b, Shape x, const Line& l, std::string& name) {
  if (l.kind == "name") {
    if (l.args.size() != 1 || !l.opts.empty()) fail("'name' expects one word, the model name");
    // The name reaches tables, CSVs and terminals: printable characters only.
    for (std::size_t i = 0; i < l.args[0].size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(l.args[0][i]);
      if (c < 0x20 || c == 0x7f || invisible_control_length(l.args[0], i) > 0)
        fail(fmt::format("'name' expects printable characters, got '{}'", clip(l.args[0])));
    }
    name = l.args[0];
    return x;
  }
  const LayerSpec& spec = find_spec(l);
  check_shape_of_line(l, spec);
  if (l.kind == "input" && b.has_input()) fail("a second 'input' line; a model file has exactly one");
  if (l.kind != "input" && !b.has_input())
    fail(fmt::format("'{}' before any 'input' line; the first layer must be 'input'", l.kind));
  return spec.apply(b, x, l);
}

}  // namespace

Model parse_model_file(const std::string& text, const std::string& origin) {
  std::string name = stem(origin);
  ModelBuilder b(name);
  Shape x;
  std::istringstream in(text);
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    const std::string body = trim(raw.substr(0, raw.find('#')));
    if (body.empty()) continue;
    try {
      x = apply_line(b, x, tokenize(body), name);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}:{}: {}", origin, number, e.what()));
    }
  }
  if (!b.has_input()) throw InputError(origin + ": no 'input' line; a model file starts with e.g. 'input 224 224 3'");
  if (b.layers().size() < 2) throw InputError(origin + ": no layers after the 'input' line");
  Model m = b.finish();
  m.name = name;
  return m;
}

Model load_model_file(const std::string& path) {
  return parse_model_file(read_text_file(path, "model file"), path);
}

}  // namespace model_layer
}  // namespace ddlsim
