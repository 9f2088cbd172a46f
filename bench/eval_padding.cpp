// How much padding scoring batches sorted by length save (eval_batches_by_length
// against eval_batches in file order) on the LRA presets' test splits, with each
// preset's batch size: tokens B*N, and the sum of B*N^2 that full attention pays.
// Counts, not times, so any machine gives the same figures.  Data: written by
// the presets' own data step, run in two folders:
//   (mkdir -p /tmp/ev/full && cd /tmp/ev/full && for t in listops text retrieval; do attnzoo lra --preset full --prepare $t; done)
//   (mkdir -p /tmp/ev/mini && cd /tmp/ev/mini && for t in listops text; do attnzoo lra --preset mini --prepare $t; done)
//   make build/libattnzoo.a && g++ -O1 -std=c++17 -fopenmp -I. bench/eval_padding.cpp -Wl,--whole-archive \
//     build/libattnzoo.a -Wl,--no-whole-archive -o /tmp/eval_padding -lxsmm -lopenblas -lhwy -lstb -lz -lfftw3f -ldl \
//     && /tmp/eval_padding /tmp/ev
#include <cstdio>
#include <string>
#include "data/batcher.h"
#include "data/listops/listops.h"
#include "data/retrieval/retrieval.h"
#include "data/text/text.h"
using namespace az;
void report(const char* name, const Dataset& d, int batch, int max_len) {
  BatchOptions o; o.batch = batch; o.max_len = max_len;
  auto vol = [](const std::vector<Batch>& bs, double* quad) {
    double v = 0; *quad = 0;
    for (const Batch& b : bs) { double n = b.N, n2 = b.N2 > 0 ? b.N2 : 0; v += b.B * (n + n2); *quad += b.B * (n * n + n2 * n2); }
    return v; };
  double q0, q1;
  double v0 = vol(eval_batches(d, o), &q0), v1 = vol(eval_batches_by_length(d, o, d.size()), &q1);
  std::printf("%-22s n %5zu batch %2d: tokens in order %.3g, by length %.3g (%.2fx); N^2 %.3g vs %.3g (%.2fx)\n", name, d.size(), batch, v0, v1, v0 / v1, q0, q1, q0 / q1);
}
int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp/ev";
  report("listops full (2000)", load_listops_dir(dir + "/full/data/listops").test, 8, 2000);
  report("listops mini (1000)", load_listops_dir(dir + "/mini/data/listops").test, 16, 1000);
  report("text full (4096)", load_text(dir + "/full/data/text").test, 4, 4096);
  report("text mini (1024)", load_text(dir + "/mini/data/text").test, 16, 1024);
  report("retrieval full (4096)", load_retrieval_tsv(dir + "/full/data/retrieval/pairs").test, 4, 4096);
  RetrievalOptions r; r.verbose = false; r.max_bytes = 1024;
  report("retrieval mini (1024)", load_retrieval(r).test, 16, 1024);
}
