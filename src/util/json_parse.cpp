// parse_json: nlohmann's SAX parser (iterative) feeding a DOM builder with an explicit stack,
// which caps the depth and names where a bad number sits. json_excerpt / json_depth: explicit
// stacks as well.
#include "util/json_parse.hpp"

#include <vector>

#include "meadow/error.hpp"
#include "util/printable.hpp"

namespace meadow::util {
namespace {

using nlohmann::json;

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

class DomBuilder final : public nlohmann::json_sax<json> {
 public:
  explicit DomBuilder(size_t max_depth) : max_depth_(max_depth) {}

  json result;
  std::string error;  // why parsing stopped ("" if it did not)
  std::string where;  // the path of the value being read when it stopped ("[3]['x']")

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t& text) override {
    // nlohmann reads an integer literal past 64 bits as a double, silently rounded.
    if (text.find_first_of(".eE") == std::string::npos)
      return stop("integer " + quoted(text, 40) + " does not fit in 64 bits");
    return put(v);
  }
  bool string(string_t& v) override { return put(std::move(v)); }
  bool binary(binary_t& v) override { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool key(string_t& k) override {
    stack_.back().key = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    // 406: a number literal too large for a double; everything else is a syntax error.
    if (e.id == 406) return stop("number " + quoted(token, 40) + " is out of range of a double");
    return stop(one_line(e.what()));
  }

 private:
  struct Open {
    json* value;
    std::string key;  // objects: the key whose value is being read
  };

  // Where the next value goes: the root, the end of the open array, or the open object's key.
  json* slot() {
    if (stack_.empty()) return &result;
    json& top = *stack_.back().value;
    if (top.is_array()) return &top.emplace_back();
    return &top[stack_.back().key];
  }
  bool put(json v) {
    *slot() = std::move(v);
    return true;
  }
  bool open(json v) {
    if (stack_.size() >= max_depth_)
      return stop("nested deeper than " + std::to_string(max_depth_) + " levels");
    json* s = slot();  // an open container's parent gets no new items until it closes
    *s = std::move(v);
    stack_.push_back({s, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  bool stop(std::string why) {
    error = std::move(why);
    where = path();
    return false;
  }
  // "[3]['gravity']": the open containers, outermost first; the innermost names the item being
  // read (its array index is the next one). The first 8 levels, then "...".
  std::string path() const {
    std::string p;
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (i == 8) return p + "...";
      const json& v = *stack_[i].value;
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string.
      p += '[';
      if (v.is_array())
        p += std::to_string(i + 1 == stack_.size() ? v.size() : v.size() - 1);
      else
        p += quoted(stack_[i].key, 40);
      p += ']';
    }
    return p;
  }

  size_t max_depth_;
  std::vector<Open> stack_;
};

}  // namespace

json parse_json(std::string_view text, const std::string& what, size_t max_depth) {
  DomBuilder dom(max_depth);
  const bool ok = json::sax_parse(text, &dom);
  if (!ok || !dom.error.empty()) {
    const std::string at = dom.where.empty() ? "" : " at " + dom.where;
    throw Error(what + ": invalid JSON" + at + ": " + dom.error);
  }
  return std::move(dom.result);
}

std::string json_excerpt(const json& v, size_t max_bytes) {
  const auto text = [](const json& scalar) {
    return scalar.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  struct Open {
    const json* value;
    json::const_iterator next;
  };
  std::string out;
  std::vector<Open> stack;
  const auto enter = [&](const json& x) {
    if (x.is_array() || x.is_object()) {
      out += x.is_array() ? '[' : '{';
      stack.push_back({&x, x.cbegin()});
    } else {
      out += text(x);
    }
  };
  enter(v);
  while (!stack.empty() && out.size() <= max_bytes) {
    Open& top = stack.back();
    const bool array = top.value->is_array();
    if (top.next == top.value->cend()) {
      out += array ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (top.next != top.value->cbegin()) out += ',';
    if (!array) out += text(json(top.next.key())) + ':';
    const json& item = *top.next;
    ++top.next;
    enter(item);  // may grow the stack: `top` is not used after this
  }
  if (out.size() <= max_bytes) return out;
  size_t cut = max_bytes;
  // Back up over UTF-8 continuation bytes so a character is never split (at most 3).
  for (int k = 0; k < 3 && cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80; ++k)
    --cut;
  return out.substr(0, cut) + "...";
}

size_t json_depth(const json& v) {
  struct Open {
    const json* value;
    json::const_iterator next;
  };
  size_t deepest = 0;
  std::vector<Open> stack;
  if (v.is_structured()) stack.push_back({&v, v.cbegin()});
  while (!stack.empty()) {
    deepest = std::max(deepest, stack.size());
    Open& top = stack.back();
    if (top.next == top.value->cend()) {
      stack.pop_back();
      continue;
    }
    const json& item = *top.next;
    ++top.next;
    if (item.is_structured()) stack.push_back({&item, item.cbegin()});
  }
  return deepest;
}

}  // namespace meadow::util
