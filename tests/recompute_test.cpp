// Activation recomputation (training.recompute = full): each layer's forward again in its
// backward, and only the residual blocks' inputs kept (cost/compute.cpp recompute_forwards,
// cost/memory.hpp recomputed_saved_elems_per_sample).
#include <gtest/gtest.h>

#include "cost/memory.hpp"
#include "model/model.hpp"
#include "predict_util.hpp"

using namespace ddlsim;

using testutil::scenario_default;

TEST(Recompute, EachLayersForwardRunsAgainInItsBackward) {
  for (const char* model : {"resnet50", "gpt2", "vgg16"}) {
    const std::vector<std::string> base = {std::string("--model.name=") + model, "--cluster.nodes=1",
                                           "--cluster.gpus_per_node=1", "--training.batch_per_gpu=4"};
    std::vector<std::string> re = base;
    re.push_back("--training.recompute=full");
    const ComputeProfile plain = device_compute_profile(scenario_default(base)), again = device_compute_profile(scenario_default(re));
    ASSERT_EQ(plain.layers.size(), again.layers.size());
    for (std::size_t i = 0; i < plain.layers.size(); ++i) {
      EXPECT_DOUBLE_EQ(again.layers[i].fwd_s, plain.layers[i].fwd_s) << model << " layer " << i;
      EXPECT_DOUBLE_EQ(again.layers[i].bwd_s, plain.layers[i].bwd_s + plain.layers[i].fwd_s) << model << " layer " << i;
      EXPECT_EQ(again.layers[i].bwd_kernels, plain.layers[i].bwd_kernels + plain.layers[i].fwd_kernels);
    }
    EXPECT_DOUBLE_EQ(again.optimizer_s, plain.optimizer_s);
  }
}

TEST(Recompute, KeepsTheBlocksInputsAndOneBlock) {
  // GPT-2 (1,024 tokens) keeps its 25 residual sums (T x D each: the embeddings' and two a block)
  // and the largest block's saved tensors (the head's, whose logits alone are T x V); VGG-16 has no residual
  // add: one block, nothing saved.
  const std::vector<std::string> base = {"--model.name=gpt2", "--cluster.nodes=1", "--training.batch_per_gpu=8",
                                         "--cluster.platform=dgx-a100"};
  const Model gpt2 = scenario_default(base).model;
  std::int64_t adds = 0;
  for (const Layer& l : gpt2.layers)
    if (l.kind == LayerKind::Add) adds += l.out_elems;
  EXPECT_EQ(adds, 25LL * 1024 * 768);
  const std::int64_t kept = recomputed_saved_elems_per_sample(gpt2);
  EXPECT_GT(kept, adds);
  EXPECT_GT(kept, adds + 1024LL * 50257);  // the head keeps the logits, T x V, the largest block
  EXPECT_LT(kept, adds + 1024LL * 50257 + saved_elems_per_sample(gpt2) / 12);
  const Model vgg = build_zoo_model("vgg16", {});
  EXPECT_EQ(recomputed_saved_elems_per_sample(vgg), saved_elems_per_sample(vgg));
  // Through the prediction (FP32, batch 8): less activation memory, a longer step.
  std::vector<std::string> re = base;
  re.push_back("--training.recompute=full");
  const Prediction a = testutil::predict_default(base), b = testutil::predict_default(re);
  EXPECT_DOUBLE_EQ(b.activation_memory_bytes, double(kept) * 8 * 4);
  EXPECT_LT(b.activation_memory_bytes, a.activation_memory_bytes / 3);
  EXPECT_GT(b.step_time_s, a.step_time_s);
}
