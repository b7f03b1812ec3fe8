// SPDX-License-Identifier: Apache-2.0
// options.cpp: integer options with their range in every error (see options.hpp).
#include "options.hpp"

#include <charconv>
#include <system_error>

namespace minifloat::cli {

std::string shape_text(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (std::size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");  // NumPy's spelling: (3,)
}

long long parse_int_option(std::string_view option, std::string_view text, IntRange r) {
  const std::string accepted = "; accepted: " + std::to_string(r.lo) + ".." + std::to_string(r.hi);
  std::string_view t = text;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  long long v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  const bool digits = !t.empty() && p == t.data() + t.size();
  if (digits && ec == std::errc::result_out_of_range)
    throw Error(std::string(option) + " '" + quote_input(text) + "' is out of range" + accepted);
  if (!digits || ec != std::errc{})
    throw Error(std::string(option) + " '" + quote_input(text) + "' is not an integer" + accepted);
  if (v < r.lo || v > r.hi)
    throw Error(std::string(option) + " '" + quote_input(text) + "' is out of range" + accepted);
  return v;
}

}  // namespace minifloat::cli
