# SPDX-License-Identifier: Apache-2.0
# A planted Python front end for unit.front_ends_read_no_error_text_detects (never imported).
def option_of(err):
    return str(err).split(":")[0]
