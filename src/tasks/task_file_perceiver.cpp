// A declarative perceiver: named observation entries, values computed by muparser
// expressions, words picked by buckets, and a sentence template.
#include "tasks/task_file_perceiver.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <muParser.h>

#include "meadow/error.hpp"

namespace meadow::tasks {
namespace {

constexpr const char* kWidestNumber = "-1.2345678901234567e+308";  // what a double can print

// One piece of a template: literal text, or a reference to a name (a number printed with
// `decimals` decimals, -1: as a whole number when it is one, else shortest).
struct Piece {
  std::string text;
  int ref = -1;
  int decimals = -1;
};
using Template = std::vector<Piece>;

bool is_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (const char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

std::string number_text(double v, int decimals) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  if (decimals >= 0) {
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
  }
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v == 0 ? 0.0 : v);  // no "-0"
    return buf;
  }
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

struct CompiledPerceiver {
  struct Word {
    std::unique_ptr<mu::Parser> of;
    std::vector<WordBucket> buckets;
    std::vector<Template> says;
  };

  size_t n_fields = 0, n_values = 0;
  std::unordered_map<std::string, int> index;  // fields, then values, then words
  mutable std::mutex mu;                       // muparser evaluates through shared buffers
  mutable std::vector<double> vars;            // fields, then values; the parsers point here
  std::vector<std::unique_ptr<mu::Parser>> values;
  std::vector<size_t> order;  // values, each after the values it uses
  std::vector<Word> words;
  Template sentence;

  bool is_word(int ref) const { return ref >= int(n_fields + n_values); }
  const Word& word(int ref) const { return words[size_t(ref) - n_fields - n_values]; }
};

namespace {

// Beyond muparser's own functions: what grid observations need (a cell number → row, column).
double floor_of(double x) {
  return std::floor(x);
}
double ceil_of(double x) {
  return std::ceil(x);
}
double mod_of(double a, double b) {
  return a - b * std::floor(a / b);
}  // Python's %: sign of b

std::unique_ptr<mu::Parser> parser_for(CompiledPerceiver& p, const std::string& expr,
                                       const std::string& field) {
  auto parser = std::make_unique<mu::Parser>();
  try {
    parser->DefineFun("floor", floor_of);
    parser->DefineFun("ceil", ceil_of);
    parser->DefineFun("mod", mod_of);
    for (const auto& [name, i] : p.index)
      if (!p.is_word(i)) parser->DefineVar(name, &p.vars[size_t(i)]);
    parser->SetExpr(expr);
    parser->GetUsedVar();  // parses now: an unknown name or a syntax error shows here
  } catch (const mu::Parser::exception_type& e) {
    throw FieldError{field, "cannot read \"" + expr + "\": " + e.GetMsg()};
  }
  return parser;
}

Template template_of(const CompiledPerceiver& p, const std::string& text,
                     const std::string& field) {
  Template out;
  std::string lit;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {  // {{ and }}
      lit += c;
      ++i;
      continue;
    }
    if (c == '}') throw FieldError{field, "a lone '}' (write '}}' for the character)"};
    if (c != '{') {
      lit += c;
      continue;
    }
    const size_t end = text.find('}', i);
    if (end == std::string::npos) throw FieldError{field, "a '{' without its '}'"};
    std::string name = text.substr(i + 1, end - i - 1), spec;
    if (const size_t colon = name.find(':'); colon != std::string::npos) {
      spec = name.substr(colon + 1);
      name.resize(colon);
    }
    const auto it = p.index.find(name);
    if (it == p.index.end())
      throw FieldError{field, "names {" + name + "}, which is not a field, value or word"};
    Piece piece{lit, it->second, -1};
    lit.clear();
    if (!spec.empty()) {
      if (p.is_word(it->second))
        throw FieldError{field, "{" + name + ":" + spec + "}: only a number takes a format"};
      if (spec.size() != 3 || spec[0] != '.' ||
          !std::isdigit(static_cast<unsigned char>(spec[1])) || spec[2] != 'f')
        throw FieldError{field,
                         "{" + name + ":" + spec + "}: the one format is .Nf (N decimals, 0-9)"};
      piece.decimals = spec[1] - '0';
    }
    out.push_back(std::move(piece));
    i = end;
  }
  if (!lit.empty()) out.push_back({lit, -1, -1});
  return out;
}

// Values in an order where each comes after the values it uses; a cycle is a FieldError.
void order_values(CompiledPerceiver& p, const PerceiverSpec& spec) {
  std::vector<int> state(p.n_values, 0);  // 0 new, 1 on the path, 2 done
  std::function<void(size_t, std::string)> visit = [&](size_t v, std::string path) {
    if (state[v] == 2) return;
    const std::string& name = spec.values[v].first;
    path += (path.empty() ? "" : " -> ") + name;
    if (state[v] == 1)
      throw FieldError{"perceiver.values." + name, "depends on itself (" + path + ")"};
    state[v] = 1;
    for (const auto& [used, ptr] : p.values[v]->GetUsedVar()) {
      const int i = p.index.at(used);
      if (i >= int(p.n_fields)) visit(size_t(i) - p.n_fields, path);
    }
    state[v] = 2;
    p.order.push_back(v);
  };
  for (size_t v = 0; v < p.n_values; ++v) visit(v, "");
}

void check_word_cycles(const CompiledPerceiver& p, const PerceiverSpec& spec) {
  std::vector<int> state(p.words.size(), 0);
  std::function<void(size_t, std::string)> visit = [&](size_t w, std::string path) {
    if (state[w] == 2) return;
    path += (path.empty() ? "" : " -> ") + spec.words[w].name;
    if (state[w] == 1)
      throw FieldError{"perceiver.words." + spec.words[w].name, "says itself (" + path + ")"};
    state[w] = 1;
    for (const auto& t : p.words[w].says)
      for (const auto& piece : t)
        if (piece.ref >= 0 && p.is_word(piece.ref))
          visit(size_t(piece.ref) - p.n_fields - p.n_values, path);
    state[w] = 2;
  };
  for (size_t w = 0; w < p.words.size(); ++w) visit(w, "");
}

std::string expand(const CompiledPerceiver& p, const Template& t) {
  std::string out;
  for (const auto& piece : t) {
    out += piece.text;
    if (piece.ref < 0) continue;
    if (!p.is_word(piece.ref)) {
      out += number_text(p.vars[size_t(piece.ref)], piece.decimals);
      continue;
    }
    const auto& w = p.word(piece.ref);
    const double v = w.of->Eval();
    for (size_t b = 0; b < w.buckets.size(); ++b) {
      const WordBucket& k = w.buckets[b];
      const bool open = !k.below && !k.at_most && !k.is;
      if (open || (k.below && v < *k.below) || (k.at_most && v <= *k.at_most) ||
          (k.is && v == *k.is)) {
        out += expand(p, w.says[b]);
        break;
      }
    }
  }
  return out;
}

// Every word at its longest, every number as wide as a double prints.
std::string longest(const CompiledPerceiver& p, const Template& t) {
  std::string out;
  for (const auto& piece : t) {
    out += piece.text;
    if (piece.ref < 0) continue;
    if (!p.is_word(piece.ref)) {
      out += kWidestNumber;
      continue;
    }
    std::string best;
    for (const auto& s : p.word(piece.ref).says)
      if (std::string e = longest(p, s); e.size() > best.size()) best = std::move(e);
    out += best;
  }
  return out;
}

}  // namespace

std::shared_ptr<const CompiledPerceiver> compile_perceiver(const PerceiverSpec& spec) {
  auto p = std::make_shared<CompiledPerceiver>();
  p->n_fields = spec.fields.size();
  p->n_values = spec.values.size();
  p->vars.assign(p->n_fields + p->n_values, 0.0);
  auto add = [&](const std::string& name, const std::string& field) {
    if (!is_name(name))
      throw FieldError{field,
                       "\"" + name + "\" is not a name (letters, digits and _, not first a digit)"};
    if (!p->index.emplace(name, int(p->index.size())).second)
      throw FieldError{field, "the name \"" + name + "\" is used twice"};
  };
  for (size_t i = 0; i < spec.fields.size(); ++i)
    add(spec.fields[i], "perceiver.fields[" + std::to_string(i) + "]");
  for (const auto& [name, expr] : spec.values) add(name, "perceiver.values." + name);
  for (const auto& w : spec.words) add(w.name, "perceiver.words." + w.name);

  for (const auto& [name, expr] : spec.values)
    p->values.push_back(parser_for(*p, expr, "perceiver.values." + name));
  order_values(*p, spec);
  for (const auto& w : spec.words) {
    const std::string field = "perceiver.words." + w.name;
    CompiledPerceiver::Word cw{parser_for(*p, w.of, field + ".of"), w.buckets, {}};
    for (size_t b = 0; b < w.buckets.size(); ++b)
      cw.says.push_back(
          template_of(*p, w.buckets[b].say, field + ".buckets[" + std::to_string(b) + "].say"));
    p->words.push_back(std::move(cw));
  }
  check_word_cycles(*p, spec);
  p->sentence = template_of(*p, spec.sentence, "perceiver.sentence");
  return p;
}

std::string say(const CompiledPerceiver& p, const Values& obs) {
  if (obs.size() != p.n_fields)
    throw Error("the observation has " + std::to_string(obs.size()) +
                " entries; the perceiver's fields name " + std::to_string(p.n_fields));
  const std::lock_guard<std::mutex> lock(p.mu);
  std::copy(obs.begin(), obs.end(), p.vars.begin());
  try {
    for (const size_t v : p.order) p.vars[p.n_fields + v] = p.values[v]->Eval();
    return expand(p, p.sentence);
  } catch (const mu::Parser::exception_type& e) {
    throw Error("the perceiver could not compute a value: " + e.GetMsg());
  }
}

}  // namespace meadow::tasks

namespace meadow {

std::string longest_sentence(const PerceiverSpec& spec) {
  try {
    const auto p = tasks::compile_perceiver(spec);
    return tasks::longest(*p, p->sentence);
  } catch (const tasks::FieldError& e) {
    throw Error(e.field + ": " + e.why);
  }
}

}  // namespace meadow
