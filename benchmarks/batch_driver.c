/*
 * The batch kernel alone, with no Python: steps per second and, under
 * callgrind, instructions a step (benchmarks/README.md, "The batched engine").
 *
 *     cc -std=c99 -O3 -DAMERICAN_SNIFF_BATCH_NO_PYTHON -D_POSIX_C_SOURCE=199309L \
 *        benchmarks/batch_driver.c src/american_sniff/batch/_cbatch.c -o batch_driver
 *     ./batch_driver 2
 *     valgrind --tool=callgrind --toggle-collect=as_batch_step ./batch_driver 2
 *
 * It records STEPS steps of random legal play in SLOTS slots (each slot's
 * action drawn uniformly from its mask), then replays them from a fresh reset
 * and times the replay. The argument is the number of players (2 by default).
 * Under callgrind, divide the instructions by twice the steps it prints: both
 * runs are counted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int as_batch_reset(int32_t *state, const uint64_t *seeds, int players, size_t n, uint8_t *mask);
size_t as_batch_step(int32_t *state, const int64_t *actions, size_t n, uint8_t *mask,
                     int32_t *rewards, uint8_t *done, uint8_t *errors);

#define SLOTS 1024
#define STEPS 200

static int32_t state[SLOTS * 48];
static uint8_t mask[SLOTS * 450], done[SLOTS], errors[SLOTS];
static int32_t rewards[SLOTS * 4];
static uint64_t seeds[SLOTS];
static int64_t actions[STEPS][SLOTS];

int main(int argc, char **argv)
{
    int players = argc > 1 ? atoi(argv[1]) : 2;
    size_t slot, k, taken = 0;
    uint64_t lcg = 1;
    struct timespec start, end;
    double seconds;
    for (slot = 0; slot < SLOTS; slot++) {
        seeds[slot] = slot;
    }
    if (as_batch_reset(state, seeds, players, SLOTS, mask) != 0) {
        fprintf(stderr, "players must be 2, 3 or 4\n");
        return 2;
    }
    for (k = 0; k < STEPS; k++) {
        for (slot = 0; slot < SLOTS; slot++) {
            int legal[450], count = 0, a;
            for (a = 0; a < 450; a++) {
                if (mask[slot * 450 + (size_t)a]) {
                    legal[count++] = a;
                }
            }
            lcg = lcg * 6364136223846793005u + 1442695040888963407u;
            actions[k][slot] = count ? legal[(lcg >> 33) % (uint64_t)count] : 0;
        }
        as_batch_step(state, actions[k], SLOTS, mask, rewards, done, errors);
    }
    as_batch_reset(state, seeds, players, SLOTS, mask);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (k = 0; k < STEPS; k++) {
        taken += SLOTS - as_batch_step(state, actions[k], SLOTS, mask, rewards, done, errors);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    seconds = (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    printf("%d players: %zu steps taken, %.0f steps/s (wall clock)\n", players, taken,
           taken / seconds);
    return 0;
}
