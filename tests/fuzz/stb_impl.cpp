// The stb implementations, compiled into the fuzz targets so that the image
// decoder is instrumented too (Debian's libstb is not).  The ordinary build
// links -lstb instead.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_resize.h>
#include <stb_image_write.h>
