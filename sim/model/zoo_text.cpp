// Language models, as Hugging Face's transformers lays them out:
// * GPT-2 (Radford et al. 2019; GPT2LMHeadModel): token and position embeddings (1024 positions),
//   pre-norm causal blocks, a final layer norm, the output projection onto the vocabulary tied
//   to the token embedding (no weights of its own);
// * BERT (Devlin et al. 2019; BertForPreTraining): token, position (512) and segment embeddings
//   summed and normalised, post-norm blocks, the pooler (dense + tanh on the first token) with
//   the next-sentence head, and the masked-LM head (dense + GELU + layer norm, the output
//   projection tied to the token embedding with a bias of its own) over every token.
// Dropout (0.1) after the embeddings, on the attention probabilities and on each sublayer's
// output, where the two models run it in training. GPT-2's MLP activation is gelu_new, the tanh
// approximation Hugging Face writes as eight operations (cost/compute.cpp). Both scale the scores
// (not q) in their eager attention, and BERT adds its attention mask to them. BERT projects query,
// key and value with three dense layers, GPT-2 with one packed layer (Conv1D c_attn). The loss is
// a softmax over each token's logits (log_softmax and NLL read and write them: T x vocabulary
// values a sample). Parameter counts equal the models' published totals (model_zoo_test;
// transformer_test).
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

// Hugging Face's defaults for both: hidden_dropout_prob and attention_probs_dropout_prob (BERT),
// embd_pdrop, resid_pdrop and attn_pdrop (GPT-2), all 0.1.
constexpr double kDropout = 0.1;
double rate(const ModelOptions& o) { return o.dropout >= 0 ? o.dropout : kDropout; }

struct TextConfig {
  const char* name;
  int layers;
  int heads;
  int hidden;
  int mlp;
  int positions;  // longest sequence the position table holds
};

Shape token_ids(ModelBuilder& b, const ModelOptions& o) { return b.input(Shape{o.input_h, 1, 1}, "input_ids"); }

Model build_gpt2(const TextConfig& c, const ModelOptions& o) {
  ModelBuilder b(c.name);
  Shape x = b.token_embedding(token_ids(b, o), o.classes, c.hidden, c.positions, 0, false, rate(o), "");
  for (int i = 0; i < c.layers; ++i)
    x = b.encoder_block(x, c.heads, c.mlp, fmt::format("h_{}_", i), {true, false, rate(o), false, "gelu_new", true});
  x = b.layer_norm(x, "ln_f");
  x = b.tied_dense(x, o.classes, false, "lm_head");
  b.activation(x, "softmax", "loss");
  return b.finish(o.classes);
}

Model build_bert(const TextConfig& c, const ModelOptions& o) {
  ModelBuilder b(c.name);
  Shape x = b.token_embedding(token_ids(b, o), o.classes, c.hidden, c.positions, 2, true, rate(o), "");
  for (int i = 0; i < c.layers; ++i)
    x = b.encoder_block(x, c.heads, c.mlp, fmt::format("layer_{}_", i),
                        {false, true, rate(o), true, "gelu", true, true});
  Shape pooled = b.take_token(x, "first_token");
  pooled = b.activation(b.dense(pooled, c.hidden, true, "pooler"), "tanh", "pooler_tanh");
  b.dense(pooled, 2, true, "seq_relationship");
  x = b.activation(b.dense(x, c.hidden, true, "transform"), "gelu", "transform_gelu");
  x = b.layer_norm(x, "transform_ln");
  x = b.tied_dense(x, o.classes, true, "decoder");
  b.activation(x, "softmax", "loss");
  return b.finish(o.classes);
}

}  // namespace

Model build_gpt2_small(const ModelOptions& o) { return build_gpt2({"gpt2", 12, 12, 768, 3072, 1024}, o); }
Model build_gpt2_medium(const ModelOptions& o) { return build_gpt2({"gpt2_medium", 24, 16, 1024, 4096, 1024}, o); }
Model build_gpt2_large(const ModelOptions& o) { return build_gpt2({"gpt2_large", 36, 20, 1280, 5120, 1024}, o); }
Model build_gpt2_xl(const ModelOptions& o) { return build_gpt2({"gpt2_xl", 48, 25, 1600, 6400, 1024}, o); }
// GPT-3 6.7B (Brown et al., "Language Models are Few-Shot Learners", 2020, Table 2.1: 32 layers,
// d_model 4096, 32 heads of 128, a context of 2048) on GPT-2's layout and vocabulary; its layers'
// alternating locally banded sparse attention is costed as dense attention.
Model build_gpt3_6_7b(const ModelOptions& o) { return build_gpt2({"gpt3_6_7b", 32, 32, 4096, 16384, 2048}, o); }
Model build_bert_base(const ModelOptions& o) { return build_bert({"bert_base", 12, 12, 768, 3072, 512}, o); }
Model build_bert_large(const ModelOptions& o) { return build_bert({"bert_large", 24, 16, 1024, 4096, 512}, o); }

}  // namespace model_layer
}  // namespace ddlsim
