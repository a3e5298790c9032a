// Animated GIF writer on giflib 5.2, streaming: each add() encodes and writes one frame.
#include <gif_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "meadow/render.hpp"
#include "render/frame_check.hpp"
#include "render/palette.hpp"
#include "util/atomic_file.hpp"

namespace meadow {

namespace {

using render_detail::Palette;

struct GifCloser {
  void operator()(GifFileType* g) const {
    int err = 0;
    EGifCloseFile(g, &err);  // frees g even when writing the trailer fails
  }
};
struct MapFreer {
  void operator()(ColorMapObject* m) const { GifFreeMapObject(m); }
};
using GifPtr = std::unique_ptr<GifFileType, GifCloser>;
using MapPtr = std::unique_ptr<ColorMapObject, MapFreer>;

// giflib wants a power-of-two colour count, at least 2; `spare` keeps one more slot free
// (for the transparent index).
MapPtr make_map(const std::vector<Rgb>& colors, bool spare) {
  const int need = static_cast<int>(colors.size()) + (spare ? 1 : 0);
  int size = 2;
  while (size < need) size *= 2;
  std::vector<GifColorType> table(size, GifColorType{0, 0, 0});
  for (size_t i = 0; i < colors.size(); ++i) table[i] = {colors[i].r, colors[i].g, colors[i].b};
  return MapPtr(GifMakeMapObject(size, table.data()));
}

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};

// Smallest rectangle holding every pixel that differs between a and b (w == 0 if none).
Rect changed_rect(const Frame& a, const Frame& b) {
  int x0 = a.width, y0 = a.height, x1 = -1, y1 = -1;
  for (int y = 0; y < a.height; ++y) {
    const uint8_t* ra = a.rgb.data() + static_cast<size_t>(y) * a.width * 3;
    const uint8_t* rb = b.rgb.data() + static_cast<size_t>(y) * b.width * 3;
    if (std::memcmp(ra, rb, static_cast<size_t>(a.width) * 3) == 0) continue;
    y0 = std::min(y0, y), y1 = y;
    for (int x = 0; x < a.width; ++x)
      if (std::memcmp(ra + 3 * x, rb + 3 * x, 3) != 0) x0 = std::min(x0, x), x1 = std::max(x1, x);
  }
  if (y1 < 0) return {};
  return {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

std::vector<uint32_t> region_pixels(const Frame& f, const Rect& r) {
  std::vector<uint32_t> px;
  px.reserve(static_cast<size_t>(r.w) * r.h);
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x)
      px.push_back(
          render_detail::pack_at(f.rgb.data() + (static_cast<size_t>(y) * f.width + x) * 3));
  return px;
}

}  // namespace

struct GifWriter::State {
  std::string path;
  GifOptions options;
  // The GIF is written to a temporary file beside `path`, renamed onto it by close(): a failed
  // or unfinished GIF leaves `path` as it was. Declared before `gif`, so giflib closes the
  // descriptor before the temporary file is removed.
  std::unique_ptr<util::AtomicFile> file;
  GifPtr gif;
  bool failed = false;        // a write failed: the file is never finished
  int uncaught_at_start = 0;  // std::uncaught_exceptions() when the writer was made
  int frames = 0;
  Frame previous;
  Palette global;          // the first frame's palette, reused while it covers a frame's colours
  Palette local_palette;   // the palette of the frame being written
  long long total_ms = 0;  // delay asked for so far
  long long total_cs = 0;  // delay written so far, in GIF's 1/100 s

  [[noreturn]] void fail(const std::string& what) {
    failed = true;
    const int code = gif ? gif->Error : 0;
    const char* msg = code ? GifErrorString(code) : nullptr;
    throw Error("gif " + path + ": " + what + (msg ? std::string(": ") + msg : std::string()));
  }
  void check(int rc, const char* what) {
    if (rc == GIF_ERROR) fail(what);
  }

  void put_loop_extension() {
    if (options.loop_count < 0) return;
    const int n = std::min(options.loop_count, 65535);
    unsigned char app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    unsigned char sub[] = {1, static_cast<unsigned char>(n & 0xFF),
                           static_cast<unsigned char>(n >> 8)};
    check(EGifPutExtensionLeader(gif.get(), APPLICATION_EXT_FUNC_CODE), "loop extension");
    check(EGifPutExtensionBlock(gif.get(), sizeof app, app), "loop extension");
    check(EGifPutExtensionBlock(gif.get(), sizeof sub, sub), "loop extension");
    check(EGifPutExtensionTrailer(gif.get()), "loop extension");
  }

  // Carries the rounding error so that the shown time tracks the asked time.
  int next_delay_cs(int delay_ms) {
    total_ms += delay_ms;
    const long long target = (total_ms + 5) / 10;
    const long long cs = std::clamp<long long>(target - total_cs, 0, 65535);
    total_cs += cs;
    return static_cast<int>(cs);
  }

  // The global palette when it holds every changed colour (and has a free slot for the
  // transparent index when one is needed); else a palette of the changed colours, exact when
  // they are few. (Snapping new colours to near global entries was tried: subpixel motion
  // keeps making new edge blends, so it rarely applied and saved under 3%.)
  const Palette* choose_palette(const std::vector<uint32_t>& changed, bool want_transparent) {
    const bool room = !want_transparent || global.colors.size() < 256;
    if (room && render_detail::covers(global, changed)) return &global;
    local_palette = render_detail::make_palette(changed, want_transparent ? 255 : 256);
    return &local_palette;
  }

  // Writes the rectangle r of f. After the first frame, pixels that did not change are left
  // transparent: the previous frame shows through and long runs of one index compress well.
  void put_image(const Frame& f, const Rect& r, int delay_ms) {
    const std::vector<uint32_t> px = region_pixels(f, r);
    std::vector<bool> same(px.size(), false);
    std::vector<uint32_t> changed;  // the colours that must be in the palette
    if (frames > 0) {
      const std::vector<uint32_t> before = region_pixels(previous, r);
      for (size_t i = 0; i < px.size(); ++i) {
        same[i] = px[i] == before[i];
        if (!same[i]) changed.push_back(px[i]);
      }
    } else {
      changed = px;
    }

    MapPtr local;
    int transparent = NO_TRANSPARENT_COLOR;
    const bool want_transparent = frames > 0 && changed.size() < px.size();
    const Palette* pal = choose_palette(changed, want_transparent);
    if (pal != &global) {
      local = make_map(pal->colors, want_transparent);
      if (!local) fail("cannot make a colour map");
    }
    if (want_transparent) transparent = static_cast<int>(pal->colors.size());
    std::vector<uint8_t> indices(px.size());
    render_detail::Indexer index_of(*pal);
    for (size_t i = 0; i < px.size(); ++i)
      indices[i] = same[i] ? static_cast<uint8_t>(transparent) : index_of(px[i]);

    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_DO_NOT;  // later frames paint over this one
    gcb.UserInputFlag = false;
    gcb.DelayTime = next_delay_cs(delay_ms);
    gcb.TransparentColor = transparent;
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    check(EGifPutExtension(gif.get(), GRAPHICS_EXT_FUNC_CODE, sizeof ext, ext), "frame delay");
    if (!local && gif->Image.ColorMap) {
      // giflib 5.2.1 drops the previous frame's local map without freeing it when the next
      // frame has none; free it first.
      GifFreeMapObject(gif->Image.ColorMap);
      gif->Image.ColorMap = nullptr;
    }
    check(EGifPutImageDesc(gif.get(), r.x, r.y, r.w, r.h, false, local.get()), "image descriptor");
    check(EGifPutLine(gif.get(), indices.data(), static_cast<int>(indices.size())), "image data");
  }
};

GifWriter::GifWriter(const std::string& path, const GifOptions& options)
    : state_(std::make_unique<State>()) {
  state_->path = path;
  state_->options = options;
  state_->uncaught_at_start = std::uncaught_exceptions();
  // Opened by AtomicFile, not by EGifOpenFileName, which creates files 0600: a GIF is for
  // sharing, so it gets the same permissions as any other file the user writes.
  try {
    state_->file = std::make_unique<util::AtomicFile>(path);
  } catch (const Error& e) {
    throw Error(std::string("gif: ") + e.what());
  }
  const int fd = state_->file->release_fd();
  int err = 0;
  state_->gif.reset(EGifOpenFileHandle(fd, &err));  // owns fd from here on success
  if (!state_->gif) {
    ::close(fd);  // the temporary file goes with state_->file; path is untouched
    const char* why = GifErrorString(err);
    throw Error("gif: cannot open " + path +
                " for writing: " + (why ? why : "unknown giflib error"));
  }
  EGifSetGifVersion(state_->gif.get(), true);  // GIF89a: needed for delays and looping
}

GifWriter::~GifWriter() {
  if (!state_ || !state_->gif) return;
  // Finished only when frames were written without error and no exception is unwinding past
  // this writer: a failed episode must not replace the file with a partial one.
  const bool finish = state_->frames > 0 && !state_->failed &&
                      std::uncaught_exceptions() <= state_->uncaught_at_start;
  if (finish) {
    try {
      close();
    } catch (const Error&) {  // a destructor does not throw; the temporary file is removed
    }
  }
  state_->gif.reset();
  state_->file.reset();  // removes the temporary file unless close() committed it
}

GifWriter::GifWriter(GifWriter&&) noexcept = default;
GifWriter& GifWriter::operator=(GifWriter&&) noexcept = default;

void GifWriter::add(const Frame& frame, int delay_ms) {
  State& s = *state_;
  if (!s.gif) throw Error("gif " + s.path + ": add() after close()");
  render_detail::check_frame(frame, "gif " + s.path);
  if (delay_ms < 0) throw Error("gif " + s.path + ": negative delay " + std::to_string(delay_ms));

  if (s.frames == 0) {
    const Rect all{0, 0, frame.width, frame.height};
    if (frame.width > 65535 || frame.height > 65535) s.fail("frame larger than 65535 pixels");
    // 255 colours at most, so that later frames can use the global palette with a spare
    // transparent index.
    s.global = render_detail::make_palette(region_pixels(frame, all), 255);
    MapPtr map = make_map(s.global.colors, s.global.colors.size() < 256);
    if (!map) s.fail("cannot make a colour map");
    s.check(EGifPutScreenDesc(s.gif.get(), frame.width, frame.height, 8, 0, map.get()),
            "screen descriptor");
    s.put_loop_extension();
    s.put_image(frame, all, delay_ms);
  } else {
    if (frame.width != s.previous.width || frame.height != s.previous.height)
      throw Error("gif " + s.path + ": frame " + std::to_string(s.frames) + " is " +
                  std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                  " but the GIF is " + std::to_string(s.previous.width) + "x" +
                  std::to_string(s.previous.height));
    Rect r = changed_rect(s.previous, frame);
    if (r.w == 0) r = {0, 0, 1, 1};  // nothing changed: a 1-pixel frame still carries the delay
    s.put_image(frame, r, delay_ms);
  }
  s.previous = frame;
  ++s.frames;
}

void GifWriter::close() {
  State& s = *state_;
  if (!s.gif) return;
  if (s.frames == 0 || s.failed) {
    s.gif.reset();
    s.file.reset();  // only the temporary file is removed, never s.path
    if (s.failed) throw Error("gif " + s.path + ": not written, an earlier write failed");
    throw Error("gif " + s.path + ": no frames were added");
  }
  int err = 0;
  const int rc = EGifCloseFile(s.gif.release(), &err);
  if (rc == GIF_ERROR) {
    s.file.reset();
    const char* msg = GifErrorString(err);
    throw Error("gif " + s.path + ": cannot finish the file: " + (msg ? msg : "unknown error"));
  }
  try {
    s.file->commit();
  } catch (const Error& e) {
    s.file.reset();
    throw Error(std::string("gif: ") + e.what());
  }
  s.file.reset();
}

int GifWriter::frames() const {
  return state_->frames;
}
const std::string& GifWriter::path() const {
  return state_->path;
}

}  // namespace meadow
