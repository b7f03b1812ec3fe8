// SPDX-License-Identifier: Apache-2.0
// tables.cpp: placeholder until the tables work lands.

