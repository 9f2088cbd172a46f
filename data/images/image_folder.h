// Image-folder datasets (root/<class>/*.png|jpg|jpeg|bmp, decoded by
// stb_image), a PNG writer, and the seeded split helper the image loaders share.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

// Moves n examples, chosen by a shuffle seeded with `seed`, from `from` into
// `to`; `to` receives from's metadata (vocabulary, classes, image shape).
// Both keep the examples' original relative order.  n must be <= from.size().
void carve_split(Dataset& from, Dataset& to, size_t n, uint64_t seed);

// Decodes one image file with stb_image as `channels` (1 grey, 3 RGB)
// channels, row-major, channels last.  Throws DataError naming the file and
// stb's failure reason.
std::vector<uint8_t> read_image(const std::string& path, int channels, int* width, int* height);

// Resizes pixels (h rows of w * channels bytes) to side x side with stb_image_resize.
std::vector<uint8_t> resize_image(const std::vector<uint8_t>& px, int w, int h, int channels, int side,
                                  const std::string& path);

// Loads dir/<class>/<image> into one Dataset.
//  - class folders: the sub-directories of dir, sorted by name (byte order);
//    names starting with '.' are skipped;
//  - images: files ending .png .jpg .jpeg .bmp (any case), sorted by name;
//    other files and names starting with '.' are ignored;
//  - channels 1 or 3 (stb converts); image_size > 0 resizes every image to
//    image_size x image_size (stb_image_resize), image_size == 0 requires
//    every image to have the size of the first one;
//  - errors: missing dir, no class folders, fewer than 2 classes, an empty
//    class folder, an undecodable image, a size mismatch.
// When class_names is given, the folder's classes must be a subset of it and
// labels index into it (used for val/test folders that share train's classes).
Dataset load_image_classes(const std::string& dir, int channels, int image_size,
                           const std::vector<std::string>* class_names = nullptr);

// The image-folder task.  Two layouts:
//  1. root/<class>/...: everything is loaded, then test_fraction and then
//     val_fraction of it (of the total, rounded down) are carved out by a
//     shuffle seeded with `seed`; the rest is train.
//  2. root/train/<class>/... (chosen whenever root/train is a directory):
//     root/val/<class>/... and root/test/<class>/... are used when present;
//     a missing one is carved out of train with its fraction as above.
//     Classes are train's; val and test may not hold a class train lacks.
// With image_size == 0 every image of every split must share one size.
Splits load_image_folder(const std::string& root, int channels, int image_size = 0,
                         double val_fraction = 0.1, double test_fraction = 0.1,
                         uint64_t seed = 0);

// Writes pixels (h rows of w * channels bytes, channels 1..4) as a PNG.
// Throws DataError when the file cannot be written.
void write_png(const std::string& path, const uint8_t* pixels, int w, int h, int channels);

}  // namespace az
