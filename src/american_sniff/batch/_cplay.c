/*
 * The search bot's playouts on the batch kernel's words (included by _cbatch.c).
 *
 * as_playout_values plays each of a few first actions out from one position,
 * every seat then choosing as american_sniff.bots._kernel.play_out does: the
 * only legal move when there is one; else, with the random policy, move
 * below(count) of the legal moves in american_sniff.legal_moves order (by
 * tile, then by point), and with the greedy one the placement that scores
 * most, then the one of most pips, then the first. A playout stops at the end
 * of the round or match, or after `depth` placements (-1: no limit). Each
 * playout is scored as american_sniff.bots._kernel.outcome scores it, with
 * the same double arithmetic in the same order, so both give the same bits.
 *
 * Plain C99, like the kernel, and like it read only through state_ok.
 */
/* (No product is fused into an addition: gcc contracts none in ISO C mode,
 * -std=c99, and the build passes no -ffp-contract.) */

/* The legal actions of a state_ok slot in legal_moves order; returns their count. */
static int legal_in_order(const int32_t *s, int16_t *out)
{
    uint32_t tiles = tiles_to_place(s), table = (uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    int count = 0;
    if (s[AS_WINNER] >= 0) {
        return 0;
    }
    if (table == 0) {
        return opening_actions(tiles, out);
    }
    tiles &= fitting((uint32_t)s[AS_VALUES] & 0x7Fu);
    while (tiles) {
        int t = ctz32(tiles), k;
        tiles &= tiles - 1u;
        for (k = 0; k < 3; k++) {
            uint32_t word = open_word(s, k);
            while (word) {
                int p = 32 * k + ctz32(word);
                word &= word - 1u;
                if (place_action[p][t] >= 0) {
                    out[count++] = place_action[p][t];
                }
            }
        }
    }
    if (count == 0) {
        out[count++] = unplaced_action(s);
    }
    return count;
}

/* The end sum the table would have after a placement (at -1: the opening). */
static int end_sum_after(const int32_t *s, int tile, int at)
{
    int32_t copy[AS_WORDS];
    memcpy(copy, s, sizeof copy);
    open_points_for(copy, tile, at);
    recount(copy);
    return copy[AS_END_SUM];
}

/* The greedy policy's pick among two or more placements (bots._kernel.greedy_pick). */
static int greedy_of(const int32_t *s, const int16_t *legal, int count)
{
    int best = legal[0], best_points = -1, best_pips = -1, k;
    for (k = 0; k < count; k++) {
        int action = legal[k], tile = action_tile[action], sum, points, pips;
        sum = end_sum_after(s, tile, action < AS_TILES ? -1 : action_point[action]);
        points = placement_points(sum);
        pips = tile_low[tile] + tile_high[tile];
        if (points > best_points || (points == best_points && pips > best_pips)) {
            best = action;
            best_points = points;
            best_pips = pips;
        }
    }
    return best;
}

/* No round of a state that a reset or step made lasts this many actions (28
 * placements, at most 14 draws, and fewer passes than players between two
 * placements); words made up otherwise could pass round and round, so a
 * playout stops there. */
#define AS_PLAYOUT_ACTIONS 1000

/* Play a state_ok slot out in place (bots._kernel.play_out). */
static void play_out_words(int32_t *s, int random, uint64_t *rng, int depth)
{
    int number = s[AS_ROUND], left = depth, budget = AS_PLAYOUT_ACTIONS;
    int16_t legal[AS_ACTIONS_COUNT];
    int32_t reward[4];
    while (left != 0 && s[AS_WINNER] < 0 && s[AS_ROUND] == number && budget-- > 0) {
        int count = legal_in_order(s, legal), action;
        if (count == 1) {
            action = legal[0];
        } else if (random) {
            action = legal[rng_below(rng, (uint32_t)count)];
        } else {
            action = greedy_of(s, legal, count);
        }
        if (action < AS_DRAW) {
            left--;
        }
        (void)step_one(s, action, reward);
    }
}

/* bots._kernel.outcome: how good `end` is for `seat`'s side against `start`. */
static double outcome_of(const int32_t *start, const int32_t *end, int seat, double settle)
{
    int players = start[AS_PLAYERS], sides = side_count(players);
    int mine = side_of(players, seat), cut[4] = {0, 0, 0, 0}, side, k, count = 0;
    double others = 0.0;
    if (end[AS_WINNER] >= 0) {
        int target = target_of(players);
        return (double)(end[AS_WINNER] == mine ? 2 * target : -2 * target);
    }
    if (settle != 0.0 && end[AS_ROUND] == start[AS_ROUND]) {
        for (k = 0; k < players; k++) {
            cut[side_of(players, k)] += round_hand(hand_pips(end, k));
        }
    }
    for (side = 0; side < sides; side++) {
        if (side != mine) {
            others += (double)(end[AS_SCORES + side] - start[AS_SCORES + side]) -
                      settle * (double)cut[side];
            count++;
        }
    }
    return (double)(end[AS_SCORES + mine] - start[AS_SCORES + mine]) - settle * (double)cut[mine] -
           others / (double)count;
}

/* Play each of actions[0..n) out from `world`, one after the other, the
 * generator going on from playout to playout; values[k] is the value of
 * actions[k] for `seat`. Returns AS_OK; or, writing no value and leaving
 * *rng as it was: AS_BAD_STATE if the world is not a state the kernel can
 * step (or seat is not one of its seats), AS_MATCH_OVER if its match is won,
 * AS_ILLEGAL if an action is not legal in it. */
int as_playout_values(const int32_t *world, const int64_t *actions, size_t n, int seat,
                      int random, int depth, double settle, uint64_t *rng, double *values)
{
    int32_t s[AS_WORDS], reward[4];
    uint64_t state = *rng;
    size_t k;
    as_batch_init();
    if (!state_ok(world) || seat < 0 || seat >= world[AS_PLAYERS]) {
        return AS_BAD_STATE;
    }
    if (world[AS_WINNER] >= 0) {
        return AS_MATCH_OVER;
    }
    for (k = 0; k < n; k++) {
        if (actions[k] < 0 || actions[k] >= AS_ACTIONS_COUNT || !is_legal(world, (int)actions[k])) {
            return AS_ILLEGAL;
        }
    }
    if (world[AS_DRAWN_COUNT] < world[AS_STOCK_SIZE]) {
        int i;
        for (i = world[AS_DRAWN_COUNT]; i < world[AS_STOCK_SIZE]; i++) {
            if (world[AS_STOCK + i] < 0 || world[AS_STOCK + i] >= AS_TILES) {
                return AS_BAD_STATE; /* a stock tile the playouts could draw is no tile */
            }
        }
    }
    for (k = 0; k < n; k++) {
        memcpy(s, world, sizeof s);
        (void)step_one(s, actions[k], reward);
        play_out_words(s, random, &state, depth);
        values[k] = outcome_of(world, s, seat, settle);
    }
    *rng = state;
    return AS_OK;
}

#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* playout_values(world, actions, seat, random, depth, settle, rng) -> (values, rng) */
/* Read a binding's `actions` (a sequence of at most 450 integers) into
 * actions[0..*n) and its `world` (a buffer of 48 int32 words) into words:
 * 0, or -1 with the Python error set. The playouts' and the endgame's
 * bindings share it. */
static int read_world_and_actions(PyObject *world_obj, PyObject *actions_obj, int32_t *words,
                                  int64_t *actions, Py_ssize_t *n)
{
    PyObject *fast = PySequence_Fast(actions_obj, "actions must be a sequence of integers");
    Py_buffer world;
    Py_ssize_t k;
    if (fast == NULL) {
        return -1;
    }
    *n = PySequence_Fast_GET_SIZE(fast);
    if (*n > AS_ACTIONS_COUNT) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "at most %d actions, got %zd", AS_ACTIONS_COUNT, *n);
        return -1;
    }
    for (k = 0; k < *n; k++) {
        long long value = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        actions[k] = (int64_t)value;
    }
    Py_DECREF(fast);
    if (PyObject_GetBuffer(world_obj, &world, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        return -1;
    }
    if (world.len != 4 * AS_WORDS || world.itemsize != 4) {
        PyBuffer_Release(&world);
        PyErr_Format(PyExc_ValueError, "world must hold %d int32 words", AS_WORDS);
        return -1;
    }
    memcpy(words, world.buf, sizeof(int32_t) * AS_WORDS);
    PyBuffer_Release(&world);
    return 0;
}

/* A list of the n doubles of values, or NULL with the Python error set. */
static PyObject *float_list(const double *values, Py_ssize_t n)
{
    Py_ssize_t k;
    PyObject *list = PyList_New(n);
    if (list == NULL) {
        return NULL;
    }
    for (k = 0; k < n; k++) {
        PyObject *value = PyFloat_FromDouble(values[k]);
        if (value == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, value);
    }
    return list;
}

static PyObject *py_playout_values(PyObject *self, PyObject *args)
{
    PyObject *world_obj, *actions_obj, *result = NULL, *list = NULL;
    int32_t words[AS_WORDS];
    int seat, random, depth, error;
    double settle;
    unsigned long long rng_in;
    uint64_t rng;
    Py_ssize_t n;
    int64_t actions[AS_ACTIONS_COUNT];
    double values[AS_ACTIONS_COUNT];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOipidK:playout_values", &world_obj, &actions_obj, &seat,
                          &random, &depth, &settle, &rng_in)) {
        return NULL;
    }
    if (read_world_and_actions(world_obj, actions_obj, words, actions, &n) < 0) {
        return NULL;
    }
    rng = (uint64_t)rng_in;
    error = as_playout_values(words, actions, (size_t)n, seat, random, depth, settle, &rng,
                              values);
    if (error == AS_BAD_STATE) {
        return PyErr_Format(PyExc_ValueError, "world is not a state the kernel can step, "
                                              "or seat %d is not one of its seats", seat);
    }
    if (error == AS_MATCH_OVER) {
        return PyErr_Format(PyExc_ValueError, "the world's match is over: nothing to play out");
    }
    if (error == AS_ILLEGAL) {
        return PyErr_Format(PyExc_ValueError, "an action is not legal in the world");
    }
    list = float_list(values, n);
    if (list == NULL) {
        return NULL;
    }
    result = Py_BuildValue("(NK)", list, (unsigned long long)rng);
    return result;
}
#endif
