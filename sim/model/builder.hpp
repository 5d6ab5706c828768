// ModelBuilder: appends Keras-like layers to a Model and tracks shapes, parameters and costs.
// Used by the zoo (zoo_*.cpp) and by the model-file parser (model_file.cpp).
//
// Tensors are passed around as Shape handles (per-sample, channels last): every call takes the
// shape(s) of its input(s) and returns the output shape. Layers are appended in call order, so a
// branching network (ResNet, Inception) comes out in a valid topological order.
//
// Parameters are counted exactly as Keras counts them. Forward operations per sample:
//   Conv2D / DepthwiseConv2D / Dense: 2 per multiply-add, plus 1 per output element for the bias;
//   BatchNorm: 2 per element (scale and shift with folded statistics);
//   Normalization: 2 per element; Rescaling: 1 per element;
//   Activation: 1 per element (transcendentals such as sigmoid or swish also count as 1);
//   Pool: window size per output element; global pooling 1 per input element;
//   Add / Multiply: 1 per output element per extra operand;
//   Concat, Flatten, Dropout, ZeroPadding: 0 (data movement only);
//   LayerNorm: 2 per element (scale and shift, as BatchNorm);
//   Attention over T tokens of D channels: 4 T^2 D (the score and context matrix products) plus
//   1 per score for the softmax (heads x T^2), causal or not (the convention of PaLM's appendix B);
//   in windows of W tokens 4 T W D plus heads x T W;
//   Embedding: 0 (a lookup).
// Shape errors (an input too small for a kernel, mismatched shapes) throw InputError.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace ddlsim {
inline namespace model_layer {

enum class Padding { Same, Valid };

// A transformer block's variant: GPT's attention is causal; BERT normalises after each residual
// add (post-norm), ViT and GPT before each sublayer (pre-norm).
struct BlockStyle {
  bool causal = false;
  bool post_norm = false;
  double dropout = 0;  // on the attention probabilities and on each sublayer's output (BERT, GPT-2: 0.1)
  bool separate_qkv = false;  // q, k and v from three dense layers (Hugging Face's BERT), not one packed
  std::string mlp_activation = "gelu";  // GPT-2 in Hugging Face: gelu_new
  // Eager attention as Hugging Face writes it: the scores scaled (not q); BERT also adds its
  // attention mask to the scores, even when nothing is padded.
  bool scale_scores = false;
  bool additive_mask = false;
};
enum class PoolKind { Max, Avg };

// Known activation names (lowercase), for validation: relu, relu6, swish, sigmoid, softmax ...
const std::vector<std::string>& activation_names();

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string model_name);

  Shape input(Shape s, const std::string& name = {});
  // groups > 1: a grouped convolution (ResNeXt, RegNet), `groups` convolutions side by side, each
  // of x.c / groups input and filters / groups output channels.
  Shape conv2d(Shape x, int filters, int kh, int kw, int stride, Padding pad, bool use_bias,
               const std::string& name = {}, int groups = 1);
  Shape depthwise_conv2d(Shape x, int kh, int kw, int stride, Padding pad, bool use_bias,
                         const std::string& name = {});
  // Applies to the last axis, as Keras Dense does (flatten first for a classic MLP).
  Shape dense(Shape x, int units, bool use_bias = true, const std::string& name = {});
  Shape batchnorm(Shape x, bool scale = true, const std::string& name = {});
  // The last layer's bias is in the parameter count only (Layer::bias_in_params_only).
  void bias_in_params_only();
  // inplace: PyTorch's implementations run it in place (Layer::inplace).
  Shape activation(Shape x, const std::string& fn, const std::string& name = {}, bool inplace = false);
  Shape pool(Shape x, PoolKind kind, int size, int stride, Padding pad, const std::string& name = {});
  Shape global_pool(Shape x, PoolKind kind, const std::string& name = {});
  Shape add(const std::vector<Shape>& xs, const std::string& name = {});
  // x * scale; scale is either x's shape or 1x1xC (squeeze-excitation broadcast).
  Shape multiply(Shape x, Shape scale, const std::string& name = {});
  // x times a learned per-channel scale (ConvNeXt's layer scale): C weights.
  Shape channel_scale(Shape x, const std::string& name = {});
  Shape concat(const std::vector<Shape>& xs, const std::string& name = {});
  Shape zero_padding(Shape x, int top, int bottom, int left, int right, const std::string& name = {});
  Shape flatten(Shape x, const std::string& name = {});
  // Dropout in training: rate > 0 runs a kernel (writes y and a one-byte mask; backward reads the
  // mask); 0 keeps the layer as a free reshape (the Keras-layout zoo's dropouts are not charged).
  Shape dropout(Shape x, const std::string& name = {}, double rate = 0);
  // Squeeze-excite as torchvision's SqueezeExcitation: global average pooling, a biased 1x1
  // convolution to `squeeze` channels with `act`, one back to x's channels with `gate`, x scaled
  // by it. Layers named prefix + pool, fc1, act, fc2, gate, scale.
  Shape squeeze_excite(Shape x, int squeeze, const std::string& act, const std::string& gate,
                       const std::string& prefix);
  // Stochastic depth (Huang et al. 2016; torchvision's StochasticDepth "row", Keras' Dropout with
  // noise_shape (N, 1, 1, 1)): a residual branch dropped for whole samples; rate 0 is free.
  Shape stochastic_depth(Shape x, double rate, const std::string& name = {});
  Shape rescaling(Shape x, const std::string& name = {});
  // Keras preprocessing Normalization over the channel axis: mean C, variance C, count 1.
  Shape normalization(Shape x, const std::string& name = {});

  // Transformers: tokens lie along h (model.hpp Shape).
  // Patches or pixels as tokens: {h, w, c} -> {h x w, 1, c} (a reshape, no kernel).
  Shape tokens(Shape x, const std::string& name = {});
  // A learned token (ViT's class token) put before the others: {T, 1, c} -> {T + 1, 1, c}, c weights.
  Shape prepend_token(Shape x, const std::string& name = {});
  // A learned tensor of x's shape added to it (ViT's position embedding): T x c weights.
  Shape add_parameter(Shape x, const std::string& name = {});
  // The first token alone (ViT's classifier reads the class token): {T, 1, c} -> {1, 1, c}.
  Shape take_token(Shape x, const std::string& name = {});
  // Normalisation of each token over its channels with learned scale and shift (2 c weights).
  Shape layer_norm(Shape x, const std::string& name = {});
  // Multi-head scaled dot-product attention of packed q, k, v {T, 1, 3 D} -> {T, 1, D}; the
  // projections around it are dense layers.
  Shape attention(Shape qkv, int heads, bool causal = false, const std::string& name = {}, double dropout = 0);
  // Attention within windows of `window` tokens (Swin; T a multiple of it, the tokens already laid
  // out window by window): a learned relative-position bias (`bias_table` entries a head) added to
  // the scores, and for shifted windows a mask too.
  Shape window_attention(Shape qkv, int heads, int window, int bias_table, bool shifted, const std::string& name = {});
  // A copy of x into another layout, `out` of as many elements (torch.roll, a window partition).
  Shape permute(Shape x, Shape out, const std::string& name = {});
  // F.pad: a copy of x into a zero-padded tensor `out` at least as large (a Permute layer; ATen's
  // constant_pad_nd copies even when nothing is padded).
  Shape pad(Shape x, Shape out, const std::string& name = {});
  // x[:, :H, :W] of a padded x: a view, copied where it drops anything (.contiguous()); backward,
  // `slices` sliced dimensions (Layer::slice_grads).
  Shape crop(Shape x, Shape out, int slices, const std::string& name = {});
  // A permuted view (no copy forward) whose gradient is copied backward (Layer::grad_copy).
  Shape permuted_view(Shape x, const std::string& name = {});
  // Token ids {T, 1, 1} -> {T, 1, dim}: rows of a vocab x dim table (a position embedding is a
  // lookup of the positions 0..T-1: the same shapes).
  Shape embedding(Shape ids, int vocab, int dim, const std::string& name = {});
  // A dense layer whose weight is another layer's (GPT-2's and BERT's output projection onto the
  // vocabulary share the token embedding's table): only its bias, if any, is a parameter of its own.
  Shape tied_dense(Shape x, int units, bool use_bias, const std::string& name = {});
  // Blocks of the Vision Transformer in torchvision's layout (vision_transformer.py), their layers
  // named prefix + what (an empty prefix: the layers' own default names; encoder_block_N_ for blocks): the patch embedding (a PATCHxPATCH convolution of stride PATCH, the patches as
  // tokens, the class token, the position embedding) and a pre-norm encoder block (layer norm,
  // packed q/k/v projection, attention, output projection, residual add; layer norm, MLP of
  // `mlp` units with GELU, residual add; post-norm: each layer norm after its residual add).
  Shape patch_embedding(Shape x, int patch, int dim, const std::string& prefix);
  // A language model's input embedding, named prefix + what: token ids {T, 1, 1} looked up in a
  // vocab x dim table, plus a table of `positions` rows (T at most), plus a segment table when
  // segments > 0 (BERT's token types), summed; then a layer norm when `norm` (BERT) and dropout.
  Shape token_embedding(Shape ids, int vocab, int dim, int positions, int segments, bool norm, double dropout,
                        const std::string& prefix);
  Shape encoder_block(Shape x, int heads, int mlp, const std::string& prefix, BlockStyle style = {});

  const std::vector<Layer>& layers() const { return model_.layers; }
  bool has_input() const { return !model_.layers.empty(); }
  // Hands over the finished model; `classes` <= 0 takes the channel count of the last layer.
  Model finish(int classes = 0);

 private:
  std::string layer_name(const std::string& given, const std::string& base);
  Shape append(Layer l);
  Layer attention_layer(Shape qkv, int heads, int window, const std::string& name) const;
  int window_out(int in, int k, int stride, Padding pad, const std::string& name, const char* what) const;

  Model model_;
  std::map<std::string, int> name_counts_;
};

}  // namespace model_layer
}  // namespace ddlsim
