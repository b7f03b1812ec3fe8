// SPDX-License-Identifier: Apache-2.0
// python -> cli: app to app
#include "minifloat/check/check.hpp"
#include "../../src/cli/common.hpp"
