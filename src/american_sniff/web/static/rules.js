// The rules the browser's pages read, written by tools/batch_header.py from
// american_sniff.rules. Do not edit: change rules.py and run the tool again
// (tests/test_batch_rules.py fails while this file is stale).
"use strict";

// By number of players, each seat's scoring side (rules.side_of) and its
// partner (rules.partner_of: null where every seat is its own side).
const RULES = Object.freeze({
  sideOf: {
    "2": [0, 1],
    "3": [0, 1, 2],
    "4": [0, 1, 0, 1],
  },
  partnerOf: {
    "2": [null, null],
    "3": [null, null, null],
    "4": [2, 3, 0, 1],
  },
});
