#!/bin/sh
# The measurements behind benchmarks/bots-results.md and docs/bots.md: every cell
# is versus.py's pairs of whole matches (seats swapped), appended as a JSON line
# to $OUT. Run it niced; it takes about an hour of CPU time in the pure build.
#
#   OUT=benchmarks/bots-results.jsonl JOBS=2 nice -n 10 sh benchmarks/bot_tables.sh [a|b|c]
#
# a: the search bot against the independent DMC bot at equal CPU time per
#    decision, at the instant (8) and strong (64) budgets, 2 and 4 players,
#    two seeds of 100 pairs (400 matches a cell). The DMC budgets are those
#    of `versus.py --calibrate` (ms per decision closest to the search's).
# b: each level against the one below (easy against RandomBot), same sizes.
# c: strength against budget: search at 1 to 128 playouts against the DMC bot
#    at its instant budget, one seed of 100 pairs (200 matches a cell).
set -eu
cd "$(dirname "$0")"
OUT=${OUT:-bots-results.jsonl}
JOBS=${JOBS:-2}
cell() { python versus.py "$@" --jobs "$JOBS" --json "$OUT"; }
part=${1:-abc}
case $part in *a*)
  for seed in 11 12; do
    cell search:playouts=8 dmc:deals=${DMC2_8:-10} --players 2 --pairs 100 --seed $seed
    cell search:playouts=8 dmc:deals=${DMC4_8:-10} --players 4 --pairs 100 --seed $seed
  done
  for seed in 11 12; do
    cell search:playouts=64 dmc:deals=${DMC2_64:-74} --players 2 --pairs 100 --seed $seed
    cell search:playouts=64 dmc:deals=${DMC4_64:-66} --players 4 --pairs 100 --seed $seed
  done
esac
case $part in *b*)
  for players in 2 4; do
    for seed in 21 22; do
      cell easy random --players $players --pairs 100 --seed $seed
      cell medium easy --players $players --pairs 100 --seed $seed
      cell hard medium --players $players --pairs 100 --seed $seed
      cell expert hard --players $players --pairs 100 --seed $seed
    done
  done
esac
case $part in *c*)
  for playouts in 1 4 16 32 64 128; do
    for players in 2 4; do
      cell search:playouts=$playouts dmc:deals=${DMC2_8:-10} --players $players --pairs 100 --seed 31
    done
  done
esac
