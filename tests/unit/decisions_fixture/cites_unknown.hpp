// SPDX-License-Identifier: Apache-2.0
// cites_unknown.hpp: the negative fixture of unit.decisions_scanner_rejects_unknown_ids (not built,
// not included): it cites IDs that docs/decisions.md does not define, so the scan must fail and name
// them. The main scan (unit.decisions_cover_cited_ids) skips this folder.
#pragma once
// The rounding of a zero block follows D7 (known) and D99 (unknown); trap T77 is unknown too, as is
// spec-digest §42.
