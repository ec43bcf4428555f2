/*
 * The numbers of the C kernel (_cbatch.c and the files it includes), written
 * by tools/batch_header.py from american_sniff.rules, .actions, .observation
 * and .batch._pybatch. Do not edit: change those and run the tool again
 * (tests/test_batch_rules.py fails while this file is stale).
 */
#ifndef AMERICAN_SNIFF_BATCH_RULES_H
#define AMERICAN_SNIFF_BATCH_RULES_H

#include <stdint.h>

/* The words of a slot's state, int32 (docs/ai.md describes each). */
enum {
    AS_PLAYERS = 0,
    AS_ROUND = 1,
    AS_TURN = 2,
    AS_WINNER = 3,
    AS_DRAWN = 4,
    AS_DRAWN_COUNT = 5,
    AS_STOCK_SIZE = 6,
    AS_END_SUM = 7,
    AS_SNIFF = 8,
    AS_VALUES = 9,
    AS_TABLE = 10,
    AS_OPEN = 11,
    AS_HANDS = 14,
    AS_SCORES = 18,
    AS_RNG = 22,
    AS_SEED = 24,
    AS_ACTIONS = 26,
    AS_ROUND_ACTIONS = 27,
    AS_STOCK = 28,
    AS_WORDS = 48
};

/* The facts beside a slot's state, int64 words (see _cvector.c). */
enum {
    AS_F_PLAYED = 0,
    AS_F_VOIDS = 4,
    AS_F_MOVER = 8,
    AS_F_DRAWS = 9,
    AS_F_KNOWN = 10,
    AS_F_SHOWN = 11,
    AS_F_ROUND = 12,
    AS_F_OPENER = 13,
    AS_FACT_WORDS = 14
};

/* The error codes, one per slot and step. */
enum {
    AS_OK = 0,
    AS_ILLEGAL = 1,
    AS_OUT_OF_RANGE = 2,
    AS_MATCH_OVER = 3,
    AS_BAD_STATE = 4
};

/* The tiles, the points and the actions (american_sniff.actions). */
enum {
    AS_TILES = 28,
    AS_POINTS = 70,
    AS_ACTIONS_COUNT = 450,
    AS_DRAW = 448,
    AS_PASS = 449
};

/* A hand's word with every tile's bit set; the bound of counters and scores. */
#define AS_HAND_BITS 0x0FFFFFFFu
#define AS_SCORE_LIMIT 1073741824

/* Where each segment of the observation starts (OBSERVATION_FIELDS). */
enum {
    OB_HAND = 0,
    OB_DRAWN = 28,
    OB_PLAYED = 56,
    OB_OPEN = 168,
    OB_COUNTS = 238,
    OB_END_SUM = 308,
    OB_VALUES = 309,
    OB_SNIFF = 316,
    OB_HAND_SIZES = 323,
    OB_STOCK = 327,
    OB_VOIDS = 328,
    OB_SCORES = 356,
    OB_TARGET = 359,
    OB_PLAYERS = 360,
    OB_TURN = 363,
    OB_OPENER = 367,
    OB_ROUND = 371,
    OB_WINNER = 372,
    AS_OBSERVATION = 375
};

/* The history's uint16 records; an action's slot in the recall tensor (ACTION_SLOT_FIELDS). */
enum {
    AS_H_TILE_SHIFT = 9,
    AS_H_SEAT_SHIFT = 14,
    AS_HISTORY_WORDS = 128,
    IS_ACTOR = 0,
    IS_KIND = 4,
    IS_TILE = 7,
    IS_POINT = 35,
    IS_SLOT = 105
};

/* The player counts (rules.PLAYER_COUNTS), a hand's most pips, the greatest end sum. */
enum {
    AS_MIN_PLAYERS = 2,
    AS_MAX_PLAYERS = 4,
    AS_MAX_PIPS = 168,
    AS_MAX_END_SUM = 252
};

/* rules.hand_size, by number of players */
static const int8_t as_rule_hand_size[AS_MAX_PLAYERS + 1] = {
    0, 0, 7, 6, 5
};

/* rules.target, by number of players */
static const int32_t as_rule_target[AS_MAX_PLAYERS + 1] = {
    0, 0, 250, 200, 200
};

/* rules.side_count, by number of players */
static const int8_t as_rule_side_count[AS_MAX_PLAYERS + 1] = {
    0, 0, 2, 3, 2
};

/* rules.side_of, at players * AS_MAX_PLAYERS + seat */
static const int8_t as_rule_side_of[(AS_MAX_PLAYERS + 1) * AS_MAX_PLAYERS] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    2, 3, 0, 1, 2, 3, 0, 1, 0, 1
};

/* rules.next_seat, at players * AS_MAX_PLAYERS + seat */
static const int8_t as_rule_next_seat[(AS_MAX_PLAYERS + 1) * AS_MAX_PLAYERS] = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
    1, 0, 1, 2, 0, 1, 1, 2, 3, 0
};

/* observation.action_slots, by number of players */
static const int16_t as_rule_action_slots[AS_MAX_PLAYERS + 1] = {
    0, 0, 71, 96, 123
};

/* observation.information_state_size, by number of players */
static const int32_t as_rule_information_size[AS_MAX_PLAYERS + 1] = {
    0, 0, 7858, 10483, 13318
};

/* rules.round_hand, by a hand's pips */
static const int16_t as_rule_round_hand[AS_MAX_PIPS + 1] = {
    0, 0, 0, 5, 5, 5, 5, 5, 10, 10,
    10, 10, 10, 15, 15, 15, 15, 15, 20, 20,
    20, 20, 20, 25, 25, 25, 25, 25, 30, 30,
    30, 30, 30, 35, 35, 35, 35, 35, 40, 40,
    40, 40, 40, 45, 45, 45, 45, 45, 50, 50,
    50, 50, 50, 55, 55, 55, 55, 55, 60, 60,
    60, 60, 60, 65, 65, 65, 65, 65, 70, 70,
    70, 70, 70, 75, 75, 75, 75, 75, 80, 80,
    80, 80, 80, 85, 85, 85, 85, 85, 90, 90,
    90, 90, 90, 95, 95, 95, 95, 95, 100, 100,
    100, 100, 100, 105, 105, 105, 105, 105, 110, 110,
    110, 110, 110, 115, 115, 115, 115, 115, 120, 120,
    120, 120, 120, 125, 125, 125, 125, 125, 130, 130,
    130, 130, 130, 135, 135, 135, 135, 135, 140, 140,
    140, 140, 140, 145, 145, 145, 145, 145, 150, 150,
    150, 150, 150, 155, 155, 155, 155, 155, 160, 160,
    160, 160, 160, 165, 165, 165, 165, 165, 170
};

/* rules.placement_points, by the end sum after a placement */
static const int16_t as_rule_placement_points[AS_MAX_END_SUM + 1] = {
    0, 0, 0, 0, 0, 5, 0, 0, 0, 0,
    10, 0, 0, 0, 0, 15, 0, 0, 0, 0,
    20, 0, 0, 0, 0, 25, 0, 0, 0, 0,
    30, 0, 0, 0, 0, 35, 0, 0, 0, 0,
    40, 0, 0, 0, 0, 45, 0, 0, 0, 0,
    50, 0, 0, 0, 0, 55, 0, 0, 0, 0,
    60, 0, 0, 0, 0, 65, 0, 0, 0, 0,
    70, 0, 0, 0, 0, 75, 0, 0, 0, 0,
    80, 0, 0, 0, 0, 85, 0, 0, 0, 0,
    90, 0, 0, 0, 0, 95, 0, 0, 0, 0,
    100, 0, 0, 0, 0, 105, 0, 0, 0, 0,
    110, 0, 0, 0, 0, 115, 0, 0, 0, 0,
    120, 0, 0, 0, 0, 125, 0, 0, 0, 0,
    130, 0, 0, 0, 0, 135, 0, 0, 0, 0,
    140, 0, 0, 0, 0, 145, 0, 0, 0, 0,
    150, 0, 0, 0, 0, 155, 0, 0, 0, 0,
    160, 0, 0, 0, 0, 165, 0, 0, 0, 0,
    170, 0, 0, 0, 0, 175, 0, 0, 0, 0,
    180, 0, 0, 0, 0, 185, 0, 0, 0, 0,
    190, 0, 0, 0, 0, 195, 0, 0, 0, 0,
    200, 0, 0, 0, 0, 205, 0, 0, 0, 0,
    210, 0, 0, 0, 0, 215, 0, 0, 0, 0,
    220, 0, 0, 0, 0, 225, 0, 0, 0, 0,
    230, 0, 0, 0, 0, 235, 0, 0, 0, 0,
    240, 0, 0, 0, 0, 245, 0, 0, 0, 0,
    250, 0, 0
};

/* observation.SCALE_DIVISORS, by entry (0: the row's own target entry) */
static const float as_scale_divisors[AS_OBSERVATION] = {
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f,
    12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 12.0f, 35.0f, 8.0f,
    8.0f, 8.0f, 8.0f, 8.0f, 8.0f, 8.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 28.0f, 28.0f, 28.0f, 28.0f, 28.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 250.0f,
    1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
    1.0f, 100.0f, 1.0f, 1.0f, 1.0f
};

/* observation.SCALE_CLIPS: the bounds of the scaled scores and round. */
#define AS_SCALE_SCORES_LOW -2.0f
#define AS_SCALE_SCORES_HIGH 1.2f
#define AS_SCALE_ROUND_LOW 0.0f
#define AS_SCALE_ROUND_HIGH 1.0f

#endif
