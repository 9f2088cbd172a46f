// `attnzoo generate --ckpt CKPT --prompt TEXT
// --tokens K [--temperature T --top-k K --top-p P --seed S]`: feeds the
// prompt's bytes, then samples K bytes, each fed back, printing each as it is
// drawn.  Cost per byte: the variant's decoding state (O(t d) per layer for a
// KV cache at position t, O(w d) for a window, O(m d) for the recurrent
// state), or a whole forward pass over the prefix for a variant without one.
//
// The context: a prompt longer than the model's --seq-len is refused (the
// learned positions end there; a cut prompt would silently lose its start).
// When the prompt and the sampled bytes fill the context, the decoder restarts
// on the last half of it and says so once.
#include "autograd/runtime/strings.h"
#include "data/lm/lm_corpus.h"
#include "train/checkpoint.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/generate.h"
#include "train/tasks.h"
#include "train/trainer.h"

#include <chrono>
#include <cstdio>

namespace az {

int cmd_generate(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf(
                 "attnzoo generate --ckpt CKPT --prompt TEXT [--tokens K] [--temperature T] [--top-k K] [--top-p P] [--seed S]\n"
                 "  samples K bytes (default 300) from a language model (attnzoo train --task lm) after the prompt,\n"
                 "  printing each as it is drawn (invalid UTF-8 and control bytes as U+FFFD), then tokens/s on stderr.\n"
                 "  --temperature 0..100 (default 1; 0: always the most likely byte), --top-k 0..256 (0: all),\n"
                 "  --top-p (0,1] (1: all), --seed S (the same seed gives the same text).  Incremental: a KV cache\n"
                 "  (full, flash; local, strided and longformer keep only their window), the recurrent state (linear,\n"
                 "  performer, rfa), the value cache (synthesizer), the gated half (gmlp); a model without a state\n"
                 "  re-runs the prefix for every byte.  A prompt longer than the model's context\n"
                 "  is refused; a full context restarts on its last half, with a notice.  --impl reference: the\n"
                 "  models' reference forms, which keep no state (the prefix is re-run for every byte).\n"),
             0;
  Flags f("generate", args, {"ckpt", "prompt", "tokens", "temperature", "top-k", "top-p", "seed", "impl"}, {});
  f.apply_impl();
  if (!f.has("ckpt")) fail("generate: --ckpt CKPT is required");
  if (!f.has("prompt")) fail("generate: --prompt TEXT is required (the bytes the model continues)");
  std::string prompt = f.str("prompt", "");
  if (prompt.empty()) fail("generate: --prompt must not be empty (the model needs a first byte to continue)");
  int64_t tokens = f.integer("tokens", 300);
  if (tokens < 1 || tokens > 1000000) fail("generate: --tokens must be in 1..1000000, got " + std::to_string(tokens));
  int64_t seed = f.integer("seed", 1);
  if (seed < 0) fail("generate: --seed must not be negative, got " + std::to_string(seed));
  SamplingOptions so;
  so.temperature = f.number("temperature", 1.0);
  so.top_k = f.integer("top-k", 0);
  so.top_p = f.number("top-p", 1.0);
  check_sampling(so, kByteClasses);

  std::string path = f.str("ckpt", "");
  Checkpoint ck = load_checkpoint(path);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  if (mc.head != Head::kToken || mc.num_classes != kByteClasses)
    fail("generate: " + path + " is not a byte-level language model (train one with attnzoo train --task lm)");
  if (int64_t(prompt.size()) > mc.max_len)
    fail("generate: the prompt has " + std::to_string(prompt.size()) + " bytes, more than the model's context of " +
         std::to_string(mc.max_len) + " (its --seq-len); give a shorter prompt");
  SequenceClassifier model(mc);
  load_into(model.named_parameters(), ck.params, "parameter", path);
  load_into(model.named_buffers(), ck.buffers, "buffer", path);
  LmDecoder dec(model);
  std::fprintf(stderr, "generate: %s, %s\n", mc.model.c_str(), dec.method().c_str());

  Rng rng{uint64_t(seed)};
  Utf8Printer out(stdout);
  std::vector<int32_t> history;  // every token, for a restart when the context is full
  std::vector<float> logits;
  for (unsigned char ch : prompt) {
    out.put(ch);
    history.push_back(int32_t(ch) + 1);
    logits = dec.feed(int32_t(ch) + 1);
  }
  bool told = false;
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < tokens; ++i) {
    int32_t byte = sample_logits(logits, so, rng);
    out.put(uint8_t(byte));
    history.push_back(byte + 1);
    if (i + 1 == tokens) break;
    if (dec.position() >= mc.max_len) {  // context full: start again on its last half
      if (!told) {
        out.flush();
        std::fprintf(stderr, "\ngenerate: the context of %lld bytes is full; continuing from its last %lld bytes\n",
                     (long long)mc.max_len, (long long)(mc.max_len / 2));
        told = true;
      }
      dec.reset();
      for (size_t j = history.size() - size_t(mc.max_len / 2); j + 1 < history.size(); ++j) dec.feed(history[j]);
    }
    logits = dec.feed(byte + 1);
  }
  out.flush();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "\ngenerate: %lld bytes in %.2f s, %.1f tokens/s (%s, state %.1f KB)\n", (long long)tokens, s,
               double(tokens) / std::max(s, 1e-9), dec.method().c_str(), double(dec.state_bytes()) / 1024.0);
  return 0;
}

}  // namespace az
