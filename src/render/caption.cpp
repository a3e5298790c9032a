// A text band under a frame: the lines wrapped to the frame's width with Cairo's text metrics.
#include <cmath>
#include <string>
#include <vector>

#include "meadow/render.hpp"
#include "render/cairo_handles.hpp"
#include "render/frame_check.hpp"

namespace meadow {

namespace {

double text_width(cairo_t* cr, const std::string& s) {
  cairo_text_extents_t te;
  cairo_text_extents(cr, s.c_str(), &te);
  return te.x_advance;
}

// Byte length of the UTF-8 sequence starting with byte c (1 for stray continuation bytes).
size_t utf8_len(unsigned char c) {
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

// Splits a word wider than max_w into pieces that fit, at code point boundaries.
std::vector<std::string> break_word(cairo_t* cr, const std::string& word, double max_w) {
  std::vector<std::string> pieces;
  std::string cur;
  for (size_t i = 0; i < word.size();) {
    const size_t n = std::min(utf8_len(static_cast<unsigned char>(word[i])), word.size() - i);
    std::string next = cur + word.substr(i, n);
    if (!cur.empty() && text_width(cr, next) > max_w) {
      pieces.push_back(cur);
      cur = word.substr(i, n);
    } else {
      cur = std::move(next);
    }
    i += n;
  }
  if (!cur.empty()) pieces.push_back(cur);
  return pieces;
}

// Greedy word wrap of one caption line; an empty line stays one empty line.
void wrap_line(cairo_t* cr, const std::string& line, double max_w, std::vector<std::string>& out) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string::npos) end = line.size();
    if (end > pos) words.push_back(line.substr(pos, end - pos));
    pos = end + 1;
  }
  std::string cur;
  bool any = false;
  for (const std::string& w : words) {
    std::string next = cur.empty() ? w : cur + " " + w;
    if (text_width(cr, next) <= max_w) {
      cur = std::move(next);
      continue;
    }
    if (!cur.empty()) out.push_back(cur), any = true;
    if (text_width(cr, w) <= max_w) {
      cur = w;
    } else {
      std::vector<std::string> pieces = break_word(cr, w, max_w);
      for (size_t i = 0; i + 1 < pieces.size(); ++i) out.push_back(pieces[i]);
      cur = pieces.empty() ? std::string() : pieces.back();
      any = true;
    }
  }
  if (!cur.empty() || !any) out.push_back(cur);
}

// Cuts the wrapped lines to n, marking the cut with an ellipsis that still fits.
void cut_to(cairo_t* cr, std::vector<std::string>& lines, size_t n, double max_w) {
  if (lines.size() <= n) {
    lines.resize(n);
    return;
  }
  lines.resize(n);
  std::string& last = lines.back();
  const std::string ellipsis = "\xE2\x80\xA6";
  while (!last.empty() && text_width(cr, last + ellipsis) > max_w) {
    size_t cut = last.size() - 1;
    while (cut > 0 && (static_cast<unsigned char>(last[cut]) & 0xC0) == 0x80) --cut;
    last.resize(cut);
  }
  last += ellipsis;
}

}  // namespace

Frame with_caption(const Frame& frame, const std::vector<std::string>& lines,
                   const CaptionStyle& style) {
  render_detail::check_frame(frame, "caption");
  if (lines.empty() && style.fixed_lines <= 0) return frame;
  if (style.font_size <= 0 || style.padding < 0)
    throw Error("caption: font size must be > 0 and padding >= 0");

  // Measure on a scratch surface first: the band's height depends on the wrapped line count.
  render_detail::Canvas scratch = render_detail::make_canvas(1, 1);
  render_detail::select_font(scratch.cr.get(), style.font_size);
  const double max_w = std::max(1.0, frame.width - 2.0 * style.padding);
  std::vector<std::string> wrapped;
  for (const std::string& l : lines) wrap_line(scratch.cr.get(), l, max_w, wrapped);
  if (style.fixed_lines > 0) cut_to(scratch.cr.get(), wrapped, style.fixed_lines, max_w);

  cairo_font_extents_t fe;
  cairo_font_extents(scratch.cr.get(), &fe);
  const double line_h = std::ceil(fe.height);
  const int band_h = static_cast<int>(2 * style.padding + line_h * wrapped.size());

  render_detail::Canvas band = render_detail::make_canvas(frame.width, band_h);
  cairo_t* cr = band.cr.get();
  cairo_set_source_rgb(cr, style.background.r / 255.0, style.background.g / 255.0,
                       style.background.b / 255.0);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, style.border.r / 255.0, style.border.g / 255.0, style.border.b / 255.0);
  cairo_rectangle(cr, 0, 0, frame.width, 1);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, style.color.r / 255.0, style.color.g / 255.0, style.color.b / 255.0);
  render_detail::select_font(cr, style.font_size);
  for (size_t i = 0; i < wrapped.size(); ++i) {
    cairo_move_to(cr, style.padding, style.padding + i * line_h + fe.ascent);
    cairo_show_text(cr, wrapped[i].c_str());
  }
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)  // e.g. text that is not valid UTF-8
    throw Error(std::string("caption: Cairo failed: ") + cairo_status_to_string(cairo_status(cr)));

  Frame out;
  out.width = frame.width;
  out.height = frame.height + band_h;
  out.rgb = frame.rgb;
  out.rgb.resize(static_cast<size_t>(out.width) * out.height * 3);
  render_detail::copy_pixels(band.surface.get(), frame.width, band_h,
                             out.rgb.data() + frame.rgb.size());
  return out;
}

}  // namespace meadow
