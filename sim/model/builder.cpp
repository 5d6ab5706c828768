#include "model/builder.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <utility>

#include "core/error.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

std::string shape_text(Shape s) { return fmt::format("{}x{}x{}", s.h, s.w, s.c); }

void require_positive(int v, const std::string& layer, const char* what) {
  if (v < 1) throw InputError(fmt::format("layer '{}': {} must be a positive integer, got {}", layer, what, v));
}

// Sizes past these are surely typing errors, and they keep every count inside 64-bit integers
// (and every shape inside int): a dimension, the values of one layer's output per sample, and
// the parameters of one layer.
constexpr double kMaxDim = double(1 << 30);
constexpr double kMaxElems = double(1LL << 36);
constexpr double kMaxLayerParams = double(1LL << 40);

// A size computed in double (no overflow), checked against its limit.
std::int64_t bounded(double v, double limit, const std::string& layer, const char* what) {
  if (!(v <= limit))
    throw InputError(fmt::format("layer '{}': {} {:.4g} is too large (at most {:.4g}); check the layer's sizes",
                                 layer, what, v, limit));
  return std::int64_t(v);
}

int dim(double v, const std::string& layer, const char* what) { return int(bounded(v, kMaxDim, layer, what)); }

std::int64_t params(double v, const std::string& layer) { return bounded(v, kMaxLayerParams, layer, "parameter count"); }

// Every layer is made here, so every output shape is checked here (inputs are earlier outputs).
Layer make_layer(const std::string& name, LayerKind kind, Shape in, Shape out) {
  for (const auto& [v, what] : {std::pair{out.h, "output height"}, {out.w, "output width"}, {out.c, "output channels"}})
    dim(v, name, what);
  bounded(double(out.h) * out.w * out.c, kMaxElems, name, "output size (values per sample)");
  Layer l;
  l.name = name;
  l.kind = kind;
  l.in = in;
  l.out = out;
  l.in_elems = in.elems();
  l.out_elems = out.elems();
  if (in.producer >= 0) l.inputs = {in.producer};
  return l;
}

// The producers of several inputs (add, multiply, concatenate).
std::vector<int> producers(const std::vector<Shape>& xs) {
  std::vector<int> ids;
  for (const Shape& s : xs)
    if (s.producer >= 0) ids.push_back(s.producer);
  return ids;
}

}  // namespace

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names = {"relu",    "relu6", "swish", "silu", "sigmoid", "hard_sigmoid",
                                                 "softmax", "tanh",  "gelu",  "elu",  "selu",    "leaky_relu",
                                                 "softplus", "hard_swish", "gelu_new"};
  return names;
}

ModelBuilder::ModelBuilder(std::string model_name) { model_.name = std::move(model_name); }

std::string ModelBuilder::layer_name(const std::string& given, const std::string& base) {
  if (!given.empty()) return given;
  const int n = name_counts_[base]++;
  return n == 0 ? base : fmt::format("{}_{}", base, n);
}

Shape ModelBuilder::append(Layer l) {
  l.out.producer = int(model_.layers.size());
  model_.layers.push_back(std::move(l));
  return model_.layers.back().out;
}

int ModelBuilder::window_out(int in, int k, int stride, Padding pad, const std::string& name,
                             const char* what) const {
  if (pad == Padding::Same) return (in + stride - 1) / stride;
  if (in < k)
    throw InputError(fmt::format("layer '{}': a {} of {} with valid padding needs an input of at least {}, got {}",
                                 name, what, k, k, in));
  return (in - k) / stride + 1;
}

Shape ModelBuilder::input(Shape s, const std::string& name) {
  const std::string n = layer_name(name, "input");
  require_positive(s.h, n, "input height");
  require_positive(s.w, n, "input width");
  require_positive(s.c, n, "input channels");
  if (!model_.layers.empty()) throw InputError(fmt::format("layer '{}': the model already has an input", n));
  model_.input = s;
  Layer l = make_layer(n, LayerKind::Input, s, s);
  l.in_elems = 0;
  return append(l);
}

Shape ModelBuilder::conv2d(Shape x, int filters, int kh, int kw, int stride, Padding pad, bool use_bias,
                           const std::string& name, int groups) {
  const std::string n = layer_name(name, "conv2d");
  require_positive(filters, n, "filters");
  require_positive(kh, n, "kernel height");
  require_positive(kw, n, "kernel width");
  require_positive(stride, n, "stride");
  require_positive(groups, n, "groups");
  if (x.c % groups != 0 || filters % groups != 0)
    throw InputError(fmt::format("layer '{}': {} groups must divide the {} input channels and the {} filters", n,
                                 groups, x.c, filters));
  const Shape out{window_out(x.h, kh, stride, pad, n, "kernel height"),
                  window_out(x.w, kw, stride, pad, n, "kernel width"), filters};
  Layer l = make_layer(n, LayerKind::Conv2D, x, out);
  l.geom = ConvGeometry{kh, kw, stride, groups};
  const double fan_in = double(kh) * kw * (x.c / groups);
  l.params_trainable = params(fan_in * filters + (use_bias ? filters : 0), n);
  l.fwd_flops = 2.0 * double(out.elems()) * fan_in + (use_bias ? double(out.elems()) : 0.0);
  return append(l);
}

Shape ModelBuilder::depthwise_conv2d(Shape x, int kh, int kw, int stride, Padding pad, bool use_bias,
                                     const std::string& name) {
  const std::string n = layer_name(name, "depthwise_conv2d");
  require_positive(kh, n, "kernel height");
  require_positive(kw, n, "kernel width");
  require_positive(stride, n, "stride");
  const Shape out{window_out(x.h, kh, stride, pad, n, "kernel height"),
                  window_out(x.w, kw, stride, pad, n, "kernel width"), x.c};
  Layer l = make_layer(n, LayerKind::DepthwiseConv2D, x, out);
  l.geom = ConvGeometry{kh, kw, stride, x.c};
  l.params_trainable = params(double(kh) * kw * x.c + (use_bias ? x.c : 0), n);
  l.fwd_flops = 2.0 * double(out.elems()) * kh * kw + (use_bias ? double(out.elems()) : 0.0);
  return append(l);
}

Shape ModelBuilder::dense(Shape x, int units, bool use_bias, const std::string& name) {
  const std::string n = layer_name(name, "dense");
  require_positive(units, n, "units");
  const Shape out{x.h, x.w, units};
  Layer l = make_layer(n, LayerKind::Dense, x, out);
  l.geom = ConvGeometry{1, 1, 1, 1};
  l.params_trainable = params(double(x.c) * units + (use_bias ? units : 0), n);
  l.fwd_flops = 2.0 * double(out.elems()) * x.c + (use_bias ? double(out.elems()) : 0.0);
  return append(l);
}

Shape ModelBuilder::batchnorm(Shape x, bool scale, const std::string& name) {
  Layer l = make_layer(layer_name(name, "batch_normalization"), LayerKind::BatchNorm, x, x);
  l.params_trainable = (scale ? 2 : 1) * std::int64_t(x.c);  // gamma (if scale) and beta
  l.params_non_trainable = 2 * std::int64_t(x.c);              // moving mean and variance
  l.fwd_flops = 2.0 * double(x.elems());
  return append(l);
}

void ModelBuilder::bias_in_params_only() {
  if (!model_.layers.empty()) model_.layers.back().bias_in_params_only = true;
}

Shape ModelBuilder::activation(Shape x, const std::string& fn, const std::string& name, bool inplace) {
  const auto& known = activation_names();
  const std::string n = layer_name(name, fn.empty() ? "activation" : fn);
  if (std::find(known.begin(), known.end(), fn) == known.end())
    throw InputError(fmt::format("layer '{}': unknown activation '{}'; expected one of {}", n, fn,
                                 fmt::join(known, ", ")));
  Layer l = make_layer(n, LayerKind::Activation, x, x);
  l.fn = fn;
  l.inplace = inplace;
  l.fwd_flops = double(x.elems());
  return append(l);
}

Shape ModelBuilder::pool(Shape x, PoolKind kind, int size, int stride, Padding pad, const std::string& name) {
  const std::string n = layer_name(name, kind == PoolKind::Max ? "max_pooling2d" : "average_pooling2d");
  require_positive(size, n, "pool size");
  require_positive(stride, n, "pool stride");
  const Shape out{window_out(x.h, size, stride, pad, n, "pool height"),
                  window_out(x.w, size, stride, pad, n, "pool width"), x.c};
  Layer l = make_layer(n, LayerKind::Pool, x, out);
  l.fwd_flops = double(out.elems()) * size * size;
  return append(l);
}

Shape ModelBuilder::global_pool(Shape x, PoolKind kind, const std::string& name) {
  const std::string base = kind == PoolKind::Max ? "global_max_pooling2d" : "global_average_pooling2d";
  Layer l = make_layer(layer_name(name, base), LayerKind::Pool, x, Shape{1, 1, x.c});
  l.fwd_flops = double(x.elems());
  return append(l);
}

Shape ModelBuilder::add(const std::vector<Shape>& xs, const std::string& name) {
  const std::string n = layer_name(name, "add");
  if (xs.size() < 2) throw InputError(fmt::format("layer '{}': add needs at least two inputs", n));
  Layer l = make_layer(n, LayerKind::Add, xs.front(), xs.front());
  l.in_elems = 0;
  for (const Shape& s : xs) {
    if (s.h != xs.front().h || s.w != xs.front().w || s.c != xs.front().c)
      throw InputError(fmt::format("layer '{}': cannot add {} and {}", n, shape_text(xs.front()), shape_text(s)));
    l.in_elems += s.elems();
  }
  l.fwd_flops = double(xs.size() - 1) * double(l.out_elems);
  l.inputs = producers(xs);
  return append(l);
}

Shape ModelBuilder::multiply(Shape x, Shape scale, const std::string& name) {
  const std::string n = layer_name(name, "multiply");
  const bool same = scale.h == x.h && scale.w == x.w && scale.c == x.c;
  const bool broadcast = scale.h == 1 && scale.w == 1 && scale.c == x.c;
  if (!same && !broadcast)
    throw InputError(fmt::format("layer '{}': cannot multiply {} by {}", n, shape_text(x), shape_text(scale)));
  Layer l = make_layer(n, LayerKind::Multiply, x, x);
  l.in_elems = x.elems() + scale.elems();
  l.fwd_flops = double(x.elems());
  l.inputs = producers({x, scale});
  return append(l);
}

Shape ModelBuilder::channel_scale(Shape x, const std::string& name) {
  Layer l = make_layer(layer_name(name, "layer_scale"), LayerKind::Multiply, x, x);
  l.params_trainable = x.c;
  l.fwd_flops = double(x.elems());
  return append(l);
}

namespace {
// The shape of xs side by side along the channels.
Shape concat_shape(const std::vector<Shape>& xs, const std::string& n) {
  if (xs.empty()) throw InputError(fmt::format("layer '{}': concatenate needs inputs", n));
  Shape out{xs.front().h, xs.front().w, 0};
  double channels = 0;
  for (const Shape& s : xs) {
    if (s.h != out.h || s.w != out.w)
      throw InputError(fmt::format("layer '{}': cannot concatenate {} and {}", n, shape_text(xs.front()),
                                   shape_text(s)));
    channels += s.c;
  }
  out.c = dim(channels, n, "output channels");
  return out;
}
}  // namespace

Shape ModelBuilder::concat(const std::vector<Shape>& xs, const std::string& name) {
  const std::string n = layer_name(name, "concatenate");
  const Shape out = concat_shape(xs, n);
  Layer l = make_layer(n, LayerKind::Concat, xs.front(), out);
  l.in_elems = out.elems();
  l.inputs = producers(xs);
  return append(l);
}

Shape ModelBuilder::zero_padding(Shape x, int top, int bottom, int left, int right, const std::string& name) {
  const std::string n = layer_name(name, "zero_padding2d");
  if (std::min({top, bottom, left, right}) < 0)
    throw InputError(fmt::format("layer '{}': padding must not be negative", n));
  const Shape out{dim(double(x.h) + top + bottom, n, "output height"), dim(double(x.w) + left + right, n, "output width"),
                  x.c};
  return append(make_layer(n, LayerKind::Reshape, x, out));
}

Shape ModelBuilder::flatten(Shape x, const std::string& name) {
  const std::string n = layer_name(name, "flatten");
  const Shape out{1, 1, dim(double(x.elems()), n, "output size")};
  return append(make_layer(n, LayerKind::Reshape, x, out));
}

Shape ModelBuilder::dropout(Shape x, const std::string& name, double rate) {
  Layer l = make_layer(layer_name(name, "dropout"), rate > 0 ? LayerKind::Dropout : LayerKind::Reshape, x, x);
  l.dropout = rate;
  return append(l);
}

Shape ModelBuilder::squeeze_excite(Shape x, int squeeze, const std::string& act, const std::string& gate,
                                   const std::string& prefix) {
  Shape s = global_pool(x, PoolKind::Avg, prefix + "pool");
  // torchvision's EfficientNets pass SqueezeExcitation an in-place SiLU (partial(nn.SiLU, inplace=True));
  // its other users' ReLU needs no copy in place or not (Layer::inplace_copies_input).
  s = activation(conv2d(s, squeeze, 1, 1, 1, Padding::Same, true, prefix + "fc1"), act, prefix + act, true);
  s = activation(conv2d(s, x.c, 1, 1, 1, Padding::Same, true, prefix + "fc2"), gate, prefix + gate);
  return multiply(x, s, prefix + "scale");
}

Shape ModelBuilder::stochastic_depth(Shape x, double rate, const std::string& name) {
  Layer l = make_layer(layer_name(name, "stochastic_depth"), rate > 0 ? LayerKind::Dropout : LayerKind::Reshape, x, x);
  l.dropout = rate;
  l.per_sample = true;
  return append(l);
}

Shape ModelBuilder::rescaling(Shape x, const std::string& name) {
  Layer l = make_layer(layer_name(name, "rescaling"), LayerKind::Reshape, x, x);
  l.fwd_flops = double(x.elems());
  return append(l);
}

Shape ModelBuilder::normalization(Shape x, const std::string& name) {
  Layer l = make_layer(layer_name(name, "normalization"), LayerKind::Normalization, x, x);
  l.params_non_trainable = 2 * std::int64_t(x.c) + 1;  // mean, variance, count
  l.fwd_flops = 2.0 * double(x.elems());
  return append(l);
}

Shape ModelBuilder::tokens(Shape x, const std::string& name) {
  const std::string n = layer_name(name, "tokens");
  return append(make_layer(n, LayerKind::Reshape, x, Shape{dim(double(x.h) * x.w, n, "token count"), 1, x.c}));
}

Shape ModelBuilder::prepend_token(Shape x, const std::string& name) {
  const std::string n = layer_name(name, "class_token");
  if (x.w != 1) throw InputError(fmt::format("layer '{}': expected tokens (Tx1xC), got {}", n, shape_text(x)));
  Layer l = make_layer(n, LayerKind::Concat, x, Shape{dim(double(x.h) + 1, n, "token count"), 1, x.c});
  l.in_elems = l.out_elems;
  l.params_trainable = x.c;
  return append(l);
}

Shape ModelBuilder::add_parameter(Shape x, const std::string& name) {
  Layer l = make_layer(layer_name(name, "position_embedding"), LayerKind::Add, x, x);
  l.params_trainable = params(double(x.elems()), l.name);
  l.fwd_flops = double(x.elems());
  return append(l);
}

Shape ModelBuilder::take_token(Shape x, const std::string& name) {
  return append(make_layer(layer_name(name, "take_token"), LayerKind::Reshape, x, Shape{1, 1, x.c}));
}

Shape ModelBuilder::layer_norm(Shape x, const std::string& name) {
  Layer l = make_layer(layer_name(name, "layer_normalization"), LayerKind::LayerNorm, x, x);
  l.params_trainable = 2 * std::int64_t(x.c);  // gamma and beta
  l.fwd_flops = 2.0 * double(x.elems());
  return append(l);
}

// Attention of each token over `window` tokens (all T when 0).
Layer ModelBuilder::attention_layer(Shape qkv, int heads, int window, const std::string& n) const {
  require_positive(heads, n, "heads");
  if (qkv.w != 1 || qkv.c % 3 != 0 || (qkv.c / 3) % heads != 0)
    throw InputError(fmt::format("layer '{}': expected packed q, k, v of T x 1 x 3D tokens with D divisible by the "
                                 "{} heads, got {}", n, heads, shape_text(qkv)));
  if (window < 0 || (window > 0 && qkv.h % window != 0))
    throw InputError(fmt::format("layer '{}': windows of {} tokens must divide the {} tokens", n, window, qkv.h));
  const Shape out{qkv.h, 1, qkv.c / 3};
  Layer l = make_layer(n, LayerKind::Attention, qkv, out);
  l.heads = heads;
  l.window = window;
  const double attended = window > 0 ? window : qkv.h;
  const double scores = double(heads) * qkv.h * attended;
  l.inner_elems = bounded(scores, kMaxElems, n, "score matrices (heads x tokens x attended tokens per sample)");
  l.fwd_flops = 4.0 * double(qkv.h) * attended * out.c + scores;
  return l;
}

Shape ModelBuilder::attention(Shape qkv, int heads, bool causal, const std::string& name, double dropout) {
  Layer l = attention_layer(qkv, heads, 0, layer_name(name, "attention"));
  l.causal = causal;
  l.dropout = dropout;
  return append(l);
}

Shape ModelBuilder::window_attention(Shape qkv, int heads, int window, int bias_table, bool shifted,
                                     const std::string& name) {
  const std::string n = layer_name(name, "window_attention");
  require_positive(window, n, "window");
  Layer l = attention_layer(qkv, heads, window, n);
  l.params_trainable = params(double(bias_table) * heads, n);
  l.shifted = shifted;
  return append(l);
}

Shape ModelBuilder::permute(Shape x, Shape out, const std::string& name) {
  const std::string n = layer_name(name, "permute");
  if (out.elems() != x.elems())
    throw InputError(fmt::format("layer '{}': cannot lay {} out as {}", n, shape_text(x), shape_text(out)));
  return append(make_layer(n, LayerKind::Permute, x, out));
}

Shape ModelBuilder::pad(Shape x, Shape out, const std::string& name) {
  const std::string n = layer_name(name, "pad");
  if (out.elems() < x.elems())
    throw InputError(fmt::format("layer '{}': cannot pad {} into the smaller {}", n, shape_text(x), shape_text(out)));
  return append(make_layer(n, LayerKind::Permute, x, out));
}

Shape ModelBuilder::crop(Shape x, Shape out, int slices, const std::string& name) {
  const std::string n = layer_name(name, "crop");
  if (out.elems() > x.elems())
    throw InputError(fmt::format("layer '{}': cannot crop {} to the larger {}", n, shape_text(x), shape_text(out)));
  Layer l = make_layer(n, LayerKind::Reshape, x, out);
  l.slice_grads = slices;
  return append(l);
}

Shape ModelBuilder::permuted_view(Shape x, const std::string& name) {
  Layer l = make_layer(layer_name(name, "permuted_view"), LayerKind::Reshape, x, x);
  l.grad_copy = true;
  return append(l);
}

Shape ModelBuilder::embedding(Shape ids, int vocab, int dim, const std::string& name) {
  const std::string n = layer_name(name, "embedding");
  require_positive(vocab, n, "vocabulary size");
  require_positive(dim, n, "width");
  if (ids.w != 1 || ids.c != 1)
    throw InputError(fmt::format("layer '{}': expected token ids (T x 1 x 1), got {}", n, shape_text(ids)));
  Layer l = make_layer(n, LayerKind::Embedding, ids, Shape{ids.h, 1, dim});
  l.params_trainable = params(double(vocab) * dim, n);
  return append(l);
}

Shape ModelBuilder::tied_dense(Shape x, int units, bool use_bias, const std::string& name) {
  Shape y = dense(x, units, use_bias, name);
  Layer& l = model_.layers.back();
  l.params_trainable = use_bias ? units : 0;
  return y;
}

Shape ModelBuilder::token_embedding(Shape ids, int vocab, int dim, int positions, int segments, bool norm,
                                    double dropout_rate, const std::string& prefix) {
  require_positive(positions, prefix + "position_embeddings", "position count");
  if (ids.h > positions)
    throw InputError(fmt::format("a sequence of {} tokens is longer than the model's {} positions", ids.h, positions));
  std::vector<Shape> parts = {embedding(ids, vocab, dim, prefix + "word_embeddings"),
                              embedding(ids, positions, dim, prefix + "position_embeddings")};
  if (segments > 0) parts.push_back(embedding(ids, segments, dim, prefix + "token_type_embeddings"));
  Shape x = add(parts, prefix + "embeddings");
  if (norm) x = layer_norm(x, prefix + "embeddings_ln");
  return dropout(x, prefix + "embeddings_dropout", dropout_rate);
}

Shape ModelBuilder::patch_embedding(Shape x, int patch, int dim, const std::string& prefix) {
  const auto name = [&](const char* what) { return prefix.empty() ? std::string() : prefix + what; };
  require_positive(patch, prefix + "patch_embedding", "patch size");
  if (x.h % patch != 0 || x.w % patch != 0)
    throw InputError(fmt::format("patch embedding: the input's height and width ({}x{}) must be multiples of the "
                                 "{}-pixel patch", x.h, x.w, patch));
  x = conv2d(x, dim, patch, patch, patch, Padding::Valid, true, name("conv_proj"));
  x = tokens(x, name("patches"));
  x = prepend_token(x, name("class_token"));
  return add_parameter(x, name("pos_embedding"));
}

Shape ModelBuilder::encoder_block(Shape x, int heads, int mlp, const std::string& prefix, BlockStyle style) {
  const std::string p = prefix.empty() ? layer_name({}, "encoder_block") + "_" : prefix;
  const int d = x.c;
  require_positive(heads, p + "attention", "heads");
  require_positive(mlp, p + "mlp_1", "MLP width");
  if (std::max(3.0 * d, double(mlp)) > kMaxDim)
    throw InputError(fmt::format("encoder block '{}': width {} or MLP width {} is too large", p.substr(0, p.size() - 1),
                                 d, mlp));
  if (x.w != 1 || d % heads != 0)
    throw InputError(fmt::format("encoder block '{}': expected tokens (T x 1 x C, e.g. after a patch embedding) whose "
                                 "C is divisible by the {} heads, got {}", p.substr(0, p.size() - 1), heads,
                                 shape_text(x)));
  // Pre-norm: y = x + f(norm(x)); post-norm: y = norm(x + f(x)).
  const auto sublayer = [&](Shape in, const char* norm, const char* add_name, const auto& f) {
    const Shape out = add({f(style.post_norm ? in : layer_norm(in, p + norm)), in}, p + add_name);
    return style.post_norm ? layer_norm(out, p + norm) : out;
  };
  x = sublayer(x, "ln_1", "add_1", [&](Shape y) {
    if (style.separate_qkv) {
      // Attention reads the three projections as they are (Hugging Face's views, no copy).
      const Shape q = dense(y, d, true, p + "query"), k = dense(y, d, true, p + "key");
      const Shape v = dense(y, d, true, p + "value");
      Layer l = attention_layer(Shape{q.h, 1, 3 * d}, heads, 0, p + "attention");
      l.inputs = producers({q, k, v});
      l.causal = style.causal;
      l.dropout = style.dropout;
      y = append(l);
    } else {
      y = attention(dense(y, 3 * d, true, p + "in_proj"), heads, style.causal, p + "attention", style.dropout);
    }
    Layer& a = model_.layers.back();
    a.scale_scores = style.scale_scores;
    a.additive_mask = style.additive_mask;
    return dropout(dense(y, d, true, p + "out_proj"), p + "dropout_1", style.dropout);
  });
  return sublayer(x, "ln_2", "add_2", [&](Shape y) {
    y = dense(y, mlp, true, p + "mlp_1");
    y = activation(y, style.mlp_activation, p + "gelu");
    return dropout(dense(y, d, true, p + "mlp_2"), p + "dropout_2", style.dropout);
  });
}

Model ModelBuilder::finish(int classes) {
  model_.classes = classes > 0 ? classes : (model_.layers.empty() ? 0 : model_.layers.back().out.c);
  for (Layer& l : model_.layers) l.consumers = 0;
  for (const Layer& l : model_.layers)
    for (int i : l.inputs) ++model_.layers[std::size_t(i)].consumers;
  name_counts_.clear();
  return std::move(model_);
}

}  // namespace model_layer
}  // namespace ddlsim
