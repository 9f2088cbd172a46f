// Batch-parallel steps (see parallel.h).
#include "train/parallel.h"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "train/distributed.h"  // slice_rows

namespace az {

ParallelSettings& parallel_settings() {
  static ParallelSettings s;
  return s;
}

Parallel parse_parallel(const std::string& name) {
  if (name == "auto") return Parallel::kAuto;
  if (name == "batch") return Parallel::kBatch;
  if (name == "ops") return Parallel::kOps;
  fail("--parallel must be auto, batch or ops, got '" + name + "'");
}

const char* parallel_name(Parallel p) { return p == Parallel::kBatch ? "batch" : p == Parallel::kOps ? "ops" : "auto"; }

Parallel choose_parallel(int64_t B, int64_t N, int64_t D, int threads) {
  if (B >= threads || N * D < (int64_t(1) << 17)) return Parallel::kBatch;
  return Parallel::kOps;
}

int64_t shard_count(Parallel mode, int64_t B, int64_t N) {
  if (mode == Parallel::kOps || B <= 1) return 1;
  const int64_t by_tokens = std::max<int64_t>(2, (B * std::max<int64_t>(N, 1) + kShardTokens - 1) / kShardTokens);
  return std::min({B, by_tokens, std::max<int64_t>(1, parallel_settings().max_shards)});
}

ShardRows shard_rows(int64_t B, int64_t S, int64_t s) {
  const int64_t per = B / S, extra = B % S;
  return {s * per + std::min(s, extra), per + (s < extra ? 1 : 0)};
}

Parallel scoring_mode() { return parallel_settings().mode == Parallel::kOps ? Parallel::kOps : Parallel::kBatch; }

std::vector<ScoringPiece> scoring_pieces(const std::vector<Batch>& batches, size_t first, size_t stride) {
  std::vector<ScoringPiece> pieces;
  for (size_t k = first; k < batches.size(); k += stride) {
    const int64_t S = shard_count(scoring_mode(), batches[k].B, batches[k].N);
    for (int64_t s = 0; s < S; ++s) pieces.push_back({k, shard_rows(batches[k].B, S, s)});
  }
  return pieces;
}

Batch piece_of(const std::vector<Batch>& batches, const ScoringPiece& p) {
  return dist::slice_rows(batches[p.batch], p.rows.first, p.rows.rows);
}

void run_scoring(int64_t count, const std::function<void(int64_t)>& fn) {
  if (scoring_mode() == Parallel::kOps)
    for (int64_t i = 0; i < count; ++i) fn(i);
  else
    run_shards(count, fn);
}

std::string describe_parallel(Parallel mode, int64_t B, int64_t N) {
  const int threads = omp_get_max_threads();
  const std::string over = " over " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  if (mode == Parallel::kOps) return "split products" + over;
  const int64_t S = shard_count(mode, B, N), per = B / S;
  return "batch-parallel, " + std::to_string(S) + (S == 1 ? " shard of " : " shards of ") + std::to_string(per) +
         (B % S ? "-" + std::to_string(per + 1) : "") + (per == 1 && B % S == 0 ? " example" : " examples") + over;
}

void run_shards(int64_t count, const std::function<void(int64_t)>& fn, const std::function<void()>& between,
                int64_t then_count, const std::function<void(int64_t)>& then) {
  const int threads = int(std::min<int64_t>(count, omp_get_max_threads()));
  if (threads <= 1 || omp_in_parallel()) {  // a plain loop, its ops single-threaded as in a region
    const int was = omp_get_max_threads();
    omp_set_num_threads(1);
    try {
      for (int64_t k = 0; k < count; ++k) fn(k);
      if (between) between();
      for (int64_t k = 0; k < then_count; ++k) then(k);
    } catch (...) {
      omp_set_num_threads(was);
      throw;
    }
    omp_set_num_threads(was);
    return;
  }
  const bool grad = grad_enabled();
  std::vector<std::exception_ptr> errors(static_cast<size_t>(count + 1));
#pragma omp parallel num_threads(threads)
  {
    omp_set_num_threads(1);  // this thread's own ops run on it alone (the setting ends with the region)
    std::optional<NoGradGuard> no_grad;  // the caller's grad mode (thread-local)
    if (!grad) no_grad.emplace();
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < count; ++k) {
      try {
        fn(k);
      } catch (...) {
        errors[size_t(k)] = std::current_exception();
      }
    }
    bool failed = false;  // (the loop's barrier has passed: every fn is done)
    for (int64_t k = 0; k < count; ++k) failed |= errors[size_t(k)] != nullptr;
#pragma omp single
    if (!failed && between) {
      try {
        between();
      } catch (...) {
        errors[size_t(count)] = std::current_exception();
      }
    }
    failed |= errors[size_t(count)] != nullptr;  // (single's barrier has passed)
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < (failed ? 0 : then_count); ++k) {
      try {
        then(k);
      } catch (...) {
#pragma omp critical(az_run_shards)
        if (!errors[size_t(count)]) errors[size_t(count)] = std::current_exception();
      }
    }
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

StepSums sharded_backward(Module& model, const Batch& batch, Parallel mode, int64_t max_len,
                          const std::function<ShardLoss(const Batch&)>& loss_of) {
  BufferWrites kept;  // shard 0's
  if (mode == Parallel::kOps) {  // the whole batch here, the products split among the threads
    ShardScope scope(0, &kept);
    ShardLoss l = loss_of(batch);
    l.loss.backward();
    apply_buffer_writes(kept);
    return {double(l.loss.item()) * double(l.terms), l.terms, l.correct};
  }
  const int64_t S = shard_count(mode, batch.B, max_len);
  const std::vector<Tensor> params = model.parameters();
  std::vector<std::vector<std::shared_ptr<Storage>>> grads(static_cast<size_t>(S));
  std::vector<StepSums> sums(static_cast<size_t>(S));
  const Rng start = global_rng();  // every shard draws from a copy of the step's source
  Rng after = start;               // shard 0's, once it has drawn: the process's from then on
  const BatchShard outer = batch_shard();  // this process's rows under MPI ({0, 0} alone)
  // The batch mean, once every shard is done: sum over shards in shard order of grad_s * terms_s /
  // terms.  One order at any thread count; each parameter on its own, so the threads share them out.
  StepSums total;
  std::vector<float> weight(static_cast<size_t>(S));
  std::vector<float*> out(params.size(), nullptr);
  auto prepare = [&] {  // on one thread, before the sums
    for (const StepSums& s : sums) total.loss_sum += s.loss_sum, total.terms += s.terms, total.correct += s.correct;
    for (int64_t s = 0; s < S; ++s)
      weight[size_t(s)] = total.terms ? float(double(sums[size_t(s)].terms) / double(total.terms)) : 0.0f;
    for (size_t i = 0; i < params.size(); ++i)
      for (int64_t s = 0; s < S && !out[i]; ++s)
        if (grads[size_t(s)][i]) out[i] = params[i].grad_data();  // a parameter no shard reached keeps none
  };
  auto add = [&](int64_t k) {  // parameter k
    const size_t i = size_t(k);
    if (!out[i]) return;
    const int64_t n = params[i].numel();
    for (int64_t s = 0; s < S; ++s) {
      const std::shared_ptr<Storage>& g = grads[size_t(s)][i];
      if (!g) continue;
      const float w = weight[size_t(s)], *gs = g->data;
      float* o = out[i];
      for (int64_t j = 0; j < n; ++j) o[j] += gs[j] * w;
    }
  };
  run_shards(S, [&](int64_t s) {
    const auto [first, rows] = shard_rows(batch.B, S, s);
    Rng rng = start;
    RngScope use_rng(rng);
    const BatchShard saved = batch_shard();
    batch_shard() = {outer.first + first, rows};  // masks counted by example over the whole batch
    ShardScope scope(int(s), s == 0 ? &kept : nullptr);
    {
      GradSlots slots(params);  // this shard's gradients, apart from every other's
      ShardLoss l = loss_of(dist::slice_rows(batch, first, rows));
      if (l.terms > 0) {
        l.loss.backward();
        sums[size_t(s)] = {double(l.loss.item()) * double(l.terms), l.terms, l.correct};
      }
      grads[size_t(s)].resize(params.size());
      for (size_t i = 0; i < params.size(); ++i) grads[size_t(s)][i] = std::move(slots.slot(i));
    }
    batch_shard() = saved;
    if (s == 0) after = rng;
  }, prepare, int64_t(params.size()), add);
  global_rng().set_state(after.state());
  apply_buffer_writes(kept);
  return total;
}

}  // namespace az
