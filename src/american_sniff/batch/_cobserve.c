/*
 * The observation of each slot's seat to move, in C: as_batch_observe.
 *
 * Included by _cbatch.c (after _cplay.c), whose state layout, tables and
 * state_ok it uses; plain C99, and the entry point needs no Python
 * (AMERICAN_SNIFF_BATCH_NO_PYTHON builds it too). It writes for a slot the
 * very numbers american_sniff.batch.observe.observe (numpy) writes, which
 * are encode(view_for(state, turn)): the segments of
 * american_sniff.observation.OBSERVATION_FIELDS, 375 numbers a slot.
 *
 * A view reads facts of the round's history that the 48 words do not hold;
 * they come beside the state, 14 int64 words a slot, as
 * american_sniff.batch.observe keeps them (start_facts, advance_facts).
 * Every word read to index a table or to shift is checked first, the state's
 * by state_ok and the facts' here: a slot that fails gets a row of zeros
 * (which no real observation is: its "players" segment always has a 1).
 */

/* (The facts' words, AS_F_PLAYED and the rest, and where each segment of the
 * observation starts, OB_HAND and the rest, are named in _rules.h.) */

/* Whether the slot's words and facts can be read without leaving a table. */
static int observe_ok(const int32_t *s, const int64_t *f)
{
    int k;
    if (!state_ok(s) || s[AS_SNIFF] < -1 || s[AS_SNIFF] >= AS_TILES) {
        return 0;
    }
    if (f[AS_F_OPENER] < 0 || f[AS_F_OPENER] >= s[AS_PLAYERS]) {
        return 0;
    }
    for (k = 0; k < 4; k++) {
        if (f[AS_F_PLAYED + k] < 0 || f[AS_F_PLAYED + k] > (int64_t)AS_HAND_BITS ||
            f[AS_F_VOIDS + k] < 0 || f[AS_F_VOIDS + k] > 0x7F) {
            return 0;
        }
    }
    return 1;
}

/* The bits of each nibble as 0/1 numbers, lowest first, to spread a bit set four entries at
 * a time: as int32 words, and as float32 numbers for the rows written as float32. */
static const int32_t nibble_bits[16][4] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 1, 0},
    {0, 1, 1, 0}, {1, 1, 1, 0}, {0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {1, 1, 0, 1},
    {0, 0, 1, 1}, {1, 0, 1, 1}, {0, 1, 1, 1}, {1, 1, 1, 1}};
static const float nibble_floats[16][4] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 1, 0},
    {0, 1, 1, 0}, {1, 1, 1, 0}, {0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {1, 1, 0, 1},
    {0, 0, 1, 1}, {1, 0, 1, 1}, {0, 1, 1, 1}, {1, 1, 1, 1}};

/* o[t] = bit t of bits, for t < AS_TILES (a whole number of nibbles). */
typedef char as_tiles_in_nibbles[AS_TILES % 4 == 0 ? 1 : -1];
static void spread_tiles(int32_t *o, uint32_t bits)
{
    int k;
    for (k = 0; k < AS_TILES / 4; k++) {
        memcpy(o + 4 * k, nibble_bits[bits >> (4 * k) & 0xFu], sizeof nibble_bits[0]);
    }
}

/* spread_tiles for a float32 row. */
static void spread_tiles_f32(float *o, uint32_t bits)
{
    int k;
    for (k = 0; k < AS_TILES / 4; k++) {
        memcpy(o + 4 * k, nibble_floats[bits >> (4 * k) & 0xFu], sizeof nibble_floats[0]);
    }
}

/* The set bits of x (no branch on them). */
static int popcount32(uint32_t x)
{
    x = x - (x >> 1 & 0x55555555u);
    x = (x & 0x33333333u) + (x >> 2 & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* The observation of seat (0..players-1) of one slot that observe_ok has accepted, into
 * o[0..374]: encode(view_for(state, seat)). One body, written for an int32 row
 * (observe_seat) and for a float32 row (observe_seat_f32, the same numbers converted as
 * they are written, so that a float32 output needs no pass of its own), and for a scaled
 * float32 row (observe_seat_scaled): TYPE is the row's type, SPREAD its spread_tiles, and
 * VALUE(k, v) entry k's number for the count or number v (the flags are written 1). */
#define AS_OBSERVE_SEAT(NAME, TYPE, SPREAD, VALUE)                                                    \
    static void NAME(const int32_t *s, const int64_t *f, int seat, TYPE *o)                      \
    {                                                                                            \
        int players = s[AS_PLAYERS], turn = s[AS_TURN], winner = s[AS_WINNER];                   \
        int sides = side_count(players), mine = side_of(players, seat);                          \
        int opener = (int)f[AS_F_OPENER];                                                        \
        int r, t, k, count = 0, first = -1, values[AS_PIP_VALUES] = {0};                        \
        uint32_t hand = hand_of(s, seat);                                                        \
        memset(o, 0, sizeof(TYPE) * AS_OBSERVATION);                                             \
        SPREAD(o + OB_HAND, hand);                                                               \
        if (winner < 0 && turn == seat && s[AS_DRAWN] >= 0) {                                    \
            o[OB_DRAWN + s[AS_DRAWN]] = (TYPE)1;                                                 \
        }                                                                                        \
        /* By relative seat: r = 0 is the viewer. */                                             \
        for (r = 0; r < players; r++) {                                                         \
            int other = (seat + r) % players;                                                    \
            uint32_t played = (uint32_t)f[AS_F_PLAYED + other];                                  \
            uint32_t voids = (uint32_t)f[AS_F_VOIDS + other];                                    \
            SPREAD(o + OB_PLAYED + AS_TILES * r, played);                                        \
            for (t = 0; t < AS_PIP_VALUES; t++) {                                                \
                o[OB_VOIDS + AS_PIP_VALUES * r + t] = (TYPE)(voids >> t & 1u);                   \
            }                                                                                    \
            o[OB_HAND_SIZES + r] = VALUE(OB_HAND_SIZES + r, popcount32(hand_of(s, other)));        \
        }                                                                                        \
        for (k = 0; k < 3; k++) {                                                                \
            uint32_t word = open_word(s, k);                                                     \
            while (word) {                                                                       \
                int p = 32 * k + ctz32(word);                                                    \
                word &= word - 1u;                                                               \
                o[OB_OPEN + p] = (TYPE)1;                                                        \
                o[OB_COUNTS + p] = VALUE(OB_COUNTS + p, point_worth[p]);                         \
                values[point_value[p]] += 1;                                                     \
                if (first < 0) {                                                                 \
                    first = p;                                                                   \
                }                                                                                \
                count++;                                                                         \
            }                                                                                    \
        }                                                                                        \
        /* A lone opening double, both line sides open, counts its halves once: at line_a. */   \
        if (count == 2 && ((uint32_t)s[AS_TABLE] & AS_HAND_BITS) != 0 &&                         \
            point_rank[first] == R_LINE_A && point_is_open(s, first + 1)) {                      \
            o[OB_COUNTS + first + 1] = (TYPE)0;                                                  \
        }                                                                                        \
        for (t = 0; t < AS_PIP_VALUES; t++) {                                                    \
            o[OB_VALUES + t] = VALUE(OB_VALUES + t, values[t]);                                  \
        }                                                                                        \
        o[OB_END_SUM] = VALUE(OB_END_SUM, s[AS_END_SUM]);                                        \
        if (s[AS_SNIFF] >= 0) {                                                                  \
            o[OB_SNIFF + tile_low[s[AS_SNIFF]]] = (TYPE)1;                                       \
        }                                                                                        \
        o[OB_STOCK] = VALUE(OB_STOCK, s[AS_STOCK_SIZE] - s[AS_DRAWN_COUNT]);                     \
        /* Scores by relative side: r = 0 is the viewer's side. */                               \
        for (r = 0; r < sides; r++) {                                                            \
            o[OB_SCORES + r] = VALUE(OB_SCORES + r, s[AS_SCORES + (mine + r) % sides]);          \
        }                                                                                        \
        o[OB_TARGET] = VALUE(OB_TARGET, target_of(players));                                     \
        o[OB_PLAYERS + players - 2] = (TYPE)1;                                                   \
        if (winner < 0) {                                                                        \
            o[OB_TURN + (turn - seat + players) % players] = (TYPE)1;                            \
        } else {                                                                                 \
            o[OB_WINNER + (winner - mine + sides) % sides] = (TYPE)1;                            \
        }                                                                                        \
        o[OB_OPENER + (opener - seat + players) % players] = (TYPE)1;                            \
        o[OB_ROUND] = VALUE(OB_ROUND, s[AS_ROUND]);                                              \
    }

/* A number of the row: as int32, as float32, and as float32 scaled (scale_entry). */
#define AS_INT32(k, v) ((int32_t)(v))
#define AS_FLOAT32(k, v) ((float)(v))
#define AS_SCALED(k, v) scale_entry((k), (v), (float)target_of(players))

/* Entry k, whose number is v, scaled as scale_row scales it with the library's tables, own
 * being the row's own target entry (positive). */
static float scale_entry(int k, int32_t v, float own)
{
    float d = as_scale_divisors[k] != 0.0f ? as_scale_divisors[k] : own;
    float x = (float)v / d;
    x = x < scale_low[k] ? scale_low[k] : x;
    return x > scale_high[k] ? scale_high[k] : x;
}

AS_OBSERVE_SEAT(observe_seat, int32_t, spread_tiles, AS_INT32)
AS_OBSERVE_SEAT(observe_seat_f32, float, spread_tiles_f32, AS_FLOAT32)
/* Scaled as it is written: only where the scaling leaves every flag as it is, and a zero
 * a zero (scale_inline, which as_batch_init works out); scale_row scales the others. */
AS_OBSERVE_SEAT(observe_seat_scaled, float, spread_tiles_f32, AS_SCALED)
#undef AS_OBSERVE_SEAT
#undef AS_INT32
#undef AS_FLOAT32
#undef AS_SCALED

/* The observation of the seat to move of m slots, AS_OBSERVATION (375) numbers each.
 *
 * state holds n slots (n * 48 int32 words), facts their facts (n * 14 int64
 * words). Row j of the output is the observation of slot rows[j], or of slot
 * j when rows is NULL (then m must be n). It is written to out_f32 (m * 375
 * float) or to out_i32 (m * 375 int32): exactly one of them is given. A row
 * whose slot index is not in 0..n-1, or whose slot's words or facts are out
 * of range (no reset, step or advance_facts made them), is written as zeros.
 * Returns how many rows were written as zeros, or -1 (and writes nothing) if
 * not exactly one output is given or rows is NULL and m is not n. */
/* as_batch_observe, each float32 row scaled as observation.scaled scales it
 * (scale_row with the library's tables, as as_batch_scale scales it) if scaled
 * is not 0. */
static long long observe_rows(const int32_t *state, const int64_t *facts, size_t n,
                              const int64_t *rows, size_t m, float *out_f32, int32_t *out_i32,
                              int scaled)
{
    size_t j;
    long long zeros = 0;
    as_batch_init();
    if ((out_f32 == NULL) == (out_i32 == NULL) || (rows == NULL && m != n)) {
        return -1;
    }
    for (j = 0; j < m; j++) {
        int64_t slot = rows ? rows[j] : (int64_t)j;
        int ok = slot >= 0 && (uint64_t)slot < (uint64_t)n;
        /* (slot 0's words stand in for a row out of range, which is written as zeros) */
        const int32_t *s = state + (ok ? (size_t)slot * AS_WORDS : 0);
        const int64_t *f = facts + (ok ? (size_t)slot * AS_FACT_WORDS : 0);
        /* straight into the output, each float32 row scaled while it is in the cache */
        ok = ok && observe_ok(s, f);
        if (out_i32) {
            int32_t *o = out_i32 + j * AS_OBSERVATION;
            if (ok) {
                observe_seat(s, f, s[AS_TURN], o);
            } else {
                memset(o, 0, sizeof(int32_t) * AS_OBSERVATION);
            }
        } else {
            float *o = out_f32 + j * AS_OBSERVATION;
            if (ok && scaled && scale_inline) {
                observe_seat_scaled(s, f, s[AS_TURN], o);
            } else if (ok) {
                observe_seat_f32(s, f, s[AS_TURN], o);
            } else {
                memset(o, 0, sizeof(float) * AS_OBSERVATION); /* (zeros, scaled or not) */
            }
            if (scaled && !(ok && scale_inline)) {
                scale_row(o, &library_runs, as_scale_divisors, scale_low, scale_high, OB_TARGET);
            }
        }
        zeros += !ok;
    }
    return zeros;
}

long long as_batch_observe(const int32_t *state, const int64_t *facts, size_t n,
                           const int64_t *rows, size_t m, float *out_f32, int32_t *out_i32)
{
    return observe_rows(state, facts, n, rows, m, out_f32, out_i32, 0);
}

/* How many numbers a slot's observation has (375), and how many int64 words its facts. */
int as_batch_observation_size(void) { return AS_OBSERVATION; }
int as_batch_fact_words(void) { return AS_FACT_WORDS; }

#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* The output of observe_into: a writable C-contiguous buffer of float32 or int32.
 * Sets *floats to 1 for float32. */
static int take_observations(PyObject *obj, Py_buffer *view, Py_ssize_t count, int *floats)
{
    const char *format;
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "out must be a writable C-contiguous buffer of float32 or int32, got %R", obj);
        return -1;
    }
    format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=' || *format == '<') {
        format++;
    }
    *floats = format[0] == 'f';
    if (format[0] == '\0' || format[1] != '\0' || !strchr("fil", format[0]) || view->itemsize != 4 ||
        view->len != count * 4) {
        PyErr_Format(PyExc_ValueError,
                     "out must hold %zd float32 or int32 numbers (C-contiguous), got %zd bytes "
                     "of format %s",
                     count, view->len, view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *py_observe_into(PyObject *self, PyObject *args)
{
    /* state, facts and rows (NULL: none, every slot observed in order); out apart. */
    PyObject *objects[3], *out_obj;
    Py_buffer views[3], out;
    static const buffer_spec specs[3] = {
        {"state", 0, 4, AS_WORDS, 0}, {"facts", 0, 8, AS_FACT_WORDS, 0}, {"rows", 0, 8, 0, 1}};
    Py_ssize_t n, m;
    int floats = 0, scaled = 0;
    long long zeros;
    const int64_t *slots;
    (void)self;
    objects[2] = Py_None;
    if (!PyArg_ParseTuple(args, "OOO|Op:observe_into", &objects[0], &objects[1], &out_obj,
                          &objects[2], &scaled)) {
        return NULL;
    }
    /* The number of slots (the state need not be writable). */
    if (slots_of(objects[0], 0, &n) < 0) {
        return NULL;
    }
    m = n;
    if (objects[2] == Py_None) {
        objects[2] = NULL;
    } else if (rows_of(objects[2], &m) < 0) {
        return NULL;
    }
    if (take_all(objects, views, specs, 3, n, m) < 0) {
        return NULL;
    }
    slots = objects[2] ? (const int64_t *)views[2].buf : NULL;
    if ((slots && rows_in_range(slots, m, n) < 0) ||
        take_observations(out_obj, &out, m * AS_OBSERVATION, &floats) < 0) {
        release_all(objects, views, 3);
        return NULL;
    }
    if (scaled && !floats) {
        PyBuffer_Release(&out);
        release_all(objects, views, 3);
        return PyErr_Format(PyExc_ValueError, "scaled observations are float32: out is int32");
    }
    Py_BEGIN_ALLOW_THREADS
    zeros = observe_rows((const int32_t *)views[0].buf, (const int64_t *)views[1].buf, (size_t)n,
                         slots, (size_t)m, floats ? (float *)out.buf : NULL,
                         floats ? NULL : (int32_t *)out.buf, scaled);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 3);
    PyBuffer_Release(&out);
    return PyLong_FromLongLong(zeros);
}
#endif
