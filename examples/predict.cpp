// examples/predict.cpp: load a checkpoint written by `attnzoo train --task
// listops` and predict the value (the class, 0-9) of ListOps expressions.
//
//   build/attnzoo train --task listops --model full --steps 300 --out runs/my-listops
//   make examples && build/examples/predict runs/my-listops/best.ckpt "[MAX 2 9 [MIN 4 7 ] 0 ]"
//
// The checkpoint holds the model's configuration (ModelConfig) and its named
// parameters and buffers; the model is rebuilt from the first and filled from
// the second.  Without expressions, three built-in ones are used.
#include <cstdio>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "data/listops/listops.h"
#include "train/checkpoint.h"
#include "train/model.h"

using namespace az;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: predict CKPT [EXPRESSION ...]\n");
    return 2;
  }
  try {
    const std::string path = argv[1];
    Checkpoint ck = load_checkpoint(path);
    ModelConfig mc = ModelConfig::from_map(ck.model_config);
    if (mc.patch_dim != 0 || mc.vocab != kListOpsVocab || mc.num_classes != kListOpsClasses)
      throw std::runtime_error(path + " is not a ListOps model (vocabulary " + std::to_string(mc.vocab) + ", " +
                               std::to_string(mc.num_classes) + " classes; expected 16 and 10: --task listops)");
    SequenceClassifier model(mc);
    load_into(model.named_parameters(), ck.params, "parameter", path);
    load_into(model.named_buffers(), ck.buffers, "buffer", path);
    model.eval();

    std::vector<std::string> exprs(argv + 2, argv + argc);
    if (exprs.empty()) exprs = {"[MAX 2 9 [MIN 4 7 ] 0 ]", "[SM 3 5 [MED 1 8 2 ] ]", "[MIN 6 [MAX 1 3 ] 8 ]"};

    // One batch, every expression padded to the model's length (token 0, pad_mask 1).
    Batch b;
    b.B = int(exprs.size()), b.N = int(mc.max_len);
    for (size_t i = 0; i < exprs.size(); ++i) {
      std::vector<int32_t> ids = listops_tokenize(exprs[i]);  // DataError on a bad token
      if (int64_t(ids.size()) > mc.max_len)
        throw std::runtime_error("expression " + std::to_string(i + 1) + " has " + std::to_string(ids.size()) +
                                 " tokens; the model takes at most " + std::to_string(mc.max_len));
      for (int j = 0; j < b.N; ++j) {
        bool pad = j >= int(ids.size());
        b.tokens.push_back(pad ? 0 : ids[size_t(j)]);
        b.pad_mask.push_back(pad ? 1.0f : 0.0f);
      }
    }
    NoGradGuard no_grad;
    Tensor probs = softmax(model.forward(b));  // [B,10]
    for (int i = 0; i < b.B; ++i) {
      const float* p = probs.data() + i * kListOpsClasses;
      int best = 0;
      for (int c = 1; c < kListOpsClasses; ++c)
        if (p[c] > p[best]) best = c;
      std::printf("predicted %d (p = %.2f), true value %d: %s\n", best, p[best], listops_eval(exprs[size_t(i)]),
                  exprs[size_t(i)].c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "predict: %s\n", e.what());
    return 1;
  }
}
