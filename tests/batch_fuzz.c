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
int as_playout_values(const int32_t *world, const int64_t *actions, size_t n, int seat,
                      int random, int depth, double settle, uint64_t *rng, double *values);

void as_batch_start_facts(const int32_t *state, size_t n, int64_t *facts);
size_t as_batch_step_facts(int32_t *state, int64_t *facts, const int64_t *actions, size_t n,
                           uint8_t *mask, int32_t *rewards, uint8_t *done, uint8_t *errors);
size_t as_batch_play_random(int32_t *state, int64_t *facts, const int64_t *seats, uint64_t *rng,
                            size_t n, uint8_t *mask, int32_t *gains, uint8_t *done,
                            uint8_t *errors);

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

int main(void)
{
    const int words = as_batch_words();
    size_t batch, steps = 0, refused = 0, played = 0, randomly = 0;
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
        as_batch_reset(state, seeds, players, n, mask);
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
           "%zu actions played at random, %d failures\n",
           steps, refused, played, randomly, failures);
    return failures ? 1 : 0;
}
