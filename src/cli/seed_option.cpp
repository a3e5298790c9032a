#include "cli/seed_option.hpp"

#include <charconv>
#include <cstdint>
#include <string>

namespace meadow::cli {

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const std::string want = "a seed is a whole number from 0 to 18446744073709551615, got '";
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
          return want + s + "'";
        uint64_t v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return want + s + "'";
        return "";
      },
      "SEED", "seed");
}

}  // namespace meadow::cli
