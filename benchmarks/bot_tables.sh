#!/bin/sh
# The measurements behind benchmarks/bots-results.md and docs/bots.md: every cell
# is versus.py's pairs of whole matches (seats swapped), appended as a JSON line
# to $OUT. Run it niced. Every size is a variable, so that a shorter run on a
# busy machine is still reproducible from its command line (the results file
# gives the one used).
#
#   OUT=benchmarks/bots-results/final.jsonl JOBS=2 nice -n 10 sh benchmarks/bot_tables.sh PARTS
#
# PARTS names the parts to run, in this order:
# i: the search bot against the independent DMC bot (dmc_bot.py) at equal CPU
#    time per decision at the instant budget (8 playouts), 2 and 4 players,
#    seeds $SEEDS_I (11 12) of $PAIRS_I (100) pairs each. The DMC budgets
#    ($DMC2_8, $DMC4_8) are those of `versus.py --calibrate` (the ms per
#    decision closest to the search's).
# s: the same at the strong budget (64 playouts): seeds $SEEDS_S (11 12),
#    $PAIRS_S (100) pairs, DMC budgets $DMC2_64 and $DMC4_64.
# l: each level against the one below (easy against RandomBot), 2 and 4
#    players, seeds $SEEDS_L (21 22) of $PAIRS_L (100) pairs, and
#    $PAIRS_LX (= $PAIRS_L) pairs for expert against hard, the costliest.
#    The default DMC budgets are the pure-Python build's; the compiled
#    build's (bots-results.md, "The compiled build") are DMC2_8=5 DMC4_8=5
#    (or 6), DMC2_64=37 and DMC4_64=44: run from outside the source
#    tree with the wheel installed, PATH leading to its python.
# c: strength against budget: the search at $BUDGETS (1 4 16 32 64 128)
#    playouts against the DMC bot at the instant budget, seed 31, $PAIRS_C
#    (100) pairs.
set -eu
cd "$(dirname "$0")"
OUT=${OUT:-bots-results/final.jsonl}
JOBS=${JOBS:-2}
DMC2_8=${DMC2_8:-10} DMC4_8=${DMC4_8:-10} DMC2_64=${DMC2_64:-74} DMC4_64=${DMC4_64:-66}
PAIRS_I=${PAIRS_I:-100} PAIRS_S=${PAIRS_S:-100} PAIRS_L=${PAIRS_L:-100}
PAIRS_LX=${PAIRS_LX:-$PAIRS_L} PAIRS_C=${PAIRS_C:-100}
cell() { python versus.py "$@" --jobs "$JOBS" --json "$OUT"; }
case ${1:-isl} in *i*)
  for seed in ${SEEDS_I:-11 12}; do
    cell search:playouts=8 dmc:deals=$DMC2_8 --players 2 --pairs "$PAIRS_I" --seed "$seed"
    cell search:playouts=8 dmc:deals=$DMC4_8 --players 4 --pairs "$PAIRS_I" --seed "$seed"
  done
esac
case ${1:-isl} in *s*)
  for seed in ${SEEDS_S:-11 12}; do
    cell search:playouts=64 dmc:deals=$DMC2_64 --players 2 --pairs "$PAIRS_S" --seed "$seed"
    cell search:playouts=64 dmc:deals=$DMC4_64 --players 4 --pairs "$PAIRS_S" --seed "$seed"
  done
esac
case ${1:-isl} in *l*)
  for seed in ${SEEDS_L:-21 22}; do
    for players in 2 4; do
      cell easy random --players $players --pairs "$PAIRS_L" --seed "$seed"
      cell medium easy --players $players --pairs "$PAIRS_L" --seed "$seed"
      cell hard medium --players $players --pairs "$PAIRS_L" --seed "$seed"
      cell expert hard --players $players --pairs "$PAIRS_LX" --seed "$seed"
    done
  done
esac
case ${1:-isl} in *c*)
  for playouts in ${BUDGETS:-1 4 16 32 64 128}; do
    for players in 2 4; do
      cell search:playouts=$playouts dmc:deals=$DMC2_8 --players $players --pairs "$PAIRS_C" --seed 31
    done
  done
esac
