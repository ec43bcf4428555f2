/*
 * american_sniff.batch._cbatch: N matches of American Sniff stepped at once.
 *
 * Plain C99. The kernel (everything above the "Python binding" line) uses
 * nothing but the C library and can be built on its own for another language:
 *
 *     cc -std=c99 -O2 -shared -fPIC -DAMERICAN_SNIFF_BATCH_NO_PYTHON \
 *        _cbatch.c -o libamerican_sniff_batch.so
 *
 * Its three entry points (as_batch_reset, as_batch_step, as_batch_mask) work
 * on flat arrays, one row per match ("slot"), and so do the observations
 * (as_batch_observe, in _cobserve.c); docs/ai.md describes every
 * word of a slot's state. A slot is only ever read and written through its
 * own row, and every word of a state that is used to index a table or to
 * shift is checked first: a state that no reset or step made is refused with
 * AS_BAD_STATE, never followed out of bounds.
 *
 * The rules are those of american_sniff.engine, and chance is SplitMix64 as
 * american_sniff.rng defines it, so that a slot reset with seed s deals the
 * very match new_match(players, seed=s) deals.
 */
#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* Python.h comes before the standard headers, as the C API asks. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#endif
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The layout of a slot's state and facts, the action ids, the observation's
 * offsets and the rules' numbers: generated from the Python sources by
 * tools/batch_header.py (docs/ai.md describes every word of a slot). */
#include "_rules.h"

/* -- tables, filled once by as_batch_init ------------------------------------ */
static int as_ready = 0;
static int tile_low[AS_TILES], tile_high[AS_TILES];
static int first_point[AS_TILES];           /* the tile's first point (p) */
static int point_tile[AS_POINTS], point_rank[AS_POINTS], point_value[AS_POINTS];
static int point_worth[AS_POINTS];          /* what the point adds to the end sum while open */
static uint32_t tiles_showing[AS_PIP_VALUES];           /* bit t for each tile showing the number */
static uint32_t tiles_fitting[AS_VALUE_SETS];         /* bit t for each tile showing a number of the mask */
static int16_t place_action[AS_POINTS][AS_TILES]; /* the action placing t on p, or -1 */
static int8_t free_point[AS_POINTS][AS_TILES];    /* the point t leaves open on p */
static int8_t action_tile[AS_ACTIONS_COUNT], action_point[AS_ACTIONS_COUNT];
/* A set of tiles' codes, by its bytes: byte v of value_codes[k][b] has bit w set
 * where tile [v|w] is among the tiles 8k to 8k + 7 given by the bits of b (the
 * OR over the four bytes of a set is its codes for all seven numbers). */
static uint64_t value_codes[4][256];
/* The six mask bytes of a point whose own tile is [v|own], for the code of the
 * tiles to place for its number v: byte j is 1 where the j-th tile that may join
 * it is held (the tiles [v|w], w != own, in the order of w), then two 0 bytes.
 * Built byte by byte in memory, so that it reads the same on any byte order;
 * the row of a point is point_row (its own tile's other number). */
static uint64_t point_bytes[AS_PIP_VALUES * AS_VALUE_SETS];
/* The library's scaling (observation.scaled): each entry's bounds, infinite where
 * it is not clipped (its divisors are as_scale_divisors, of _rules.h). */
static float scale_low[AS_OBSERVATION], scale_high[AS_OBSERVATION];
/* The entries a scaling changes, as runs of one divisor and one clip (most entries
 * are flags, divided by 1 and not clipped): run r is entries first[r] to last[r] - 1. */
typedef struct {
    int runs;
    int first[AS_OBSERVATION], last[AS_OBSERVATION];
} scale_runs;
static scale_runs library_runs; /* the library's scaling's (as_batch_init makes them) */
/* 1 if the library's scaling leaves every flag of an observation as it is and a zero a
 * zero (+0.0): then a row is scaled as it is written (observe_seat_scaled). */
static int scale_inline;
static uint16_t point_row[AS_POINTS];  /* 128 times the other number of the point's own tile */
static uint8_t point_shift[AS_POINTS]; /* 8 times the point's number */

/* Ranks of a point, as american_sniff.points orders the sides. */
enum { R_LOW = 0, R_HIGH = 1, R_LINE_A = 2, R_LINE_B = 3, R_BRANCH_A = 4, R_BRANCH_B = 5 };

/* The runs of the scaling by these tables (AS_OBSERVATION entries each), into *out. */
static void scale_runs_of(const float *divisors, const float *low, const float *high,
                          scale_runs *out)
{
    int k, runs = 0;
    for (k = 0; k < AS_OBSERVATION; k++) {
        if (divisors[k] == 1.0f && low[k] < -FLT_MAX && high[k] > FLT_MAX) {
            continue;
        }
        if (runs > 0 && out->last[runs - 1] == k && divisors[k] == divisors[k - 1] &&
            low[k] == low[k - 1] && high[k] == high[k - 1]) {
            out->last[runs - 1] = k + 1;
        } else {
            out->first[runs] = k;
            out->last[runs] = k + 1;
            runs++;
        }
    }
    out->runs = runs;
}

/* Scale one observation o (AS_OBSERVATION float32 numbers) in place by these tables and
 * their runs: entry k is divided by divisors[k], or, where that is 0, by the row's own
 * entry `target` (its value before scaling; 1 where it is 0; target is an entry), then
 * kept within [low[k], high[k]]; every operation is one IEEE float32 division or
 * comparison, so the numbers are numpy's, bit for bit. */
static void scale_row(float *o, const scale_runs *plan, const float *divisors, const float *low,
                      const float *high, int target)
{
    float own = o[target] != 0.0f ? o[target] : 1.0f;
    int r, k;
    for (r = 0; r < plan->runs; r++) {
        float d = divisors[plan->first[r]] != 0.0f ? divisors[plan->first[r]] : own;
        float lo = low[plan->first[r]], hi = high[plan->first[r]];
        /* (a run's loop is plain enough to be vectorised) */
        for (k = plan->first[r]; k < plan->last[r]; k++) {
            float x = o[k] / d;
            x = x < lo ? lo : x;
            o[k] = x > hi ? hi : x;
        }
    }
}

void as_batch_init(void)
{
    int t, p = 0, a, v;
    if (as_ready) {
        return;
    }
    t = 0;
    for (a = 0; a <= AS_TOP; a++) {
        for (v = a; v <= AS_TOP; v++) {
            int r, ranks = a == v ? 4 : 2;
            tile_low[t] = a;
            tile_high[t] = v;
            first_point[t] = p;
            for (r = 0; r < ranks; r++) {
                int rank = a == v ? R_LINE_A + r : r;
                point_tile[p] = t;
                point_rank[p] = rank;
                point_value[p] = rank == R_HIGH ? v : a;
                point_worth[p] = rank == R_LINE_A || rank == R_LINE_B ? 2 * a : point_value[p];
                p++;
            }
            t++;
        }
    }
    for (v = 0; v <= AS_TOP; v++) {
        tiles_showing[v] = 0;
        for (t = 0; t < AS_TILES; t++) {
            if (tile_low[t] == v || tile_high[t] == v) {
                tiles_showing[v] |= 1u << t;
            }
        }
    }
    for (a = 0; a < AS_VALUE_SETS; a++) {
        tiles_fitting[a] = 0;
        for (v = 0; v <= AS_TOP; v++) {
            if (a >> v & 1) {
                tiles_fitting[a] |= tiles_showing[v];
            }
        }
    }
    for (a = 0; a < AS_ACTIONS_COUNT; a++) {
        action_tile[a] = (int8_t)(a < AS_TILES ? a : -1);
        action_point[a] = -1;
    }
    for (p = 0; p < AS_POINTS; p++) {
        int value = point_value[p], own_tile = point_tile[p];
        /* The other half of the point's own tile: u in [v|u]. */
        int own = tile_low[own_tile] == value ? tile_high[own_tile] : tile_low[own_tile];
        for (t = 0; t < AS_TILES; t++) {
            place_action[p][t] = -1;
            free_point[p][t] = -1;
        }
        for (v = 0; v <= AS_TOP; v++) {
            int w = v, j, lo, hi;
            if (w == own) {
                continue;
            }
            j = w < own ? w : w - 1;
            lo = value < w ? value : w;
            hi = value < w ? w : value;
            t = lo * (2 * AS_TOP + 3 - lo) / 2 + hi - lo;
            a = AS_TILES + AS_PLACES_PER_POINT * p + j;
            place_action[p][t] = (int16_t)a;
            action_tile[a] = (int8_t)t;
            action_point[a] = (int8_t)p;
            if (lo == hi) {
                free_point[p][t] = (int8_t)(first_point[t] + 1); /* line_b */
            } else {
                /* joined by the end showing the point's number; the other stays open */
                free_point[p][t] = (int8_t)(first_point[t] + (lo == value ? 1 : 0));
            }
        }
        point_row[p] = (uint16_t)(AS_VALUE_SETS * own);
        point_shift[p] = (uint8_t)(8 * value);
    }
    for (a = 0; a < 4 * 256; a++) {
        int k = a >> 8, b = a & 255;
        uint64_t codes = 0;
        for (t = 8 * k; t < 8 * k + 8 && t < AS_TILES; t++) {
            if (b >> (t - 8 * k) & 1) {
                codes |= (uint64_t)1 << (8 * tile_low[t] + tile_high[t]);
                codes |= (uint64_t)1 << (8 * tile_high[t] + tile_low[t]);
            }
        }
        value_codes[k][b] = codes;
    }
    for (v = 0; v < AS_PIP_VALUES; v++) { /* v: the own tile's other number */
        for (a = 0; a < AS_VALUE_SETS; a++) {
            uint8_t bytes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int w, j = 0;
            for (w = 0; w <= AS_TOP; w++) {
                if (w != v) {
                    bytes[j++] = (uint8_t)(a >> w & 1);
                }
            }
            memcpy(&point_bytes[AS_VALUE_SETS * v + a], bytes, 8);
        }
    }
    for (a = 0; a < AS_OBSERVATION; a++) {
        int scores = a >= OB_SCORES && a < OB_TARGET;
        scale_low[a] = scores ? AS_SCALE_SCORES_LOW : a == OB_ROUND ? AS_SCALE_ROUND_LOW : -HUGE_VALF;
        scale_high[a] = scores ? AS_SCALE_SCORES_HIGH
                        : a == OB_ROUND ? AS_SCALE_ROUND_HIGH
                                        : HUGE_VALF;
    }
    scale_runs_of(as_scale_divisors, scale_low, scale_high, &library_runs);
    scale_inline = 1;
    for (a = 0; a < AS_OBSERVATION; a++) {
        /* the entries that hold counts and numbers, not flags */
        int number = (a >= OB_COUNTS && a < OB_SNIFF) || (a >= OB_HAND_SIZES && a < OB_VOIDS) ||
                     (a >= OB_SCORES && a < OB_PLAYERS) || a == OB_ROUND;
        int plain = as_scale_divisors[a] == 1.0f && scale_low[a] < -FLT_MAX &&
                    scale_high[a] > FLT_MAX;
        /* (a divisor of 0 stands for the row's own target, which is positive) */
        int zero_kept = as_scale_divisors[a] >= 0.0f && scale_low[a] <= 0.0f && scale_high[a] >= 0.0f;
        if ((!number && !plain) || !zero_kept) {
            scale_inline = 0;
        }
    }
    as_ready = 1;
}

/* -- SplitMix64 (american_sniff.rng) ------------------------------------------ */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z;
    *state += 0x9E3779B97F4A7C15u;
    z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* An unbiased integer below n (0 < n <= 28). */
static int rng_below(uint64_t *state, uint32_t n)
{
    /* 2**64 % n (below n); outputs at or above 2**64 - that are redrawn. Below
     * 2**64 - n an output is always kept, so the rest is worked out only above. */
    for (;;) {
        uint64_t out = rng_next(state), rest;
        if (out < (uint64_t)0 - n) {
            return (int)(out % n);
        }
        rest = (UINT64_MAX % n + 1) % n;
        if (rest == 0 || out < (uint64_t)0 - rest) {
            return (int)(out % n);
        }
    }
}

static uint64_t get_u64(const int32_t *words)
{
    return (uint64_t)(uint32_t)words[0] | (uint64_t)(uint32_t)words[1] << 32;
}

static void put_u64(int32_t *words, uint64_t value)
{
    uint32_t lo = (uint32_t)value, hi = (uint32_t)(value >> 32);
    /* Stored as the int32 of the same bits (memcpy: no implementation-defined conversion). */
    memcpy(&words[0], &lo, sizeof lo);
    memcpy(&words[1], &hi, sizeof hi);
}

/* -- rules ---------------------------------------------------------------- */
/* american_sniff.rules, from the tables of _rules.h: players is one of
 * AS_MIN_PLAYERS to AS_MAX_PLAYERS (state_ok has checked it), seat below it. */
static int hand_size(int players) { return as_rule_hand_size[players]; }
static int target_of(int players) { return as_rule_target[players]; }
static int side_count(int players) { return as_rule_side_count[players]; }
static int side_of(int players, int seat) { return as_rule_side_of[players * AS_MAX_PLAYERS + seat]; }
static int next_seat(int players, int seat) { return as_rule_next_seat[players * AS_MAX_PLAYERS + seat]; }
/* A hand's pips rounded (pips: at most the whole set's). */
static int round_hand(int pips) { return as_rule_round_hand[pips]; }
/* What a placement scores, by the end sum after it (0 to AS_MAX_END_SUM, as recount makes it). */
static int placement_points(int end_sum)
{
    return end_sum >= 0 && end_sum <= AS_MAX_END_SUM ? as_rule_placement_points[end_sum] : 0;
}

/* The index of the lowest set bit of x (x != 0): the compiler's instruction
 * where it has one (gcc and clang), else a de Bruijn sequence, portable C99. */
#if defined(__GNUC__) || defined(__clang__)
static int ctz32(uint32_t x) { return __builtin_ctz(x); }
#else
static const int8_t debruijn_index[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20,
                                          15, 25, 17, 4,  8,  31, 27, 13, 23, 21, 19,
                                          16, 7,  26, 12, 18, 6,  11, 5,  10, 9};

static int ctz32(uint32_t x) { return debruijn_index[((x & (0u - x)) * 0x077CB531u) >> 27]; }
#endif

/* Bits of the open points, word by word (the third word has 6 bits: points 64..69). */
static uint32_t open_word(const int32_t *s, int k)
{
    uint32_t word = (uint32_t)s[AS_OPEN + k];
    return k == 2 ? word & 0x3Fu : word;
}

static int point_is_open(const int32_t *s, int p) { return (int)(open_word(s, p >> 5) >> (p & 31) & 1u); }

static void set_point(int32_t *s, int p, int on)
{
    uint32_t word = (uint32_t)s[AS_OPEN + (p >> 5)];
    uint32_t bit = 1u << (p & 31);
    word = on ? word | bit : word & ~bit;
    if (p >> 5 == 2)
        word &= 0x3Fu; /* as the Python kernels do: the bits past point 69 are cleared */
    memcpy(&s[AS_OPEN + (p >> 5)], &word, sizeof word);
}

/* The end sum and the mask of open values, from the open points. */
static void recount(int32_t *s)
{
    int k, sum = 0, count = 0, first = -1;
    uint32_t values = 0;
    for (k = 0; k < 3; k++) {
        uint32_t word = open_word(s, k);
        while (word) {
            int p = 32 * k + ctz32(word);
            word &= word - 1u;
            sum += point_worth[p];
            values |= 1u << point_value[p];
            if (first < 0) {
                first = p;
            }
            count++;
        }
    }
    /* A lone opening double, both line sides open, counts its halves once. */
    if (count == 2 && point_rank[first] == R_LINE_A && point_is_open(s, first + 1)) {
        sum -= point_worth[first];
    }
    s[AS_END_SUM] = sum;
    s[AS_VALUES] = (int32_t)values;
}

static uint32_t hand_of(const int32_t *s, int seat) { return (uint32_t)s[AS_HANDS + seat] & AS_HAND_BITS; }

static uint32_t fitting(uint32_t values) { return tiles_fitting[values & 0x7Fu]; }

/* The tiles the player to move may place from: the tile just drawn, else the hand. */
static uint32_t tiles_to_place(const int32_t *s)
{
    int drawn = s[AS_DRAWN];
    return drawn >= 0 ? 1u << drawn : hand_of(s, s[AS_TURN]);
}

/* Deal a round from the generator and pick who opens (opener < 0: by lot). */
static void deal_round(int32_t *s, int opener)
{
    int players = s[AS_PLAYERS], size = hand_size(players);
    int order[AS_TILES], i, seat;
    uint64_t rng = get_u64(&s[AS_RNG]);
    for (i = 0; i < AS_TILES; i++) {
        order[i] = i;
    }
    for (i = AS_TILES - 1; i > 0; i--) {
        int j = rng_below(&rng, (uint32_t)(i + 1)), kept = order[i];
        order[i] = order[j];
        order[j] = kept;
    }
    for (seat = 0; seat < 4; seat++) {
        uint32_t hand = 0;
        if (seat < players) {
            for (i = seat * size; i < (seat + 1) * size; i++) {
                hand |= 1u << order[i];
            }
        }
        s[AS_HANDS + seat] = (int32_t)hand;
    }
    for (i = 0; i < 14; i++) {
        s[AS_STOCK + i] = i < AS_TILES - players * size ? order[players * size + i] : 0;
    }
    if (opener < 0) {
        opener = rng_below(&rng, (uint32_t)players);
    }
    put_u64(&s[AS_RNG], rng);
    s[AS_TURN] = opener;
    s[AS_DRAWN] = -1;
    s[AS_DRAWN_COUNT] = 0;
    s[AS_STOCK_SIZE] = AS_TILES - players * size;
    s[AS_END_SUM] = 0;
    s[AS_SNIFF] = -1;
    s[AS_VALUES] = 0;
    s[AS_TABLE] = 0;
    s[AS_OPEN] = s[AS_OPEN + 1] = s[AS_OPEN + 2] = 0;
    s[AS_ROUND_ACTIONS] = 0;
}

static void reset_one(int32_t *s, uint64_t seed, int players)
{
    memset(s, 0, sizeof(int32_t) * AS_WORDS);
    s[AS_PLAYERS] = players;
    s[AS_ROUND] = 1;
    s[AS_WINNER] = -1;
    put_u64(&s[AS_RNG], seed);
    put_u64(&s[AS_SEED], seed);
    deal_round(s, -1);
}

/* Whether the slot's words can be stepped without leaving its tables. */
static int state_ok(const int32_t *s)
{
    int players = s[AS_PLAYERS], k;
    if (players < AS_MIN_PLAYERS || players > AS_MAX_PLAYERS) {
        return 0;
    }
    if (s[AS_TURN] < 0 || s[AS_TURN] >= players || s[AS_DRAWN] < -1 || s[AS_DRAWN] >= AS_TILES) {
        return 0;
    }
    if (s[AS_WINNER] < -1 || s[AS_WINNER] >= side_count(players)) {
        return 0;
    }
    if (s[AS_STOCK_SIZE] != AS_TILES - players * hand_size(players)) {
        return 0;
    }
    if (s[AS_DRAWN_COUNT] < 0 || s[AS_DRAWN_COUNT] > s[AS_STOCK_SIZE]) {
        return 0;
    }
    for (k = 0; k < 4; k++) {
        if (s[AS_SCORES + k] <= -AS_SCORE_LIMIT || s[AS_SCORES + k] >= AS_SCORE_LIMIT) {
            return 0;
        }
    }
    if (s[AS_ROUND] < 1 || s[AS_ROUND] >= AS_SCORE_LIMIT || s[AS_ACTIONS] < 0 ||
        s[AS_ACTIONS] >= AS_SCORE_LIMIT || s[AS_ROUND_ACTIONS] < 0 ||
        s[AS_ROUND_ACTIONS] >= AS_SCORE_LIMIT) {
        return 0;
    }
    return 1;
}

/* The one action of a seat that can place nothing: draw while the stock lasts, else pass. */
static int16_t unplaced_action(const int32_t *s)
{
    return (int16_t)(s[AS_STOCK_SIZE] > s[AS_DRAWN_COUNT] ? AS_DRAW : AS_PASS);
}

/* The openings of the hand `tiles` (each tile's own action), in increasing
 * order, into out; returns their count. */
static int opening_actions(uint32_t tiles, int16_t *out)
{
    int count = 0;
    while (tiles) {
        out[count++] = (int16_t)ctz32(tiles);
        tiles &= tiles - 1u;
    }
    return count;
}

static int is_legal(const int32_t *s, int action)
{
    uint32_t table = (uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    uint32_t tiles = tiles_to_place(s);
    int stock_left = s[AS_STOCK_SIZE] - s[AS_DRAWN_COUNT];
    if (action < AS_TILES) {
        return table == 0 && (tiles >> action & 1u);
    }
    if (table == 0) {
        return 0;
    }
    if (action >= AS_DRAW) {
        if (fitting((uint32_t)s[AS_VALUES] & 0x7Fu) & tiles) {
            return 0;
        }
        return action == AS_DRAW ? stock_left > 0 : stock_left == 0;
    }
    return point_is_open(s, action_point[action]) && (tiles >> action_tile[action] & 1u);
}

/* The pips of the tiles in a seat's hand. */
static int hand_pips(const int32_t *s, int seat)
{
    uint32_t hand = hand_of(s, seat);
    int pips = 0;
    while (hand) {
        int t = ctz32(hand);
        hand &= hand - 1u;
        pips += tile_low[t] + tile_high[t];
    }
    return pips;
}

/* Settle the round, then deal the next (the finisher opens it; -1: blocked, a lot). */
static void end_round(int32_t *s, int finisher)
{
    int players = s[AS_PLAYERS], seat;
    for (seat = 0; seat < players; seat++) {
        s[AS_SCORES + side_of(players, seat)] -= round_hand(hand_pips(s, seat));
    }
    s[AS_ROUND] += 1;
    deal_round(s, finisher);
}

static int anyone_can_place(const int32_t *s)
{
    uint32_t off_table = ~(uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    return (fitting((uint32_t)s[AS_VALUES] & 0x7Fu) & off_table) != 0;
}

/* The open points once tile is placed at point at (at -1: the opening, whose
 * two ends open): the point taken closes and the tile's free end opens. The
 * Sniff's own state word is not changed here (place sets it after). */
static void open_points_for(int32_t *s, int tile, int at)
{
    int rank;
    if (at < 0) {
        set_point(s, first_point[tile], 1);
        set_point(s, first_point[tile] + 1, 1);
        return;
    }
    rank = point_rank[at];
    set_point(s, at, 0);
    set_point(s, free_point[at][tile], 1);
    if ((rank == R_LINE_A || rank == R_LINE_B) && point_tile[at] == s[AS_SNIFF] &&
        !point_is_open(s, at ^ 1)) {
        /* both line sides of the Sniff are joined: its branches open */
        set_point(s, first_point[point_tile[at]] + 2, 1);
        set_point(s, first_point[point_tile[at]] + 3, 1);
    }
}

static void place(int32_t *s, int tile, int at)
{
    int seat = s[AS_TURN], players = s[AS_PLAYERS];
    int points, side;
    uint32_t hand = hand_of(s, seat) & ~(1u << tile);
    s[AS_HANDS + seat] = (int32_t)hand;
    s[AS_TABLE] = (int32_t)(((uint32_t)s[AS_TABLE] & AS_HAND_BITS) | 1u << tile);
    s[AS_DRAWN] = -1;
    open_points_for(s, tile, at);
    /* The bits past point 69 are cleared by every placement, wherever it is, as
     * the Python kernels rewrite all three words (only a broken state has any). */
    s[AS_OPEN + 2] = (int32_t)((uint32_t)s[AS_OPEN + 2] & 0x3Fu);
    if (s[AS_SNIFF] < 0 && tile_low[tile] == tile_high[tile]) {
        s[AS_SNIFF] = tile;
    }
    recount(s);
    points = placement_points(s[AS_END_SUM]);
    side = side_of(players, seat);
    if (points) {
        s[AS_SCORES + side] += points;
        if (s[AS_SCORES + side] >= target_of(players)) {
            s[AS_WINNER] = side; /* the target first: nothing else happens */
            return;
        }
    }
    if (hand == 0) {
        end_round(s, seat);
        return;
    }
    if (s[AS_STOCK_SIZE] - s[AS_DRAWN_COUNT] == 0 && !anyone_can_place(s)) {
        end_round(s, -1);
        return;
    }
    s[AS_TURN] = next_seat(players, seat);
}

static void draw(int32_t *s)
{
    int seat = s[AS_TURN];
    int tile = s[AS_STOCK + s[AS_DRAWN_COUNT]];
    int fits = (fitting((uint32_t)s[AS_VALUES] & 0x7Fu) >> tile & 1u) != 0;
    s[AS_DRAWN_COUNT] += 1;
    s[AS_HANDS + seat] = (int32_t)(hand_of(s, seat) | 1u << tile);
    if (!fits && s[AS_STOCK_SIZE] == s[AS_DRAWN_COUNT] && !anyone_can_place(s)) {
        end_round(s, -1);
        return;
    }
    s[AS_DRAWN] = fits ? tile : -1;
}

/* Apply one action to one slot; its seats' rewards go to reward[0..3]. */
static int step_one(int32_t *s, long long action, int32_t *reward)
{
    int before[4], players, seat, k;
    reward[0] = reward[1] = reward[2] = reward[3] = 0;
    if (!state_ok(s)) {
        return AS_BAD_STATE;
    }
    if (s[AS_WINNER] >= 0) {
        return AS_MATCH_OVER;
    }
    if (action < 0 || action >= AS_ACTIONS_COUNT) {
        return AS_OUT_OF_RANGE;
    }
    if (!is_legal(s, (int)action)) {
        return AS_ILLEGAL;
    }
    if (action == AS_DRAW &&
        (s[AS_STOCK + s[AS_DRAWN_COUNT]] < 0 || s[AS_STOCK + s[AS_DRAWN_COUNT]] >= AS_TILES)) {
        return AS_BAD_STATE; /* the stock holds no tile there */
    }
    players = s[AS_PLAYERS];
    for (k = 0; k < 4; k++) {
        before[k] = s[AS_SCORES + k];
    }
    s[AS_ACTIONS] += 1;
    s[AS_ROUND_ACTIONS] += 1;
    if (action == AS_DRAW) {
        draw(s);
    } else if (action == AS_PASS) {
        s[AS_TURN] = next_seat(players, s[AS_TURN]);
    } else {
        place(s, action_tile[action], action_point[action]);
    }
    for (seat = 0; seat < players; seat++) {
        int side = side_of(players, seat);
        reward[seat] = s[AS_SCORES + side] - before[side];
    }
    return AS_OK;
}

/* The legal mask of a slot whose words state_ok has accepted. */
static void mask_checked(const int32_t *s, uint8_t *mask)
{
    uint32_t tiles, table;
    uint64_t codes, placed = 0;
    int k;
    memset(mask, 0, AS_ACTIONS_COUNT);
    if (s[AS_WINNER] >= 0) {
        return;
    }
    tiles = tiles_to_place(s);
    table = (uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    if (table == 0) {
        while (tiles) {
            mask[ctz32(tiles)] = 1;
            tiles &= tiles - 1u;
        }
        return;
    }
    /* Each open point's six bytes at once, from the code of the tiles for its
     * number, written as eight: the points go up, so a write's last two bytes
     * (0) fall on the next point's first two before it is written, or on the
     * draw and the pass, which come last. */
    codes = value_codes[0][tiles & 255u] | value_codes[1][tiles >> 8 & 255u] |
            value_codes[2][tiles >> 16 & 255u] | value_codes[3][tiles >> 24 & 255u];
    for (k = 0; k < 3; k++) {
        uint32_t word = open_word(s, k);
        while (word) {
            int p = 32 * k + ctz32(word);
            uint64_t bytes = point_bytes[point_row[p] + (codes >> point_shift[p] & 0x7Fu)];
            word &= word - 1u;
            memcpy(mask + AS_TILES + AS_PLACES_PER_POINT * p, &bytes, 8);
            placed |= bytes;
        }
    }
    if (!placed) {
        mask[unplaced_action(s)] = 1;
    }
}

static void mask_one(const int32_t *s, uint8_t *mask)
{
    if (state_ok(s)) {
        mask_checked(s, mask);
    } else {
        memset(mask, 0, AS_ACTIONS_COUNT);
    }
}

/* -- the entry points --------------------------------------------------------- */

/* Reset n slots: slot i deals the match new_match(players, seed=seeds[i]) deals.
 * mask (n * 450 bytes) may be NULL. Returns 0, or -1 if players is not 2, 3 or 4. */
int as_batch_reset(int32_t *state, const uint64_t *seeds, int players, size_t n, uint8_t *mask)
{
    size_t i;
    as_batch_init();
    if (players < AS_MIN_PLAYERS || players > AS_MAX_PLAYERS) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        reset_one(state + i * AS_WORDS, seeds[i], players);
        if (mask) {
            mask_one(state + i * AS_WORDS, mask + i * AS_ACTIONS_COUNT);
        }
    }
    return 0;
}

/* Step n slots in place, slot i by actions[i]. Per slot: rewards (4 int32, one
 * per seat: the change of its side's score), done (1 when the match is won),
 * errors (AS_OK or the refusal; a refused slot is left as it was), and the
 * legal mask of the new state (mask may be NULL). Returns how many slots
 * refused their action. */
static void facts_advance(int64_t *f, int seat, int32_t values, long long action,
                          const int32_t *after, int error); /* (in _cvector.c) */

/* Note an applied action in the slot's history h (AS_HISTORY_WORDS uint16
 * records): record k is the round's (k+1)-th action, as the state's
 * round_actions word counts them (a round's end sets it to 0: nothing to
 * keep). A draw's record holds the tile drawn, the stock's word just passed. */
static void history_note(uint16_t *h, const int32_t *after, int seat, long long action)
{
    int count = after[AS_ROUND_ACTIONS], tile = 0;
    if (count < 1 || count > AS_HISTORY_WORDS) {
        return;
    }
    if (action == AS_DRAW) {
        /* (a draw that kept the round has drawn_count >= 1, and step_one checked the tile) */
        tile = after[AS_STOCK + after[AS_DRAWN_COUNT] - 1];
    }
    h[count - 1] = (uint16_t)((unsigned)action | (unsigned)tile << AS_H_TILE_SHIFT |
                              (unsigned)seat << AS_H_SEAT_SHIFT);
}

/* step_one, with the slot's facts f and history h (NULL: none kept) advanced over the step. */
static int step_noted(int32_t *s, int64_t *f, uint16_t *h, long long action, int32_t *reward)
{
    int seat = s[AS_TURN];
    int32_t values = s[AS_VALUES];
    int error = step_one(s, action, reward);
    if (f) {
        facts_advance(f, seat, values, action, s, error);
    }
    if (h && error == AS_OK) {
        history_note(h, s, seat, action);
    }
    return error;
}

static size_t step_slots(int32_t *state, const int64_t *wide, const int32_t *narrow, size_t n,
                         uint8_t *mask, int32_t *rewards, uint8_t *done, uint8_t *errors,
                         int64_t *facts, uint16_t *history)
{
    size_t i, refused = 0;
    as_batch_init();
    for (i = 0; i < n; i++) {
        int32_t *s = state + i * AS_WORDS;
        long long action = wide ? (long long)wide[i] : (long long)narrow[i];
        int error = step_noted(s, facts ? facts + i * AS_FACT_WORDS : NULL,
                               history ? history + i * AS_HISTORY_WORDS : NULL, action,
                               rewards + 4 * i);
        errors[i] = (uint8_t)error;
        refused += error != AS_OK;
        done[i] = (uint8_t)(error != AS_BAD_STATE && s[AS_WINNER] >= 0);
        if (mask) {
            /* (A step leaves a state that state_ok accepts; a refusal leaves it as it was.) */
            if (error == AS_BAD_STATE) {
                memset(mask + i * AS_ACTIONS_COUNT, 0, AS_ACTIONS_COUNT);
            } else {
                mask_checked(s, mask + i * AS_ACTIONS_COUNT);
            }
        }
    }
    return refused;
}

size_t as_batch_step(int32_t *state, const int64_t *actions, size_t n, uint8_t *mask,
                     int32_t *rewards, uint8_t *done, uint8_t *errors)
{
    return step_slots(state, actions, NULL, n, mask, rewards, done, errors, NULL, NULL);
}

/* as_batch_step with the actions as int32. */
size_t as_batch_step32(int32_t *state, const int32_t *actions, size_t n, uint8_t *mask,
                       int32_t *rewards, uint8_t *done, uint8_t *errors)
{
    return step_slots(state, NULL, actions, n, mask, rewards, done, errors, NULL, NULL);
}

/* The legal mask of n slots (n * 450 bytes): 1 for each legal action. */
void as_batch_mask(const int32_t *state, size_t n, uint8_t *mask)
{
    size_t i;
    as_batch_init();
    for (i = 0; i < n; i++) {
        mask_one(state + i * AS_WORDS, mask + i * AS_ACTIONS_COUNT);
    }
}

/* How many int32 words a slot's state has. */
int as_batch_words(void) { return AS_WORDS; }

/* ====================== the bindings' buffer helpers ======================== */
#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* A buffer of `count` items of `itemsize` bytes (an integer format), C-contiguous. */
static int take(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t count,
                Py_ssize_t itemsize, const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    const char *format;
    char kind;
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous buffer of integers, got %R",
                     name, writable ? "writable " : "", obj);
        return -1;
    }
    format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!') {
        format++;
    }
    kind = format[0];
    if (format[0] == '\0' || format[1] != '\0' || !strchr("bBhHiIlLqQ?", kind) ||
        view->itemsize != itemsize || view->len != count * itemsize) {
        PyErr_Format(PyExc_ValueError,
                     "%s must hold %zd integers of %zd bytes each (C-contiguous), got %zd bytes "
                     "of format %s",
                     name, count, itemsize, view->len, view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The number of slots a state buffer holds (writable: it must be writable too). */
static int slots_of(PyObject *obj, int writable, Py_ssize_t *n)
{
    Py_buffer view;
    Py_ssize_t bytes;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "state must be a %sC-contiguous buffer of int32, got %R",
                     writable ? "writable " : "", obj);
        return -1;
    }
    bytes = view.len;
    PyBuffer_Release(&view);
    if (bytes % (4 * AS_WORDS) != 0) {
        PyErr_Format(PyExc_ValueError, "state must hold a multiple of %d int32 words, got %zd bytes",
                     AS_WORDS, bytes);
        return -1;
    }
    *n = bytes / (4 * AS_WORDS);
    return 0;
}

/* The number of int64 rows a rows buffer holds (take checks its format after). */
static int rows_of(PyObject *obj, Py_ssize_t *m)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "rows must be a C-contiguous buffer of int64, got %R", obj);
        return -1;
    }
    *m = view.len / 8;
    PyBuffer_Release(&view);
    return 0;
}

/* 0 if each of the m rows names a slot of n, else -1 with a ValueError naming the first that
 * does not. */
static int rows_in_range(const int64_t *rows, Py_ssize_t m, Py_ssize_t n)
{
    Py_ssize_t j;
    for (j = 0; j < m; j++) {
        if (rows[j] < 0 || rows[j] >= n) {
            PyErr_Format(PyExc_ValueError, "rows[%zd] is %lld, not a slot from 0 to %zd", j,
                         (long long)rows[j], n - 1);
            return -1;
        }
    }
    return 0;
}

/* Release views[k] for each of objects[0..total) that is not NULL. */
static void release_all(PyObject *const *objects, Py_buffer *views, int total)
{
    int k;
    for (k = 0; k < total; k++) {
        if (objects[k] != NULL) {
            PyBuffer_Release(&views[k]);
        }
    }
}

/* One buffer argument of a binding: its name, whether the kernel writes it, the size of
 * its items in bytes, and how many items it holds for each slot and for each row (of a
 * binding given rows, some buffers go by the rows). */
typedef struct {
    const char *name;
    int writable;
    Py_ssize_t itemsize;
    Py_ssize_t per_slot;
    Py_ssize_t per_row;
} buffer_spec;

/* Take the buffers objects[0..total) into views, objects[k] as specs[k] describes it for
 * n slots and m rows. A NULL object (an optional buffer not given) is passed over.
 * Returns 0, or -1 with the error set and nothing held. */
static int take_all(PyObject *const *objects, Py_buffer *views, const buffer_spec *specs,
                    int total, Py_ssize_t n, Py_ssize_t m)
{
    int k;
    for (k = 0; k < total; k++) {
        const buffer_spec *spec = &specs[k];
        if (objects[k] != NULL &&
            take(objects[k], &views[k], spec->writable, n * spec->per_slot + m * spec->per_row,
                 spec->itemsize, spec->name) < 0) {
            release_all(objects, views, k);
            return -1;
        }
    }
    return 0;
}
#endif

/* The search bot's playouts (as_playout_values), and their binding. */
#include "_cplay.c"

/* The search bot's exact endgame (as_endgame_values), and its binding. */
#include "_cendgame.c"

/* The facts beside the states, and seats played at random (as_batch_step_facts,
 * as_batch_play_random). */
#include "_cvector.c"

/* The observation of each slot's seat to move (as_batch_observe), and its binding. */
#include "_cobserve.c"

/* The slots waiting on a policy: their forced actions, observations and steps by rows
 * (as_batch_play_forced, as_batch_observe_waiting, as_batch_step_rows), the scaling of
 * observations (as_batch_scale), and their bindings. */
#include "_cwaiting.c"

/* The round's history beside each slot, the perfect-recall tensor and the worlds
 * redrawn for search (as_batch_information_state, as_batch_redraw), and their bindings. */
#include "_crecall.c"

/* ============================ Python binding ============================== */
#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
static PyObject *py_reset_into(PyObject *self, PyObject *args)
{
    PyObject *objects[3];
    Py_buffer views[3];
    static const buffer_spec specs[3] = {
        {"state", 1, 4, AS_WORDS, 0}, {"seeds", 0, 8, 1, 0}, {"mask", 1, 1, AS_ACTIONS_COUNT, 0}};
    Py_ssize_t n;
    int players;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOiO:reset_into", &objects[0], &objects[1], &players,
                          &objects[2])) {
        return NULL;
    }
    if (players < AS_MIN_PLAYERS || players > AS_MAX_PLAYERS) {
        return PyErr_Format(PyExc_ValueError, "American Sniff is played by 2, 3 or 4 players, got %d",
                            players);
    }
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 3, n, 0) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    as_batch_reset((int32_t *)views[0].buf, (const uint64_t *)views[1].buf, players, (size_t)n,
                   (uint8_t *)views[2].buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 3);
    Py_RETURN_NONE;
}

static PyObject *py_step_into(PyObject *self, PyObject *args)
{
    PyObject *objects[6];
    Py_buffer views[6];
    /* (Not static: the actions' item size is the call's, 8 or 4.) */
    buffer_spec specs[6] = {{"state", 1, 4, AS_WORDS, 0}, {"actions", 0, 8, 1, 0},
                            {"mask", 1, 1, AS_ACTIONS_COUNT, 0}, {"rewards", 1, 4, 4, 0},
                            {"done", 1, 1, 1, 0}, {"errors", 1, 1, 1, 0}};
    Py_ssize_t n;
    int narrow = 0;
    size_t refused;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:step_into", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5])) {
        return NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0) {
        return NULL;
    }
    /* The actions may be int64 or int32. */
    if (PyObject_GetBuffer(objects[1], &views[1], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
        narrow = views[1].itemsize == 4;
        PyBuffer_Release(&views[1]);
    } else {
        PyErr_Clear();
    }
    specs[1].itemsize = narrow ? 4 : 8;
    if (take_all(objects, views, specs, 6, n, 0) < 0) {
        return NULL;
    }
    /* The GIL is released around the loop (the buffers stay held until released below). */
    Py_BEGIN_ALLOW_THREADS
    refused = step_slots((int32_t *)views[0].buf, narrow ? NULL : (const int64_t *)views[1].buf,
                         narrow ? (const int32_t *)views[1].buf : NULL, (size_t)n,
                         (uint8_t *)views[2].buf, (int32_t *)views[3].buf, (uint8_t *)views[4].buf,
                         (uint8_t *)views[5].buf, NULL, NULL);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 6);
    return PyLong_FromSize_t(refused);
}

static PyObject *py_mask_into(PyObject *self, PyObject *args)
{
    PyObject *objects[2];
    Py_buffer views[2];
    static const buffer_spec specs[2] = {{"state", 1, 4, AS_WORDS, 0},
                                         {"mask", 1, 1, AS_ACTIONS_COUNT, 0}};
    Py_ssize_t n;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO:mask_into", &objects[0], &objects[1])) {
        return NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 2, n, 0) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    as_batch_mask((const int32_t *)views[0].buf, (size_t)n, (uint8_t *)views[1].buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 2);
    Py_RETURN_NONE;
}

static PyObject *py_start_facts_into(PyObject *self, PyObject *args)
{
    PyObject *objects[2];
    Py_buffer views[2];
    static const buffer_spec specs[2] = {{"state", 1, 4, AS_WORDS, 0},
                                         {"facts", 1, 8, AS_FACT_WORDS, 0}};
    Py_ssize_t n;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO:start_facts_into", &objects[0], &objects[1])) {
        return NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 2, n, 0) < 0) {
        return NULL;
    }
    as_batch_start_facts((const int32_t *)views[0].buf, (size_t)n, (int64_t *)views[1].buf);
    release_all(objects, views, 2);
    Py_RETURN_NONE;
}

static PyObject *py_step_facts_into(PyObject *self, PyObject *args)
{
    /* The buffers in the order of the call, the mask last but the history: they may be None. */
    PyObject *objects[8];
    Py_buffer views[8];
    static const buffer_spec specs[8] = {
        {"state", 1, 4, AS_WORDS, 0}, {"facts", 1, 8, AS_FACT_WORDS, 0}, {"actions", 0, 8, 1, 0},
        {"rewards", 1, 4, 4, 0},      {"done", 1, 1, 1, 0},              {"errors", 1, 1, 1, 0},
        {"mask", 1, 1, AS_ACTIONS_COUNT, 0}, {"history", 1, 2, AS_HISTORY_WORDS, 0}};
    Py_ssize_t n;
    size_t refused;
    (void)self;
    objects[7] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOOO|O:step_facts_into", &objects[0], &objects[1], &objects[2],
                          &objects[6], &objects[3], &objects[4], &objects[5], &objects[7])) {
        return NULL;
    }
    /* (None for the mask: the caller has it written later, as play_random_into does.) */
    if (objects[6] == Py_None) {
        objects[6] = NULL;
    }
    if (objects[7] == Py_None) {
        objects[7] = NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 8, n, 0) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    refused = as_batch_step_history((int32_t *)views[0].buf, (int64_t *)views[1].buf,
                                    objects[7] ? (uint16_t *)views[7].buf : NULL,
                                    (const int64_t *)views[2].buf, (size_t)n,
                                    objects[6] ? (uint8_t *)views[6].buf : NULL,
                                    (int32_t *)views[3].buf, (uint8_t *)views[4].buf,
                                    (uint8_t *)views[5].buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 8);
    return PyLong_FromSize_t(refused);
}

static PyObject *py_play_random_into(PyObject *self, PyObject *args)
{
    PyObject *objects[9];
    Py_buffer views[9];
    static const buffer_spec specs[9] = {
        {"state", 1, 4, AS_WORDS, 0}, {"facts", 1, 8, AS_FACT_WORDS, 0},
        {"seats", 0, 8, 1, 0},        {"rng", 1, 8, 1, 0},
        {"mask", 1, 1, AS_ACTIONS_COUNT, 0}, {"gains", 1, 4, 1, 0},
        {"done", 1, 1, 1, 0},         {"errors", 1, 1, 1, 0},
        {"history", 1, 2, AS_HISTORY_WORDS, 0}};
    Py_ssize_t n;
    size_t applied;
    (void)self;
    objects[8] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOOOO|O:play_random_into", &objects[0], &objects[1],
                          &objects[2], &objects[3], &objects[4], &objects[5], &objects[6],
                          &objects[7], &objects[8])) {
        return NULL;
    }
    if (objects[8] == Py_None) {
        objects[8] = NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 9, n, 0) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    applied = play_random((int32_t *)views[0].buf, (int64_t *)views[1].buf,
                          objects[8] ? (uint16_t *)views[8].buf : NULL,
                          (const int64_t *)views[2].buf, (uint64_t *)views[3].buf, (size_t)n,
                          (uint8_t *)views[4].buf, (int32_t *)views[5].buf,
                          (uint8_t *)views[6].buf, (uint8_t *)views[7].buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 9);
    return PyLong_FromSize_t(applied);
}

static PyMethodDef methods[] = {
    {"reset_into", py_reset_into, METH_VARARGS,
     "reset_into(state, seeds, players, mask)\n--\n\n"
     "Reset every slot of state: slot i deals new_match(players, seed=seeds[i])."},
    {"step_into", py_step_into, METH_VARARGS,
     "step_into(state, actions, mask, rewards, done, errors)\n--\n\n"
     "Step every slot in place by its action; return how many refused theirs."},
    {"mask_into", py_mask_into, METH_VARARGS,
     "mask_into(state, mask)\n--\n\nWrite every slot's legal mask."},
    {"start_facts_into", py_start_facts_into, METH_VARARGS,
     "start_facts_into(state, facts)\n--\n\n"
     "Write every slot's facts fresh from its state (at a round's start)."},
    {"step_facts_into", py_step_facts_into, METH_VARARGS,
     "step_facts_into(state, facts, actions, mask, rewards, done, errors, history=None)\n--\n\n"
     "step_into with int64 actions, each slot's facts advanced over its step (and its "
     "history, if given); mask may be None (not written)."},
    {"play_random_into", py_play_random_into, METH_VARARGS,
     "play_random_into(state, facts, seats, rng, mask, gains, done, errors, history=None)\n--\n\n"
     "Every seat but seats[i] plays at random in slot i until seats[i] is to move or the match "
     "is over; return the number of actions applied."},
    {"playout_values", py_playout_values, METH_VARARGS,
     "playout_values(world, actions, seat, random, depth, settle, rng)\n--\n\n"
     "Play each action out from world as the search bot does; return (values, rng)."},
    {"endgame_values", py_endgame_values, METH_VARARGS,
     "endgame_values(world, actions, seat, nodes)\n--\n\n"
     "The exact endgame's value of each action from world for seat's side, as "
     "bots.endgame.endgame_values finds it; return (values, spent), or None if that takes "
     "more than nodes nodes."},
    {"observe_into", py_observe_into, METH_VARARGS,
     "observe_into(state, facts, out, rows=None, scaled=False)\n--\n\n"
     "Write the observation of each slot's seat to move (of slots rows[j], if given) "
     "into out, float32 or int32 (float32 scaled with the library's scaling if scaled); "
     "return how many rows are zeros (bad words or facts)."},
    {"observe_waiting_into", py_observe_waiting_into, METH_VARARGS,
     "observe_waiting_into(state, facts, seats, rows, out, masks)\n--\n\n"
     "Write the numbers of the slots whose match goes on with a seat other than seats[i] to "
     "move into rows, and (out, masks not None) their observations and masks, packed; "
     "return how many."},
    {"play_forced_into", py_play_forced_into, METH_VARARGS,
     "play_forced_into(state, facts, seats, gains, done, history=None)\n--\n\n"
     "Play every forced action (the one legal action) of the slots waiting on a seat other "
     "than seats[i], gains[i] += the reward of seats[i]; return the actions applied (masks "
     "not written)."},
    {"scale_into", py_scale_into, METH_VARARGS,
     "scale_into(out, divisors, low, high, target)\n--\n\n"
     "Scale float32 observations in place: entry k over divisors[k] (0: over the row's entry "
     "target), kept within [low[k], high[k]]."},
    {"step_rows_into", py_step_rows_into, METH_VARARGS,
     "step_rows_into(state, facts, rows, actions, mask, rewards, done, errors, seats=None, "
     "gains=None, history=None)\n--\n\n"
     "Step slot rows[j] by actions[j] in place, its facts advanced; rewards and errors by row, "
     "mask (or None) and done by slot, gains[slot] += the reward of seats[slot]; return how "
     "many rows refused their action."},
    {"play_waiting_into", py_play_waiting_into, METH_VARARGS,
     "play_waiting_into(state, facts, seats, rows, k, gains, done, out, masks, history=None, "
     "scaled=False)\n--\n\n"
     "play_forced_into, then observe_waiting_into (float32), over the candidates rows[0..k) "
     "alone (every slot if k < 0), the observations scaled with the library's scaling if "
     "scaled: one round of a policy opponent; return (m, forced actions applied)."},
    {"information_state_into", py_information_state_into, METH_VARARGS,
     "information_state_into(state, facts, history, players, seats, out, rows=None)\n--\n\n"
     "Write the perfect-recall tensor of seat seats[j] of each slot (of slot rows[j], if "
     "given) into out, float32 or int32; return how many rows are zeros."},
    {"redraw_into", py_redraw_into, METH_VARARGS,
     "redraw_into(state, facts, history, slots, seats, seeds, into, errors)\n--\n\n"
     "Write into slot into[j] a world of slot slots[j] as seat seats[j] sees it, its hidden "
     "tiles dealt again from seeds[j]; return how many rows were refused."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cbatch",
    "The C kernel of american_sniff.batch: N matches stepped at once.", -1, methods,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cbatch(void)
{
    PyObject *m;
    as_batch_init();
    m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "STATE_WORDS", AS_WORDS) < 0 ||
        PyModule_AddIntConstant(m, "FACT_WORDS", AS_FACT_WORDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif
