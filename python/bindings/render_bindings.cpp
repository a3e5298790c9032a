// GIFs from Python: frames from our envs or a Gymnasium env's rgb_array, each with the
// runner's caption band (status sentence and choice).
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "frame_array.hpp"
#include "meadow/error.hpp"
#include "meadow/render.hpp"

namespace nb = nanobind;

namespace meadow::python {

FrameArray frame_array(Frame frame) {
  auto* pixels = new std::vector<uint8_t>(std::move(frame.rgb));
  nb::capsule owner(pixels, [](void* p) noexcept { delete static_cast<std::vector<uint8_t>*>(p); });
  return FrameArray(pixels->data(), {size_t(frame.height), size_t(frame.width), 3}, owner);
}

Frame frame_from_array(const FrameInput& a) {
  Frame f;
  f.height = int(a.shape(0));
  f.width = int(a.shape(1));
  if (f.height < 1 || f.width < 1) throw Error("a frame must be at least 1x1 pixels");
  f.rgb.resize(a.size());
  std::memcpy(f.rgb.data(), a.data(), a.size());
  return f;
}

void bind_render(nb::module_& m) {
  nb::class_<GifWriter>(m, "GifWriter")
      .def(nb::init<const std::string&>(), nb::arg("path"))
      .def(
          "add",
          [](GifWriter& g, const FrameInput& frame, int delay_ms,
             const std::vector<std::string>& caption) {
            Frame f = frame_from_array(frame);
            if (!caption.empty()) {
              CaptionStyle style;
              style.fixed_lines = 3;  // as the runner: one frame size for the whole GIF
              f = with_caption(f, caption, style);
            }
            g.add(f, delay_ms);
          },
          nb::arg("frame"), nb::arg("delay_ms") = 50,
          nb::arg("caption") = std::vector<std::string>{})
      .def("close", &GifWriter::close)
      .def(
          "discard",
          [](GifWriter& g) {
            // GifWriter's destructor keeps the path as it was when an exception is unwinding
            // past it (meadow/render.hpp): end the writer that way. `g` is left empty.
            struct Discarded {};
            try {
              GifWriter doomed(std::move(g));
              throw Discarded{};
            } catch (const Discarded&) {
            }
          },
          "Drops an unfinished GIF (a failed episode): the path keeps what it held.")
      .def_prop_ro("frames", &GifWriter::frames)
      .def_prop_ro("path", &GifWriter::path);
}

}  // namespace meadow::python
