// PNG files read back with libpng byte for byte; the caption band's size, colour and text.
#include <gtest/gtest.h>
#include <png.h>

#include <cstring>

#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "test_files.hpp"

using meadow::Frame;

namespace {

Frame gradient(int w, int h) {
  Frame f{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 3)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = f.rgb.data() + (static_cast<size_t>(y) * w + x) * 3;
      p[0] = static_cast<uint8_t>(x * 7), p[1] = static_cast<uint8_t>(y * 5),
      p[2] = static_cast<uint8_t>(x ^ y);
    }
  return f;
}

Frame read_png(const std::string& path) {
  png_image im;
  std::memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, path.c_str())) throw std::runtime_error(im.message);
  im.format = PNG_FORMAT_RGB;
  Frame f{static_cast<int>(im.width), static_cast<int>(im.height), {}};
  f.rgb.resize(PNG_IMAGE_SIZE(im));
  if (!png_image_finish_read(&im, nullptr, f.rgb.data(), 0, nullptr)) {
    png_image_free(&im);
    throw std::runtime_error(im.message);
  }
  return f;
}

const uint8_t* at(const Frame& f, int x, int y) {
  return f.rgb.data() + (static_cast<size_t>(y) * f.width + x) * 3;
}

}  // namespace

TEST(Png, RoundTripsEveryByte) {
  meadow::test::TempDir tmp;
  const Frame f = gradient(37, 23);
  meadow::write_png(tmp.file("g.png"), f);
  const Frame back = read_png(tmp.file("g.png"));
  EXPECT_EQ(back.width, 37);
  EXPECT_EQ(back.height, 23);
  EXPECT_EQ(back.rgb, f.rgb);
}

TEST(Png, ErrorsNameTheFile) {
  meadow::test::TempDir tmp;
  const std::string bad = tmp.file("no-such-dir/x.png");
  try {
    meadow::write_png(bad, gradient(4, 4));
    FAIL() << "expected meadow::Error";
  } catch (const meadow::Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  EXPECT_THROW(meadow::write_png(tmp.file("z.png"), Frame{}), meadow::Error);
  Frame short_rgb{4, 4, std::vector<uint8_t>(10)};
  EXPECT_THROW(meadow::write_png(tmp.file("s.png"), short_rgb), meadow::Error);
}

TEST(Caption, AddsABandUnderTheFrameWithText) {
  const Frame f = gradient(200, 50);
  meadow::CaptionStyle style;
  const Frame c = meadow::with_caption(f, {"The pole leans left.", "Chose: B"}, style);
  ASSERT_EQ(c.width, 200);
  const int band = c.height - 50;
  EXPECT_GE(band, 2 * style.padding + 2 * 14);  // two lines of a 14 px font
  EXPECT_LE(band, 2 * style.padding + 2 * 24);
  // The picture is untouched.
  EXPECT_EQ(0, std::memcmp(c.rgb.data(), f.rgb.data(), f.rgb.size()));
  // A border row, then the band colour; somewhere in the band is dark text.
  EXPECT_EQ(at(c, 0, 50)[0], style.border.r);
  EXPECT_EQ(at(c, 199, 50)[2], style.border.b);
  const uint8_t* corner = at(c, 0, c.height - 1);
  EXPECT_EQ(corner[0], style.background.r);
  EXPECT_EQ(corner[1], style.background.g);
  EXPECT_EQ(corner[2], style.background.b);
  int dark = 0;
  for (int y = 50; y < c.height; ++y)
    for (int x = 0; x < c.width; ++x) dark += at(c, x, y)[0] < 100;
  EXPECT_GT(dark, 30);
}

TEST(Caption, WrapsLongLinesAndKeepsAFixedHeight) {
  const Frame f = gradient(160, 40);
  const std::string longer =
      "the cart is right of centre and moving right while the pole leans right and falls";
  const int one = meadow::with_caption(f, {"short"}).height;
  const int wrapped = meadow::with_caption(f, {longer}).height;
  EXPECT_GE(wrapped - 40, 3 * (one - 40) - 2 * 6 * 2);  // at least 3 lines' worth
  // No text pixel may fall into the right padding: every line fits the width.
  const Frame w = meadow::with_caption(f, {longer});
  for (int y = 41; y < w.height; ++y)  // below the border row
    for (int x = w.width - 3; x < w.width; ++x) EXPECT_GT(at(w, x, y)[0], 200) << x << "," << y;

  meadow::CaptionStyle fixed;
  fixed.fixed_lines = 2;
  EXPECT_EQ(meadow::with_caption(f, {longer}, fixed).height,
            meadow::with_caption(f, {"a"}, fixed).height);
  EXPECT_EQ(meadow::with_caption(f, {}, fixed).height, meadow::with_caption(f, {"a", "b"}).height);
  // No lines, no band.
  EXPECT_EQ(meadow::with_caption(f, {}).height, 40);
  EXPECT_THROW(meadow::with_caption(Frame{}, {"x"}), meadow::Error);
}
