// Owning handles for Cairo objects, so every exit path releases them.
#pragma once

#include <cairo.h>

#include <memory>

namespace meadow::render_detail {

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using ContextPtr = std::unique_ptr<cairo_t, ContextDeleter>;

// An RGB24 image surface with a context on it; throws meadow::Error if Cairo cannot make it.
struct Canvas {
  SurfacePtr surface;
  ContextPtr cr;
};
Canvas make_canvas(int width, int height);

// The surface's pixels as packed RGB bytes (Cairo stores 0x00RRGGBB words per pixel).
void copy_pixels(cairo_surface_t* surface, int width, int height, uint8_t* rgb);

// Sets the font used for all text we draw (Cairo's toy text API, a sans-serif face).
void select_font(cairo_t* cr, double size);

}  // namespace meadow::render_detail
