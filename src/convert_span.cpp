// SPDX-License-Identifier: Apache-2.0
// convert_span.cpp: placeholder until the span API lands.

