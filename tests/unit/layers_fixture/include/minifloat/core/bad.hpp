// SPDX-License-Identifier: Apache-2.0
// core -> library: upward
#pragma once
#include "format.hpp"
#include "../registry.hpp"
