// input.dataset: a public dataset's sizes where the scenario leaves them unset, and its kind of
// image for the loader's decode (scenario/datasets.hpp).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "predict_util.hpp"
#include "test_util.hpp"

using namespace ddlsim;

using testutil::scenario_default;

TEST(Datasets, TinyImageNetSetsItsSizesAndItsSmallJpegs) {
  const Scenario sc = scenario_default({"--input.dataset=tinyimagenet", "--training.framework=pytorch_ddp"});
  EXPECT_EQ(sc.model.input.h, 64);
  EXPECT_EQ(sc.model.input.w, 64);
  EXPECT_EQ(sc.model.classes, 200);
  EXPECT_EQ(sc.execution.samples, 100000);
  EXPECT_DOUBLE_EQ(sc.system.storage.sample_bytes, 1460);  // 146 MB over 100,000 JPEGs
  // PIL decodes a 64 x 64 JPEG in 0.147 / 1.859 of an ImageNet one's 0.976 ms; the rest of the
  // eager loader's 1.143 ms at 224 x 224 in proportion to the pixels.
  EXPECT_NEAR(sc.system.storage.decode_s, 0.976e-3 * 0.147 / 1.859 + 1.143e-3 * 4096 / 50176, 1e-15);
}

TEST(Datasets, CifarIsRawAndImageNetIsTheDefaults) {
  const Scenario c = scenario_default({"--input.dataset=cifar100", "--training.framework=tf_mirrored"});
  EXPECT_EQ(c.model.input.h, 32);
  EXPECT_EQ(c.model.classes, 100);
  EXPECT_DOUBLE_EQ(c.system.storage.sample_bytes, 3074);
  EXPECT_NEAR(c.system.storage.decode_s, 0.382e-3 * 1024 / 50176, 1e-15);  // no JPEG: graph's rest
  const Prediction custom = testutil::predict_default({}), imagenet = testutil::predict_default({"--input.dataset=imagenet"});
  EXPECT_EQ(custom.epoch_time_s, imagenet.epoch_time_s);
  EXPECT_EQ(custom.input_time_s, imagenet.input_time_s);
}

TEST(Datasets, TheScenariosOwnKeysWin) {
  const Scenario sc = scenario_default({"--input.dataset=cifar10", "--model.input_size=224", "--training.samples=1000"});
  EXPECT_EQ(sc.model.input.h, 224);
  EXPECT_EQ(sc.execution.samples, 1000);
  EXPECT_EQ(sc.model.classes, 10);
  // A model file keeps its own input and classes; the dataset still gives the samples.
  testutil::TempFile file("m.model", "input 8 8 3\nflatten\ndense 5\n");
  const Scenario f = scenario_default({"--input.dataset=cifar10", "--model.file=" + file.path()});
  EXPECT_EQ(f.model.input.h, 8);
  EXPECT_EQ(f.execution.samples, 50000);
}

TEST(Datasets, AnImageDatasetForALanguageModelIsRefusedNamingTheKey) {
  try {
    scenario_default({"--model.name=gpt2", "--input.dataset=cifar10"});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("input.dataset"), std::string::npos) << e.what();
  }
  const auto r = testutil::run_ddlsim("simulate --input.dataset=mnist");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("input.dataset"), std::string::npos) << r.out;
}
