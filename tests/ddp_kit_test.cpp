// The PyTorch measurement kit (calibration/torch/) on one rank: its CSV is what `ddlsim compare`
// reads, its model is the zoo's (trainable parameters equal ddlsim's count), bad input exits with
// code 2 naming the option. Skipped, with the reason, where /usr/bin/python3 has no torch.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/model.hpp"
#include "test_util.hpp"

namespace {

const std::string kDir = testutil::source_dir() + "/calibration/torch";
const std::string kPython = "/usr/bin/python3";

bool have_torch() { return std::system((kPython + " -c 'import torch, torchvision' >/dev/null 2>&1").c_str()) == 0; }

testutil::RunResult python(const std::string& args) { return testutil::run_shell("timeout 120 " + kPython + " " + args + " 2>&1"); }

// `r` exited 2 and its output says `says` (a refused input).
void expect_refused(const testutil::RunResult& r, const std::string& says) {
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(says), std::string::npos) << r.out;
}

std::string column(const std::string& csv, const std::string& name) {
  const auto nl = csv.find('\n');
  std::stringstream header(csv.substr(0, nl)), row(csv.substr(nl + 1));
  for (std::string h, v; std::getline(header, h, ',') && std::getline(row, v, ',');)
    if (h == name) return v;
  return "";
}

}  // namespace

TEST(DdpKit, BadInputExitsWithCode2NamingTheOption) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  testutil::TempFile csv("m.csv", "other,header\n1,2\n");
  const std::string runner = kDir + "/ddp_runner.py --csv " + csv.path();
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {" --model resnet9", "--model: invalid choice: 'resnet9'"},
           {" --model small_cnn --batch 0", "--batch: '0': expected a positive integer"},
           {" --model small_cnn --bucket-mb -1", "--bucket-mb: '-1': expected MiB"},
           {" --model small_cnn --pin core", "--pin: 'core': expected none, rank, local or a CPU number"},
           {" --model inception_v3 --input-size 64", "--input-size 64: inception_v3 needs at least 75 pixels"},
           {" --model small_cnn --append", ":1: --append: the file's header is not this runner's"},
           {" --model gpt2 --input-size 2048", "--input-size 2048: gpt2's sequence holds at most 1024 tokens"},
           {" --model small_cnn --precision mixed", "--precision mixed: needs a GPU (--backend nccl)"},
           {" --model small_cnn --precision fp16", "--precision: invalid choice: 'fp16'"},
           {" --model bert_base --memory-format nhwc", "--memory-format nhwc: bert_base is not a torchvision image"},
           {" --model resnet50 --input-size 32 --batch 1 --warmup 0 --steps 1 --nosync-steps 0 --master-port " +
                std::to_string(20000 + (::getpid() + 13) % 20000),
            "resnet50 at 32 batch 1: Expected more than 1 value per channel"}}) {
    const auto r = python(runner + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << args << "\n" << r.out;
  }
  const auto r = testutil::run_shell("RANK=1 WORLD_SIZE=2 MASTER_ADDR= timeout 60 " + kPython + " " + kDir +
                                     "/gloo_netbench.py --tests ring,foo 2>&1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown test 'foo'"), std::string::npos) << r.out;
  EXPECT_EQ(testutil::slurp(csv.path()), "other,header\n1,2\n");
}

// One rank of small_cnn (the Keras CIFAR-10 CNN: 1,250,858 parameters at 32x32x3, 10 classes, as
// sim/model/zoo_small.cpp counts them) and mobilenet_v2 with 10 classes (2,236,682 trainable, ddlsim's
// count). With compute.throughput = batch / measured step, compare predicts the 1-rank row exactly.
TEST(DdpKit, OneRankCsvIsWhatCompareReads) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  testutil::TempFile csv("m.csv");
  const auto r = python(kDir + "/ddp_runner.py --model small_cnn --batch 4 --warmup 1 --steps 3 --nosync-steps 1 "
                        "--csv " + csv.path() + " --master-port " + std::to_string(20000 + ::getpid() % 20000));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = testutil::slurp(csv.path());
  EXPECT_EQ(column(text, "params"), "1250858") << text;
  EXPECT_EQ(column(text, "grad_bytes"), "5003432");
  EXPECT_EQ(column(text, "cluster.nodes"), "1");
  EXPECT_EQ(column(text, "model.precision"), "fp32");  // scenario keys compare sets from the row
  EXPECT_EQ(column(text, "compute.memory_format"), "nchw");
  EXPECT_EQ(column(text, "framework.optimizer_launches"), "per_tensor");  // torch 1.13: a loop over tensors
  EXPECT_EQ(column(text, "framework.zero_grad"), "zeros");  // the runner zeroes the gradients
  EXPECT_EQ(column(text, "compute.attention"), "math");  // torch 1.13: no scaled_dot_product_attention
  EXPECT_FALSE(column(text, "compute_step_s").empty());
  const double step = std::stod(column(text, "step_time_s"));
  testutil::TempFile ini("base.ini", "[training]\nframework = pytorch_ddp\n[input]\nformat = synthetic\n[compute]\n"
                                     "throughput = " + std::to_string(4 / step) + "\n");
  const auto c = testutil::run_ddlsim("compare " + csv.path() + " --scenario " + ini.path() + " --format json");
  ASSERT_EQ(c.code, 0) << c.out;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["metric"], "step_time_s");
  EXPECT_NEAR(j["rows"][0]["error"].get<double>(), 0.0, 1e-4) << c.out;

  const auto m = python("-c 'import sys; sys.path.insert(0, \"" + kDir + "\"); import ddp_runner as d; "
                        "m = d.build_model(\"mobilenet_v2\", 10, 32); print(sum(p.numel() for p in m.parameters()))'");
  EXPECT_EQ(m.out, "2236682\n");
}

// The language models in plain torch (calibration/torch/text_models.py: Hugging Face's layouts,
// no transformers package), NVIDIA's ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d (ddp_runner.py's
// dle_resnext) and its EfficientNet-WideSE-B0 and -B4 (dle_widese) have the zoo's parameters, and
// one step of GPT-2 at 8 tokens runs under DDP (its token ids in, its loss out; gradients of the
// tied embedding and every layer).
TEST(DdpKit, LanguageModelsAreTheZoos) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  for (const std::string name : {"gpt2", "bert_base", "resnext101_32x4d", "se_resnext101_32x4d",
                                 "efficientnet_widese_b0", "efficientnet_widese_b4"}) {
    const auto m = python("-c 'import sys; sys.path.insert(0, \"" + kDir + "\"); import ddp_runner as d; "
                          "c = d.MODELS[\"" + name + "\"]; m = d.build_model(\"" + name + "\", c[2], c[1]); "
                          "print(sum(p.numel() for p in m.parameters() if p.requires_grad))'");
    const ddlsim::Model zoo = ddlsim::build_zoo_model(name, ddlsim::default_model_options(name));
    EXPECT_EQ(m.out, std::to_string(zoo.params_trainable()) + "\n") << name;
  }
  testutil::TempFile csv("m.csv");
  const auto r = python(kDir + "/ddp_runner.py --model gpt2 --input-size 8 --batch 1 --warmup 0 --steps 1 "
                        "--nosync-steps 0 --allreduce-reps 0 --csv " + csv.path() + " --master-port " +
                        std::to_string(20000 + (::getpid() + 7) % 20000));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = testutil::slurp(csv.path());
  EXPECT_EQ(column(text, "params"), "124439808") << text;
  EXPECT_EQ(column(text, "model.input_size"), "8");
  EXPECT_EQ(column(text, "model.classes"), "50257");
}

// calibration/torch/op_census.py against the zoo, at 64 x 64 and batch 2 (about 15 s): the copies
// autograd makes of torchvision's in-place activations' inputs are the zoo's in-place layers that
// need them (Layer::inplace_copies_input), and Swin-T's F.pad calls, a copy each way, are
// the zoo's pad layers (every block and every merge); a model torchvision lacks, or one that the
// size does not fit, exits with code 2.
TEST(DdpKit, OpCensusAgreesWithTheZoo) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  const auto r = python(kDir + "/op_census.py --size 64 mobilenet_v2 efficientnet_b0 swin_t");
  ASSERT_EQ(r.code, 0) << r.out;
  // "model" lines, then "  count  what" lines.
  std::map<std::string, std::map<std::string, int>> census;
  std::string model;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != ' ') {
      model = line;
      continue;
    }
    std::istringstream fields(line);
    int count = 0;
    std::string what;
    fields >> count >> std::ws;
    std::getline(fields, what);
    census[model][what] = count;
  }
  // The zoo at 64 x 64: its in-place activations that copy their input, and its F.pad layers (each
  // block's pad, each merge's padding concatenation).
  const auto zoo = [](const std::string& name) {
    ddlsim::ModelOptions o = ddlsim::default_model_options(name);
    o.input_h = o.input_w = 64;
    const auto ends_with = [](const std::string& s, const std::string& tail) {
      return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    std::pair<int, int> n{0, 0};
    for (const ddlsim::Layer& l : ddlsim::build_zoo_model(name, o).layers) {
      n.first += l.inplace_copies_input();
      n.second += l.kind == ddlsim::LayerKind::Permute && (ends_with(l.name, "_pad") || ends_with(l.name, "_concat"));
    }
    return n;
  };
  // A busy machine's profiler now and then loses a copy's parent (op_census.py counts it as
  // "(no parent)"; one CI run: 48 under silu_ and one without a parent): counted with the
  // activation's, the copies still match the zoo's one for one.
  const auto inplace_copies = [&](const std::string& model, const std::string& activation) {
    return census[model]["clone < " + activation] + census[model]["clone < (no parent)"];
  };
  EXPECT_EQ(inplace_copies("mobilenet_v2", "hardtanh_"), zoo("mobilenet_v2").first) << r.out;
  EXPECT_EQ(inplace_copies("efficientnet_b0", "silu_"), zoo("efficientnet_b0").first) << r.out;
  EXPECT_EQ(census["swin_t"]["constant_pad_nd"], 2 * zoo("swin_t").second) << r.out;
  expect_refused(python(kDir + "/op_census.py resnet9"), "unknown torchvision model 'resnet9'");
  expect_refused(python(kDir + "/op_census.py --batch 0 resnet50"), "--batch: '0': expected a positive integer");
  expect_refused(python(kDir + "/op_census.py --size 64 inception_v3"), "inception_v3 at 64 x 64");
}

// The GPU tools (step_profile.py, eager_overhead.py --device cuda) say why they cannot run on a
// machine without a CUDA device (exit code 2), and step_profile's GPU busy time is the union of its
// kernels' intervals: [0, 4] and [2, 6] overlap into 6, [10, 11] adds 1, [10.5, 10.8] nothing: 7.
TEST(DdpKit, GpuToolsSayWhyWithoutAGpu) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  const auto union_us = python("-c 'import sys; sys.path.insert(0, \"" + kDir + "\"); import step_profile as s; "
                               "print(s.busy_us([(10, 11), (0, 4), (10.5, 10.8), (2, 6)]))'");
  EXPECT_EQ(union_us.out, "7.0\n");
  if (python("-c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'").code == 0)
    GTEST_SKIP() << "this machine has a GPU: nothing to refuse";
  expect_refused(python(kDir + "/step_profile.py --model resnet50 --batch 2"), "sees no CUDA device");
  expect_refused(python(kDir + "/eager_overhead.py --device cuda"), "--device cuda: this torch sees no CUDA device");
  expect_refused(testutil::run_shell("bash " + testutil::source_dir() + "/calibration/gpu_check.sh " +
                                     ::testing::TempDir() + "gpu_check " + kPython + " 2>&1"),
                 "gpu_check.sh: ");
}

// zoo_steps.py (the H100 zoo check's runner) on the CPU: one row a model in compare's columns, the
// phases when asked, and exit 2 for what it cannot do; its kernel sorting by name (a cuDNN batch
// norm is a norm even though cuDNN's name; a lambda's '#' is no profiler annotation); kernel_sweep.py
// and zoo_check.sh refuse a machine without a GPU.
TEST(DdpKit, ZooStepsOnCpuAndItsRefusals) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  const testutil::TempFile csv("zoo.csv");
  const auto run = python(kDir + "/zoo_steps.py --device cpu --precision fp32 --models small_cnn,small_cnn "
                          "--batch 2 --warmup 1 --steps 2 --phases --csv " + csv.path());
  ASSERT_EQ(run.code, 0) << run.out;
  const std::string text = testutil::slurp(csv.path());
  EXPECT_EQ(text.rfind("model.name,model.input_size,", 0), 0u) << text;
  EXPECT_NE(text.find("gpu_busy_s,kernels,matmul_s"), std::string::npos) << text;
  EXPECT_NE(text.find("forward_s,forward_backward_s\n"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;  // the header, two rows
  EXPECT_NE(text.find("\nsmall_cnn,32,10,fp32,nchw,per_tensor,"), std::string::npos) << text;
  const auto sort = python("-c 'import sys; sys.path.insert(0, \"" + kDir + "\"); import zoo_steps as z; print("
                           "z.category(\"void cudnn::batchnorm_bwtr_nhwc_semiPersist<__half>\"), "
                           "z.category(\"sm90_xmma_fprop_implicit_gemm_f16f16\"), "
                           "z.category(\"nvjet_sm90_hsh_192x192\"), "
                           "z.category(\"conv_depthwise2d_forward_kernel\"), z.category(\"nchwToNhwcKernel\"), "
                           "z.category(\"multi_tensor_apply_kernel\"), "
                           "bool(z.ANNOTATION.match(\"Optimizer.step#SGD.step\")), "
                           "bool(z.ANNOTATION.match(\"elementwise_kernel<{lambda()#3}>\")))'");
  EXPECT_EQ(sort.out, "norm_s matmul_s matmul_s other_s layout_s optimizer_s True False\n") << sort.out;
  const std::string cpu = kDir + "/zoo_steps.py --device cpu --precision ";
  expect_refused(python(cpu + "fp32 --models resnet9 --csv " + csv.path()), "unknown zoo name(s) resnet9");
  expect_refused(python(cpu + "mixed --models small_cnn --csv " + csv.path()),
                 "--precision mixed: needs --device cuda");
  const testutil::TempFile other("other.csv", "a,b\n1,2\n");
  expect_refused(python(cpu + "fp32 --models small_cnn --csv " + other.path()),
                 "the file's header is not zoo_steps.py's");
  if (python("-c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'").code == 0)
    GTEST_SKIP() << "this machine has a GPU: nothing to refuse";
  expect_refused(python(kDir + "/zoo_steps.py --models small_cnn --csv " + csv.path()), "sees no CUDA device");
  expect_refused(python(kDir + "/kernel_sweep.py --csv " + csv.path()), "sees no CUDA device");
  expect_refused(testutil::run_shell("bash " + testutil::source_dir() + "/calibration/zoo_check.sh " +
                                     ::testing::TempDir() + "zoo_check " + kPython + " 2>&1"),
                 "zoo_check.sh: ");
}

// loader_cost.py (the PyTorch loader's default decode time, system.hpp): one CSV row of per-image
// times on synthetic JPEGs drawn as calibrate-input draws its own (about 94 KiB), the total the sum
// of its parts, and the time through a one-worker DataLoader; a folder without JPEGs and a bad
// count exit 2 naming the option.
TEST(DdpKit, LoaderCostTimesTorchvisionsTransform) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  const auto r = python(kDir + "/loader_cost.py --count 4 --repeats 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "images,mean_kib,decode_ms,crop_flip_ms,to_tensor_normalize_ms,total_ms,dataloader_ms");
  const double kib = std::stod(column(r.out, "mean_kib"));
  EXPECT_GT(kib, 80);
  EXPECT_LT(kib, 110);
  double parts = 0;
  for (const char* c : {"decode_ms", "crop_flip_ms", "to_tensor_normalize_ms"}) {
    const double v = std::stod(column(r.out, c));
    EXPECT_GT(v, 0) << c;
    parts += v;
  }
  EXPECT_NEAR(std::stod(column(r.out, "total_ms")), parts, 2e-3);  // printed to 3 decimals
  EXPECT_GT(std::stod(column(r.out, "dataloader_ms")), 0);
  expect_refused(python(kDir + "/loader_cost.py --images /nonexistent-ddlsim-images"), "--images");
  expect_refused(python(kDir + "/loader_cost.py --count 0"), "--count");
  // Tiny ImageNet's 64 x 64 JPEGs (calibration/measured/loader-jpeg-sizes.csv): a few KiB each.
  const auto tiny = python(kDir + "/loader_cost.py --count 4 --repeats 1 --jpeg-size 64x64 --size 64");
  ASSERT_EQ(tiny.code, 0) << tiny.out;
  EXPECT_LT(std::stod(column(tiny.out, "mean_kib")), 8);
  expect_refused(python(kDir + "/loader_cost.py --jpeg-size 64"), "--jpeg-size");
}

// calibration/torch/augment_cost.py: the standard transform first, then each policy, ms an image.
TEST(DdpKit, AugmentCostTimesThePoliciesBesideTheStandardTransform) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  const auto r = python(kDir + "/augment_cost.py --count 2 --repeats 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("policy,ms_per_image\nstandard,"), std::string::npos) << r.out;
  for (const char* policy : {"\nautoaugment,", "\nrandaugment,", "\ntrivialaugment,", "\naugmix,"})
    EXPECT_NE(r.out.find(policy), std::string::npos) << policy << r.out;
  expect_refused(python(kDir + "/augment_cost.py --images /nonexistent-ddlsim-images"), "--images");
}

// The sharded runner (calibration/torch/sharded_runner.py, ZeRO-3 written out on gloo): two ranks
// with the same batch train exactly the parameters one rank trains (the reduce-scattered gradient
// is the average of equal gradients), its CSV says training.sharding = zero3, and what it cannot
// run is refused with code 2.
TEST(DdpKit, ShardedRunnerTrainsWhatOneRankTrains) {
  if (!have_torch()) GTEST_SKIP() << "skipped: no torch for " << kPython << " (Debian: python3-torch)";
  const std::string script = "import sys; sys.path.insert(0, \"" + kDir + "\"); import ddlsim_dist as dd, ddp_runner "
      "as dr, sharded_runner as sr, torch; o = dr.options([\"--model\", \"small_cnn\", \"--batch\", \"4\", "
      "\"--bucket-mb\", \"0.5\", \"--csv\", \"-\"]); o.prefetch = \"forward+backward\"; l = dd.Layout(None, None); "
      "dist = dd.init(\"gloo\", l); t = sr.ShardedTrainer(o, l, torch, dist); [t.iteration() for _ in range(3)]; "
      "s = torch.cat([u.shard.data for u in t.units]); g = [torch.empty_like(s) for _ in range(l.world)]; "
      "dist.all_gather(g, s); print(len(t.units), \"%.9f\" % float(torch.cat(g).double().sum()), flush=True); "
      "dd.finish(dist)";
  testutil::TempFile py("check.py", script);
  const int port = 20000 + ::getpid() % 20000;
  const auto run = [&](int world, int p) {
    std::string cmd = "cd " + py.dir() + "; ";
    for (int r = 0; r < world; ++r)
      cmd += "RANK=" + std::to_string(r) + " WORLD_SIZE=" + std::to_string(world) + " LOCAL_RANK=" + std::to_string(r) +
             " LOCAL_WORLD_SIZE=" + std::to_string(world) + " MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(p) +
             " timeout 120 " + kPython + " " + py.path() + (r ? " >/dev/null 2>&1 & " : " 2>&1 & ");
    return testutil::run_shell(cmd + "wait");
  };
  const auto one = run(1, port), two = run(2, port + 1);
  ASSERT_FALSE(one.out.empty()) << one.out;
  EXPECT_EQ(one.out, two.out);  // units and the trained parameters' sum, to 9 decimals
  EXPECT_NE(one.out.find(' '), std::string::npos) << one.out;
  testutil::TempFile csv("s.csv");
  const auto r = python(kDir + "/sharded_runner.py --model small_cnn --batch 4 --warmup 1 --steps 2 --csv " + csv.path() +
                        " --master-port " + std::to_string(port + 2));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = testutil::slurp(csv.path());
  EXPECT_EQ(column(text, "training.sharding"), "zero3") << text;
  EXPECT_EQ(column(text, "params"), "1250858");
  EXPECT_EQ(text.substr(text.size() - std::string(",forward+backward\n").size()), ",forward+backward\n");
  expect_refused(python(kDir + "/sharded_runner.py --model small_cnn --precision mixed --csv -"), "fp32");
  expect_refused(python(kDir + "/sharded_runner.py --model small_cnn --prefetch sometimes --csv -"), "--prefetch");
}
