# SPDX-License-Identifier: Apache-2.0
# A Python line over 120 characters counts too:
# ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
