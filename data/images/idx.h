// IDX files (the MNIST / Fashion-MNIST container) and the Fashion-MNIST task.
//
// An IDX file is: two zero bytes, a type byte (0x08 = unsigned byte, the only
// type we read), a rank byte, `rank` big-endian uint32 dimensions, then the
// row-major data.  The files are usually gzip'd; zlib's gzread reads both the
// gzip'd and the plain form, so either works.  Byte offsets in error messages
// count uncompressed bytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

// Where the Debian package dataset-fashion-mnist puts the four files.
inline const char* const kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// One decoded IDX array of unsigned bytes.
struct IdxArray {
  std::vector<uint32_t> dims;  // e.g. {60000, 28, 28}
  std::vector<uint8_t> data;   // product(dims) bytes, row-major
};

// Reads a ubyte IDX file of the given rank (gzip'd or plain).  Throws
// DataError naming the file and byte offset for: bad magic, zero dimensions,
// truncated data, trailing bytes, gzip stream errors.
IdxArray read_idx(const std::string& path, int expected_rank);

// Writes a ubyte IDX file; gzip'd (through zlib) when gzip is true.  data
// holds product(dims) bytes.  Used for test fixtures.  Throws DataError when
// the file cannot be written.
void write_idx(const std::string& path, const std::vector<uint32_t>& dims,
               const uint8_t* data, bool gzip = true);

// An image IDX file ([count, H, W], rank 3) with its label IDX file
// ([count], rank 1) as a Dataset: pixel tokens value + 1 (vocabulary 257),
// channels 1.  Labels must lie in [0, num_classes); counts must agree.
Dataset load_idx_pair(const std::string& images_path, const std::string& labels_path,
                      int num_classes);

// The ten Fashion-MNIST class names, in label order.
const std::vector<std::string>& fashion_mnist_class_names();

// Fashion-MNIST from dir: {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz
// (the un-gzip'd names are tried when a .gz file is missing).
//   train: the 60000 official training images minus n_val,
//   val:   n_val images carved from the official training set by a shuffle
//          seeded with `seed` (5000 by default: 55000 / 5000 / 10000),
//   test:  the official 10000 t10k images.
// Splits keep the files' order apart from the carved-out validation images.
Splits load_fashion_mnist(const std::string& dir = kFashionMnistDir, int n_val = 5000,
                          uint64_t seed = 0);

}  // namespace az
