/*
 * A fuzzer of the batch kernel (src/american_sniff/batch/_cbatch.c), for the
 * sanitizers: .ci/run builds it with -fsanitize=address,undefined and runs it.
 *
 *     cc -std=c99 -g -fsanitize=address,undefined -DAMERICAN_SNIFF_BATCH_NO_PYTHON \
 *        tests/batch_fuzz.c src/american_sniff/batch/_cbatch.c -o batch_fuzz && ./batch_fuzz
 *
 * Every array is allocated to its exact size, one batch at a time, so that
 * any read or write past a slot's row, or past the last slot, is reported.
 * The actions are legal (from the masks), random in 0..449, or out of range;
 * some states have words broken at random. The fuzzer also checks what it
 * can without the Python engine: a refused slot keeps its words and gets no
 * reward, and an action its mask lists is taken (while no word was broken). Exit status 0 when all held.
 *
 * Every state it makes, broken or not, is also observed (as_batch_observe),
 * with facts made at random (some out of range), into int32 or float32, for
 * all slots or for rows chosen at random (some not slots): a row is zeros
 * exactly when the return value counts it, a row that is not a slot is
 * zeros, and a slot whose words and facts are whole is not.
 *
 * The waiting slots (_cwaiting.c) have their forced actions played (or not),
 * and are found, observed and stepped by rows on a copy of every state, broken or not, with facts whole or broken, seats of
 * the match or not, and rows that are not slots; their observations are then
 * scaled (as_batch_scale): the rows found are the slots that wait, in order,
 * observed as as_batch_observe observes them, and a row that is not a slot
 * is refused with no reward.
 *
 * The exact endgame (as_endgame_values, in _cendgame.c) is searched from
 * positions with the stock empty (2 and 4 players, reached by legal random
 * play; and 3, refused) at budgets from none to plenty, its actions legal or not, and from
 * the same words broken: it answers one of its codes, leaves its world as it
 * was, spends no more than its nodes, and a budget of exactly the nodes a
 * search spent finds the same values again (one fewer gives up).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int as_batch_reset(int32_t *state, const uint64_t *seeds, int players, size_t n, uint8_t *mask);
size_t as_batch_step(int32_t *state, const int64_t *actions, size_t n, uint8_t *mask,
                     int32_t *rewards, uint8_t *done, uint8_t *errors);
void as_batch_mask(const int32_t *state, size_t n, uint8_t *mask);
int as_batch_words(void);
long long as_batch_observe(const int32_t *state, const int64_t *facts, size_t n,
                           const int64_t *rows, size_t m, float *out_f32, int32_t *out_i32);
int as_batch_observation_size(void);
int as_batch_fact_words(void);
int as_playout_values(const int32_t *world, const int64_t *actions, size_t n, int seat,
                      int random, int depth, double settle, uint64_t *rng, double *values);
int as_endgame_values(const int32_t *world, const int64_t *actions, size_t n, int seat,
                      long long nodes, double *values, long long *spent);

void as_batch_start_facts(const int32_t *state, size_t n, int64_t *facts);
size_t as_batch_step_facts(int32_t *state, int64_t *facts, const int64_t *actions, size_t n,
                           uint8_t *mask, int32_t *rewards, uint8_t *done, uint8_t *errors);
size_t as_batch_play_random(int32_t *state, int64_t *facts, const int64_t *seats, uint64_t *rng,
                            size_t n, uint8_t *mask, int32_t *gains, uint8_t *done,
                            uint8_t *errors);
long long as_batch_observe_waiting(const int32_t *state, const int64_t *facts, size_t n,
                                   const int64_t *seats, int64_t *rows, float *out_f32,
                                   int32_t *out_i32, uint8_t *masks);
size_t as_batch_step_rows(int32_t *state, int64_t *facts, size_t n, const int64_t *rows,
                          const int64_t *actions, size_t m, uint8_t *mask, int32_t *rewards,
                          uint8_t *done, uint8_t *errors, const int64_t *seats, int32_t *gains);
int as_batch_scale(float *out, size_t m, const float *divisors, const float *low,
                   const float *high, int target);
size_t as_batch_play_forced(int32_t *state, int64_t *facts, size_t n, const int64_t *seats,
                            int32_t *gains, uint8_t *done);

static uint64_t fuzz_state = 0x1234567u;

static uint64_t next(void)
{
    fuzz_state = fuzz_state * 6364136223846793005u + 1442695040888963407u;
    return fuzz_state >> 17;
}

static int failures = 0;

static void check(int ok, const char *what, size_t batch, size_t slot)
{
    if (!ok && failures++ < 10) {
        fprintf(stderr, "batch %zu, slot %zu: %s\n", batch, slot, what);
    }
}

/* The facts and the random seats (_cvector.c) on a copy of n slots, broken or
 * not: facts fresh, or of any bits; seats of the slot, or not; every array
 * exactly sized, the optional ones sometimes NULL. Returns the actions applied. */
static size_t fuzz_vector(const int32_t *from, size_t n, int words, size_t batch)
{
    int32_t *state = malloc(sizeof(int32_t) * (size_t)words * n);
    int64_t *facts = malloc(sizeof(int64_t) * 14 * n), *seats = malloc(sizeof(int64_t) * n);
    int64_t *actions = malloc(sizeof(int64_t) * n);
    uint64_t *rng = malloc(sizeof(uint64_t) * n);
    uint8_t *mask = malloc(450 * n), *done = malloc(n), *errors = malloc(n);
    int32_t *gains = malloc(sizeof(int32_t) * n), *rewards = malloc(sizeof(int32_t) * 4 * n);
    size_t i, k, applied = 0;
    if (!state || !facts || !seats || !actions || !rng || !mask || !done || !errors || !gains ||
        !rewards) {
        exit(2);
    }
    memcpy(state, from, sizeof(int32_t) * (size_t)words * n);
    as_batch_start_facts(state, n, facts);
    if (next() % 4 == 0) {
        for (k = 0; k < 14 * n; k++) {
            facts[k] = (int64_t)(next() << 40 ^ next() << 20 ^ next());
        }
    }
    for (i = 0; i < n; i++) {
        seats[i] = next() % 8 == 0 ? (int64_t)(next() % 9) - 4 : (int64_t)(next() % 4);
        rng[i] = next() << 30 ^ next();
    }
    for (k = 0; k < 6; k++) {
        applied += as_batch_play_random(state, next() % 3 ? facts : NULL, seats, rng, n,
                                        next() % 3 ? mask : NULL, gains, done, errors);
        for (i = 0; i < n; i++) {
            check(errors[i] == 0 || errors[i] == 4, "play_random gave an unknown code", batch, i);
            check(errors[i] != 0 || done[i] || state[i * (size_t)words + 2] == seats[i],
                  "play_random stopped before the seat's turn", batch, i);
            actions[i] = next() % 4 ? (int64_t)(next() % 450) : (int64_t)(next() % 900) - 450;
        }
        as_batch_step_facts(state, facts, actions, n, next() % 3 ? mask : NULL, rewards, done,
                            errors);
        for (i = 0; i < n; i++) {
            check(errors[i] <= 4, "step_facts gave an unknown code", batch, i);
        }
    }
    free(state);
    free(facts);
    free(seats);
    free(actions);
    free(rng);
    free(mask);
    free(done);
    free(errors);
    free(gains);
    free(rewards);
    return applied;
}

/* The waiting slots of a copy of n slots (_cwaiting.c): found, observed, stepped by
 * rows (some not slots), scaled; every array exactly sized. Returns the rows stepped. */
static size_t fuzz_waiting(const int32_t *from, size_t n, int words, size_t batch)
{
    const int size = 375;
    int32_t *state = malloc(sizeof(int32_t) * (size_t)words * n);
    int64_t *facts = malloc(sizeof(int64_t) * 14 * n), *seats = malloc(sizeof(int64_t) * n);
    int64_t *rows = malloc(sizeof(int64_t) * n), *actions = malloc(sizeof(int64_t) * (n + 2));
    int64_t *stepped = malloc(sizeof(int64_t) * (n + 2));
    float *floats = malloc(sizeof(float) * (size_t)size * n);
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)size * n);
    int32_t *expected = malloc(sizeof(int32_t) * (size_t)size * n);
    uint8_t *masks = malloc(450 * n), *mask = malloc(450 * n), *done = malloc(n);
    uint8_t *errors = malloc(n + 2);
    int32_t *rewards = malloc(sizeof(int32_t) * 4 * (n + 2)), *gains = malloc(sizeof(int32_t) * n);
    float divisors[375], low[375], high[375];
    long long m;
    size_t i, j, k, count, refused, bad = 0;
    if (!state || !facts || !seats || !rows || !actions || !stepped || !floats || !ints ||
        !expected || !masks || !mask || !done || !errors || !rewards || !gains) {
        exit(2);
    }
    memcpy(state, from, sizeof(int32_t) * (size_t)words * n);
    as_batch_start_facts(state, n, facts);
    if (next() % 4 == 0) {
        for (k = 0; k < 14 * n; k++) {
            facts[k] = (int64_t)(next() << 40 ^ next() << 20 ^ next());
        }
    }
    for (i = 0; i < n; i++) {
        seats[i] = next() % 8 == 0 ? (int64_t)(next() % 9) - 4 : (int64_t)(next() % 4);
        gains[i] = 0;
    }
    if (next() % 2) {
        /* the forced actions first, as play_policy plays them (gains and done by slot) */
        as_batch_play_forced(state, next() % 3 ? facts : NULL, n, seats, gains, done);
    }
    m = as_batch_observe_waiting(state, facts, n, seats, rows, NULL, ints, masks);
    check(m >= 0 && (size_t)m <= n, "observe_waiting gave a count out of range", batch, 0);
    check(as_batch_observe_waiting(state, facts, n, seats, rows, floats, ints, masks) == -1,
          "observe_waiting took two outputs", batch, 0);
    count = 0;
    for (i = 0; i < n; i++) {
        const int32_t *s = state + i * (size_t)words;
        if (s[3] < 0 && (int64_t)s[2] != seats[i]) {
            check(count < (size_t)m && rows[count] == (int64_t)i, "a waiting slot was missed",
                  batch, i);
            count++;
        }
    }
    check(count == (size_t)m, "a slot that does not wait was found", batch, 0);
    as_batch_observe(state, facts, n, rows, (size_t)m, NULL, expected);
    check(memcmp(expected, ints, sizeof(int32_t) * (size_t)size * (size_t)m) == 0,
          "a waiting row is not its slot's observation", batch, 0);
    check(as_batch_observe_waiting(state, facts, n, seats, rows, floats, NULL, NULL) == m,
          "observe_waiting counted differently", batch, 0);
    for (k = 0; k < 375; k++) {
        uint64_t pick = next() % 4;
        divisors[k] = pick == 0 ? 0.0f : pick == 1 ? 1.0f : (float)(1 + next() % 300);
        low[k] = next() % 3 ? -1e30f : -2.0f;
        high[k] = next() % 3 ? 1e30f : 1.2f;
    }
    check(as_batch_scale(floats, (size_t)m, divisors, low, high, (int)(next() % 375)) == 0,
          "scale refused a target entry", batch, 0);
    check(as_batch_scale(floats, (size_t)m, divisors, low, high, 375) == -1,
          "scale took a target that is no entry", batch, 0);
    for (j = 0; j < (size_t)m * 375; j++) {
        check(floats[j] == floats[j], "a scaled entry is not a number", batch, j / 375);
    }
    /* Step the rows found, some with an action from their masks, and rows that are no slot. */
    count = 0;
    for (j = 0; j < (size_t)m; j++) {
        int a, legal = -1;
        for (a = 0; a < 450; a++) {
            if (masks[j * 450 + (size_t)a] && next() % 3 == 0) {
                legal = a;
            }
        }
        stepped[count] = rows[j];
        actions[count++] = legal >= 0 && next() % 4 ? legal : (int64_t)(next() % 900) - 225;
    }
    for (k = 0; k < 2; k++) {
        if (next() % 2) {
            stepped[count] = next() % 2 ? -1 - (int64_t)(next() % 5) : (int64_t)n + (int64_t)(next() % 5);
            actions[count++] = (int64_t)(next() % 450);
            bad++;
        }
    }
    refused = as_batch_step_rows(state, next() % 3 ? facts : NULL, n, stepped, actions, count,
                                 next() % 2 ? mask : NULL, rewards, done, errors,
                                 next() % 2 ? seats : NULL, gains);
    k = 0;
    for (j = 0; j < count; j++) {
        check(errors[j] <= 4, "step_rows gave an unknown code", batch, j);
        k += errors[j] != 0;
        if (stepped[j] < 0 || stepped[j] >= (int64_t)n) {
            check(errors[j] == 4 && !rewards[4 * j] && !rewards[4 * j + 1] &&
                      !rewards[4 * j + 2] && !rewards[4 * j + 3],
                  "a row that is no slot was not refused", batch, j);
        }
    }
    check(k == refused && refused >= bad, "step_rows counted its refusals wrong", batch, 0);
    free(state);
    free(facts);
    free(seats);
    free(rows);
    free(actions);
    free(stepped);
    free(floats);
    free(ints);
    free(expected);
    free(masks);
    free(mask);
    free(done);
    free(errors);
    free(rewards);
    free(gains);
    return count;
}

/* Facts for slot i: whole (opener a seat, tiles and numbers in range) or, now and then, broken. */
static void make_facts(int64_t *facts, int players, int *whole)
{
    static const int64_t odd[] = {INT64_MIN, -1, 4, 128, 1 << 28, INT64_MAX};
    int k;
    for (k = 0; k < 14; k++) {
        facts[k] = 0;
    }
    for (k = 0; k < 4; k++) {
        facts[k] = (int64_t)(next() & 0x0FFFFFFFu);
        facts[4 + k] = (int64_t)(next() & 0x7Fu);
    }
    facts[8] = -1;
    facts[12] = 1;
    facts[13] = (int64_t)(next() % (uint64_t)players);
    *whole = 1;
    if (next() % 8 == 0) {
        static const int at[] = {0, 3, 4, 7, 13};
        facts[at[next() % 5]] = odd[next() % 6];
        *whole = 0; /* (maybe still in range: then only the weaker checks apply) */
    }
}

/* Observe n slots in every way: all slots and chosen rows, int32 and float32. */
static void observe_all(const int32_t *state, size_t n, int players, int broken, size_t batch)
{
    const int size = as_batch_observation_size(), fact_words = as_batch_fact_words();
    size_t m = (size_t)(next() % 9), i, j, k;
    int64_t *facts = malloc(sizeof(int64_t) * (size_t)fact_words * n);
    int *whole = malloc(sizeof(int) * n);
    int64_t *rows = malloc(sizeof(int64_t) * (m ? m : 1));
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)size * n);
    float *floats = malloc(sizeof(float) * (size_t)size * n);
    int32_t *chosen = malloc(sizeof(int32_t) * (size_t)size * (m ? m : 1));
    float *chosen_floats = malloc(sizeof(float) * (size_t)size * (m ? m : 1));
    long long zeros, counted = 0;
    if (!facts || !whole || !rows || !ints || !floats || !chosen || !chosen_floats) {
        exit(2);
    }
    for (i = 0; i < n; i++) {
        make_facts(facts + i * (size_t)fact_words, players, &whole[i]);
    }
    zeros = as_batch_observe(state, facts, n, NULL, n, NULL, ints);
    check(as_batch_observe(state, facts, n, NULL, n, floats, NULL) == zeros,
          "float32 and int32 observations count different zeros", batch, 0);
    for (i = 0; i < n; i++) {
        int any = 0;
        for (k = 0; k < (size_t)size; k++) {
            any |= ints[i * (size_t)size + k] != 0;
            check(floats[i * (size_t)size + k] == (float)ints[i * (size_t)size + k],
                  "float32 and int32 observations differ", batch, i);
        }
        counted += !any;
        check(any || broken || !whole[i], "a whole slot was observed as zeros", batch, i);
    }
    check(counted == zeros, "the zero rows are not the count returned", batch, 0);
    for (j = 0; j < m; j++) {
        uint64_t pick = next() % 10;
        rows[j] = pick < 8 ? (int64_t)(next() % n)
                  : pick < 9 ? (int64_t)n + (int64_t)(next() % 3)
                             : -1 - (int64_t)(next() % 3);
    }
    zeros = as_batch_observe(state, facts, n, rows, m, NULL, chosen);
    as_batch_observe(state, facts, n, rows, m, chosen_floats, NULL);
    counted = 0;
    for (j = 0; j < m; j++) {
        int inside = rows[j] >= 0 && rows[j] < (int64_t)n, any = 0;
        for (k = 0; k < (size_t)size; k++) {
            int32_t got = chosen[j * (size_t)size + k];
            any |= got != 0;
            check(!inside || got == ints[(size_t)rows[j] * (size_t)size + k],
                  "a chosen row is not its slot's observation", batch, j);
            check(chosen_floats[j * (size_t)size + k] == (float)got,
                  "a chosen float32 row differs", batch, j);
        }
        check(inside || !any, "a row that is not a slot was not zeros", batch, j);
        counted += !any;
    }
    check(counted == zeros, "the zero chosen rows are not the count returned", batch, 0);
    check(as_batch_observe(state, facts, n, NULL, n, floats, ints) == -1 &&
              as_batch_observe(state, facts, n, NULL, n, NULL, NULL) == -1 &&
              as_batch_observe(state, facts, n, NULL, n + 1, NULL, ints) == -1,
          "observing into no output, or both, or past the slots was not refused", batch, 0);
    free(facts);
    free(whole);
    free(rows);
    free(ints);
    free(floats);
    free(chosen);
    free(chosen_floats);
}

/* One slot played at random (legal actions) until the stock is empty in a round
 * still going, with a choice to make; 0 if the match ended first. */
static int endgame_position(int32_t *state, int players)
{
    uint8_t mask[450];
    uint64_t seed = next() << 20 ^ next();
    int32_t rewards[4];
    uint8_t done, error;
    as_batch_reset(state, &seed, players, 1, mask);
    for (;;) {
        int legal[450], count = 0, a;
        int64_t action;
        for (a = 0; a < 450; a++) {
            if (mask[a]) {
                legal[count++] = a;
            }
        }
        if (state[3] >= 0 || count == 0) {
            return 0;
        }
        if (state[5] == state[6] && (count > 1 || next() % 4 == 0) && next() % 3 == 0) {
            return 1;
        }
        action = legal[next() % (uint64_t)count];
        as_batch_step(state, &action, 1, mask, rewards, &done, &error);
    }
}

/* The exact endgame from one position with the stock empty, then from its words broken. */
static size_t fuzz_endgame(size_t batch)
{
    const int words = as_batch_words();
    static const long long budgets[] = {0, 1, 3, 10, 60, 400, 3000};
    int players = batch % 5 == 4 ? 3 : batch % 2 ? 4 : 2, count = 0, a, code, k, seat;
    int32_t *state = malloc(sizeof(int32_t) * (size_t)words);
    int32_t *before = malloc(sizeof(int32_t) * (size_t)words);
    uint8_t mask[450];
    int64_t *actions;
    double *values, *again;
    long long spent = -1, respent = -1, nodes;
    size_t searched = 0, n;
    if (!state || !before) {
        exit(2);
    }
    if (!endgame_position(state, players)) {
        free(state);
        free(before);
        return 0;
    }
    as_batch_mask(state, 1, mask);
    for (a = 0; a < 450; a++) {
        count += mask[a] != 0;
    }
    n = (size_t)(next() % 2 ? count : 1 + (int)(next() % (uint64_t)count));
    actions = malloc(sizeof(int64_t) * n);
    values = malloc(sizeof(double) * n);
    again = malloc(sizeof(double) * n);
    if (!actions || !values || !again) {
        exit(2);
    }
    for (k = 0, a = 0; a < 450 && (size_t)k < n; a++) {
        if (mask[a]) {
            actions[k++] = a;
        }
    }
    for (k = 0; k < 12; k++) {
        int broken = k >= 8, illegal = k == 7, c;
        memcpy(before, state, sizeof(int32_t) * (size_t)words);
        if (broken) {
            static const int32_t odd[] = {-2147483647 - 1, -2, -1, 1, 5, 28, 29, 64, 70,
                                          1 << 30, 2147483647};
            before[next() % (uint64_t)words] = odd[next() % 11];
        }
        if (illegal) {
            actions[0] = next() % 2 ? (int64_t)(next() % 450) : (int64_t)(next() % 2000) - 1000;
        }
        memcpy(state, before, sizeof(int32_t) * (size_t)words);
        seat = next() % 8 == 0 ? (int)(next() % 7) - 2 : (int)(next() % (uint64_t)players);
        nodes = budgets[next() % 7];
        code = as_endgame_values(state, actions, n, seat, nodes, values, &spent);
        check(code == 0 || code == 1 || code == 3 || code == 4 || code == 5 || code == 6,
              "the endgame gave an unknown code", batch, 0);
        check(memcmp(before, state, sizeof(int32_t) * (size_t)words) == 0,
              "the endgame changed its world", batch, 0);
        check(broken || illegal || seat < 0 || seat >= players || code == 0 || code == 5 ||
                  (players == 3 && code == 6),
              "the endgame refused a whole position", batch, 0);
        check(broken || players != 3 || code != 0, "the endgame searched 3 players", batch, 0);
        if (code != 0) {
            continue;
        }
        searched++;
        check(spent >= (long long)n && spent <= nodes, "the endgame spent beyond its nodes",
              batch, 0);
        for (c = 0; (size_t)c < n; c++) {
            check(values[c] == values[c] && values[c] >= -1000.0 && values[c] <= 1000.0,
                  "an endgame value is not a number of points", batch, 0);
        }
        code = as_endgame_values(state, actions, n, seat, spent, again, &respent);
        check(code == 0 && respent == spent && memcmp(values, again, sizeof(double) * n) == 0,
              "the endgame found other values with exactly the nodes it spent", batch, 0);
        check(as_endgame_values(state, actions, n, seat, spent - 1, again, &respent) == 5,
              "the endgame did not give up one node short", batch, 0);
    }
    free(state);
    free(before);
    free(actions);
    free(values);
    free(again);
    return searched;
}

int main(void)
{
    const int words = as_batch_words();
    size_t batch, steps = 0, refused = 0, played = 0, randomly = 0, searched = 0, waited = 0;
    for (batch = 0; batch < 600; batch++) {
        size_t n = 1 + (size_t)(next() % 7), i, k;
        int players = 2 + (int)(batch % 3), broken = 0;
        int32_t *state = malloc(sizeof(int32_t) * (size_t)words * n);
        int32_t *before = malloc(sizeof(int32_t) * (size_t)words * n);
        uint64_t *seeds = malloc(sizeof(uint64_t) * n);
        int64_t *actions = malloc(sizeof(int64_t) * n);
        uint8_t *mask = malloc(450 * n), *done = malloc(n), *errors = malloc(n);
        int32_t *rewards = malloc(sizeof(int32_t) * 4 * n);
        uint8_t *chosen_legal = malloc(n);
        if (!chosen_legal || !state || !before || !seeds || !actions || !mask || !done || !errors || !rewards) {
            return 2;
        }
        for (i = 0; i < n; i++) {
            seeds[i] = next() << 20 ^ next();
        }
        searched += fuzz_endgame(batch);
        as_batch_reset(state, seeds, players, n, mask);
        observe_all(state, n, players, 0, batch);
        for (k = 0; k < 400; k++) {
            if (next() % 50 == 0) {
                /* break a word of a slot at random */
                size_t at = (size_t)(next() % (uint64_t)(words * (int)n));
                static const int32_t odd[] = {-2147483647 - 1, -2, -1, 5, 28, 29, 64, 70,
                                              1 << 30, 2147483647};
                state[at] = odd[next() % 10];
                broken = 1;
            }
            for (i = 0; i < n; i++) {
                uint64_t roll = next() % 10;
                chosen_legal[i] = 0;
                int legal[450], count = 0, a;
                for (a = 0; a < 450; a++) {
                    if (mask[i * 450 + (size_t)a]) {
                        legal[count++] = a;
                    }
                }
                if (roll < 6 && count) {
                    actions[i] = legal[next() % (uint64_t)count];
                    chosen_legal[i] = 1;
                } else if (roll < 9) {
                    actions[i] = (int64_t)(next() % 450);
                } else {
                    actions[i] = next() % 2 ? -1 - (int64_t)(next() % 1000) : 450 + (int64_t)(next() % 1000);
                }
            }
            memcpy(before, state, sizeof(int32_t) * (size_t)words * n);
            refused += as_batch_step(state, actions, n, mask, rewards, done, errors);
            steps += n;
            for (i = 0; i < n; i++) {
                if (errors[i] != 0) {
                    check(memcmp(before + i * (size_t)words, state + i * (size_t)words,
                                 sizeof(int32_t) * (size_t)words) == 0,
                          "a refused slot changed", batch, i);
                    check(!rewards[4 * i] && !rewards[4 * i + 1] && !rewards[4 * i + 2] &&
                              !rewards[4 * i + 3],
                          "a refused slot got a reward", batch, i);
                }
                check(errors[i] <= 4, "an unknown error code", batch, i);
                check(broken || !chosen_legal[i] || errors[i] == 0,
                      "a legal action of the mask was refused", batch, i);
            }
            as_batch_mask(state, n, mask);
            if (k % 40 == 0) {
                randomly += fuzz_vector(state, n, words, batch);
            }
            if (k % 10 == 0) {
                waited += fuzz_waiting(state, n, words, batch);
            }
            if (k % 2 == 0) {
                observe_all(state, n, players, broken, batch);
            }
            if (k % 16 == 0) {
                /* the search bot's playouts from slot 0, broken or not, its actions any */
                int64_t tries[3];
                double values[3];
                uint64_t rng = next();
                int code, t, seat = (int)(next() % 5) - 1;
                memcpy(before, state, sizeof(int32_t) * (size_t)words);
                int legal[450], count = 0, a;
                for (a = 0; a < 450; a++) {
                    if (mask[a]) {
                        legal[count++] = a;
                    }
                }
                for (t = 0; t < 3; t++) {
                    uint64_t pick = next() % 8;
                    tries[t] = pick < 6 && count ? (int64_t)legal[next() % (uint64_t)count]
                               : pick < 7        ? (int64_t)(next() % 450)
                                                 : (int64_t)(next() % 2000) - 1000;
                }
                code = as_playout_values(state, tries, 1 + (size_t)(next() % 3), seat,
                                         (int)(next() % 2), (int)(next() % 6) - 1, 0.5, &rng, values);
                check(code == 0 || code == 1 || code == 3 || code == 4,
                      "a playout gave an unknown code", batch, 0);
                played += code == 0;
                check(memcmp(before, state, sizeof(int32_t) * (size_t)words) == 0,
                      "a playout changed its world", batch, 0);
                if (code == 0) {
                    check(values[0] == values[0] && values[0] > -1e6 && values[0] < 1e6,
                          "a playout's value is not a number of points", batch, 0);
                }
            }
        }
        free(state);
        free(before);
        free(seeds);
        free(actions);
        free(mask);
        free(done);
        free(errors);
        free(rewards);
        free(chosen_legal);
    }
    printf("batch fuzz: %zu slot steps, %zu refused, %zu playout calls played, "
           "%zu actions played at random, %zu endgames searched, %zu waiting rows stepped, "
           "%d failures\n",
           steps, refused, played, randomly, searched, waited, failures);
    return failures ? 1 : 0;
}
