// SPDX-License-Identifier: Apache-2.0
// A planted front end for unit.front_ends_read_no_error_text_detects: three readings of error text
// (never compiled). The scan must report exactly these.
void apply(const Scheme& scheme, const QuantOptions& q) {
  try {
    const BlockQuantizer applies({0}, scheme, q);
  } catch (const Error& e) {
    const std::string w = e.what();
    throw Error("--mx-quirks " + w.substr(w.find("mx-quirks ") + 10));
  }
}
bool is_sr(const Error& e) { return std::string(e.what()).find("sr_bits") != std::string::npos; }
