// Cairo image surfaces and their conversion to packed RGB frames.
#include <cstdint>
#include <cstring>
#include <string>

#include "meadow/error.hpp"
#include "render/cairo_handles.hpp"

namespace meadow::render_detail {

namespace {
constexpr int kMaxSide = 16384;  // far above any env's picture; guards against garbage sizes
}

Canvas make_canvas(int width, int height) {
  if (width <= 0 || height <= 0 || width > kMaxSide || height > kMaxSide)
    throw Error("render: frame size " + std::to_string(width) + "x" + std::to_string(height) +
                " is not in 1.." + std::to_string(kMaxSide));
  Canvas c;
  c.surface.reset(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height));
  if (cairo_surface_status(c.surface.get()) != CAIRO_STATUS_SUCCESS)
    throw Error(std::string("render: cannot create a Cairo surface: ") +
                cairo_status_to_string(cairo_surface_status(c.surface.get())));
  c.cr.reset(cairo_create(c.surface.get()));
  if (cairo_status(c.cr.get()) != CAIRO_STATUS_SUCCESS)
    throw Error(std::string("render: cannot create a Cairo context: ") +
                cairo_status_to_string(cairo_status(c.cr.get())));
  return c;
}

void copy_pixels(cairo_surface_t* surface, int width, int height, uint8_t* rgb) {
  cairo_surface_flush(surface);
  const unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  for (int y = 0; y < height; ++y) {
    const unsigned char* row = data + static_cast<size_t>(y) * stride;
    uint8_t* out = rgb + static_cast<size_t>(y) * width * 3;
    for (int x = 0; x < width; ++x) {
      uint32_t px;
      std::memcpy(&px, row + 4 * x, 4);
      out[3 * x] = static_cast<uint8_t>(px >> 16);
      out[3 * x + 1] = static_cast<uint8_t>(px >> 8);
      out[3 * x + 2] = static_cast<uint8_t>(px);
    }
  }
}

void select_font(cairo_t* cr, double size) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

}  // namespace meadow::render_detail

#if defined(__SANITIZE_ADDRESS__)
// Fontconfig (under Cairo's toy text API) keeps its font caches for the life of the process
// in a form LeakSanitizer cannot trace, so any binary that draws text would "leak" at exit.
// This hook is LSan's documented way for a program to supply suppressions; it lives here so
// that every binary that links the rasterizer gets it.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libfontconfig.so\n";
}
#endif
