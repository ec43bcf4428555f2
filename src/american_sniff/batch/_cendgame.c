/*
 * The search bot's exact endgame on the batch kernel's words (included by _cbatch.c).
 *
 *     int as_endgame_values(const int32_t *world, const int64_t *actions, size_t n, int seat,
 *                           long long nodes, double *values, long long *spent);
 *
 * The alpha-beta search of american_sniff.bots._kernel.EndgameSearch, as
 * american_sniff.bots.endgame.endgame_values runs it with no deadline: once
 * the stock is empty (2 or 4 players), each of actions[0..n) is valued for
 * `seat`'s side by the rest of the round under best play, values[k] being
 * the value of actions[k]. The same positions in the same order, the same
 * table of bounds, the same count of nodes, the same double arithmetic: the
 * values and the nodes spent are the Python search's, bit for bit.
 *
 *   - nodes: the n actions cost n nodes first (none of it is spent if there
 *     are not that many); then every position expanded costs the number of
 *     its legal actions, spent before its children are made, all of them
 *     made and ordered (the mover's side's win first, then its score after
 *     the action, highest first, ties in legal_moves order: a stable sort).
 *   - a position that ends the round, or the match, is worth outcome_of(world,
 *     end, seat, 0.0) (bots._kernel.outcome with settle 0.0).
 *   - the table holds a (low, high) bound of each position valued, keyed by
 *     what the Python key (turn, hands, (open keys, end sum, Sniff), scores)
 *     holds: the turn, the 4 hands, the 3 open-point words (the open keys
 *     are kept sorted, so the tuple is the set these bits are), the end sum,
 *     the Sniff, the 4 scores; and the table and values words, which those
 *     imply once the stock is empty (every tile off the table is in a hand;
 *     the values are those of the open points), so that words made up
 *     otherwise still never share an entry. The keys are compared whole (a
 *     hash only finds the bucket). The table grows as it fills; it holds at
 *     most one entry a node spent, and is freed before the call returns.
 *
 * Returns AS_OK (0) with values[0..n) and *spent (the nodes spent) written.
 * Otherwise *spent is not written and values[] means nothing:
 *   AS_ENDGAME_OUT   the search needs more than `nodes` nodes (endgame_values'
 *                    None);
 *   AS_BAD_STATE     the world is not a state the kernel can step, `seat` is
 *                    not one of its seats, or the search went deeper than any
 *                    round can (AS_ENDGAME_DEPTH: only made-up words pass so);
 *   AS_NOT_ENDGAME   the world has 3 players, or tiles in its stock;
 *   AS_MATCH_OVER    the world's match is won;
 *   AS_ILLEGAL       an action is not legal in the world (or not 0..449);
 *   AS_NO_MEMORY     the table or the positions could not be allocated.
 * The world is only read. The search recurses once per action of a line of
 * play, at most AS_ENDGAME_DEPTH deep; the positions of the line's children
 * live on the heap.
 *
 * Plain C99, like the kernel, and like it read only through state_ok.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

enum { AS_ENDGAME_OUT = 5, AS_NOT_ENDGAME = 6, AS_NO_MEMORY = 7 };

/* No round lasts this many actions (28 placements, fewer passes than players
 * between two of them); made-up words that pass round and round stop here. */
#define AS_ENDGAME_DEPTH 256

/* The words of a table key. */
enum { EG_KEY_WORDS = 16 };

typedef struct {
    uint32_t key[EG_KEY_WORDS];
    double low, high;
    int used;
} eg_entry;

/* A child position of the line being searched, and its ordering key. */
typedef struct {
    int32_t words[AS_WORDS];
    long long order;
} eg_node;

typedef struct {
    const int32_t *start;
    int seat, mine, round, players;
    long long left; /* nodes not yet spent */
    int out;        /* the nodes ran out, or an error: unwind */
    int error;      /* AS_ENDGAME_OUT, AS_BAD_STATE or AS_NO_MEMORY once out */
    eg_entry *table;
    size_t capacity, count; /* slots (a power of 2) and entries used */
    eg_node *nodes;
    size_t room, used; /* positions allocated, and in use by the line */
    int16_t legal[AS_ACTIONS_COUNT];
} eg_search;

static void eg_key(const int32_t *s, uint32_t *key)
{
    int k;
    key[0] = (uint32_t)s[AS_TURN];
    for (k = 0; k < 4; k++) {
        key[1 + k] = hand_of(s, k);
        key[12 + k] = (uint32_t)s[AS_SCORES + k];
    }
    for (k = 0; k < 3; k++) {
        key[5 + k] = open_word(s, k);
    }
    key[8] = (uint32_t)s[AS_END_SUM];
    key[9] = (uint32_t)s[AS_SNIFF];
    key[10] = (uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    key[11] = (uint32_t)s[AS_VALUES];
}

static size_t eg_hash(const uint32_t *key)
{
    uint64_t h = 0x243F6A8885A308D3u;
    int k;
    for (k = 0; k < EG_KEY_WORDS; k++) {
        h = (h ^ key[k]) * 0x100000001B3u;
        h ^= h >> 29;
    }
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9u;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBu;
    return (size_t)(h ^ (h >> 31));
}

/* The slot of `key`: its entry, or the free slot where it would go. */
static eg_entry *eg_slot(eg_entry *table, size_t capacity, const uint32_t *key)
{
    size_t at = eg_hash(key) & (capacity - 1);
    while (table[at].used && memcmp(table[at].key, key, sizeof table[at].key) != 0) {
        at = (at + 1) & (capacity - 1);
    }
    return &table[at];
}

/* Room for one more entry (the table kept at most half full); 0 if out of memory. */
static int eg_table_room(eg_search *search)
{
    size_t capacity, k;
    eg_entry *table;
    if (search->table != NULL && 2 * (search->count + 1) <= search->capacity) {
        return 1;
    }
    capacity = search->table == NULL ? 1024 : 2 * search->capacity;
    if (capacity > (size_t)-1 / sizeof(eg_entry)) {
        return 0;
    }
    table = calloc(capacity, sizeof(eg_entry));
    if (table == NULL) {
        return 0;
    }
    for (k = 0; k < search->capacity; k++) {
        if (search->table[k].used) {
            *eg_slot(table, capacity, search->table[k].key) = search->table[k];
        }
    }
    free(search->table);
    search->table = table;
    search->capacity = capacity;
    return 1;
}

/* table[key] = (low, high), as the Python dict's assignment. */
static void eg_store(eg_search *search, const uint32_t *key, double low, double high)
{
    eg_entry *entry;
    if (!eg_table_room(search)) {
        search->out = 1;
        search->error = AS_NO_MEMORY;
        return;
    }
    entry = eg_slot(search->table, search->capacity, key);
    if (!entry->used) {
        memcpy(entry->key, key, sizeof entry->key);
        entry->used = 1;
        search->count++;
    }
    entry->low = low;
    entry->high = high;
}

/* Room for `count` more positions on the line; 0 if out of memory. */
static int eg_node_room(eg_search *search, size_t count)
{
    size_t room = search->room ? search->room : 256;
    eg_node *grown;
    while (room - search->used < count) {
        room *= 2;
    }
    if (room == search->room) {
        return 1;
    }
    if (room > (size_t)-1 / sizeof(eg_node)) {
        return 0;
    }
    grown = realloc(search->nodes, room * sizeof(eg_node));
    if (grown == NULL) {
        return 0;
    }
    search->nodes = grown;
    search->room = room;
    return 1;
}

/* -_gain(child, mover) of bots._kernel, in integers of the same order: a win
 * of the mover's side first, another side's last, else the score, highest first. */
static long long eg_order(const int32_t *child, int mover)
{
    if (child[AS_WINNER] >= 0) {
        return child[AS_WINNER] == mover ? LLONG_MIN : LLONG_MAX;
    }
    return -(long long)child[AS_SCORES + mover];
}

/* EndgameSearch.value of the position nodes[at]: its value if within (alpha,
 * beta), else a bound beyond. Sets search->out (and returns 0.0) to unwind. */
static double eg_value(eg_search *search, size_t at, double alpha, double beta, int depth)
{
    const int32_t *s = search->nodes[at].words;
    uint32_t key[EG_KEY_WORDS];
    double low = -INFINITY, high = INFINITY, first_alpha, first_beta, best;
    int count, k, maximise, mover;
    size_t base;
    int32_t reward[4];
    const eg_entry *entry;
    if (s[AS_WINNER] >= 0 || s[AS_ROUND] != search->round) {
        return outcome_of(search->start, s, search->seat, 0.0);
    }
    eg_key(s, key);
    if (search->table != NULL) {
        entry = eg_slot(search->table, search->capacity, key);
        if (entry->used) {
            low = entry->low;
            high = entry->high;
        }
    }
    if (low >= beta) {
        return low;
    }
    if (high <= alpha) {
        return high;
    }
    if (low == high) {
        return low;
    }
    first_alpha = alpha;
    first_beta = beta;
    if (low > alpha) { /* max(alpha, low) */
        alpha = low;
    }
    if (high < beta) { /* min(beta, high) */
        beta = high;
    }
    mover = side_of(search->players, s[AS_TURN]);
    maximise = mover == search->mine;
    best = maximise ? -INFINITY : INFINITY;
    if (depth >= AS_ENDGAME_DEPTH) {
        search->out = 1;
        search->error = AS_BAD_STATE;
        return 0.0;
    }
    /* children(): the nodes first, then every child, ordered */
    count = legal_in_order(s, search->legal);
    if ((long long)count > search->left) {
        search->out = 1;
        search->error = AS_ENDGAME_OUT;
        return 0.0;
    }
    search->left -= count;
    if (!eg_node_room(search, (size_t)count)) {
        search->out = 1;
        search->error = AS_NO_MEMORY;
        return 0.0;
    }
    s = search->nodes[at].words; /* (the positions may have moved) */
    base = search->used;
    search->used += (size_t)count;
    for (k = 0; k < count; k++) {
        eg_node *child = &search->nodes[base + (size_t)k];
        memcpy(child->words, s, sizeof child->words);
        (void)step_one(child->words, search->legal[k], reward);
        child->order = eg_order(child->words, mover);
    }
    /* a stable insertion sort by the ordering key, as Python's sorted */
    for (k = 1; k < count; k++) {
        eg_node moved = search->nodes[base + (size_t)k];
        int j = k;
        while (j > 0 && search->nodes[base + (size_t)j - 1].order > moved.order) {
            search->nodes[base + (size_t)j] = search->nodes[base + (size_t)j - 1];
            j--;
        }
        search->nodes[base + (size_t)j] = moved;
    }
    for (k = 0; k < count; k++) {
        double found = eg_value(search, base + (size_t)k, alpha, beta, depth + 1);
        if (search->out) {
            search->used = base;
            return 0.0;
        }
        if (maximise) {
            if (found > best) { /* max(best, found) */
                best = found;
            }
            if (best > alpha) {
                alpha = best;
            }
        } else {
            if (found < best) { /* min(best, found) */
                best = found;
            }
            if (best < beta) {
                beta = best;
            }
        }
        if (alpha >= beta) {
            break;
        }
    }
    search->used = base;
    if (best <= first_alpha) {
        eg_store(search, key, low, best < high ? best : high);
    } else if (best >= first_beta) {
        eg_store(search, key, best > low ? best : low, high);
    } else {
        eg_store(search, key, best, best);
    }
    return search->out ? 0.0 : best;
}

int as_endgame_values(const int32_t *world, const int64_t *actions, size_t n, int seat,
                      long long nodes, double *values, long long *spent)
{
    eg_search search;
    int32_t reward[4];
    size_t k;
    int players;
    as_batch_init();
    if (!state_ok(world) || seat < 0 || seat >= world[AS_PLAYERS]) {
        return AS_BAD_STATE;
    }
    players = world[AS_PLAYERS];
    if (side_count(players) != 2) { /* the search is of two sides against each other */
        return AS_NOT_ENDGAME;
    }
    if (world[AS_WINNER] >= 0) {
        return AS_MATCH_OVER;
    }
    if (world[AS_DRAWN_COUNT] != world[AS_STOCK_SIZE]) {
        return AS_NOT_ENDGAME;
    }
    for (k = 0; k < n; k++) {
        if (actions[k] < 0 || actions[k] >= AS_ACTIONS_COUNT || !is_legal(world, (int)actions[k])) {
            return AS_ILLEGAL;
        }
    }
    if ((long long)n > nodes) {
        return AS_ENDGAME_OUT;
    }
    memset(&search, 0, sizeof search);
    search.start = world;
    search.seat = seat;
    search.players = players;
    search.mine = side_of(players, seat);
    search.round = world[AS_ROUND];
    search.left = nodes - (long long)n;
    for (k = 0; k < n && !search.out; k++) {
        if (!eg_node_room(&search, 1)) {
            search.out = 1;
            search.error = AS_NO_MEMORY;
            break;
        }
        search.used = 1;
        memcpy(search.nodes[0].words, world, sizeof search.nodes[0].words);
        (void)step_one(search.nodes[0].words, actions[k], reward);
        values[k] = eg_value(&search, 0, -INFINITY, INFINITY, 0);
    }
    free(search.table);
    free(search.nodes);
    if (search.out) {
        return search.error;
    }
    *spent = nodes - search.left;
    return AS_OK;
}

#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* endgame_values(world, actions, seat, nodes) -> (values, spent), or None out of nodes */
static PyObject *py_endgame_values(PyObject *self, PyObject *args)
{
    PyObject *world_obj, *actions_obj, *list;
    int seat, error;
    long long nodes, spent = 0;
    Py_ssize_t n;
    int32_t words[AS_WORDS];
    int64_t actions[AS_ACTIONS_COUNT];
    double values[AS_ACTIONS_COUNT];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOiL:endgame_values", &world_obj, &actions_obj, &seat, &nodes)) {
        return NULL;
    }
    if (read_world_and_actions(world_obj, actions_obj, words, actions, &n) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    error = as_endgame_values(words, actions, (size_t)n, seat, nodes, values, &spent);
    Py_END_ALLOW_THREADS
    switch (error) {
    case AS_OK:
        break;
    case AS_ENDGAME_OUT:
        Py_RETURN_NONE;
    case AS_NOT_ENDGAME:
        return PyErr_Format(PyExc_ValueError, "an exact endgame needs 2 or 4 players and an "
                                              "empty stock");
    case AS_MATCH_OVER:
        return PyErr_Format(PyExc_ValueError, "the match is over: there is no endgame to search");
    case AS_ILLEGAL:
        return PyErr_Format(PyExc_ValueError, "an action is not legal in the world");
    case AS_NO_MEMORY:
        return PyErr_NoMemory();
    default:
        return PyErr_Format(PyExc_ValueError, "world is not a state the kernel can step, "
                                              "or seat %d is not one of its seats", seat);
    }
    list = float_list(values, n);
    if (list == NULL) {
        return NULL;
    }
    return Py_BuildValue("(NL)", list, spent);
}
#endif
