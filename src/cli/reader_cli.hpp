// `decide` hands a meadow-reader file to these (cli/reader_commands.cpp).
#pragma once

#include <string>
#include <vector>

namespace meadow::cli {

// Whether the model file is a BERT-family encoder, which `decide` runs as a reader (a bert file
// without the reader's heads then fails with what is missing).
bool is_reader_model(const std::string& path);

// `decide` with a reader: reads the rule, decides the state, prints the decision and the reading
// (one JSON object with as_json). threads 0: 2.
void decide_with_reader(const std::string& path, const std::string& rule,
                        const std::vector<std::string>& option_specs, const std::string& state,
                        int threads, bool as_json);

}  // namespace meadow::cli
