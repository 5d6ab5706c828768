#include "scenario/datasets.hpp"

#include <utility>
#include <vector>

#include "core/parse.hpp"

namespace ddlsim {
inline namespace scenario_layer {

namespace {

struct Dataset {
  const char* name;
  StoredImage stored;
  std::vector<std::pair<const char*, const char*>> keys;
};

// Each figure from the dataset's own description:
//   ImageNet (ILSVRC2012): 1,281,167 training JPEGs of 1,000 classes, about 138 GiB (110 KiB each);
//     the model's own input size (a crop of the stored image).
//   Tiny ImageNet (cs231n.stanford.edu): 100,000 training JPEGs of 64 x 64 pixels, 200 classes; the
//     JPEG bytes of its training split as Hugging Face stores them (zh-plus/tiny-imagenet, one
//     parquet file of 146 MB): 1,460 bytes each.
//   CIFAR-10 and CIFAR-100 (cs.toronto.edu/~kriz/cifar.html): 50,000 training images of 32 x 32
//     pixels, stored raw in the binary version: 3,073 bytes a record (a label byte and 3,072 pixel
//     values), CIFAR-100's 3,074 (a coarse and a fine label).
const std::vector<Dataset>& datasets() {
  static const std::vector<Dataset> all = {
      {"imagenet", StoredImage::ImagenetJpeg,
       {{"model.classes", "1000"}, {"training.samples", "1281167"}, {"input.sample_kb", "110"}}},
      {"tinyimagenet", StoredImage::TinyJpeg,
       {{"model.input_size", "64"}, {"model.classes", "200"}, {"training.samples", "100000"},
        {"input.sample_kb", "1.42578125"}}},
      {"cifar10", StoredImage::Raw,
       {{"model.input_size", "32"}, {"model.classes", "10"}, {"training.samples", "50000"},
        {"input.sample_kb", "3.0009765625"}}},
      {"cifar100", StoredImage::Raw,
       {{"model.input_size", "32"}, {"model.classes", "100"}, {"training.samples", "50000"},
        {"input.sample_kb", "3.001953125"}}},
  };
  return all;
}

// The dataset input.dataset names (nullptr: custom), read as any choice key is.
const Dataset* find_dataset(const Settings& s) {
  const auto it = s.find("input.dataset");
  if (it == s.end()) return nullptr;
  std::vector<std::pair<std::string, const Dataset*>> table = {{"custom", nullptr}};
  for (const Dataset& d : datasets()) table.emplace_back(d.name, &d);
  return lookup(table, it->second.value, where(s, "input.dataset"));
}

}  // namespace

bool names_dataset(const Settings& settings) { return find_dataset(settings) != nullptr; }

Settings with_dataset(const Settings& settings) {
  const Dataset* d = find_dataset(settings);
  if (!d) return settings;
  Settings out = settings;
  const std::string origin = where(settings, "input.dataset") + " = " + d->name;
  const bool model_file = !settings.at("model.file").value.empty();
  for (const auto& [key, value] : d->keys) {
    Setting& s = out.at(key);
    if (s.origin != "default" || (model_file && std::string(key).rfind("model.", 0) == 0)) continue;
    s = {value, origin, true};
  }
  return out;
}

StoredImage stored_image(const Settings& settings) {
  const Dataset* d = find_dataset(settings);
  return d ? d->stored : StoredImage::Auto;
}

}  // namespace scenario_layer
}  // namespace ddlsim
