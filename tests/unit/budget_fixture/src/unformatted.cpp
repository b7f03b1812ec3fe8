// SPDX-License-Identifier: Apache-2.0
// The one file of the budget fixture that clang-format would change (the spacing below).
int  unformatted( int a ){return a+1;}
