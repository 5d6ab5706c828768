// Application input: a neural network as a flat list of layers with per-sample costs.
// Built by the zoo (model_zoo.cpp) or read from a model file (model_file.cpp); immutable after.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ddlsim {
inline namespace model_layer {

enum class LayerKind {
  Input,          // no cost; records the input shape
  Conv2D,         // dense convolution (GEMM-able)
  DepthwiseConv2D,
  Dense,          // fully connected (GEMM)
  BatchNorm,
  Activation,     // relu, relu6, swish, sigmoid, softmax ...
  Pool,           // max/avg pooling, global pooling
  Add,            // element-wise add (residual)
  Multiply,       // element-wise multiply (squeeze-excitation scale)
  Concat,
  Reshape,        // flatten, reshape, dropout, zero-padding, rescaling: data movement only
  Normalization,  // Keras preprocessing Normalization (non-trainable mean/variance)
  LayerNorm,      // per-token normalisation over the channels, learned scale and shift (transformers)
  Attention,      // multi-head scaled dot-product attention of packed q, k, v (no weights of its own)
  Embedding,      // rows of a learned table looked up by token id (language models' token and position embeddings)
  Dropout,        // training-mode dropout of rate > 0 (a rate of 0, or a Keras-zoo dropout, is a free Reshape)
  Permute,        // a copy into another layout (torch.roll, Swin's window partition and merge): read and write
};

const char* to_string(LayerKind kind);

// Tensor shape per sample, channels last. A transformer's tokens lie along h (w = 1): T tokens of
// c channels are {T, 1, c}.
struct Shape {
  int h = 1;
  int w = 1;
  int c = 1;
  int producer = -1;  // index of the layer that made it (ModelBuilder), -1 for none
  std::int64_t elems() const { return std::int64_t(h) * w * c; }
};

// Geometry of GEMM-like layers, for kernel calibration (conv as implicit GEMM, dense as GEMM).
struct ConvGeometry {
  int kernel_h = 0;
  int kernel_w = 0;
  int stride = 1;
  int groups = 1;  // = input channels for depthwise
};

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::Input;
  Shape in;                 // main input shape (first input for Add/Concat)
  Shape out;                // output shape
  ConvGeometry geom;        // Conv2D / DepthwiseConv2D / Dense (1x1)
  std::int64_t params_trainable = 0;
  std::int64_t params_non_trainable = 0;
  double fwd_flops = 0;     // forward operations per sample (multiply-add = 2)
  std::int64_t in_elems = 0;   // elements read per sample (all inputs)
  std::int64_t out_elems = 0;  // elements written per sample
  std::vector<int> inputs;     // indices of the layers whose outputs it reads
  int consumers = 0;           // layers that read its output (ModelBuilder::finish)
  std::string fn;              // Activation: its function (relu, gelu, softmax ...)
  int heads = 0;               // Attention: heads (each of out.c / heads channels)
  bool causal = false;         // Attention: each token attends only to itself and those before it (GPT)
  double dropout = 0;          // Attention: dropout rate on the probabilities; Dropout: its rate
  bool per_sample = false;     // Dropout: stochastic depth, one draw a sample (no mask an element)
  std::int64_t inner_elems = 0;  // Attention: the score matrices' elements per sample (heads x T x window)
  int window = 0;              // Attention: tokens each token attends to, in windows of as many (Swin); 0: all T
  bool shifted = false;        // Attention: shifted windows, a mask added to the scores (Swin's odd blocks)
  bool scale_scores = false;   // Attention, math path: the scores scaled by 1/sqrt(d) (timm, Hugging Face), not q
  bool additive_mask = false;  // Attention, math path: a mask added to the scores (Hugging Face's BERT, always)
  // Activation: PyTorch's implementations of the model run it in place (torchvision's and timm's
  // conv-norm-activation blocks: nn.SiLU(inplace=True) ...); cost/compute.cpp charges autograd's
  // copy of the input where the gradient needs it (inplace_copies_input).
  bool inplace = false;
  // Reshape: a crop of a padded tensor (torchvision's Swin, x[:, :H, :W]): autograd's gradient of each
  // of these sliced dimensions zero-fills the input's size and copies into it (ATen slice_backward).
  int slice_grads = 0;
  // Reshape: a permuted view whose gradient arrives as a view the next backward reshapes, so autograd
  // copies it (ConvNeXt's permute back to channels-first before the layer scale).
  bool grad_copy = false;
  // Conv2D: a bias the parameter count keeps but the implementations users run omit (Keras's
  // ResNet-50/101/152 bias each convolution before its batch norm; torchvision's, NVIDIA's and
  // tf_cnn_benchmarks' do not): no bias kernels (cost/compute.cpp bias_add, bias_sum).
  bool bias_in_params_only = false;

  std::int64_t params() const { return params_trainable + params_non_trainable; }
  // Trainable tensors the framework holds (and launches optimizer and copy kernels for): a GEMM
  // layer's weight and its bias if it has one, a batch norm's gamma and beta; 1 for any other
  // layer with trainable parameters, 0 without.
  int trainable_tensors() const;
  // An in-place activation (inplace) whose derivative reads its input, so that PyTorch's autograd
  // copies the input first (tools/autograd/derivatives.yaml: silu_, hardswish_, hardtanh_ (ReLU6)
  // and hardsigmoid_ read `self`; relu_, elu_, leaky_relu_, sigmoid_ and tanh_ read `result`).
  bool inplace_copies_input() const;
  // The weights a convolution or dense layer multiplies by (its own, or a tied layer's), bias
  // apart; 0 for other kinds.
  double weight_elems() const;
};

struct Model {
  std::string name;
  Shape input;
  int classes = 0;
  std::vector<Layer> layers;

  std::int64_t params_total() const;
  std::int64_t params_trainable() const;
  struct ParamCounts {
    std::int64_t total = 0, trainable = 0;
  };
  ParamCounts param_counts() const;  // both in one walk over the layers
  double fwd_flops_per_sample() const;
  std::int64_t activation_elems_per_sample() const;  // sum of layer outputs
  // Token ids in (a language model: its first layer after the input is an embedding).
  bool reads_tokens() const;
};

// How to instantiate a zoo model. Language models read input_h token ids (the sequence length;
// width and channels are 1) and predict `classes` tokens (the vocabulary).
struct ModelOptions {
  int input_h = 224;
  int input_w = 224;
  int input_c = 3;
  int classes = 1000;
  double dropout = -1;  // transformers: dropout rate in training; < 0: the model's own
  double drop_path = -1;  // stochastic depth's rate at the last block; < 0: the model's own
};

// Names of the built-in models (`ddlsim models`), in display order.
std::vector<std::string> zoo_model_names();
// The ones `ddlsim map` marks: one of each family and size (EfficientNet-B0 for B0-B7, ResNet-18 for 18/34).
std::vector<std::string> zoo_map_model_names();
bool is_zoo_model(const std::string& name);
// Builds a zoo model; throws InputError for an unknown name or a size it cannot handle.
Model build_zoo_model(const std::string& name, const ModelOptions& opts);
// The input size a zoo model is usually trained at (224 for most, 299 for InceptionV3, 32 for
// small_cnn; a language model's sequence length, e.g. 1024 for GPT-2, 128 for BERT's first phase).
ModelOptions default_model_options(const std::string& name);

// Parses the plain model-file format (see docs/model-file.md). `origin` names the file in errors.
Model parse_model_file(const std::string& text, const std::string& origin);
Model load_model_file(const std::string& path);

}  // namespace model_layer
}  // namespace ddlsim
