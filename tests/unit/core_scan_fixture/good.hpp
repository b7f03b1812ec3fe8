// SPDX-License-Identifier: Apache-2.0
// A fixture for unit.core_is_device_safe_detects: nothing to report.
#pragma once
#include <cstdint>

inline constexpr std::uint32_t answer = 42;
