// Turning scenes into pixels and pixels into files: Cairo rasterizer, caption band, PNG and
// animated GIF writers. Knows nothing of models or tasks; envs only describe scenes.
// Part of the public API: whoever plays an env in a loop of their own (not run_episode) renders
// and records it with these.
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "meadow/scene.hpp"

namespace meadow {

class Env;

// Draws a scene with Cairo (antialiased). Throws meadow::Error for a zero-size or huge scene
// or a shape without the points it needs.
Frame rasterize(const Scene& scene);

// rasterize(env.scene()): the env's current picture at Gymnasium's render size.
Frame render(const Env& env);

// How with_caption draws its band.
struct CaptionStyle {
  double font_size = 14;          // pixels
  int padding = 6;                // around the text block, pixels
  int fixed_lines = 0;            // >0: band always this many lines tall (extra lines cut,
                                  // last kept line ends with "…") so a GIF's frames keep one size
  Rgb background{245, 245, 245};  // band colour
  Rgb color{20, 20, 20};          // text colour
  Rgb border{200, 200, 200};      // 1-px line between the picture and the band
};

// The frame with a band underneath holding `lines` (e.g. the status sentence and the chosen
// letter), each wrapped at word boundaries to the frame's width. No lines and fixed_lines == 0:
// the frame unchanged.
Frame with_caption(const Frame& frame, const std::vector<std::string>& lines,
                   const CaptionStyle& style = {});

// Writes an 8-bit RGB PNG through a temporary file renamed onto `path` when complete. Throws
// meadow::Error naming the file on any failure, and leaves `path` as it was.
void write_png(const std::string& path, const Frame& frame);

// Options of a GifWriter.
struct GifOptions {
  int loop_count = 0;  // NETSCAPE2.0 loop count; 0 = loop forever, <0 = no loop extension
};

// Animated GIF, written frame by frame as frames arrive:
//   GifWriter gif(path); gif.add(frame, delay_ms); ...; gif.close();
// Frames with few colours (<= 255) get an exact palette, others a median-cut one. Only the
// rectangle that changed since the previous frame is stored, its unchanged pixels transparent.
// Delays are kept in 1/100 s (GIF's unit) with the rounding error carried over, so 30 fps
// averages 33.3 ms. All frames must have the first frame's size. Errors throw meadow::Error naming
// the file. Frames go to a temporary file beside the path, renamed onto it by close(): until
// then, and whenever writing fails, the path keeps what it held (a device such as /dev/null is
// written in place and never removed). The destructor finishes an unclosed GIF without
// throwing when frames were written and no exception is unwinding; otherwise it removes only
// its temporary file. Call close() to see errors.
class GifWriter {
 public:
  explicit GifWriter(const std::string& path, const GifOptions& options = {});
  ~GifWriter();
  GifWriter(GifWriter&&) noexcept;
  GifWriter& operator=(GifWriter&&) noexcept;
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;

  void add(const Frame& frame, int delay_ms);  // the frame, shown for delay_ms
  void close();                                // finishes the file; throws on a write error
  int frames() const;                          // frames added so far
  const std::string& path() const;             // the path given

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace meadow
