/*
 * The slots that wait on a policy, in C: as_batch_play_forced,
 * as_batch_observe_waiting and as_batch_step_rows, and the library's scaling
 * of observations, as_batch_scale (included by _cbatch.c, after _cobserve.c
 * and _cvector.c, whose observe_rows and take_observations it uses).
 *
 * A learner that plays one seat of every slot against a policy (the vector
 * environment's opponent) asks the policy, again and again, for the slots
 * whose seat to move is not the learner's. as_batch_observe_waiting finds
 * all of them in one pass and writes, for each, its row number, the
 * observation of its seat to move (the numbers as_batch_observe writes, so
 * encode(view_for(state, turn))) and its legal mask, packed one after the
 * other. as_batch_step_rows then steps just those slots in place by the
 * policy's actions, facts included, as as_batch_step_facts steps a slot.
 * Their twins in numpy (american_sniff.batch.observe.observe_waiting with
 * backend="numpy", and BatchedMatches.step on the numpy and Python kernels)
 * give the same numbers.
 *
 * Plain C99, no Python needed (AMERICAN_SNIFF_BATCH_NO_PYTHON builds it).
 * The words that decide whether a slot waits are only compared, never used
 * to index; observations and masks of slots whose words are out of range are
 * zeros, as as_batch_observe and as_batch_mask write them; a row that names
 * no slot is refused.
 */

/* The slots whose match goes on with a seat other than seats[i] to move, of
 * n slots (state: n * 48 int32 words; facts: n * 14 int64 words; seats: n
 * int64). Their numbers go to rows[0..m-1] in increasing order (rows has
 * room for n). For row j, if an output is given, the observation of the
 * slot's seat to move goes to out_f32 or out_i32 (at most one of them; room
 * for n * 375 numbers), and its legal mask to masks + 450 * j (room for n *
 * 450 bytes; NULL: none written). Returns m, or -1 (writing nothing) if both
 * outputs are given, or an output without the facts. */
long long as_batch_observe_waiting(const int32_t *state, const int64_t *facts, size_t n,
                                   const int64_t *seats, int64_t *rows, float *out_f32,
                                   int32_t *out_i32, uint8_t *masks)
{
    size_t i, j, m = 0;
    as_batch_init();
    if ((out_f32 != NULL && out_i32 != NULL) || ((out_f32 || out_i32) && facts == NULL)) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        const int32_t *s = state + i * AS_WORDS;
        if (s[AS_WINNER] < 0 && (int64_t)s[AS_TURN] != seats[i]) {
            rows[m++] = (int64_t)i;
        }
    }
    if (out_f32 != NULL || out_i32 != NULL) {
        as_batch_observe(state, facts, n, rows, m, out_f32, out_i32);
    }
    if (masks != NULL) {
        for (j = 0; j < m; j++) {
            mask_one(state + (size_t)rows[j] * AS_WORDS, masks + j * AS_ACTIONS_COUNT);
        }
    }
    return (long long)m;
}

/* Step the slots rows[0..m-1] of n slots in place, slot rows[j] by
 * actions[j], as as_batch_step_facts steps each (facts may be NULL: none
 * kept). rewards[4j..4j+3] and errors[j] are row j's; done and mask (n * 450
 * bytes, may be NULL) are written at the slot's own place. With gains (n
 * int32) and seats (n int64), gains[slot] also gains the reward of the seat
 * seats[slot] (a seat outside 0..3 gains nothing). A row that names no slot
 * is refused with AS_BAD_STATE and rewards of 0; a slot named twice is
 * stepped twice, in order. Returns how many rows refused their action. */
static size_t step_rows(int32_t *state, int64_t *facts, uint16_t *history, size_t n,
                        const int64_t *rows, const int64_t *actions, size_t m, uint8_t *mask,
                        int32_t *rewards, uint8_t *done, uint8_t *errors, const int64_t *seats,
                        int32_t *gains)
{
    size_t j, refused = 0;
    as_batch_init();
    for (j = 0; j < m; j++) {
        int64_t slot = rows[j];
        size_t at;
        if (slot < 0 || (uint64_t)slot >= (uint64_t)n) {
            memset(rewards + 4 * j, 0, 4 * sizeof(int32_t));
            errors[j] = (uint8_t)AS_BAD_STATE;
            refused++;
            continue;
        }
        at = (size_t)slot;
        refused += step_slots(state + at * AS_WORDS, actions + j, NULL, 1,
                              mask ? mask + at * AS_ACTIONS_COUNT : NULL, rewards + 4 * j,
                              done + at, errors + j, facts ? facts + at * AS_FACT_WORDS : NULL,
                              history ? history + at * AS_HISTORY_WORDS : NULL);
        if (gains != NULL && seats != NULL && seats[at] >= 0 && seats[at] < 4) {
            gains[at] += rewards[4 * j + (size_t)seats[at]];
        }
    }
    return refused;
}

size_t as_batch_step_rows(int32_t *state, int64_t *facts, size_t n, const int64_t *rows,
                          const int64_t *actions, size_t m, uint8_t *mask, int32_t *rewards,
                          uint8_t *done, uint8_t *errors, const int64_t *seats, int32_t *gains)
{
    return step_rows(state, facts, NULL, n, rows, actions, m, mask, rewards, done, errors, seats,
                     gains);
}

/* as_batch_step_rows, each slot's history (AS_HISTORY_WORDS uint16 records a slot; may be
 * NULL) noted too. */
size_t as_batch_step_rows_history(int32_t *state, int64_t *facts, uint16_t *history, size_t n,
                                  const int64_t *rows, const int64_t *actions, size_t m,
                                  uint8_t *mask, int32_t *rewards, uint8_t *done,
                                  uint8_t *errors, const int64_t *seats, int32_t *gains)
{
    return step_rows(state, facts, history, n, rows, actions, m, mask, rewards, done, errors,
                     seats, gains);
}

/* Play the forced actions of the slots that wait on a seat other than
 * seats[i]: while a slot's match goes on, its seat to move is not seats[i]
 * and it has one legal action alone (a draw it cannot refuse, a pass, a lone
 * placement), that action is applied, as as_batch_step_facts applies it
 * (facts may be NULL: none kept). gains[i] gains the reward of seat
 * seats[i] (nothing for a seat outside 0..3), and done[i] is set once the
 * match is over. A slot whose words are out of range is left as it is (the
 * calls that step it refuse it). Masks are not written. Returns the actions
 * applied. */
/* The forced actions of one slot waiting on a seat other than seat (see
 * as_batch_play_forced), its facts f and history h (may be NULL) noted, *gain
 * gaining seat's rewards and *done set once the match is over if any was
 * applied. Returns the actions applied. */
/* The one legal action of a state_ok slot whose match goes on, or -1 if it has none or
 * several (legal_ascending's list when it has one action alone; the search stops at the
 * second). */
static int lone_action(const int32_t *s)
{
    uint32_t tiles = tiles_to_place(s), table = (uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    int found = -1, k;
    if (table == 0) {
        /* the openings: one a tile */
        return tiles != 0 && (tiles & (tiles - 1u)) == 0 ? ctz32(tiles) : -1;
    }
    for (k = 0; k < 3; k++) {
        uint32_t word = open_word(s, k);
        while (word) {
            int p = 32 * k + ctz32(word);
            uint32_t fit = tiles & tiles_showing[point_value[p]];
            word &= word - 1u;
            while (fit) {
                int t = ctz32(fit);
                fit &= fit - 1u;
                if (place_action[p][t] >= 0) {
                    if (found >= 0) {
                        return -1;
                    }
                    found = place_action[p][t];
                }
            }
        }
    }
    return found >= 0 ? found : unplaced_action(s);
}

static size_t forced_one(int32_t *s, int64_t *f, uint16_t *h, int64_t seat, int32_t *gain,
                         uint8_t *done)
{
    size_t applied = 0;
    int32_t reward[4];
    int steps = 0;
    while (steps++ < AS_RANDOM_LIMIT && state_ok(s) && s[AS_WINNER] < 0 &&
           (int64_t)s[AS_TURN] != seat) {
        int error, action = lone_action(s);
        if (action < 0) {
            break;
        }
        error = step_noted(s, f, h, action, reward);
        if (error != AS_OK) {
            break; /* (words no step made: the calls that step the slot refuse it) */
        }
        applied++;
        if (seat >= 0 && seat < 4) {
            *gain = (int32_t)((int64_t)*gain + reward[seat]);
        }
    }
    if (applied) {
        *done = (uint8_t)(s[AS_WINNER] >= 0);
    }
    return applied;
}

static size_t play_forced(int32_t *state, int64_t *facts, uint16_t *history, size_t n,
                          const int64_t *seats, int32_t *gains, uint8_t *done)
{
    size_t i, applied = 0;
    as_batch_init();
    for (i = 0; i < n; i++) {
        applied += forced_one(state + i * AS_WORDS, facts ? facts + i * AS_FACT_WORDS : NULL,
                              history ? history + i * AS_HISTORY_WORDS : NULL, seats[i], &gains[i],
                              &done[i]);
    }
    return applied;
}

/* One round of a policy opponent, in one pass: as_batch_play_forced, then
 * as_batch_observe_waiting, over the candidate slots alone: cand[0..k) (slot
 * numbers; one out of 0..n-1 is passed over), or every slot when cand is
 * NULL. A slot that waits on no policy before a round waits on none after it
 * (only the policy's steps and the forced actions change a slot), so the
 * rows of one round are the candidates of the next; cand may be rows itself
 * (a row is written at or before the candidate it comes from). The forced
 * actions applied are added to *applied. Returns m, the waiting rows; their
 * observations (out_f32, may be NULL: none; scaled as observation.scaled
 * scales them if scaled is not 0, the numbers of as_batch_scale with the
 * library's tables) and masks (may be NULL) are packed as
 * as_batch_observe_waiting packs them. */
long long as_batch_play_waiting(int32_t *state, int64_t *facts, uint16_t *history, size_t n,
                                const int64_t *seats, const int64_t *cand, size_t k,
                                int64_t *rows, int32_t *gains, uint8_t *done, float *out_f32,
                                int scaled, uint8_t *masks, size_t *applied)
{
    size_t j, m = 0, count = cand ? k : n;
    as_batch_init();
    if (out_f32 != NULL && facts == NULL) {
        return -1;
    }
    for (j = 0; j < count; j++) {
        int64_t slot = cand ? cand[j] : (int64_t)j;
        int32_t *s;
        if (slot < 0 || (uint64_t)slot >= (uint64_t)n) {
            continue;
        }
        s = state + (size_t)slot * AS_WORDS;
        *applied += forced_one(s, facts ? facts + (size_t)slot * AS_FACT_WORDS : NULL,
                               history ? history + (size_t)slot * AS_HISTORY_WORDS : NULL,
                               seats[slot], &gains[slot], &done[slot]);
        if (s[AS_WINNER] < 0 && (int64_t)s[AS_TURN] != seats[slot]) {
            rows[m++] = slot;
        }
    }
    if (out_f32 != NULL) {
        (void)observe_rows(state, facts, n, rows, m, out_f32, NULL, scaled);
    }
    if (masks != NULL) {
        for (j = 0; j < m; j++) {
            mask_one(state + (size_t)rows[j] * AS_WORDS, masks + j * AS_ACTIONS_COUNT);
        }
    }
    return (long long)m;
}

size_t as_batch_play_forced(int32_t *state, int64_t *facts, size_t n, const int64_t *seats,
                            int32_t *gains, uint8_t *done)
{
    return play_forced(state, facts, NULL, n, seats, gains, done);
}

/* as_batch_play_forced, each slot's history (may be NULL) noted too. */
size_t as_batch_play_forced_history(int32_t *state, int64_t *facts, uint16_t *history, size_t n,
                                    const int64_t *seats, int32_t *gains, uint8_t *done)
{
    return play_forced(state, facts, history, n, seats, gains, done);
}

/* Scale m observations (375 float32 numbers each) in place, as
 * american_sniff.observation.scaled does: entry k is divided by divisors[k],
 * or, where that is 0, by the row's own entry `target` (its value before
 * scaling; 1 where it is 0), then kept within [low[k], high[k]]. The tables
 * come from the caller (american_sniff.batch.observe passes the library's),
 * and every operation is one IEEE float32 division or comparison, so the
 * numbers are numpy's, bit for bit. Returns 0, or -1 (scaling nothing) if
 * target is not an entry. */
int as_batch_scale(float *out, size_t m, const float *divisors, const float *low,
                   const float *high, int target)
{
    scale_runs plan;
    size_t j;
    if (target < 0 || target >= AS_OBSERVATION) {
        return -1;
    }
    scale_runs_of(divisors, low, high, &plan);
    for (j = 0; j < m; j++) {
        scale_row(out + j * AS_OBSERVATION, &plan, divisors, low, high, target);
    }
    return 0;
}

#ifndef AMERICAN_SNIFF_BATCH_NO_PYTHON
/* observe_waiting_into(state, facts, seats, rows, out, masks): out and masks may be None. */
static PyObject *py_observe_waiting_into(PyObject *self, PyObject *args)
{
    /* state, facts, seats, rows and masks (NULL: none); out apart. */
    PyObject *objects[5], *out_obj;
    Py_buffer views[5], out;
    static const buffer_spec specs[5] = {{"state", 0, 4, AS_WORDS, 0},
                                         {"facts", 0, 8, AS_FACT_WORDS, 0},
                                         {"seats", 0, 8, 1, 0},
                                         {"rows", 1, 8, 1, 0},
                                         {"masks", 1, 1, AS_ACTIONS_COUNT, 0}};
    Py_ssize_t n;
    int floats = 0, have_out;
    long long m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:observe_waiting_into", &objects[0], &objects[1],
                          &objects[2], &objects[3], &out_obj, &objects[4])) {
        return NULL;
    }
    if (objects[4] == Py_None) {
        objects[4] = NULL;
    }
    have_out = out_obj != Py_None;
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 5, n, 0) < 0) {
        return NULL;
    }
    if (have_out && take_observations(out_obj, &out, n * AS_OBSERVATION, &floats) < 0) {
        release_all(objects, views, 5);
        return NULL;
    }
    /* The buffers are held (exported) until released below: the loop needs no Python. */
    Py_BEGIN_ALLOW_THREADS
    m = as_batch_observe_waiting((const int32_t *)views[0].buf, (const int64_t *)views[1].buf,
                                 (size_t)n, (const int64_t *)views[2].buf,
                                 (int64_t *)views[3].buf,
                                 have_out && floats ? (float *)out.buf : NULL,
                                 have_out && !floats ? (int32_t *)out.buf : NULL,
                                 objects[4] ? (uint8_t *)views[4].buf : NULL);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 5);
    if (have_out) {
        PyBuffer_Release(&out);
    }
    return PyLong_FromLongLong(m);
}

/* play_forced_into(state, facts, seats, gains, done, history=None). */
static PyObject *py_play_forced_into(PyObject *self, PyObject *args)
{
    PyObject *objects[6];
    Py_buffer views[6];
    static const buffer_spec specs[6] = {
        {"state", 1, 4, AS_WORDS, 0}, {"facts", 1, 8, AS_FACT_WORDS, 0}, {"seats", 0, 8, 1, 0},
        {"gains", 1, 4, 1, 0},        {"done", 1, 1, 1, 0},
        {"history", 1, 2, AS_HISTORY_WORDS, 0}};
    Py_ssize_t n;
    size_t applied;
    (void)self;
    objects[5] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOO|O:play_forced_into", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5])) {
        return NULL;
    }
    if (objects[5] == Py_None) {
        objects[5] = NULL;
    }
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 6, n, 0) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    applied = play_forced((int32_t *)views[0].buf, (int64_t *)views[1].buf,
                          objects[5] ? (uint16_t *)views[5].buf : NULL, (size_t)n,
                          (const int64_t *)views[2].buf, (int32_t *)views[3].buf,
                          (uint8_t *)views[4].buf);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 6);
    return PyLong_FromSize_t(applied);
}

/* play_waiting_into(state, facts, seats, rows, k, gains, done, out, masks, history=None,
 * scaled=False):
 * the candidates are rows[0..k), or every slot if k < 0; out, masks and history may be
 * None. Returns (m, forced actions applied). */
static PyObject *py_play_waiting_into(PyObject *self, PyObject *args)
{
    /* state, facts, seats, rows, gains, done, masks, history (NULL: none); out apart. */
    PyObject *objects[8], *out_obj;
    Py_buffer views[8], out;
    int scaled = 0;
    static const buffer_spec specs[8] = {
        {"state", 1, 4, AS_WORDS, 0},        {"facts", 1, 8, AS_FACT_WORDS, 0},
        {"seats", 0, 8, 1, 0},               {"rows", 1, 8, 1, 0},
        {"gains", 1, 4, 1, 0},               {"done", 1, 1, 1, 0},
        {"masks", 1, 1, AS_ACTIONS_COUNT, 0}, {"history", 1, 2, AS_HISTORY_WORDS, 0}};
    Py_ssize_t n, k;
    int floats = 0, have_out;
    long long m;
    size_t applied = 0;
    (void)self;
    objects[7] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOnOOOO|Op:play_waiting_into", &objects[0], &objects[1],
                          &objects[2], &objects[3], &k, &objects[4], &objects[5], &out_obj,
                          &objects[6], &objects[7], &scaled)) {
        return NULL;
    }
    if (objects[6] == Py_None) {
        objects[6] = NULL;
    }
    if (objects[7] == Py_None) {
        objects[7] = NULL;
    }
    have_out = out_obj != Py_None;
    if (slots_of(objects[0], 1, &n) < 0 || take_all(objects, views, specs, 8, n, 0) < 0) {
        return NULL;
    }
    if (k > n) {
        release_all(objects, views, 8);
        return PyErr_Format(PyExc_ValueError, "k must be at most the %zd slots, got %zd", n, k);
    }
    if (have_out && take_observations(out_obj, &out, n * AS_OBSERVATION, &floats) < 0) {
        release_all(objects, views, 8);
        return NULL;
    }
    if (have_out && !floats) {
        PyBuffer_Release(&out);
        release_all(objects, views, 8);
        return PyErr_Format(PyExc_ValueError, "out must be float32");
    }
    Py_BEGIN_ALLOW_THREADS
    m = as_batch_play_waiting((int32_t *)views[0].buf, (int64_t *)views[1].buf,
                              objects[7] ? (uint16_t *)views[7].buf : NULL, (size_t)n,
                              (const int64_t *)views[2].buf,
                              k < 0 ? NULL : (const int64_t *)views[3].buf, k < 0 ? 0 : (size_t)k,
                              (int64_t *)views[3].buf, (int32_t *)views[4].buf,
                              (uint8_t *)views[5].buf, have_out ? (float *)out.buf : NULL, scaled,
                              objects[6] ? (uint8_t *)views[6].buf : NULL, &applied);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 8);
    if (have_out) {
        PyBuffer_Release(&out);
    }
    return Py_BuildValue("(Ln)", m, (Py_ssize_t)applied);
}

/* A C-contiguous float32 buffer of `count` numbers (count < 0: any whole number of
 * observations, counted into *count). */
static int take_floats(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t *count,
                       const char *name)
{
    const char *format;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous buffer of float32, got %R", name,
                     writable ? "writable " : "", obj);
        return -1;
    }
    format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=' || *format == '<') {
        format++;
    }
    if (*count < 0 && view->itemsize == 4 && view->len % (4 * AS_OBSERVATION) == 0) {
        *count = view->len / 4;
    }
    if (format[0] != 'f' || format[1] != '\0' || view->itemsize != 4 || view->len != *count * 4) {
        PyErr_Format(PyExc_ValueError,
                     "%s must hold %s%zd float32 numbers (C-contiguous), got %zd bytes of format %s",
                     name, *count < 0 ? "a multiple of " : "",
                     *count < 0 ? (Py_ssize_t)AS_OBSERVATION : *count, view->len,
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* scale_into(out, divisors, low, high, target). */
static PyObject *py_scale_into(PyObject *self, PyObject *args)
{
    PyObject *objects[4];
    Py_buffer views[4];
    static const char *const names[4] = {"out", "divisors", "low", "high"};
    Py_ssize_t count;
    int k, target, done;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOi:scale_into", &objects[0], &objects[1], &objects[2],
                          &objects[3], &target)) {
        return NULL;
    }
    if (target < 0 || target >= AS_OBSERVATION) {
        return PyErr_Format(PyExc_ValueError, "target must be an entry from 0 to %d, got %d",
                            AS_OBSERVATION - 1, target);
    }
    for (k = 0; k < 4; k++) {
        count = k == 0 ? -1 : AS_OBSERVATION;
        if (take_floats(objects[k], &views[k], k == 0, &count, names[k]) < 0) {
            release_all(objects, views, k);
            return NULL;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    done = as_batch_scale((float *)views[0].buf, (size_t)(views[0].len / (4 * AS_OBSERVATION)),
                          (const float *)views[1].buf, (const float *)views[2].buf,
                          (const float *)views[3].buf, target);
    Py_END_ALLOW_THREADS
    release_all(objects, views, 4);
    (void)done; /* (target was checked above) */
    Py_RETURN_NONE;
}

/* step_rows_into(state, facts, rows, actions, mask, rewards, done, errors, seats=None,
 * gains=None): mask may be None (not written); seats and gains come together. */
static PyObject *py_step_rows_into(PyObject *self, PyObject *args)
{
    PyObject *objects[11];
    Py_buffer views[11];
    /* rewards, errors, rows and actions by row; the rest by slot. */
    static const buffer_spec specs[11] = {
        {"state", 1, 4, AS_WORDS, 0}, {"facts", 1, 8, AS_FACT_WORDS, 0},
        {"rows", 0, 8, 0, 1},         {"actions", 0, 8, 0, 1},
        {"mask", 1, 1, AS_ACTIONS_COUNT, 0}, {"rewards", 1, 4, 0, 4},
        {"done", 1, 1, 1, 0},         {"errors", 1, 1, 0, 1},
        {"seats", 0, 8, 1, 0},        {"gains", 1, 4, 1, 0},
        {"history", 1, 2, AS_HISTORY_WORDS, 0}};
    /* mask, seats, gains and history: None is not taken */
    static const int optional[4] = {4, 8, 9, 10};
    Py_ssize_t n, m;
    int k, ok;
    size_t refused = 0;
    const int64_t *slots;
    (void)self;
    objects[8] = objects[9] = objects[10] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOOOO|OOO:step_rows_into", &objects[0], &objects[1],
                          &objects[2], &objects[3], &objects[4], &objects[5], &objects[6],
                          &objects[7], &objects[8], &objects[9], &objects[10])) {
        return NULL;
    }
    if ((objects[8] == Py_None) != (objects[9] == Py_None)) {
        return PyErr_Format(PyExc_ValueError, "give both seats and gains, or neither");
    }
    for (k = 0; k < 4; k++) {
        if (objects[optional[k]] == Py_None) {
            objects[optional[k]] = NULL;
        }
    }
    if (slots_of(objects[0], 1, &n) < 0 || rows_of(objects[2], &m) < 0 ||
        take_all(objects, views, specs, 11, n, m) < 0) {
        return NULL;
    }
    slots = (const int64_t *)views[2].buf;
    ok = rows_in_range(slots, m, n) == 0;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        refused = step_rows(
            (int32_t *)views[0].buf, (int64_t *)views[1].buf,
            objects[10] ? (uint16_t *)views[10].buf : NULL, (size_t)n, slots,
            (const int64_t *)views[3].buf, (size_t)m,
            objects[4] ? (uint8_t *)views[4].buf : NULL, (int32_t *)views[5].buf,
            (uint8_t *)views[6].buf, (uint8_t *)views[7].buf,
            objects[8] ? (const int64_t *)views[8].buf : NULL,
            objects[9] ? (int32_t *)views[9].buf : NULL);
        Py_END_ALLOW_THREADS
    }
    release_all(objects, views, 11);
    return ok ? PyLong_FromSize_t(refused) : NULL;
}
#endif
