// SPDX-License-Identifier: Apache-2.0
// a command including another command: sideways
#include "cmd_a.hpp"
#include "common.hpp"
