// Data parallelism (see distributed.h).  The MPI calls are the few primitives
// at the top, under AZ_MPI; everything after them is plain C++ on top of them,
// the same in both builds.
#include "train/distributed.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <type_traits>

#ifdef AZ_MPI
#include <mpi.h>
#endif

namespace az::dist {

namespace {

struct World {
  bool active = false;  // MPI initialised and not yet finalised
  bool done = false;    // the current piece of work ended well
  int rank = 0, size = 1;
};
World& world() {
  static World w;
  return w;
}

// How many processes a launcher started, from the environment it gives each
// one (Open MPI's mpirun, MPICH's hydra); 0 when not started by a launcher.
int launched_size() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(var)) return std::max(1, std::atoi(v));
  return 0;
}

#ifdef AZ_MPI
// At exit: a clean end finalises; any other exit (an error on this rank,
// reported above by main) ends the whole job, so that no other rank waits in a
// collective for this one.  A rank killed by a signal never gets here: then
// mpirun notices and ends the job itself.
void at_exit() {
  World& w = world();
  if (!w.active) return;
  w.active = false;
  if (w.done) {
    MPI_Finalize();
    return;
  }
  std::fprintf(stderr, "attnzoo: rank %d of %d stopped on the error above; ending the whole job (MPI_Abort)\n", w.rank,
               w.size);
  std::fflush(stderr);
  // An error every rank meets (a bad flag) makes them all abort at once, and
  // Open MPI then garbles its report: let rank 0 go first.
  if (w.rank != 0) sleep(2);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int count_of(size_t n, const char* what) {
  if (n > size_t(INT_MAX)) fail(std::string(what) + ": " + std::to_string(n) + " elements is more than one MPI call carries");
  return int(n);
}
#endif

}  // namespace

// ---- the primitives: MPI or one process ----------------------------------------------

void init() {
  World& w = world();
  w.done = false;
#ifdef AZ_MPI
  if (w.active || launched_size() == 0) return;
  int initialised = 0, provided = 0;
  MPI_Initialized(&initialised);
  if (initialised) fail("MPI was finalised already: one data-parallel job per process");
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // OpenMP threads never call MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  w.active = true;
  std::atexit(at_exit);
  if (w.rank != 0 && !std::freopen("/dev/null", "w", stdout)) fail("rank " + std::to_string(w.rank) + ": cannot silence stdout");
#else
  int n = launched_size();
  if (n > 1)
    fail("this attnzoo was built without MPI, but mpirun started " + std::to_string(n) +
         " copies of it: run build/attnzoo-mpi instead (make builds it; make deps installs Open MPI)");
#endif
}

int rank() { return world().rank; }
int size() { return world().size; }
bool is_root() { return world().rank == 0; }
void mark_done() { world().done = true; }

void allreduce_sum(std::vector<double>& v) {
#ifdef AZ_MPI
  if (world().active)
    MPI_Allreduce(MPI_IN_PLACE, v.data(), count_of(v.size(), "allreduce"), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)v;
#endif
}

namespace {
// In-place sum of floats: the one collective of a training step.
void allreduce_sum(std::vector<float>& v) {
#ifdef AZ_MPI
  if (world().active)
    MPI_Allreduce(MPI_IN_PLACE, v.data(), count_of(v.size(), "allreduce"), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)v;
#endif
}

// In-place maximum over ranks.
void allreduce_max(std::vector<uint64_t>& v) {
#ifdef AZ_MPI
  if (world().active)
    MPI_Allreduce(MPI_IN_PLACE, v.data(), count_of(v.size(), "allreduce"), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
#else
  (void)v;
#endif
}

void broadcast(void* data, size_t bytes) {
#ifdef AZ_MPI
  if (world().active) MPI_Bcast(data, count_of(bytes, "broadcast"), MPI_BYTE, 0, MPI_COMM_WORLD);
#else
  (void)data, (void)bytes;
#endif
}
}  // namespace

// ---- built on the primitives ---------------------------------------------------------

bool all_equal(uint64_t value) {
  std::vector<uint64_t> v = {value, ~value};  // max(~x) = ~min(x): min and max in one call
  allreduce_max(v);
  return v[0] == ~v[1];
}

void broadcast_from_root(const std::vector<NamedTensor>& tensors) {
  if (size() == 1) return;
  for (auto& t : tensors) broadcast(t.tensor.data(), size_t(t.tensor.numel()) * sizeof(float));
}

std::string local_copy(const std::string& path) {
  if (size() == 1) return path;
  std::string bytes;
  int64_t len = -1;
  if (is_root()) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      len = int64_t(bytes.size());
    }
  }
  broadcast(&len, sizeof len);
  if (len < 0) return path;  // rank 0 cannot read it: every rank fails on `path` alike
  bytes.resize(size_t(len));
  broadcast(bytes.data(), bytes.size());
  if (is_root()) return path;
  std::string tmpl = "/tmp/attnzoo-rank" + std::to_string(rank()) + "-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) fail("rank " + std::to_string(rank()) + ": cannot create a temporary file for " + path + " in /tmp");
  close(fd);
  std::ofstream(tmpl, std::ios::binary) << bytes;
  return tmpl;
}

void remove_local_copy(const std::string& copy, const std::string& path) {
  if (copy != path) std::remove(copy.c_str());
}

Rows rows_of(int64_t global_batch) {
  int64_t P = size();
  if (global_batch % P != 0)
    fail("--batch " + std::to_string(global_batch) + " is the global batch, split evenly over the " + std::to_string(P) +
         " processes: it must be a multiple of " + std::to_string(P));
  int64_t n = global_batch / P;
  return {rank() * n, n};
}

Batch slice_rows(const Batch& b, int64_t first, int64_t rows) {
  if (first < 0 || rows < 0 || first + rows > b.B)
    fail("slice_rows: rows [" + std::to_string(first) + ", " + std::to_string(first + rows) + ") of a batch of " +
         std::to_string(b.B));
  auto cut = [&](const auto& v) {  // rows of a [B, ...] vector
    size_t per = b.B ? v.size() / size_t(b.B) : 0;
    return std::decay_t<decltype(v)>(v.begin() + first * per, v.begin() + (first + rows) * per);
  };
  Batch s;
  s.B = int(rows), s.N = b.N, s.patch_dim = b.patch_dim, s.N2 = b.N2;
  s.tokens = cut(b.tokens), s.pad_mask = cut(b.pad_mask), s.labels = cut(b.labels), s.patches = cut(b.patches);
  s.tokens2 = cut(b.tokens2), s.pad_mask2 = cut(b.pad_mask2), s.targets = cut(b.targets);
  return s;
}

GradientAverager::GradientAverager(std::vector<NamedTensor> params, std::vector<NamedTensor> buffers)
    : params_(std::move(params)), buffers_(std::move(buffers)) {
  for (auto& b : buffers_) buffers_seen_.insert(buffers_seen_.end(), b.tensor.data(), b.tensor.data() + b.tensor.numel());
}

bool GradientAverager::buffers_changed() const {
  size_t at = 0;
  for (auto& b : buffers_) {
    size_t n = size_t(b.tensor.numel());
    if (std::memcmp(b.tensor.data(), buffers_seen_.data() + at, n * sizeof(float)) != 0) return true;
    at += n;
  }
  return false;
}

StepTotals GradientAverager::reduce(int64_t rows, int64_t terms, double local_loss_sum, double local_correct) {
  if (size() == 1) return {local_loss_sum, double(terms), local_correct, rows};
  // [grad_0 * terms | grad_1 * terms | ... | has-grad flag per parameter | loss sum | correct | terms | rows |
  //  buffers changed]; a rank with no loss term (no scored position) adds nothing
  size_t n = 0;
  for (auto& p : params_) n += size_t(p.tensor.numel());
  const size_t np = params_.size();
  flat_.assign(n + np + 5, 0.0f);
  size_t at = 0;
  for (size_t i = 0; i < np; ++i) {
    const Tensor& t = params_[i].tensor;
    if (t.has_grad() && terms > 0) {
      const float* g = t.grad_data();
      for (int64_t j = 0; j < t.numel(); ++j) flat_[at + size_t(j)] = g[j] * float(terms);
      flat_[n + i] = 1;
    }
    at += size_t(t.numel());
  }
  flat_[n + np] = terms > 0 ? float(local_loss_sum) : 0.0f;
  flat_[n + np + 1] = float(local_correct);
  flat_[n + np + 2] = float(terms);
  flat_[n + np + 3] = float(rows);
  flat_[n + np + 4] = buffers_changed() ? 1.0f : 0.0f;

  allreduce_sum(flat_);  // the one collective of the step

  const float inv = flat_[n + np + 2] > 0 ? 1.0f / flat_[n + np + 2] : 0.0f;
  at = 0;
  for (size_t i = 0; i < np; ++i) {
    const Tensor& t = params_[i].tensor;
    if (flat_[n + i] > 0) {
      float* g = t.grad_data();  // allocated (zeroed) when this rank had none
      for (int64_t j = 0; j < t.numel(); ++j) g[j] = flat_[at + size_t(j)] * inv;
    }
    at += size_t(t.numel());
  }
  if (flat_[n + np + 4] > 0) {  // some rank's forward changed a buffer: everyone takes rank 0's
    broadcast_from_root(buffers_);
    buffers_seen_.clear();
    for (auto& b : buffers_) buffers_seen_.insert(buffers_seen_.end(), b.tensor.data(), b.tensor.data() + b.tensor.numel());
  }
  return {double(flat_[n + np]), double(flat_[n + np + 2]), double(flat_[n + np + 1]), int64_t(flat_[n + np + 3])};
}

void check_replicas(const Module& model, const std::string& when) {
  if (size() == 1) return;
  std::vector<NamedTensor> tensors = model.named_parameters(), buffers = model.named_buffers();
  tensors.insert(tensors.end(), buffers.begin(), buffers.end());
  std::vector<uint64_t> h(2 * tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    uint64_t x = 0x5eed;
    const float* d = tensors[i].tensor.data();
    for (int64_t j = 0; j < tensors[i].tensor.numel(); ++j) {
      uint32_t bits;
      std::memcpy(&bits, d + j, sizeof bits);
      x = hash64(x ^ bits);
    }
    h[2 * i] = x, h[2 * i + 1] = ~x;
  }
  allreduce_max(h);
  for (size_t i = 0; i < tensors.size(); ++i)
    if (h[2 * i] != ~h[2 * i + 1])
      fail("the " + std::to_string(size()) + " ranks' copies of '" + tensors[i].name + "' differ " + when +
           " (a bug: every rank must apply the same update)");
}

void DataParallel::split(int64_t global_batch) {
  rows_ = rows_of(global_batch);
  if (size() > 1) batch_shard() = {rows_.first, rows_.rows};  // dropout masks by global example
}

void DataParallel::attach(const Module& model) {
  averager_ = std::make_unique<GradientAverager>(model.named_parameters(), model.named_buffers());
}

std::string DataParallel::describe() const {
  if (size() == 1) return "";
  return ", " + std::to_string(size()) + " processes of " + std::to_string(rows_.rows) + " examples per batch";
}

Batch DataParallel::shard(const Batch& global, int64_t step) const {
  maybe_inject_fault(step);
  return size() > 1 ? slice_rows(global, rows_.first, rows_.rows) : global;
}

StepTotals DataParallel::average(int64_t rows, int64_t terms, double local_loss_sum, double local_correct) {
  if (!averager_) fail("DataParallel::average before attach");
  return averager_->reduce(rows, terms, local_loss_sum, local_correct);
}

void DataParallel::share_root_weights(const Module& model) const {
  broadcast_from_root(model.named_parameters());
  broadcast_from_root(model.named_buffers());
}

void maybe_inject_fault(int64_t step) {
  static const char* spec = std::getenv("ATTNZOO_FAULT");
  if (!spec) return;
  int r = -1;
  long long s = -1;
  if (std::sscanf(spec, "%d:%lld", &r, &s) == 2 && r == rank() && s == step)
    fail("ATTNZOO_FAULT=" + std::string(spec) + ": rank " + std::to_string(r) + " fails at step " + std::to_string(s) +
         " (a test of how a failing rank ends the job)");
}

}  // namespace az::dist
