// Tasks `image` and `image-folder`: image classification, one token per pixel
// (LRA's Image task: CIFAR-10 grey pixels; here Fashion-MNIST, which Debian
// ships) or one per P x P patch.  `image` reads the installed Fashion-MNIST
// IDX files (55K/5K/10K, data/images/idx.h); `image-folder` reads the user's
// root/<class>/*.png|jpg|bmp (data/images/image_folder.h), grey or RGB, resized on request.
#include "data/images/idx.h"
#include "data/images/image_folder.h"
#include <cmath>
#include <cstdio>

#include "train/cli.h"
#include "train/tasks.h"

namespace az {
namespace {

// ~1K tokens an example as pixels: a default run takes minutes, not hours.
int64_t steps_of(const TaskContext& c) { return c.str("input") == "pixels" ? 500 : 2000; }

TaskInfo fashion_mnist() {
  TaskInfo i;
  i.name = "image";
  i.summary = "Fashion-MNIST (Debian's dataset-fashion-mnist), 28x28 grey: 784 pixel tokens or patches, 10 classes";
  i.options = image_view_options();
  i.load = [](const TaskContext& c) {
    return image_task(load_fashion_mnist(c.data.empty() ? kFashionMnistDir : c.data, 5000, 1), c);
  };
  i.default_steps = steps_of;
  i.cli.input_help = "image files (any size: resized to 28x28 grey)";
  i.cli.read_inputs = [](const std::vector<std::string>& in, const TaskContext& c) { return image_inputs(in, c, 1, 28, true); };
  i.cli.data_name = "fashion-mnist";
  i.cli.data_help = "attnzoo data fashion-mnist [--dir DIR]                    checks the installed IDX files\n";
  i.cli.data_command = [](const std::vector<std::string>& args) {
    Flags f("data fashion-mnist", args, {"dir"}, {});
    Splits s = load_fashion_mnist(f.str("dir", kFashionMnistDir), 5000, 1);
    std::printf("Fashion-MNIST: %zu train, %zu val, %zu test images of %dx%d\n", s.train.size(), s.val.size(),
                s.test.size(), s.train.height, s.train.width);
    return 0;
  };
  i.lra.title = "Image";
  i.lra.order = 4;
  i.lra.rows["quick"] = lra_row({784, 1000, 200, 200, {}}, "--dim 32 --heads 2 --layers 1 --ffn 64 --steps 30 --batch 16 --warmup 6 --eval-every 15 --lr 1e-3");
  i.lra.rows["mini"] = lra_row({784, 20000, 500, 2000, {}}, "--dim 64 --heads 4 --layers 1 --ffn 128 --steps 400 --batch 32 --warmup 40 --eval-every 100 --lr 1e-3");
  i.lra.rows["full"] = lra_row({784, 55000, 2000, 10000, {}}, "--dim 64 --heads 4 --layers 1 --ffn 128 --steps 1500 --batch 32 --warmup 150 --eval-every 500 --lr 1e-3");
  i.lra.rows["tiny"] = lra_row({784, 40, 10, 10, {}}, "--dim 8 --heads 2 --layers 1 --ffn 16 --steps 2 --batch 4 --warmup 1 --eval-every 2 --lr 1e-3");
  i.lra.describe = [](const LraData& d) {
    return "Fashion-MNIST 28x28 grey pixels, one token each, " + std::to_string(d.n_train) + "/" +
           std::to_string(d.n_val) + "/" + std::to_string(d.n_test) + " images, seed 1";
  };
  i.lra.prepare = [](const LraData& d, const std::string& dir) {  // val is carved from the official training set
    Splits s = load_fashion_mnist(kFashionMnistDir, 5000, 1);
    s.train = lra_subset(s.train, d.n_train, 11), s.val = lra_subset(s.val, d.n_val, 12);
    s.test = lra_subset(s.test, d.n_test, 13);
    write_image_splits(s, dir);
  };
  i.lra.train_args = [](const LraData&, const std::string& dir) {
    return std::vector<std::string>{"--task", "image-folder", "--data", dir, "--channels", "1"};
  };
  return i;
}

TaskInfo image_folder() {
  TaskInfo i;
  i.name = "image-folder";
  i.summary = "your images: --data ROOT with ROOT/<class>/*.png|jpg|bmp (or ROOT/{train,val,test}/<class>/)";
  i.options = {text_option("channels", "1", {"1", "3"}, "1 grey, 3 RGB"),
               int_option("image-size", 0, 0, kMaxImageSide, "resize every image to S x S (0: keep; all one size)")};
  for (auto& o : image_view_options()) i.options.push_back(o);
  i.load = [](const TaskContext& c) {
    if (c.data.empty()) fail("--task image-folder needs --data ROOT (root/<class>/*.png|jpg|bmp)");
    return image_task(load_image_folder(c.data, int(c.integer("channels")), int(c.integer("image-size")), 0.1, 0.1, 1), c);
  };
  i.default_steps = steps_of;
  i.cli.input_help = "image files (of the training images' size, or any size with --image-size)";
  i.cli.read_inputs = [](const std::vector<std::string>& in, const TaskContext& c) {
    int ch = int(c.integer("channels")), size = int(c.integer("image-size"));
    int64_t per_side = c.str("input") == "patches" ? int64_t(std::lround(std::sqrt(double(c.seq_len)))) * c.integer("patch")
                                                   : int64_t(std::lround(std::sqrt(double(c.seq_len) / ch)));
    return image_inputs(in, c, ch, size > 0 ? size : int(per_side), size > 0);
  };
  return i;
}

RegisterTask reg_image(fashion_mnist());
RegisterTask reg_folder(image_folder());

}  // namespace
}  // namespace az
