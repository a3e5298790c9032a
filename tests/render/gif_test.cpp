// GIFs read back with giflib: frames, size, delays, looping, and the pixels a viewer shows.
#include <gif_lib.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "test_files.hpp"

using meadow::Frame;

namespace {

Frame solid(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  Frame f{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 3)};
  for (size_t i = 0; i < f.rgb.size(); i += 3) f.rgb[i] = r, f.rgb[i + 1] = g, f.rgb[i + 2] = b;
  return f;
}

void put(Frame& f, int x, int y, uint8_t r, uint8_t g, uint8_t b) {
  uint8_t* p = f.rgb.data() + (static_cast<size_t>(y) * f.width + x) * 3;
  p[0] = r, p[1] = g, p[2] = b;
}

struct Decoded {
  int width = 0, height = 0;
  std::vector<Frame> shown;  // what a viewer shows after each frame
  std::vector<int> delays_cs;
  int loop_count = -1;  // -1: no NETSCAPE2.0 extension
};

struct SlurpCloser {
  void operator()(GifFileType* g) const {
    int err;
    DGifCloseFile(g, &err);
  }
};

Decoded decode(const std::string& path) {
  int err = 0;
  std::unique_ptr<GifFileType, SlurpCloser> gif(DGifOpenFileName(path.c_str(), &err));
  if (!gif) throw std::runtime_error("cannot open " + path);
  if (DGifSlurp(gif.get()) != GIF_OK) throw std::runtime_error("cannot decode " + path);
  Decoded d;
  d.width = gif->SWidth;
  d.height = gif->SHeight;
  Frame canvas = solid(d.width, d.height, 0, 0, 0);
  for (int i = 0; i < gif->ImageCount; ++i) {
    const SavedImage& im = gif->SavedImages[i];
    for (int e = 0; e + 1 < im.ExtensionBlockCount; ++e) {
      const ExtensionBlock& b = im.ExtensionBlocks[e];
      if (b.Function == APPLICATION_EXT_FUNC_CODE && b.ByteCount == 11 &&
          std::memcmp(b.Bytes, "NETSCAPE2.0", 11) == 0) {
        const ExtensionBlock& sub = im.ExtensionBlocks[e + 1];
        if (sub.ByteCount == 3 && sub.Bytes[0] == 1)
          d.loop_count = sub.Bytes[1] | sub.Bytes[2] << 8;
      }
    }
    GraphicsControlBlock gcb;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    d.delays_cs.push_back(DGifSavedExtensionToGCB(gif.get(), i, &gcb) == GIF_OK ? gcb.DelayTime
                                                                                : -1);
    EXPECT_EQ(gcb.DisposalMode, DISPOSE_DO_NOT);
    const ColorMapObject* map = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : gif->SColorMap;
    for (int y = 0; y < im.ImageDesc.Height; ++y)
      for (int x = 0; x < im.ImageDesc.Width; ++x) {
        const int index = im.RasterBits[y * im.ImageDesc.Width + x];
        if (index == gcb.TransparentColor) continue;  // the previous frame shows through
        EXPECT_LT(index, map->ColorCount);
        const GifColorType c = map->Colors[index];
        put(canvas, im.ImageDesc.Left + x, im.ImageDesc.Top + y, c.Red, c.Green, c.Blue);
      }
    d.shown.push_back(canvas);
  }
  return d;
}

}  // namespace

TEST(Gif, RoundTripsFramesDelaysLoopAndExactColours) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("a.gif");
  Frame a = solid(30, 20, 255, 255, 255);
  for (int x = 5; x < 10; ++x) put(a, x, 4, 200, 30, 40);
  Frame b = a;
  put(b, 20, 15, 1, 2, 3);  // a colour not in the first frame
  Frame c = a;              // two far-apart changes: the pixels between them are unchanged
  put(c, 1, 1, 9, 9, 9);
  put(c, 28, 18, 200, 30, 40);
  {
    meadow::GifWriter gif(path);
    gif.add(a, 100);
    gif.add(b, 20);
    gif.add(b, 20);  // unchanged frame
    gif.add(a, 2000);
    gif.add(c, 30);
    EXPECT_EQ(gif.frames(), 5);
    gif.close();
  }
  const Decoded d = decode(path);
  EXPECT_EQ(d.width, 30);
  EXPECT_EQ(d.height, 20);
  ASSERT_EQ(d.shown.size(), 5u);
  EXPECT_EQ(d.delays_cs, (std::vector<int>{10, 2, 2, 200, 3}));
  EXPECT_EQ(d.loop_count, 0);
  // Few colours: what the viewer shows is exactly what was added.
  EXPECT_EQ(d.shown[0].rgb, a.rgb);
  EXPECT_EQ(d.shown[1].rgb, b.rgb);
  EXPECT_EQ(d.shown[2].rgb, b.rgb);
  EXPECT_EQ(d.shown[3].rgb, a.rgb);
  EXPECT_EQ(d.shown[4].rgb, c.rgb);
  // Only the changed pixel is stored for frame 2, so the file stays small.
  EXPECT_LT(std::filesystem::file_size(path), 400u);
}

// giflib's own EGifOpenFileName creates 0600 files; ours follow the umask like any output.
TEST(Gif, FileModeFollowsTheUmask) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("mode.gif");
  const mode_t old = ::umask(022);
  {
    meadow::GifWriter gif(path);
    gif.add(solid(4, 4, 1, 2, 3), 100);
    gif.close();
  }
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(Gif, CarriesDelayRoundingAndHonoursLoopCount) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("fps.gif");
  meadow::GifWriter gif(path, meadow::GifOptions{3});
  Frame f = solid(8, 8, 0, 0, 0);
  for (int i = 0; i < 30; ++i) {
    put(f, i % 8, i / 8, 255, 255, 255);
    gif.add(f, 1000 / 30);  // 33 ms: 3 or 4 cs per frame
  }
  gif.close();
  const Decoded d = decode(path);
  int total = 0;
  for (int cs : d.delays_cs) {
    EXPECT_TRUE(cs == 3 || cs == 4) << cs;
    total += cs;
  }
  EXPECT_EQ(total, 99);  // 30 x 33 ms = 990 ms
  EXPECT_EQ(d.loop_count, 3);
}

TEST(Gif, QuantizesFramesWithManyColours) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("many.gif");
  Frame f = solid(64, 64, 0, 0, 0);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      put(f, x, y, static_cast<uint8_t>(x * 4), static_cast<uint8_t>(y * 4),
          static_cast<uint8_t>((x + y) * 2));  // 4096 colours
  {
    meadow::GifWriter gif(path);
    gif.add(f, 50);
  }  // the destructor finishes the file too
  const Decoded d = decode(path);
  ASSERT_EQ(d.shown.size(), 1u);
  double err = 0;
  int worst = 0;
  for (size_t i = 0; i < f.rgb.size(); ++i) {
    const int e = std::abs(int(f.rgb[i]) - int(d.shown[0].rgb[i]));
    err += e;
    worst = std::max(worst, e);
  }
  EXPECT_LT(err / f.rgb.size(), 6.0);  // mean error per channel of a 256-colour median cut
  EXPECT_LT(worst, 40);
}

TEST(Gif, BadInputThrowsNamingTheFile) {
  meadow::test::TempDir tmp;
  const std::string bad = tmp.file("missing/x.gif");
  try {
    meadow::GifWriter gif(bad);
    FAIL() << "expected meadow::Error";
  } catch (const meadow::Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  const std::string path = tmp.file("sizes.gif");
  meadow::GifWriter gif(path);
  EXPECT_THROW(gif.add(Frame{}, 10), meadow::Error);
  gif.add(solid(10, 10, 1, 1, 1), 10);
  try {
    gif.add(solid(11, 10, 1, 1, 1), 10);
    FAIL() << "expected meadow::Error";
  } catch (const meadow::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("11x10"), std::string::npos) << msg;
  }
  EXPECT_THROW(gif.add(solid(10, 10, 1, 1, 1), -5), meadow::Error);
  gif.close();
  EXPECT_THROW(gif.add(solid(10, 10, 1, 1, 1), 10), meadow::Error);

  const std::string empty = tmp.file("empty.gif");
  meadow::GifWriter none(empty);
  EXPECT_THROW(none.close(), meadow::Error);
  EXPECT_FALSE(std::filesystem::exists(empty));
}
