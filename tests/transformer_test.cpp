// Vision Transformers: the zoo against torchvision, the model file's transformer lines, attention's
// roofline (fused and math) against hand calculations, and its calibration kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "ops/autocast.hpp"
#include "cost/compute.hpp"
#include "cost/memory.hpp"
#include "kernels/kernel_plan.hpp"
#include "model/model.hpp"
#include "system/device.hpp"

using namespace ddlsim;

namespace {

// A zoo model at its defaults, or at `size` (an image's side, a language model's tokens) and `classes`.
Model zoo_model(const std::string& name, int size = 0, int classes = 0) {
  ModelOptions o = default_model_options(name);
  if (size > 0) o.input_h = o.input_w = size;
  if (classes > 0) o.classes = classes;
  return build_zoo_model(name, o);
}
Model vit(const std::string& name, int size = 0, int classes = 0) { return zoo_model(name, size, classes); }
Model text(const std::string& name, int seq = 0) { return zoo_model(name, seq); }

int tensors(const Model& m) {
  int n = 0;
  for (const Layer& l : m.layers) n += l.trainable_tensors();
  return n;
}

const Layer& first_of(const Model& m, LayerKind kind) {
  const auto it = std::find_if(m.layers.begin(), m.layers.end(), [&](const Layer& l) { return l.kind == kind; });
  if (it == m.layers.end()) throw std::runtime_error("no such layer");
  return *it;
}

std::size_t index_of(const Model& m, LayerKind kind) { return std::size_t(&first_of(m, kind) - m.layers.data()); }

// The roofline of one kernel on a V100 (cost/compute.cpp): eff = 0.6 f / (f + peak x 20 us),
// t = max(f / (peak x eff), bytes / (0.8 x 900 GB/s)) + 5 us.
double kernel_s(double flops, double bytes, double peak) {
  const double compute = flops > 0 ? flops / (peak * 0.6 * flops / (flops + peak * 20e-6)) : 0;
  return std::max(compute, bytes / (0.8 * 900e9)) + 5e-6;
}

}  // namespace

// Trainable parameters and parameter tensors: sum of numel() and len(parameters()) of
// torchvision 0.14's vit_b_16, vit_b_32, vit_l_16, vit_l_32 (checked here with Debian's
// python3-torchvision), and of vit_b_32(num_classes=10, image_size=64) (ddp_runner.py's build).
// Multiply-adds: torchvision's documented GFLOPS (its model table counts multiply-adds: 17.56,
// 4.41, 61.55, 15.38), to 1 %.
TEST(Transformers, VitZooEqualsTorchvision) {
  EXPECT_EQ(vit("vit_b_16").params_trainable(), 86'567'656);
  EXPECT_EQ(vit("vit_b_32").params_trainable(), 88'224'232);
  EXPECT_EQ(vit("vit_l_16").params_trainable(), 304'326'632);
  EXPECT_EQ(vit("vit_l_32").params_trainable(), 306'535'400);
  EXPECT_EQ(vit("vit_b_32", 64, 10).params_trainable(), 87'428'362);
  EXPECT_EQ(tensors(vit("vit_b_16")), 152);
  EXPECT_EQ(tensors(vit("vit_l_16")), 296);
  EXPECT_NEAR(vit("vit_b_16").fwd_flops_per_sample() / 2, 17.56e9, 0.01 * 17.56e9);
  EXPECT_NEAR(vit("vit_b_32").fwd_flops_per_sample() / 2, 4.41e9, 0.01 * 4.41e9);
  EXPECT_NEAR(vit("vit_l_16").fwd_flops_per_sample() / 2, 61.55e9, 0.01 * 61.55e9);
  EXPECT_NEAR(vit("vit_l_32").fwd_flops_per_sample() / 2, 15.38e9, 0.01 * 15.38e9);
  // The patch must divide the input, as torchvision asserts.
  ModelOptions o = default_model_options("vit_b_16");
  o.input_h = o.input_w = 200;
  EXPECT_THROW(build_zoo_model("vit_b_16", o), InputError);
}

// ViT-B/16's attention: 197 tokens (196 patches and the class token), 12 heads of 64 channels.
TEST(Transformers, AttentionLayerGeometry) {
  const Model m = vit("vit_b_16");
  const Layer& a = first_of(m, LayerKind::Attention);
  EXPECT_EQ(a.in.h, 197);
  EXPECT_EQ(a.in.c, 3 * 768);
  EXPECT_EQ(a.out.c, 768);
  EXPECT_EQ(a.heads, 12);
  EXPECT_EQ(a.inner_elems, 12 * 197 * 197);
  EXPECT_DOUBLE_EQ(a.fwd_flops, 4.0 * 197 * 197 * 768 + 12 * 197 * 197);
  // Every block's input feeds its layer norm and its residual add: one gradient sum each.
  EXPECT_EQ(m.layers[index_of(m, LayerKind::Attention) - 3].consumers, 2);
  // The saved activations include attention's packed q, k, v (its gradient reads them).
  Model without = m;
  for (Layer& l : without.layers)
    if (l.kind == LayerKind::Attention) l.kind = LayerKind::Reshape;
  EXPECT_EQ(saved_elems_per_sample(m) - saved_elems_per_sample(without), 12 * 197 * 3 * 768);
  // The math path keeps every block's probabilities (12 heads x 197^2) for its backward pass.
  EXPECT_EQ(saved_elems_per_sample(m, true) - saved_elems_per_sample(m), 12 * 12 * 197 * 197);
}

// One attention layer's forward and backward on a V100, by hand, kernel by kernel (batch 32).
TEST(Transformers, AttentionRooflineByHand) {
  const Model m = vit("vit_b_16");
  const std::size_t i = index_of(m, LayerKind::Attention);
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const double batch = 32, T = 197, D = 768, H = 12;
  const double F = (4 * T * T * D + H * T * T) * batch;  // the layer's operations
  for (const auto& [p, peak, elem] : {std::tuple{Precision::FP32, 15.7e12, 4.0}, {Precision::Mixed, 125e12, 2.0}}) {
    const double in = 3 * D * T * batch * elem, out = D * T * batch * elem, scores = H * T * T * batch * elem;
    const double split = kernel_s(0, 2 * in, peak), merge = kernel_s(0, 2 * out, peak);
    // Fused: one kernel forward (reads q, k, v, writes the output); backward a preprocessing pass
    // (reads O and dO) and one kernel of 2.5x the forward's operations (reads q, k, v, dO, writes
    // dq, dk, dv); the head split and merge copies around it, both ways.
    t.fused_attention = true;
    const auto fused = compute_profile(m, v100, p, 32, t, Optimizer::Sgd).layers[i];
    EXPECT_NEAR(fused.fwd_s, split + kernel_s(F, in + out, peak) + merge, 1e-12);
    EXPECT_NEAR(fused.bwd_s, merge + kernel_s(0, 2 * out, peak) + kernel_s(2.5 * F, 2 * in + out, peak) + split,
                1e-12);
    // Math: q scaled, scores = q k^T, softmax, P v (each product 2 T^2 D a sample; the softmax's
    // share is the rest of F); mixed precision runs the softmax in FP32 and casts its result back.
    t.fused_attention = false;
    const auto math = compute_profile(m, v100, p, 32, t, Optimizer::Sgd).layers[i];
    const double g = 2 * T * T * D * batch, s = H * T * T * batch;
    const double scale = kernel_s(0, 2 * in / 3, peak);
    const double softmax = p == Precision::Mixed ? kernel_s(s, 3 * scores, peak) + kernel_s(0, 3 * scores, peak)
                                                 : kernel_s(s, 2 * scores, peak);
    const double qk = kernel_s(g, 2 * in / 3 + scores, peak), pv = kernel_s(g, in / 3 + out + scores, peak);
    EXPECT_NEAR(math.fwd_s, split + scale + qk + softmax + pv + merge, 1e-12);
    // Backward: dP = dO v^T and dV = P^T dO (each reads dO, v or writes dv, and P or dP), the
    // softmax's gradient (reads P and dP, writes dS; in mixed precision with the two casts),
    // dQ = dS k and dK = dS^T q, the scaling's gradient.
    const double softmax_bwd = p == Precision::Mixed
                                   ? kernel_s(0, 3 * scores, peak) + kernel_s(s, 6 * scores, peak) +
                                         kernel_s(0, 3 * scores, peak)
                                   : kernel_s(s, 3 * scores, peak);
    const double dq = kernel_s(g, 2 * in / 3 + scores, peak);
    EXPECT_NEAR(math.bwd_s, merge + 2 * pv + softmax_bwd + 2 * dq + scale + split, 1e-12);
    // The scores' traffic makes math the slower path here (197 tokens, 12 heads).
    EXPECT_GT(math.fwd_s + math.bwd_s, fused.fwd_s + fused.bwd_s);
  }
}

// Only attention layers depend on compute.attention; convolutional networks do not move.
TEST(Transformers, AttentionChoiceTouchesOnlyAttention) {
  const Device& a100 = find_device("a100", "");
  ComputeTuning fused, math;
  math.fused_attention = false;
  const Model v = vit("vit_b_16");
  const auto pf = compute_profile(v, a100, Precision::Mixed, 64, fused, Optimizer::Sgd);
  const auto pm = compute_profile(v, a100, Precision::Mixed, 64, math, Optimizer::Sgd);
  for (std::size_t i = 0; i < v.layers.size(); ++i)
    if (v.layers[i].kind != LayerKind::Attention) {
      EXPECT_EQ(pf.layers[i].fwd_s, pm.layers[i].fwd_s) << v.layers[i].name;
      EXPECT_EQ(pf.layers[i].bwd_s, pm.layers[i].bwd_s) << v.layers[i].name;
    }
  ModelOptions o = default_model_options("resnet50");
  const Model r = build_zoo_model("resnet50", o);
  EXPECT_EQ(compute_profile(r, a100, Precision::Mixed, 64, fused, Optimizer::Sgd).forward_s(),
            compute_profile(r, a100, Precision::Mixed, 64, math, Optimizer::Sgd).forward_s());
}

// Layer norm (ATen layer_norm_kernel.cu) and the position embedding's learned addend, by hand on
// a V100 in FP32, batch 32, ViT-B/16's 197 x 768 tokens (605 KB a sample).
TEST(Transformers, LayerNormAndPositionEmbeddingByHand) {
  const Model m = vit("vit_b_16");
  const Device& v100 = find_device("v100", "");
  const ComputeTuning t;
  const auto prof = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  const double x = 197 * 768 * 32 * 4.0, w = 2 * 768 * 4.0, flops = 2 * 197 * 768 * 32.0;
  const LayerCost& ln = prof.layers[index_of(m, LayerKind::LayerNorm)];
  // Forward one kernel: x in, y out (and gamma, beta). Backward: dx from x and dy; gamma and beta's
  // gradients from x and dy.
  EXPECT_NEAR(ln.fwd_s, kernel_s(flops, 2 * x + w, 15.7e12), 1e-12);
  EXPECT_NEAR(ln.bwd_s, kernel_s(flops / 2, 3 * x + w, 15.7e12) + kernel_s(flops / 2, 2 * x + w, 15.7e12), 1e-12);
  // The position embedding: forward reads x and the table, writes y; backward sums dy over the
  // batch into the table's gradient (dx is dy itself: no kernel). It is the first layer after the
  // patch convolution, so it does need its input's gradient; the table is 197 x 768. The dropout
  // after it (rate 0 in torchvision: no kernel) passes it to the first block's layer norm and
  // residual add: autograd sums their two gradients there (reads two, writes one).
  std::size_t pos = 0;
  while (m.layers[pos].name != "position_embedding") ++pos;
  const double table = 197 * 768 * 4.0;
  EXPECT_NEAR(prof.layers[pos].fwd_s, kernel_s(flops / 2, 2 * x + table, 15.7e12), 1e-12);
  EXPECT_NEAR(prof.layers[pos].bwd_s, kernel_s(0, x + table, 15.7e12), 1e-12);
  ASSERT_EQ(m.layers[pos + 1].kind, LayerKind::Reshape);
  EXPECT_EQ(prof.layers[pos + 1].fwd_s, 0);
  EXPECT_NEAR(prof.layers[pos + 1].bwd_s, kernel_s(0, 3 * x, 15.7e12), 1e-12);
}

// The calibration kernels of one attention layer: the score and context products per head and
// sample (batched GEMMs), forward 4 T^2 D and backward 8 T^2 D operations a sample.
TEST(Transformers, AttentionCalibrationKernels) {
  const Model m = vit("vit_b_16");
  const Layer& a = first_of(m, LayerKind::Attention);
  const auto plan = model_kernels(m, 8, Precision::Mixed);
  const auto& ks = std::find_if(plan.begin(), plan.end(), [&](const LayerKernels& lk) { return lk.layer == a.name; })->kernels;
  double fwd = 0, bwd = 0;
  int gemms = 0;
  for (const KernelSpec& k : ks) {
    if (!k.is_gemm) continue;
    ++gemms;
    EXPECT_EQ(k.gemm.count, 8 * 12) << k.name;
    (k.phase == KernelPhase::Forward ? fwd : bwd) += k.flops();
  }
  EXPECT_EQ(gemms, 6);
  EXPECT_DOUBLE_EQ(fwd, 4.0 * 197 * 197 * 768 * 8);
  EXPECT_DOUBLE_EQ(bwd, 8.0 * 197 * 197 * 768 * 8);
  // Each head's matrices lie one after the other: buffers are count times one product's.
  const auto scores = std::find_if(ks.begin(), ks.end(), [](const KernelSpec& k) { return k.name == "attn_scores"; });
  ASSERT_NE(scores, ks.end());
  EXPECT_EQ(kernel_buffers(*scores).c, 2.0 * 197 * 197 * 96);
  EXPECT_EQ(scores->key(), "gemm_mixed_m197_n197_k64_nt_x96");
  // No weights, so no update; the layer norm's gamma and beta get one.
  EXPECT_EQ(std::count_if(ks.begin(), ks.end(), [](const KernelSpec& k) { return k.phase == KernelPhase::Update; }),
            0);
}

// The model file's transformer lines build the same blocks; errors name the line.
TEST(Transformers, ModelFileLines) {
  const Model m = parse_model_file(
      "name tiny_vit\ninput 64 64 3\npatch_embedding 8 192\ntransformer_block 3 768\ntransformer_block 3 768\n"
      "layernorm\nfirst_token\ndense 10\n",
      "tiny.model");
  // By hand: patch convolution 8 x 8 x 3 x 192 + 192 = 37,056; class token 192; positions
  // 65 x 192 = 12,480; a block: two layer norms 2 x 384, q/k/v 192 x 576 + 576 = 111,168, output
  // 192 x 192 + 192 = 37,056, MLP 192 x 768 + 768 = 148,224 and 768 x 192 + 192 = 147,648: 444,864;
  // final layer norm 384; head 192 x 10 + 10 = 1,930. Total 941,770.
  EXPECT_EQ(m.params_trainable(), 941'770);
  EXPECT_EQ(m.classes, 10);
  EXPECT_EQ(std::count_if(m.layers.begin(), m.layers.end(), [](const Layer& l) { return l.kind == LayerKind::Attention; }),
            2);
  const auto error = [](const std::string& text) {
    try {
      parse_model_file(text, "x.model");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("input 32 32 3\ntransformer_block 3 64\n").find("x.model:2: encoder block"), std::string::npos);
  EXPECT_NE(error("input 32 32 3\npatch_embedding 4 100\ntransformer_block 3 64\n").find("divisible by the 3 heads"),
            std::string::npos);
  EXPECT_NE(error("input 32 32 3\npatch_embedding 4\n").find("usage: patch_embedding PATCH WIDTH"), std::string::npos);
  EXPECT_NE(error("input 30 30 3\npatch_embedding 4 64\n").find("x.model:2"), std::string::npos);
}

// Language models' published parameter totals: GPT-2 124,439,808 and GPT-2 medium 354,823,168
// (GPT2LMHeadModel, the output projection tied to the token embedding); BERT-base 110,106,428 and
// BERT-large 336,226,108 (BertForPreTraining). By hand for GPT-2: token table 50,257 x 768 =
// 38,597,376, positions 1,024 x 768 = 786,432, 12 blocks of 7,087,872 (as ViT-B's), final layer
// norm 1,536. For BERT-base: tables 30,522, 512 and 2 rows of 768 and a layer norm: 23,837,184;
// 12 blocks 85,054,464; pooler 590,592; heads 590,592 + 1,536 + 30,522 (the tied decoder's bias)
// + 1,538 (next sentence).
TEST(Transformers, LanguageModelsParameterTotals) {
  EXPECT_EQ(text("gpt2").params_trainable(), 124'439'808);
  EXPECT_EQ(text("gpt2_medium").params_trainable(), 354'823'168);
  // 12 h^2 + 13 h a block (q, k, v and output projections, the MLP's two layers, two layer norms),
  // vocabulary x h + positions x h + the final norm's 2 h: GPT-2 large 36 blocks of h = 1280,
  // 774,030,080 and XL 48 of 1600, 1,557,611,200 (as Hugging Face lists them); GPT-3 6.7B 32 of
  // 4096 and 2,048 positions: 6,444,154,880 + 205,852,672 + 8,388,608 + 8,192.
  EXPECT_EQ(text("gpt2_large").params_trainable(), 774'030'080);
  EXPECT_EQ(text("gpt2_xl").params_trainable(), 1'557'611'200);
  EXPECT_EQ(text("gpt3_6_7b").params_trainable(), 6'658'404'352LL);
  EXPECT_EQ(text("bert_base").params_trainable(), 110'106'428);
  EXPECT_EQ(text("bert_large").params_trainable(), 336'226'108);
  // GPT2LMHeadModel's parameter tensors: 2 tables, 12 blocks of 12, the final norm's 2: 148.
  EXPECT_EQ(tensors(text("gpt2")), 148);
  // BertForPreTraining's: 3 tables and a layer norm's 2; 12 blocks of 16 (query, key, value,
  // output, intermediate and output dense layers' weights and biases, two layer norms'); the
  // pooler's 2; the masked-LM transform's 2 and layer norm's 2, the decoder's bias (its weights
  // are the token table's), the next-sentence layer's 2: 5 + 192 + 2 + 5 + 2 = 206.
  EXPECT_EQ(tensors(text("bert_base")), 206);
  // The three projections hold the packed one's weights: the totals above are unchanged, and the
  // block input's gradient sums four branches (q, k, v and the residual).
  const Model bert = text("bert_base");
  const auto input_of_block = std::find_if(bert.layers.begin(), bert.layers.end(),
                                           [](const Layer& l) { return l.name == "layer_0_query"; }) - 1;
  EXPECT_EQ(input_of_block->consumers, 4);
  // As a model file, with and without separate_qkv: the same parameters and saved activations
  // (q, k and v, 3 D a token, for attention), 4 more tensors a block.
  const std::string head = "input 128 1 1\ntoken_embedding 30522 768 512 segments=2 norm=true\n";
  const Model packed = parse_model_file(head + "transformer_block 12 3072 post_norm=true\n", "p.model");
  const Model separate =
      parse_model_file(head + "transformer_block 12 3072 post_norm=true separate_qkv=true\n", "s.model");
  EXPECT_EQ(separate.params_trainable(), packed.params_trainable());
  EXPECT_EQ(saved_elems_per_sample(separate), saved_elems_per_sample(packed));
  EXPECT_EQ(tensors(separate), tensors(packed) + 4);
  const Model g = text("gpt2");
  EXPECT_EQ(g.input.h, 1024);
  EXPECT_TRUE(g.reads_tokens());
  EXPECT_FALSE(vit("vit_b_16").reads_tokens());
  EXPECT_TRUE(first_of(g, LayerKind::Attention).causal);
  EXPECT_FALSE(first_of(text("bert_base"), LayerKind::Attention).causal);
  // Sequences longer than the position table are refused; shorter ones shrink every token count.
  EXPECT_THROW(text("gpt2", 2048), InputError);
  EXPECT_THROW(text("bert_base", 513), InputError);
  EXPECT_EQ(first_of(text("bert_base", 512), LayerKind::Attention).inner_elems, 12 * 512 * 512);
}

// GPT-2's forward operations per sequence of T = 1024 tokens: 2 per weight of the blocks for each
// token (85,054,464 weights, layer norms included: Kaplan et al. 2020, table 1, 2N), attention's
// 4 T D a token and layer (the full score matrix: PaLM's appendix B convention), the tied output
// projection 2 D V a token; plus the biases, layer norms, GELU, adds, softmaxes (under 1 %).
TEST(Transformers, Gpt2ForwardOperations) {
  const double T = 1024, D = 768, V = 50257, L = 12;
  const double by_hand = T * (2 * 85'054'464 + 4 * L * T * D + 2 * D * V);
  EXPECT_NEAR(text("gpt2").fwd_flops_per_sample(), by_hand, 0.01 * by_hand);
}

// BERT normalises after each residual add, GPT-2 and ViT before each sublayer.
TEST(Transformers, PostNormAndPreNormBlocks) {
  const auto names_after = [](const Model& m, const std::string& first, int n) {
    std::string out;
    auto it = std::find_if(m.layers.begin(), m.layers.end(), [&](const Layer& l) { return l.name == first; });
    for (int i = 0; i < n && it != m.layers.end(); ++i, ++it) out += it->name + " ";
    return out;
  };
  // BERT projects q, k and v with three dense layers, which attention reads as they are.
  EXPECT_EQ(names_after(text("bert_base"), "layer_0_query", 9),
            "layer_0_query layer_0_key layer_0_value layer_0_attention layer_0_out_proj layer_0_dropout_1 "
            "layer_0_add_1 layer_0_ln_1 layer_0_mlp_1 ");
  EXPECT_EQ(names_after(text("gpt2"), "h_0_ln_1", 7),
            "h_0_ln_1 h_0_in_proj h_0_attention h_0_out_proj h_0_dropout_1 h_0_add_1 h_0_ln_2 ");
  // ViT's blocks (torchvision: dropout 0) have no dropout layer that runs.
  for (const Layer& l : vit("vit_b_16").layers) EXPECT_NE(l.kind, LayerKind::Dropout) << l.name;
}

// Causal attention: the fused kernels skip the masked half of the work; math adds a masking pass
// each way (torch.where's gradient masks the scores' gradient: a read and a write).
TEST(Transformers, CausalAttentionByHand) {
  Model m = text("gpt2", 512);
  const std::size_t i = index_of(m, LayerKind::Attention);
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const double batch = 4, T = 512, D = 768, H = 12, peak = 125e12;
  const double F = (4 * T * T * D + H * T * T) * batch, in = 3 * D * T * batch * 2, out = D * T * batch * 2;
  const auto causal = compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[i];
  const double split = kernel_s(0, 2 * in, peak), merge = kernel_s(0, 2 * out, peak);
  EXPECT_NEAR(causal.fwd_s, split + kernel_s(F / 2, in + out, peak) + merge, 1e-12);
  EXPECT_NEAR(causal.bwd_s, merge + kernel_s(0, 2 * out, peak) + kernel_s(1.25 * F, 2 * in + out, peak) + split, 1e-12);
  t.fused_attention = false;
  const auto math_causal = compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[i];
  m.layers[i].causal = false;
  const auto math_full = compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[i];
  EXPECT_NEAR(math_causal.fwd_s - math_full.fwd_s, kernel_s(0, 2 * H * T * T * batch * 2, peak), 1e-12);
  EXPECT_NEAR(math_causal.bwd_s - math_full.bwd_s, kernel_s(0, 2 * H * T * T * batch * 2, peak), 1e-12);
}

// The token embedding: forward a gather (reads the ids and the rows, writes y); backward only the
// table's gradient (ids need none): a pass over the ids and a write of the whole table from dy.
TEST(Transformers, EmbeddingByHand) {
  const Model m = text("gpt2");
  const Device& v100 = find_device("v100", "");
  const ComputeTuning t;
  const auto prof = compute_profile(m, v100, Precision::FP32, 2, t, Optimizer::Sgd);
  const double ids = 1024 * 2 * 4.0, y = 1024 * 768 * 2 * 4.0, table = 50257 * 768 * 4.0;
  const LayerCost& wte = prof.layers[1];
  EXPECT_NEAR(wte.fwd_s, kernel_s(0, ids + 2 * y, 15.7e12), 1e-12);
  EXPECT_NEAR(wte.bwd_s, kernel_s(0, ids, 15.7e12) + kernel_s(0, y + table, 15.7e12), 1e-12);
  // The position table (after the token table: its input would need a gradient, ids never do).
  const LayerCost& wpe = prof.layers[2];
  EXPECT_NEAR(wpe.bwd_s, kernel_s(0, ids, 15.7e12) + kernel_s(0, y + 1024 * 768 * 4.0, 15.7e12), 1e-12);
  // Calibration: the gather and the table's gradient.
  // Calibration: the gather, the ids' sort and the table's gradient, each a streaming pass of the
  // roofline's bytes (half read, half written).
  const auto ks = layer_kernels(m.layers[1], 2, Precision::FP32, false, ActivationBytes{});
  ASSERT_GE(ks.size(), 3u);
  EXPECT_EQ(ks[0].name, "emb_fwd");
  EXPECT_EQ(ks[1].name, "emb_bwd_sort");
  EXPECT_EQ(ks[2].name, "emb_bwd_sum");
  EXPECT_EQ(ks[0].out_elems, std::int64_t((ids + 2 * y) / 8));
  EXPECT_EQ(ks[2].out_elems, std::int64_t((y + table) / 8));
}

// ConvNeXt (torchvision 0.14: sum of numel() and len(parameters()) here) and DeiT's ViT-S/16 and
// ViT-Ti/16 (by hand, as ViT-B/16 with widths 384 and 192: 22,050,664 and 5,717,416, DeiT's 22 M
// and 5 M). Multiply-adds: torchvision's documented GFLOPS for ConvNeXt (4.46, 8.68, 15.36, 34.36)
// and DeiT's table 1 (4.6 and 1.3), to 2 and 4 %.
TEST(Transformers, ConvNextAndSmallVits) {
  EXPECT_EQ(vit("convnext_tiny").params_trainable(), 28'589'128);
  EXPECT_EQ(vit("convnext_small").params_trainable(), 50'223'688);
  EXPECT_EQ(vit("convnext_base").params_trainable(), 88'591'464);
  EXPECT_EQ(vit("convnext_large").params_trainable(), 197'767'336);
  EXPECT_EQ(tensors(vit("convnext_tiny")), 182);
  EXPECT_EQ(tensors(vit("convnext_base")), 344);
  // Every layer norm over a convolution's output copies it to channels-last first: 18 blocks, the
  // stem and 3 downsamplings (the head's layer norm reads pooled values).
  const Model cn = vit("convnext_tiny");
  EXPECT_EQ(std::count_if(cn.layers.begin(), cn.layers.end(), [](const Layer& l) { return l.kind == LayerKind::Permute; }),
            22);
  EXPECT_EQ(vit("vit_s_16").params_trainable(), 22'050'664);
  EXPECT_EQ(vit("vit_ti_16").params_trainable(), 5'717'416);
  const auto gmacs = [](const char* name) { return vit(name).fwd_flops_per_sample() / 2e9; };
  EXPECT_NEAR(gmacs("convnext_tiny"), 4.46, 0.02 * 4.46);
  EXPECT_NEAR(gmacs("convnext_small"), 8.68, 0.02 * 8.68);
  EXPECT_NEAR(gmacs("convnext_base"), 15.36, 0.02 * 15.36);
  EXPECT_NEAR(gmacs("convnext_large"), 34.36, 0.02 * 34.36);
  EXPECT_NEAR(gmacs("vit_s_16"), 4.6, 0.04 * 4.6);
  EXPECT_NEAR(gmacs("vit_ti_16"), 1.3, 0.04 * 1.3);
  // The layer scale: C weights, read in forward; its gradient summed over the batch (C values).
  const Model c = vit("convnext_tiny");
  const auto it = std::find_if(c.layers.begin(), c.layers.end(), [](const Layer& l) { return l.name == "stage_0_block_0_layer_scale"; });
  ASSERT_NE(it, c.layers.end());
  EXPECT_EQ(it->params_trainable, 96);
  const auto ks = layer_kernels(*it, 8, Precision::FP32, true, ActivationBytes{});
  const auto grad = std::find_if(ks.begin(), ks.end(), [](const KernelSpec& k) { return k.name == "mul_bwd_scale"; });
  ASSERT_NE(grad, ks.end());
  EXPECT_EQ(grad->out_elems, 96);
  EXPECT_EQ(grad->in_elems, 2 * 8 * 56 * 56 * 96 - 96);  // reads dy and x, less the output it writes
  // Each block permutes fc2's output back to channels-first (a view) for the layer scale; backward
  // its gradient is copied (op_census.py on a CNBlock: a clone under UnsafeViewBackward0): on a
  // V100, FP32, batch 32, read and write of 56 x 56 x 96 values a sample, nothing forward.
  const auto back = std::find_if(c.layers.begin(), c.layers.end(), [](const Layer& l) { return l.name == "stage_0_block_0_permute_back"; });
  ASSERT_NE(back, c.layers.end());
  const std::size_t b = std::size_t(back - c.layers.begin());
  const auto p = compute_profile(c, find_device("v100", ""), Precision::FP32, 32, ComputeTuning{}, Optimizer::Sgd);
  EXPECT_EQ(p.layers[b].fwd_s, 0);
  EXPECT_NEAR(p.layers[b].bwd_s, kernel_s(0, 2 * 56 * 56 * 96 * 4 * 32.0, 15.7e12), 1e-12);
}

// PyTorch's autocast in mixed precision (cost/autocast.hpp): which activations are FP32.
TEST(Transformers, AutocastActivationTypes) {
  const Model v = vit("vit_b_16");
  const auto bytes = activation_bytes(v, Precision::Mixed, true);
  const auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < v.layers.size(); ++i)
      if (v.layers[i].name == name) return bytes[i];
    throw std::runtime_error("no layer " + name);
  };
  EXPECT_EQ(at("conv2d").out, 2);        // a convolution runs in FP16
  EXPECT_EQ(at("class_token").out, 4);   // concatenated with an FP32 parameter: promoted
  EXPECT_EQ(at("position_embedding").out, 4);
  const ActivationBytes ln = at("encoder_layer_0_ln_1"), qkv = at("encoder_layer_0_in_proj");
  EXPECT_EQ(ln.in, 4);                   // the residual stream is FP32: no cast before the norm
  EXPECT_EQ(ln.cast_from, 0);
  EXPECT_EQ(ln.out, 4);                  // layer_norm autocasts to FP32
  EXPECT_EQ(qkv.cast_from, 4);           // the projection casts the norm's FP32 output to FP16
  EXPECT_EQ(qkv.in, 2);
  EXPECT_EQ(qkv.out, 2);
  EXPECT_EQ(at("encoder_layer_0_gelu").out, 2);   // GELU keeps its input's type
  EXPECT_EQ(at("encoder_layer_0_add_1").out, 4);  // FP16 branch + FP32 residual
  EXPECT_EQ(at("encoder_layer_0_add_1").in, 3);   // one operand of each: 3 bytes an element
  // A CNN stays FP16 but for its final softmax, which autocast runs in FP32.
  ModelOptions o = default_model_options("resnet50");
  const Model r = build_zoo_model("resnet50", o);
  const auto rb = activation_bytes(r, Precision::Mixed, true);
  for (std::size_t i = 0; i + 1 < r.layers.size(); ++i) EXPECT_EQ(rb[i].out, 2) << r.layers[i].name;
  EXPECT_EQ(rb.back().out, 4);
  EXPECT_EQ(rb.back().cast_from, 2);
  // Switched off, or not mixed: one width throughout, no casts.
  for (const auto& [p, on, w] : {std::tuple{Precision::Mixed, false, 2.0}, {Precision::FP32, true, 4.0}})
    for (const ActivationBytes& b : activation_bytes(v, p, on)) {
      EXPECT_EQ(b.in, w);
      EXPECT_EQ(b.out, w);
      EXPECT_EQ(b.cast_from, 0);
    }
}

// The cast kernels, by hand: ViT-B/16's first q/k/v projection in mixed precision on a V100 reads
// the layer norm's FP32 output (197 x 768 a sample, batch 32) and writes an FP16 copy (6 bytes an
// element), forward and for the gradient backward; it casts its FP32 weights and bias too (768 x
// 2304 + 2304, 6 bytes each), and their FP16 gradient back; the layer norm reads and writes FP32.
TEST(Transformers, AutocastCastsByHand) {
  const Model m = vit("vit_b_16");
  const Device& v100 = find_device("v100", "");
  ComputeTuning on, off;
  off.autocast = false;
  const auto a = compute_profile(m, v100, Precision::Mixed, 32, on, Optimizer::Sgd);
  const auto b = compute_profile(m, v100, Precision::Mixed, 32, off, Optimizer::Sgd);
  std::size_t qkv = 0;
  while (m.layers[qkv].name != "encoder_layer_0_in_proj") ++qkv;
  const double x = 197 * 768 * 32.0;
  const double cast = kernel_s(0, x * 6, 125e12) + kernel_s(0, (768 * 2304 + 2304) * 6.0, 125e12);
  EXPECT_NEAR(a.layers[qkv].fwd_s - b.layers[qkv].fwd_s, cast, 1e-12);
  EXPECT_NEAR(a.layers[qkv].bwd_s - b.layers[qkv].bwd_s, cast, 1e-12);
  // GPT-2's tied output projection casts the 50,257 x 768 token table it shares.
  const auto gb = activation_bytes(text("gpt2"), Precision::Mixed, true);
  EXPECT_EQ(gb[gb.size() - 2].cast_weights, 50257.0 * 768);
  EXPECT_EQ(activation_bytes(text("gpt2"), Precision::Mixed, false)[gb.size() - 2].cast_weights, 0);
  // The norm: FP32 in and out where the FP16 rule read and wrote 2 bytes (forward: one kernel).
  const LayerCost& ln = a.layers[qkv - 1];
  const double w = 2 * 768 * 2.0, flops = 2 * 197 * 768 * 32.0;
  EXPECT_NEAR(ln.fwd_s, kernel_s(flops, x * 8 + w, 15.7e12), 1e-12);
  EXPECT_NEAR(b.layers[qkv - 1].fwd_s, kernel_s(flops, x * 4 + w, 15.7e12), 1e-12);
}

// Dropout of 0.1 where BERT and GPT-2 train with it, by hand (GPT-2, 512 tokens, batch 4, mixed
// precision on a V100): a sublayer's dropout reads its FP16 input and writes FP16 and a one-byte
// mask (5 bytes an element), backward reads dy and the mask and writes dx (5 more); math attention
// drops probabilities the same way (2 FP16 passes and the mask over the scores, each way); the
// fused kernels do it in place.
TEST(Transformers, DropoutByHand) {
  const Model m = text("gpt2", 512);
  std::size_t d = 0;
  while (m.layers[d].name != "h_0_dropout_1") ++d;
  EXPECT_EQ(m.layers[d].kind, LayerKind::Dropout);
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const double x = 512 * 768 * 4.0, scores = 12 * 512 * 512 * 4.0, peak = 125e12;
  const auto fused = compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd);
  EXPECT_NEAR(fused.layers[d].fwd_s, kernel_s(0, 5 * x, peak), 1e-12);
  EXPECT_NEAR(fused.layers[d].bwd_s, kernel_s(0, 5 * x, peak), 1e-12);
  t.fused_attention = false;
  const std::size_t a = index_of(m, LayerKind::Attention);
  const auto math = compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[a];
  Model without = m;
  without.layers[a].dropout = 0;
  const auto plain = compute_profile(without, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[a];
  EXPECT_NEAR(math.fwd_s - plain.fwd_s, kernel_s(0, 5 * scores, peak), 1e-12);
  EXPECT_NEAR(math.bwd_s - plain.bwd_s, kernel_s(0, 5 * scores, peak), 1e-12);
  t.fused_attention = true;
  EXPECT_EQ(compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[a].fwd_s,
            compute_profile(without, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[a].fwd_s);
}

// Swin's windowed attention (swin_t's first stage: 56 x 56 tokens of 96 channels, 3 heads, 7 x 7
// windows): scores 3 x 3136 x 49 a sample, products of 49 tokens a window; the relative-position
// bias (169 x 3) and, in the shifted block, the mask each add a pass over the scores, by hand.
TEST(Transformers, WindowAttentionByHand) {
  const Model m = vit("swin_t");
  std::vector<std::size_t> attention;
  for (std::size_t i = 0; i < m.layers.size(); ++i)
    if (m.layers[i].kind == LayerKind::Attention) attention.push_back(i);
  ASSERT_EQ(attention.size(), 12u);  // 2 + 2 + 6 + 2 blocks
  const Layer& a = m.layers[attention[0]];
  const double T = 3136, W = 49, D = 96, H = 3, batch = 32, peak = 15.7e12;
  EXPECT_EQ(a.window, 49);
  EXPECT_EQ(a.params_trainable, 169 * 3);
  EXPECT_EQ(a.inner_elems, 3 * 3136 * 49);
  EXPECT_DOUBLE_EQ(a.fwd_flops, 4 * T * W * D + H * T * W);
  EXPECT_FALSE(a.shifted);
  EXPECT_TRUE(m.layers[attention[1]].shifted);
  EXPECT_FALSE(m.layers[attention.back()].shifted);  // one 7 x 7 window covers the last stage
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  t.fused_attention = false;
  Model plain = m;  // the first two blocks without bias or shift
  for (const std::size_t i : {attention[0], attention[1]}) {
    plain.layers[i].params_trainable = 0;
    plain.layers[i].shifted = false;
  }
  const double scores = H * T * W * batch * 4;
  for (const bool fused : {false, true}) {
    t.fused_attention = fused;
    const auto with = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
    const auto without = compute_profile(plain, v100, Precision::FP32, 32, t, Optimizer::Sgd);
    const LayerCost &a0 = with.layers[attention[0]], &a1 = with.layers[attention[1]];
    const LayerCost &p0 = without.layers[attention[0]], &p1 = without.layers[attention[1]];
    if (!fused) {
      // Math: the bias add (reads and writes the scores); the mask add likewise; backward the
      // bias's gradient, a reduction reading the scores' gradient.
      EXPECT_NEAR(a0.fwd_s - p0.fwd_s, kernel_s(0, 2 * scores, peak), 1e-12);
      EXPECT_NEAR(a1.fwd_s - p1.fwd_s, 2 * kernel_s(0, 2 * scores, peak), 1e-12);
      EXPECT_NEAR(a0.bwd_s - p0.bwd_s, kernel_s(0, scores, peak), 1e-12);
      EXPECT_NEAR(a1.bwd_s - p1.bwd_s, kernel_s(0, scores, peak), 1e-12);
    } else {
      // Fused: the kernel reads the bias as a mask the scores' size; backward writes its gradient
      // and a reduction reads it.
      const double F = a.fwd_flops * batch, in = 3 * D * T * batch * 4, out = D * T * batch * 4;
      EXPECT_NEAR(a0.fwd_s - p0.fwd_s, kernel_s(F, in + out + scores, peak) - kernel_s(F, in + out, peak), 1e-12);
      EXPECT_NEAR(a0.bwd_s - p0.bwd_s, 2 * kernel_s(0, scores, peak), 1e-12);
    }
  }
  // Calibration: one product per window and head (64 windows), 49 x 49 x 32.
  const auto ks = layer_kernels(a, 2, Precision::FP32, true, ActivationBytes{});
  const auto qk = std::find_if(ks.begin(), ks.end(), [](const KernelSpec& k) { return k.name == "attn_scores"; });
  ASSERT_NE(qk, ks.end());
  EXPECT_EQ(qk->key(), "gemm_fp32_m49_n49_k32_nt_x384");
  EXPECT_EQ(std::count_if(ks.begin(), ks.end(), [](const KernelSpec& k) { return k.name == "attn_bias_grad"; }), 1);
  // The copies around it (window partition and reverse; the roll and its inverse when shifted)
  // each read and write the block's tokens, forward and backward.
  const Layer& partition = m.layers[attention[0] - 2];
  EXPECT_EQ(partition.kind, LayerKind::Permute);
  const double x = D * T * batch * 4;
  const auto c = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd).layers[attention[0] - 2];
  EXPECT_NEAR(c.fwd_s, kernel_s(0, 2 * x, peak), 1e-12);
  EXPECT_NEAR(c.bwd_s, kernel_s(0, 2 * x, peak), 1e-12);
  EXPECT_EQ(m.layers[attention[1] - 3].name, "stage_0_block_1_roll");
}

// Stochastic depth (torchvision's StochasticDepth "row"): per sample, so no mask; forward two
// launches drawing N values (no traffic to speak of) and y = x noise, backward dx = dy noise, by
// hand on a V100 (ConvNeXt-T's second block, 56 x 56 x 96, FP32, batch 32). The first block's rate
// is 0 and its layer free; model.drop_path = 0 (timm's default) frees them all.
TEST(Transformers, StochasticDepthByHand) {
  const Model m = vit("convnext_tiny");
  std::vector<std::size_t> sd;
  for (std::size_t i = 0; i < m.layers.size(); ++i)
    if (m.layers[i].per_sample) sd.push_back(i);
  ASSERT_EQ(sd.size(), 18u);  // one a block
  EXPECT_EQ(m.layers[sd[0]].kind, LayerKind::Reshape);
  EXPECT_EQ(m.layers[sd[1]].kind, LayerKind::Dropout);
  EXPECT_DOUBLE_EQ(m.layers[sd[1]].dropout, 0.1 / 17);
  EXPECT_DOUBLE_EQ(m.layers[sd.back()].dropout, 0.1);
  const Device& v100 = find_device("v100", "");
  const ComputeTuning t;
  const double x = 56 * 56 * 96 * 32 * 4.0, peak = 15.7e12;
  const auto c = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd).layers[sd[1]];
  EXPECT_NEAR(c.fwd_s, 2 * kernel_s(0, 0, peak) + kernel_s(0, 2 * x, peak), 1e-12);
  EXPECT_NEAR(c.bwd_s, kernel_s(0, 2 * x, peak), 1e-12);
  ModelOptions o = default_model_options("swin_t");
  int swin = 0;
  for (const Layer& l : build_zoo_model("swin_t", o).layers) swin += l.kind == LayerKind::Dropout;
  EXPECT_EQ(swin, 2 * 11);  // both branches of every block but the first
  for (const char* name : {"convnext_tiny", "swin_t", "efficientnet_b0", "efficientnet_v2_s"}) {
    ModelOptions none = default_model_options(name);
    none.drop_path = 0;
    for (const Layer& l : build_zoo_model(name, none).layers) EXPECT_NE(l.kind, LayerKind::Dropout) << name;
  }
}

// GPT-2's gelu_new (Hugging Face's NewGELUActivation): eight operations forward (two of them read
// two tensors), eleven backward (six read two), each a pass at the roofline, by hand on a V100
// (FP32, batch 4, 512 tokens of 3,072). A model file's transformer_block takes activation=gelu_new.
TEST(Transformers, GeluNewByHand) {
  const Model m = text("gpt2", 512);
  std::size_t i = 0;
  while (m.layers[i].kind != LayerKind::Activation) ++i;
  ASSERT_EQ(m.layers[i].fn, "gelu_new");
  const Device& v100 = find_device("v100", "");
  const ComputeTuning t;
  const double n = 4 * 512 * 3072.0, x = 4 * n, peak = 15.7e12;
  const auto c = compute_profile(m, v100, Precision::FP32, 4, t, Optimizer::Sgd).layers[i];
  EXPECT_NEAR(c.fwd_s, 6 * kernel_s(n / 8, 2 * x, peak) + 2 * kernel_s(n / 8, 3 * x, peak), 1e-12);
  EXPECT_NEAR(c.bwd_s, 6 * kernel_s(0, 3 * x, peak) + 5 * kernel_s(0, 2 * x, peak), 1e-12);
  // torch.nn.GELU is one kernel each way, and saves nothing of its own but its input; gelu_new's
  // operations keep three more tensors of 512 x 3,072 a sequence for backward (tanh's result, 1 +
  // it, 0.5 x), in each of the 12 blocks.
  Model one = m;
  one.layers[i].fn = "gelu";
  Model all_gelu = m;
  for (Layer& l : all_gelu.layers)
    if (l.fn == "gelu_new") l.fn = "gelu";
  EXPECT_EQ(saved_elems_per_sample(m) - saved_elems_per_sample(all_gelu), 12 * 3 * 512 * 3072);
  const auto g = compute_profile(one, v100, Precision::FP32, 4, t, Optimizer::Sgd).layers[i];
  EXPECT_NEAR(g.fwd_s, kernel_s(n, 2 * x, peak), 1e-12);
  const Model file = parse_model_file("input 16 1 1\ntoken_embedding 100 64 16\ntransformer_block 4 256 activation=gelu_new\n",
                                      "g.model");
  EXPECT_TRUE(std::any_of(file.layers.begin(), file.layers.end(), [](const Layer& l) { return l.fn == "gelu_new"; }));
  EXPECT_THROW(parse_model_file("input 16 1 1\ntoken_embedding 100 64 16\ntransformer_block 4 256 activation=bogus\n",
                                "b.model"),
               InputError);
}

// gelu_new under autocast (mixed precision, GPT-2's linear layer hands it FP16): pow is on
// autocast's FP32 list, so x is cast to FP32 for it and type promotion makes everything after it
// FP32, the output included; by hand on a V100 (batch 4, 512 tokens of 3,072: N values, an FP16
// tensor 2N bytes, an FP32 one 4N). Forward nine kernels: 0.5 x (FP16 read and written: 4N), the
// cast (2N + 4N), pow, the scaling, sqrt(2/pi)'s, tanh and 1 + tanh (8N each), the add and the
// product (an FP16 and an FP32 read, an FP32 write: 10N), the eight operations' work N/8 each.
// Backward fourteen: 12N for the product's FP32 gradient to 0.5 x, tanh's and pow's last; 6N for
// the three casts of a gradient to FP16 and the two FP16 sums; 10N the product's other gradient;
// 8N the two scalings' and pow's first two; 4N 0.5's. The output is FP32, so the next linear layer
// casts it to FP16 (autocast), and without autocast (compute.mixed_activations = fp16) the eight
// operations run in FP16.
TEST(Transformers, GeluNewUnderAutocastByHand) {
  const Model m = text("gpt2", 512);
  std::size_t i = 0;
  while (m.layers[i].kind != LayerKind::Activation) ++i;
  ASSERT_EQ(m.layers[i].fn, "gelu_new");
  const auto ab = activation_bytes(m, Precision::Mixed, true);
  EXPECT_EQ(ab[i].in, 2);
  EXPECT_EQ(ab[i].out, 4);
  EXPECT_EQ(ab[i].cast_from, 0);
  EXPECT_EQ(ab[i + 1].cast_from, 4);  // c_proj casts it back to FP16
  const Device& v100 = find_device("v100", "");
  const ComputeTuning t;
  const double n = 4 * 512 * 3072.0, peak = 15.7e12;
  const auto k = [&](double flops, double bytes) { return kernel_s(flops, bytes, peak); };
  const auto c = compute_profile(m, v100, Precision::Mixed, 4, t, Optimizer::Sgd).layers[i];
  EXPECT_NEAR(c.fwd_s, k(n / 8, 4 * n) + k(0, 6 * n) + 5 * k(n / 8, 8 * n) + 2 * k(n / 8, 10 * n), 1e-12);
  EXPECT_NEAR(c.bwd_s, 3 * k(0, 12 * n) + 5 * k(0, 6 * n) + k(0, 10 * n) + 4 * k(0, 8 * n) + k(0, 4 * n), 1e-12);
  ComputeTuning fp16 = t;
  fp16.autocast = false;
  const auto h = compute_profile(m, v100, Precision::Mixed, 4, fp16, Optimizer::Sgd).layers[i];
  const double x = 2 * n;
  EXPECT_NEAR(h.fwd_s, 6 * k(n / 8, 2 * x) + 2 * k(n / 8, 3 * x), 1e-12);
  EXPECT_NEAR(h.bwd_s, 6 * k(0, 3 * x) + 5 * k(0, 2 * x), 1e-12);
}

// Hugging Face's eager attention (math path): the scores scaled instead of q, and BERT's attention
// mask added to them: by hand against the same layer without (BERT-base, V100, FP32, batch 8, 128
// tokens): forward one pass over the scores (read and write) in place of one over q, plus the
// mask's pass; backward the scaling's gradient over the scores in place of over q.
TEST(Transformers, HuggingFaceScoresScaledAndMasked) {
  const Model m = text("bert_base");
  const std::size_t a = index_of(m, LayerKind::Attention);
  ASSERT_TRUE(m.layers[a].scale_scores);
  ASSERT_TRUE(m.layers[a].additive_mask);
  EXPECT_TRUE(first_of(text("gpt2"), LayerKind::Attention).scale_scores);
  EXPECT_FALSE(first_of(text("gpt2"), LayerKind::Attention).additive_mask);
  EXPECT_FALSE(first_of(vit("vit_b_16"), LayerKind::Attention).scale_scores);  // torchvision scales q
  Model plain = m;
  plain.layers[a].scale_scores = plain.layers[a].additive_mask = false;
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  t.fused_attention = false;
  const double peak = 15.7e12, scores = 12 * 128 * 128 * 8 * 4.0, q = 768 * 128 * 8 * 4.0;
  const auto hf = compute_profile(m, v100, Precision::FP32, 8, t, Optimizer::Sgd).layers[a];
  const auto torch = compute_profile(plain, v100, Precision::FP32, 8, t, Optimizer::Sgd).layers[a];
  EXPECT_NEAR(hf.fwd_s - torch.fwd_s, 2 * kernel_s(0, 2 * scores, peak) - kernel_s(0, 2 * q, peak), 1e-12);
  EXPECT_NEAR(hf.bwd_s - torch.bwd_s, kernel_s(0, 2 * scores, peak) - kernel_s(0, 2 * q, peak), 1e-12);
  // The fused path has no separate scaling or mask pass.
  t.fused_attention = true;
  EXPECT_EQ(compute_profile(m, v100, Precision::FP32, 8, t, Optimizer::Sgd).layers[a].fwd_s,
            compute_profile(plain, v100, Precision::FP32, 8, t, Optimizer::Sgd).layers[a].fwd_s);
}

// Swin's padding to whole windows, by hand on a V100 (FP32, batch 32): F.pad copies the block's
// normed input each way (read and write N = tokens x channels); the crop back is a view forward when
// nothing was padded (224: 56 x 56 tokens) and copies the real tokens where it drops padding (256:
// 64 x 64 tokens padded to 70 x 70); backward, two slice gradients, each a zero-fill of the padded
// size and a copy of the real one (read and write).
TEST(Transformers, SwinPadsToWholeWindowsByHand) {
  const Device& v100 = find_device("v100", "");
  const ComputeTuning t;
  const double peak = 15.7e12, batch = 32;
  for (const int size : {224, 256}) {
    const Model m = vit("swin_t", size);
    std::size_t pad = 0, crop = 0;
    while (m.layers[pad].name != "stage_0_block_0_pad") ++pad;
    while (m.layers[crop].name != "stage_0_block_0_crop") ++crop;
    const double side = size / 4, padded = std::ceil(side / 7) * 7;
    const double real = side * side * 96 * 4 * batch, whole = padded * padded * 96 * 4 * batch;
    EXPECT_EQ(m.layers[pad].out_elems, padded * padded * 96);
    EXPECT_EQ(m.layers[crop].slice_grads, 2);
    const auto p = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
    EXPECT_NEAR(p.layers[pad].fwd_s, kernel_s(0, real + whole, peak), 1e-12) << size;
    EXPECT_NEAR(p.layers[pad].bwd_s, kernel_s(0, real + whole, peak), 1e-12) << size;
    EXPECT_NEAR(p.layers[crop].fwd_s, size == 224 ? 0 : kernel_s(0, 2 * real, peak), 1e-12) << size;
    EXPECT_NEAR(p.layers[crop].bwd_s, 2 * (kernel_s(0, whole, peak) + kernel_s(0, 2 * real, peak)), 1e-12) << size;
  }
}

// A model file's output projection tied to its token embedding (`dense V tied=true`): GPT-2's
// 124,439,808 parameters (Hugging Face's count), the table counted once; the projection's work and
// its gradient kernels are those of an untied dense layer.
TEST(Transformers, ModelFileTiesTheOutputProjection) {
  std::string blocks;
  for (int i = 0; i < 12; ++i) blocks += "transformer_block 12 3072 causal=true\n";
  const std::string head = "input 1024 1 1\ntoken_embedding 50257 768 1024\n" + blocks + "layernorm\n";
  const Model tied = parse_model_file(head + "dense 50257 bias=false tied=true\n", "t.model");
  const Model untied = parse_model_file(head + "dense 50257 bias=false\n", "u.model");
  EXPECT_EQ(tied.params_trainable(), 124'439'808);
  EXPECT_EQ(untied.params_trainable() - tied.params_trainable(), 50257LL * 768);
  EXPECT_EQ(tied.params_trainable(), text("gpt2").params_trainable());
  EXPECT_DOUBLE_EQ(tied.layers.back().fwd_flops, untied.layers.back().fwd_flops);
  EXPECT_EQ(tied.layers.back().trainable_tensors(), 0);
  // Tied to nothing, or to a table of another shape: refused, naming what it needs.
  for (const std::string bad : {"input 16 1 1\ntoken_embedding 100 64 16\ndense 99 tied=true\n",
                                "input 16 64\ndense 100 tied=true\n"}) {
    try {
      parse_model_file(bad, "bad.model");
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("token embedding of"), std::string::npos) << e.what();
    }
  }
}
