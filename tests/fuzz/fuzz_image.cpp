// Fuzzes image decoding through stb_image (data/images/image_folder.cpp) along the
// path the image-folder task takes: load_image_folder on a two-class tree
// whose images are the input, as grey or RGB, kept or resized.
// Input: a mode byte, then the image file.  Mode bit 0: 3 channels; bit 1:
// resize to 7x7; bits 2-3: the file extension (png, jpg, bmp, jpeg; stb
// sniffs the format from the bytes, not the name).
#include "data/images/image_folder.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_image {

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  ++data, --size;
  static const char* ext[4] = {"png", "jpg", "bmp", "jpeg"};
  std::string root = fuzz::fresh_dir("images");
  for (const char* cls : {"a", "b"}) {
    std::filesystem::create_directories(root + "/" + cls);
    fuzz::write_file(std::string("images/") + cls + "/x." + ext[(mode >> 2) & 3], data, size);
  }
  fuzz::refusal_ok([&] { az::load_image_folder(root, (mode & 1) ? 3 : 1, (mode & 2) ? 7 : 0, 0.0, 0.0, 1); });
  return 0;
}

}  // namespace fuzz_image

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_image::one(data, size); }
#endif
