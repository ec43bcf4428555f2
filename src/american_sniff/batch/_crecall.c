/*
 * The round's history beside each slot, the perfect-recall tensor it gives,
 * and worlds redrawn for search, in C: as_batch_information_state and
 * as_batch_redraw (included by _cbatch.c, after _cobserve.c and _cwaiting.c,
 * whose observe_seat, take_observations and buffer helpers it uses).
 *
 * History. A slot's 48 words do not say in which order the round's actions
 * came; american_sniff.batch.recall keeps that beside them when asked, as
 * AS_HISTORY_WORDS uint16 records a slot: record k is the round's (k+1)-th
 * action (the state's round_actions word says how many there are), with the
 * action id in bits 0-8, the tile drawn in bits 9-13 (a draw's alone) and
 * the seat that acted in bits 14-15. The calls that step slots note them
 * (step_noted, given a history row); nothing else reads them.
 *
 * The tensor. as_batch_information_state writes for a slot and a seat the
 * very numbers american_sniff.observation.encode_information_state gives for
 * view_for(state, seat): the observation of that seat (observe_seat), the 28
 * flags of the tiles dealt to it this round, then one slot of IS_SLOT (105)
 * numbers per action of the round (observation.ACTION_SLOT_FIELDS), zeros
 * after. Its numpy twin is american_sniff.batch.recall.information_state
 * (backend="numpy").
 *
 * Worlds. as_batch_redraw writes into a slot a world of another slot as one
 * seat sees it: the same table, scores, turn, history and facts, that seat's
 * hand, and the hidden tiles (the other hands and the stock left) dealt
 * again, uniformly among the deals that give each other seat its number of
 * tiles and no tile showing a number it is known to lack (the facts' voids):
 * the distribution of american_sniff.bots.Determiniser(view, history=False),
 * counted exactly. Its Python twin (american_sniff.batch.recall, backend
 * "python") draws the same world from the same seed, bit for bit.
 *
 * Plain C99, no Python needed (AMERICAN_SNIFF_BATCH_NO_PYTHON builds it).
 * Every word read to index a table or to shift is checked first (the state
 * by state_ok, the facts by observe_ok, each record here): a slot that fails
 * gets a row of zeros, or is refused.
 */

/* How many records of the round a slot's history holds, or -1 if its words
 * do not make a history of at most the round's most actions for players. */
static int history_length(const int32_t *s, const uint16_t *h, int players)
{
    int count = s[AS_ROUND_ACTIONS], k;
    if (count < 0 || count > as_rule_action_slots[players] || count > AS_HISTORY_WORDS) {
        return -1;
    }
    for (k = 0; k < count; k++) {
        unsigned action = h[k] & 0x1FFu, tile = (unsigned)h[k] >> AS_H_TILE_SHIFT & 0x1Fu;
        unsigned actor = (unsigned)h[k] >> AS_H_SEAT_SHIFT;
        if (action >= AS_ACTIONS_COUNT || tile >= AS_TILES || actor >= (unsigned)players) {
            return -1;
        }
    }
    return count;
}

/* Entry k of a tensor row: to the float row or to the int32 row (one is NULL). */
static void put_entry(float *of, int32_t *oi, size_t k, int32_t value)
{
    if (of) {
        of[k] = (float)value;
    } else {
        oi[k] = value;
    }
}

/* The tensor of seat of a slot whose words, facts and history (count records)
 * are checked, into of or oi (size numbers, zeroed here). */
static void recall_checked(const int32_t *s, const int64_t *f, const uint16_t *h, int count,
                           int seat, size_t size, float *of, int32_t *oi)
{
    int players = s[AS_PLAYERS], k;
    int32_t row[AS_OBSERVATION];
    uint32_t held = hand_of(s, seat), drew = 0, dealt;
    if (of) {
        memset(of, 0, size * sizeof(float));
    } else {
        memset(oi, 0, size * sizeof(int32_t));
    }
    observe_seat(s, f, seat, row);
    for (k = 0; k < AS_OBSERVATION; k++) {
        if (row[k]) {
            put_entry(of, oi, (size_t)k, row[k]);
        }
    }
    for (k = 0; k < count; k++) {
        size_t at = AS_OBSERVATION + AS_TILES + (size_t)IS_SLOT * (size_t)k;
        int action = h[k] & 0x1FF, tile = h[k] >> AS_H_TILE_SHIFT & 0x1F;
        int actor = h[k] >> AS_H_SEAT_SHIFT;
        put_entry(of, oi, at + IS_ACTOR + (size_t)((actor - seat + players) % players), 1);
        if (action < AS_DRAW) {
            put_entry(of, oi, at + IS_KIND, 1);
            put_entry(of, oi, at + IS_TILE + (size_t)action_tile[action], 1);
            if (action >= AS_TILES) {
                put_entry(of, oi, at + IS_POINT + (size_t)action_point[action], 1);
            }
            if (actor == seat) {
                held |= 1u << action_tile[action];
            }
        } else if (action == AS_DRAW) {
            put_entry(of, oi, at + IS_KIND + 1, 1);
            if (actor == seat) {
                put_entry(of, oi, at + IS_TILE + (size_t)tile, 1);
                drew |= 1u << tile;
            }
        } else {
            put_entry(of, oi, at + IS_KIND + 2, 1);
        }
    }
    dealt = held & ~drew;
    while (dealt) {
        put_entry(of, oi, AS_OBSERVATION + (size_t)ctz32(dealt), 1);
        dealt &= dealt - 1u;
    }
}

/* The perfect-recall tensor of m slots, each for one seat:
 * encode_information_state(view_for(state, seats[j])) of slot rows[j] (of
 * slot j when rows is NULL; then m must be n), as_rule_information_size
 * [players] numbers a row (7858, 10483 or 13318), to out_f32 or out_i32
 * (exactly one given). state, facts and history hold n slots (48 int32, 14
 * int64 and AS_HISTORY_WORDS uint16 words each). A row whose slot is not in
 * 0..n-1, is not of players players, has a seat not of its match, or words,
 * facts or history out of range, is written as zeros. Returns how many rows
 * are zeros, or -1 (writing nothing) for a players count not 2 to 4, not
 * exactly one output, or rows NULL and m not n. */
long long as_batch_information_state(const int32_t *state, const int64_t *facts,
                                     const uint16_t *history, size_t n, const int64_t *rows,
                                     const int64_t *seats, size_t m, int players, float *out_f32,
                                     int32_t *out_i32)
{
    size_t j, size;
    long long zeros = 0;
    as_batch_init();
    if (players < AS_MIN_PLAYERS || players > AS_MAX_PLAYERS ||
        (out_f32 == NULL) == (out_i32 == NULL) || (rows == NULL && m != n)) {
        return -1;
    }
    size = (size_t)as_rule_information_size[players];
    for (j = 0; j < m; j++) {
        int64_t slot = rows ? rows[j] : (int64_t)j, seat = seats[j];
        float *of = out_f32 ? out_f32 + j * size : NULL;
        int32_t *oi = out_i32 ? out_i32 + j * size : NULL;
        const int32_t *s;
        const int64_t *f;
        const uint16_t *h;
        int count = -1;
        if (slot >= 0 && (uint64_t)slot < (uint64_t)n) {
            s = state + (size_t)slot * AS_WORDS;
            f = facts + (size_t)slot * AS_FACT_WORDS;
            h = history + (size_t)slot * AS_HISTORY_WORDS;
            if (s[AS_PLAYERS] == players && seat >= 0 && seat < players && observe_ok(s, f)) {
                count = history_length(s, h, players);
            }
            if (count >= 0) {
                recall_checked(s, f, h, count, (int)seat, size, of, oi);
                continue;
            }
        }
        if (of) {
            memset(of, 0, size * sizeof(float));
        } else {
            memset(oi, 0, size * sizeof(int32_t));
        }
        zeros++;
    }
    return zeros;
}

/* -- worlds ------------------------------------------------------------------ */

/* An unbiased integer below n (n >= 1), any 64-bit n: an output at or above
 * the largest multiple of n below 2**64 is drawn again (rng.below's rule). */
static uint64_t rng_below64(uint64_t *state, uint64_t n)
{
    uint64_t rest = (UINT64_MAX % n + 1u) % n; /* 2**64 % n */
    for (;;) {
        uint64_t out = rng_next(state);
        if (rest == 0 || out < (uint64_t)0 - rest) {
            return out % n;
        }
    }
}

/* The most states of the counting table: (a + 1)(b + 1)(c + 1) for the other
 * seats' hands a, b, c. A real match needs at most 22 (two players: a hand of
 * at most 21 tiles), 144 (three: a + b <= 22) or 648 (four: a + b + c <= 23). */
enum { WORLD_ROOMS = 1024 };

/* What the counting works on: the hidden tiles, each one's allowed seats, the
 * other seats and their room, and the counts. */
typedef struct {
    int tiles[AS_TILES];       /* the hidden tiles, in increasing order */
    int allowed[AS_TILES];     /* bit k: other seat k may hold hidden tile i */
    int hidden;                /* how many hidden tiles */
    int others;                /* how many other seats (players - 1) */
    int room[3];               /* each other seat's tiles to hold */
    int stride[3];             /* the mixed radix of a room's index */
    /* ways[i][r]: the ways to deal hidden tiles i.. so that the other seats get
     * exactly the room of index r and the stock the rest. */
    uint64_t ways[AS_TILES + 1][WORLD_ROOMS];
} world_table;

/* The room index r with other seat k's room less one, or -1 if it has none. */
static int room_less(const world_table *w, int r, int k)
{
    int left = r / w->stride[k] % (w->room[k] + 1);
    return left > 0 ? r - w->stride[k] : -1;
}

/* How many tiles the room of index r holds in all. */
static int room_total(const world_table *w, int r)
{
    int k, total = 0;
    for (k = 0; k < w->others; k++) {
        total += r / w->stride[k] % (w->room[k] + 1);
    }
    return total;
}

/* Fill w->ways; returns the number of rooms (the full room's index is rooms - 1). */
static int world_count(world_table *w)
{
    int rooms = 1, k, i, r;
    for (k = 0; k < w->others; k++) {
        w->stride[k] = rooms;
        rooms *= w->room[k] + 1;
    }
    for (r = 0; r < rooms; r++) {
        w->ways[w->hidden][r] = r == 0;
    }
    for (i = w->hidden - 1; i >= 0; i--) {
        for (r = 0; r < rooms; r++) {
            uint64_t total = 0;
            /* The stock takes it if it has room: the tiles left outnumber the seats' room. */
            if (w->hidden - i > room_total(w, r)) {
                total += w->ways[i + 1][r];
            }
            for (k = 0; k < w->others; k++) {
                int less = room_less(w, r, k);
                if (less >= 0 && (w->allowed[i] >> k & 1)) {
                    total += w->ways[i + 1][less];
                }
            }
            w->ways[i][r] = total;
        }
    }
    return rooms;
}

/* Write into t a world of slot s (words, facts checked by observe_ok) for seat,
 * drawn from the SplitMix64 state rng, with w as the counting table. Returns
 * AS_OK, AS_MATCH_OVER (nothing is hidden once the match is over) or
 * AS_BAD_STATE (the words leave no world). t may be s. */
static int redraw_one(const int32_t *s, const int64_t *f, int seat, uint64_t rng, world_table *w,
                      int32_t *t)
{
    int players = s[AS_PLAYERS], k, i, r, rooms, total, other[3], stock[AS_TILES], stocked = 0;
    int drawn = s[AS_DRAWN_COUNT], left = s[AS_STOCK_SIZE] - drawn;
    uint32_t known = hand_of(s, seat) | ((uint32_t)s[AS_TABLE] & AS_HAND_BITS), hidden = 0;
    uint32_t hands[3] = {0, 0, 0};
    uint64_t pick;
    if (s[AS_WINNER] >= 0) {
        return AS_MATCH_OVER;
    }
    w->others = 0;
    for (k = 1; k < players; k++) {
        int j = (seat + k) % players;
        other[w->others] = j;
        w->room[w->others] = popcount32(hand_of(s, j));
        hidden |= hand_of(s, j);
        w->others++;
    }
    for (k = 0, rooms = 1, total = 0; k < w->others; k++) {
        rooms *= w->room[k] + 1;
        total += w->room[k];
    }
    if (rooms > WORLD_ROOMS) {
        return AS_BAD_STATE; /* (only words no step made hold such hands) */
    }
    for (i = drawn; i < s[AS_STOCK_SIZE]; i++) {
        if (s[AS_STOCK + i] < 0 || s[AS_STOCK + i] >= AS_TILES) {
            return AS_BAD_STATE;
        }
        hidden |= 1u << s[AS_STOCK + i];
    }
    if (hidden & known || popcount32(hidden) != left + total) {
        return AS_BAD_STATE; /* a tile twice: words no step made */
    }
    w->hidden = 0;
    for (i = 0; i < AS_TILES; i++) {
        if (hidden >> i & 1u) {
            uint32_t shows = 1u << tile_low[i] | 1u << tile_high[i];
            int allowed = 0;
            for (k = 0; k < w->others; k++) {
                if (!(shows & (uint32_t)f[AS_F_VOIDS + other[k]])) {
                    allowed |= 1 << k;
                }
            }
            w->tiles[w->hidden] = i;
            w->allowed[w->hidden] = allowed;
            w->hidden++;
        }
    }
    rooms = world_count(w);
    r = rooms - 1;
    if (w->ways[0][r] == 0) {
        return AS_BAD_STATE; /* the voids leave no deal */
    }
    pick = rng_below64(&rng, w->ways[0][r]);
    for (i = 0; i < w->hidden; i++) {
        int placed = 0;
        if (w->hidden - i > room_total(w, r)) {
            if (pick < w->ways[i + 1][r]) {
                stock[stocked++] = w->tiles[i];
                placed = 1;
            } else {
                pick -= w->ways[i + 1][r];
            }
        }
        for (k = 0; k < w->others && !placed; k++) {
            int less = room_less(w, r, k);
            if (less >= 0 && (w->allowed[i] >> k & 1)) {
                if (pick < w->ways[i + 1][less]) {
                    hands[k] |= 1u << w->tiles[i];
                    r = less;
                    placed = 1;
                } else {
                    pick -= w->ways[i + 1][less];
                }
            }
        }
    }
    /* The stock in a uniform order (deal_round's shuffle), then the generator of later rounds. */
    for (i = stocked - 1; i > 0; i--) {
        int j = rng_below(&rng, (uint32_t)(i + 1)), kept = stock[i];
        stock[i] = stock[j];
        stock[j] = kept;
    }
    if (t != s) {
        memcpy(t, s, sizeof(int32_t) * AS_WORDS);
    }
    for (k = 0; k < w->others; k++) {
        t[AS_HANDS + other[k]] = (int32_t)hands[k];
    }
    for (i = 0; i < 14; i++) {
        /* The tiles drawn are not kept (they are in hands or on the table): zeros. */
        t[AS_STOCK + i] = i >= drawn && i < drawn + stocked ? stock[i - drawn] : 0;
    }
    if (s[AS_TURN] != seat) {
        t[AS_DRAWN] = -1; /* another seat's tile to place is not known to seat */
    }
    put_u64(&t[AS_RNG], rng_next(&rng));
    put_u64(&t[AS_SEED], 0);
    return AS_OK;
}

/* Write into slot into[j] a world of slot slots[j] as seat seats[j] sees it,
 * drawn from the SplitMix64 state seeds[j], for j = 0..m-1 in order (into[j]
 * may be slots[j]: the world replaces the slot). state, facts and history
 * (may be NULL) hold n slots; the world's facts are the slot's, and its
 * history the slot's with the tiles of other seats' draws left out (0).
 * errors[j] is AS_OK, AS_MATCH_OVER (nothing is hidden), or AS_BAD_STATE (a
 * slot or seat out of range, words no step made, no world); a refused row
 * writes nothing. Returns how many rows were refused, or -1 (nothing done)
 * if the counting table cannot be allocated. */
long long as_batch_redraw(int32_t *state, int64_t *facts, uint16_t *history, size_t n,
                          const int64_t *slots, const int64_t *seats, const uint64_t *seeds,
                          const int64_t *into, size_t m, uint8_t *errors)
{
    size_t j;
    long long refused = 0;
    world_table *w;
    as_batch_init();
    w = (world_table *)malloc(sizeof(world_table));
    if (w == NULL) {
        return -1;
    }
    for (j = 0; j < m; j++) {
        int64_t slot = slots[j], seat = seats[j], to = into[j];
        int32_t world[AS_WORDS];
        const int32_t *s;
        const int64_t *f;
        int error = AS_BAD_STATE, k;
        if (slot >= 0 && (uint64_t)slot < (uint64_t)n && to >= 0 && (uint64_t)to < (uint64_t)n) {
            s = state + (size_t)slot * AS_WORDS;
            f = facts + (size_t)slot * AS_FACT_WORDS;
            if (observe_ok(s, f) && seat >= 0 && seat < s[AS_PLAYERS] &&
                (history == NULL ||
                 history_length(s, history + (size_t)slot * AS_HISTORY_WORDS, s[AS_PLAYERS]) >=
                     0)) {
                error = redraw_one(s, f, (int)seat, seeds[j], w, world);
            }
        }
        errors[j] = (uint8_t)error;
        if (error != AS_OK) {
            refused++;
            continue;
        }
        memcpy(state + (size_t)to * AS_WORDS, world, sizeof world);
        if (to != slot) {
            memcpy(facts + (size_t)to * AS_FACT_WORDS, facts + (size_t)slot * AS_FACT_WORDS,
                   sizeof(int64_t) * AS_FACT_WORDS);
        }
        if (history != NULL) {
            uint16_t *h = history + (size_t)to * AS_HISTORY_WORDS;
            if (to != slot) {
                memcpy(h, history + (size_t)slot * AS_HISTORY_WORDS,
                       sizeof(uint16_t) * AS_HISTORY_WORDS);
            }
            for (k = 0; k < AS_HISTORY_WORDS; k++) {
                if ((h[k] >> AS_H_SEAT_SHIFT) != seat && (h[k] & 0x1FFu) == AS_DRAW) {
                    h[k] = (uint16_t)(h[k] & ~(0x1Fu << AS_H_TILE_SHIFT));
                }
            }
        }
    }
    free(w);
    return refused;
}

#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* information_state_into(state, facts, history, players, seats, out, rows=None). */
static PyObject *py_information_state_into(PyObject *self, PyObject *args)
{
    /* state, facts, history, seats and rows (NULL: every slot in order); out apart. */
    PyObject *objects[5], *out_obj;
    Py_buffer views[5], out;
    static const buffer_spec specs[5] = {{"state", 0, 4, AS_WORDS, 0},
                                         {"facts", 0, 8, AS_FACT_WORDS, 0},
                                         {"history", 0, 2, AS_HISTORY_WORDS, 0},
                                         {"seats", 0, 8, 0, 1},
                                         {"rows", 0, 8, 0, 1}};
    Py_ssize_t n, m;
    int players, floats = 0;
    long long zeros;
    const int64_t *slots;
    (void)self;
    objects[4] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOiOO|O:information_state_into", &objects[0], &objects[1],
                          &objects[2], &players, &objects[3], &out_obj, &objects[4])) {
        return NULL;
    }
    if (players < AS_MIN_PLAYERS || players > AS_MAX_PLAYERS) {
        return PyErr_Format(PyExc_ValueError, "American Sniff is played by 2, 3 or 4 players, got %d",
                            players);
    }
    if (slots_of(objects[0], 0, &n) < 0) {
        return NULL;
    }
    m = n;
    if (objects[4] == Py_None) {
        objects[4] = NULL;
    } else if (rows_of(objects[4], &m) < 0) {
        return NULL;
    }
    if (take_all(objects, views, specs, 5, n, m) < 0) {
        return NULL;
    }
    slots = objects[4] ? (const int64_t *)views[4].buf : NULL;
    if ((slots && rows_in_range(slots, m, n) < 0) ||
        take_observations(out_obj, &out, m * as_rule_information_size[players], &floats) < 0) {
        release_all(objects, views, 5);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    zeros = as_batch_information_state(
        (const int32_t *)views[0].buf, (const int64_t *)views[1].buf,
        (const uint16_t *)views[2].buf, (size_t)n, slots, (const int64_t *)views[3].buf,
        (size_t)m, players, floats ? (float *)out.buf : NULL, floats ? NULL : (int32_t *)out.buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 5);
    PyBuffer_Release(&out);
    return PyLong_FromLongLong(zeros);
}

/* redraw_into(state, facts, history, slots, seats, seeds, into, errors): history may be None. */
static PyObject *py_redraw_into(PyObject *self, PyObject *args)
{
    PyObject *objects[8];
    Py_buffer views[8];
    static const buffer_spec specs[8] = {
        {"state", 1, 4, AS_WORDS, 0}, {"facts", 1, 8, AS_FACT_WORDS, 0},
        {"history", 1, 2, AS_HISTORY_WORDS, 0}, {"slots", 0, 8, 0, 1},
        {"seats", 0, 8, 0, 1},        {"seeds", 0, 8, 0, 1},
        {"into", 0, 8, 0, 1},         {"errors", 1, 1, 0, 1}};
    Py_ssize_t n, m;
    long long refused;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:redraw_into", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5], &objects[6], &objects[7])) {
        return NULL;
    }
    if (objects[2] == Py_None) {
        objects[2] = NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0 || rows_of(objects[3], &m) < 0 ||
        take_all(objects, views, specs, 8, n, m) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    refused = as_batch_redraw((int32_t *)views[0].buf, (int64_t *)views[1].buf,
                              objects[2] ? (uint16_t *)views[2].buf : NULL, (size_t)n,
                              (const int64_t *)views[3].buf, (const int64_t *)views[4].buf,
                              (const uint64_t *)views[5].buf, (const int64_t *)views[6].buf,
                              (size_t)m, (uint8_t *)views[7].buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 8);
    if (refused < 0) {
        return PyErr_NoMemory();
    }
    return PyLong_FromLongLong(refused);
}
#endif
