// SPDX-License-Identifier: Apache-2.0
// check -> train: sideways
#pragma once
#include "../registry.hpp"
#include "../core/format.hpp"
#include "../train/study.hpp"
