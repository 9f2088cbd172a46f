// examples/train_model.cpp: define a model and train it on a data set of its
// own, with the C++ API alone (no `attnzoo` command, no files).
//
// The task: a sequence of 6 to 24 tokens drawn from {1, 2, 3}; the label is 1
// when token 1 occurs more often than token 2, else 0.  Sequences have
// different lengths, so each batch is padded (token 0, pad_mask 1).
// The model: SequenceClassifier (train/model.h) = token embedding + positions,
// one pre-norm block around any registered attention variant, mean pooling,
// a linear layer to 2 classes; trained with Adam on the cross-entropy.
//
//   make examples && build/examples/train_model [MODEL]     (MODEL: `attnzoo models`, default local)
// It takes about a second on one core and ends with "test accuracy 0.9..".
#include <algorithm>
#include <cstdio>
#include <string>

#include "autograd/ops.h"
#include "nn/optim.h"
#include "train/model.h"

using namespace az;

// B random examples, padded to the longest: tokens and pad_mask are [B,N].
Batch random_batch(Rng& rng, int B) {
  std::vector<std::vector<int32_t>> seqs(B);  // B sequences, then padded into the batch
  Batch b;
  b.B = B;
  for (auto& s : seqs) {
    s.resize(size_t(6 + rng.randint(19)));  // length 6..24
    int ones = 0, twos = 0;
    for (auto& t : s) {
      t = int32_t(1 + rng.randint(3));
      ones += t == 1, twos += t == 2;
    }
    b.labels.push_back(ones > twos ? 1 : 0);
    b.N = std::max(b.N, int(s.size()));
  }
  for (auto& s : seqs)
    for (int j = 0; j < b.N; ++j) {
      bool pad = j >= int(s.size());
      b.tokens.push_back(pad ? 0 : s[size_t(j)]);
      b.pad_mask.push_back(pad ? 1.0f : 0.0f);
    }
  return b;
}

int main(int argc, char** argv) {
  try {
    ModelConfig mc;
    mc.model = argc > 1 ? argv[1] : "local";  // any attention variant in the registry
    mc.vocab = 4;                             // ids 0 (padding) .. 3
    mc.num_classes = 2, mc.max_len = 24;
    mc.dim = 32, mc.heads = 2, mc.layers = 1, mc.ffn = 64, mc.dropout = 0.0f;
    global_rng().seed_with(1);                // the weights' initial draw
    SequenceClassifier model(mc);
    Adam opt(model.named_parameters());
    std::printf("training %s: %zu parameter tensors\n", mc.model.c_str(), model.named_parameters().size());

    Rng data(7);
    model.train();
    for (int step = 1; step <= 300; ++step) {
      Batch b = random_batch(data, 32);
      Tensor logits = model.forward(b);                              // [B,2]
      Tensor loss = cross_entropy(logits, IntTensor({b.B}, b.labels));
      opt.zero_grad();
      loss.backward();
      opt.step(3e-3f);                                               // learning rate
      if (step % 100 == 0) std::printf("step %d: loss %.4f\n", step, loss.item());
    }

    model.eval();  // no dropout; no gradients needed either
    NoGradGuard no_grad;
    Rng fresh(99);  // examples the model has never seen
    int correct = 0, total = 0;
    for (int i = 0; i < 16; ++i) {
      Batch b = random_batch(fresh, 32);
      Tensor logits = model.forward(b);
      for (int r = 0; r < b.B; ++r, ++total) {
        int predicted = logits.data()[r * 2 + 1] > logits.data()[r * 2] ? 1 : 0;
        correct += predicted == b.labels[size_t(r)];
      }
    }
    std::printf("test accuracy %.3f on %d new examples\n", double(correct) / total, total);
    return 0;
  } catch (const std::exception& e) {  // bad model names, settings: one line
    std::fprintf(stderr, "train_model: %s\n", e.what());
    return 1;
  }
}
