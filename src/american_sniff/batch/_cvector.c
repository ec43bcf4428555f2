/*
 * The facts beside a slot's state, and seats played at random inside the
 * kernel (included by _cbatch.c): what the vector environment needs to step
 * a batch up to its learner's turn in one call.
 *
 * Facts. An observation reads what the round's history showed (what each
 * seat placed, its known voids, the round's opener), which a slot's 48 words
 * do not keep. A slot's facts are AS_FACT_WORDS int64 words beside it, as
 * american_sniff.batch.observe defines them (start_facts, advance_facts):
 *
 *     0..3   bit t for each tile t that seat k placed this round
 *     4..7   bit v for each number v that seat k is known to lack
 *     8      the seat whose turn is under way (-1 between turns)
 *     9      the draws it has made in that turn
 *     10     its voids as known when the turn began
 *     11     the open numbers when the turn began
 *     12     the round the facts are of
 *     13     the seat that opened that round
 *
 * as_batch_step_facts steps slots as as_batch_step does and advances each
 * slot's facts over the step. as_batch_play_random lets every seat but one
 * ("the learner's") play uniformly at random among its legal actions, each
 * slot from its own SplitMix64 stream, until the learner is to move or the
 * match is over. The numpy twins (american_sniff.batch.observe.advance_facts
 * and american_sniff.envs.batched.BatchedMatches.play_random on the numpy and
 * Python kernels) give the same results, bit for bit.
 *
 * Plain C99. A slot's words are read only through state_ok (step_one checks
 * them), and the facts' words are never used to index or shift: a hostile
 * facts row gives wrong facts, never a read out of bounds.
 */

/* (The facts' words, AS_F_PLAYED and the rest, are named in _cbatch.c.) */

/* The most actions as_batch_play_random applies to one slot in one call:
 * far more than any turn of the other seats takes (a turn is at most 15
 * draws and one placement or pass, and a round's end hands the turn on). */
enum { AS_RANDOM_LIMIT = 4096 };

/* The facts of a slot at the start of its round. */
static void facts_start(int64_t *f, const int32_t *s)
{
    int k;
    for (k = 0; k < AS_FACT_WORDS; k++) {
        f[k] = 0;
    }
    f[AS_F_MOVER] = -1;
    f[AS_F_ROUND] = s[AS_ROUND];
    f[AS_F_OPENER] = s[AS_TURN];
}

/* Advance a slot's facts over a step to `after` from a state_ok state whose
 * seat to move was `seat` and whose open numbers were `values`. */
static void facts_advance(int64_t *f, int seat, int32_t values, long long action,
                          const int32_t *after, int error)
{
    int place, drawn, chosen, ends;
    int64_t kept, void_bits;
    if (error != AS_OK) {
        return; /* a refused action changes nothing */
    }
    if ((int64_t)after[AS_ROUND] != f[AS_F_ROUND]) {
        facts_start(f, after); /* the round ended: the next one's facts */
        return;
    }
    /* (seat is 0..players-1: step_one accepted the state before) */
    if (f[AS_F_MOVER] != seat) {
        f[AS_F_MOVER] = seat;
        f[AS_F_DRAWS] = 0;
        f[AS_F_KNOWN] = f[AS_F_VOIDS + seat];
        f[AS_F_SHOWN] = values;
    }
    place = action < AS_DRAW;
    drawn = action == AS_DRAW;
    if (place) {
        f[AS_F_PLAYED + seat] = (int64_t)((uint64_t)f[AS_F_PLAYED + seat] |
                                          (uint64_t)1 << action_tile[action]);
    }
    if (drawn) {
        /* (unsigned: a hostile count wraps, as numpy's does, instead of overflowing) */
        f[AS_F_DRAWS] = (int64_t)((uint64_t)f[AS_F_DRAWS] + 1u);
        f[AS_F_VOIDS + seat] = 0;
    }
    chosen = place && f[AS_F_DRAWS] == 0;
    ends = !drawn && !chosen;
    kept = place ? (int64_t)((uint64_t)f[AS_F_DRAWS] - 1u) : f[AS_F_DRAWS];
    void_bits = f[AS_F_SHOWN] | (kept == 0 ? f[AS_F_KNOWN] : 0);
    if (ends) {
        f[AS_F_VOIDS + seat] = void_bits;
    }
    if (chosen || ends) {
        f[AS_F_MOVER] = -1;
        f[AS_F_DRAWS] = f[AS_F_KNOWN] = f[AS_F_SHOWN] = 0;
    }
}

/* Write the facts of n slots fresh from their states (at a round's start). */
void as_batch_start_facts(const int32_t *state, size_t n, int64_t *facts)
{
    size_t i;
    for (i = 0; i < n; i++) {
        facts_start(facts + i * AS_FACT_WORDS, state + i * AS_WORDS);
    }
}

/* as_batch_step (int64 actions), each slot's facts advanced over its step. */
size_t as_batch_step_facts(int32_t *state, int64_t *facts, const int64_t *actions, size_t n,
                           uint8_t *mask, int32_t *rewards, uint8_t *done, uint8_t *errors)
{
    return step_slots(state, actions, NULL, n, mask, rewards, done, errors, facts, NULL);
}

/* as_batch_step_facts, each slot's history (AS_HISTORY_WORDS uint16 records a
 * slot, see american_sniff.batch.recall) noted too. */
size_t as_batch_step_history(int32_t *state, int64_t *facts, uint16_t *history,
                             const int64_t *actions, size_t n, uint8_t *mask, int32_t *rewards,
                             uint8_t *done, uint8_t *errors)
{
    return step_slots(state, actions, NULL, n, mask, rewards, done, errors, facts, history);
}

/* The legal actions of a state_ok slot whose match goes on, in increasing
 * order (the order of its mask); returns their count. Placements are
 * 28 + 6p + j, j growing with the tile, so open points in increasing order,
 * and on each the fitting tiles in increasing order, give increasing actions. */
static int legal_ascending(const int32_t *s, int16_t *out)
{
    uint32_t tiles = tiles_to_place(s), table = (uint32_t)s[AS_TABLE] & AS_HAND_BITS;
    int count = 0, k;
    if (table == 0) {
        while (tiles) {
            out[count++] = (int16_t)ctz32(tiles);
            tiles &= tiles - 1u;
        }
        return count;
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
                    out[count++] = place_action[p][t];
                }
            }
        }
    }
    if (count == 0) {
        out[count++] = (int16_t)(s[AS_STOCK_SIZE] > s[AS_DRAWN_COUNT] ? AS_DRAW : AS_PASS);
    }
    return count;
}

/* Every seat of slot i but seats[i] plays at random until seats[i] is to move
 * or the match is over: each time, action below(count) of the legal ones in
 * increasing order, from the slot's own stream rng[i] (advanced in place).
 * Per slot: gains[i] (what seats[i]'s side gained meanwhile, as its rewards
 * add up), done[i], errors[i] (AS_OK; AS_BAD_STATE for words no step made or
 * a seat that is not the slot's, or after AS_RANDOM_LIMIT actions), and the
 * mask of the state reached (mask may be NULL). Facts (may be NULL) are
 * advanced over every action. Returns the number of actions applied. */
static size_t play_random(int32_t *state, int64_t *facts, uint16_t *history,
                          const int64_t *seats, uint64_t *rng, size_t n, uint8_t *mask,
                          int32_t *gains, uint8_t *done, uint8_t *errors)
{
    size_t i, applied = 0;
    int32_t reward[4];
    int16_t legal[AS_ACTIONS_COUNT];
    as_batch_init();
    for (i = 0; i < n; i++) {
        int32_t *s = state + i * AS_WORDS;
        int64_t *f = facts ? facts + i * AS_FACT_WORDS : NULL;
        uint16_t *h = history ? history + i * AS_HISTORY_WORDS : NULL;
        int64_t seat = seats[i];
        int error = AS_OK, steps = 0;
        gains[i] = 0;
        if (!state_ok(s) || seat < 0 || seat >= s[AS_PLAYERS]) {
            error = AS_BAD_STATE;
        }
        while (error == AS_OK && s[AS_WINNER] < 0 && s[AS_TURN] != seat) {
            int count, action;
            if (steps++ == AS_RANDOM_LIMIT) {
                error = AS_BAD_STATE;
                break;
            }
            count = legal_ascending(s, legal);
            if (count == 0) {
                error = AS_BAD_STATE; /* (words no step made: nothing to play) */
                break;
            }
            action = legal[rng_below(&rng[i], (uint32_t)count)];
            error = step_noted(s, f, h, action, reward);
            if (error != AS_OK) {
                /* (An action of its own legal list refused: words no step made,
                 * such as a broken values word.) */
                error = AS_BAD_STATE;
            } else {
                applied++;
                /* (bounded: a seat's reward is at most a score's range) */
                gains[i] = (int32_t)((int64_t)gains[i] + reward[seat]);
            }
        }
        errors[i] = (uint8_t)error;
        done[i] = (uint8_t)(error != AS_BAD_STATE && s[AS_WINNER] >= 0);
        if (mask) {
            if (error == AS_BAD_STATE || !state_ok(s)) {
                memset(mask + i * AS_ACTIONS_COUNT, 0, AS_ACTIONS_COUNT);
            } else {
                mask_checked(s, mask + i * AS_ACTIONS_COUNT);
            }
        }
    }
    return applied;
}

size_t as_batch_play_random(int32_t *state, int64_t *facts, const int64_t *seats, uint64_t *rng,
                            size_t n, uint8_t *mask, int32_t *gains, uint8_t *done,
                            uint8_t *errors)
{
    return play_random(state, facts, NULL, seats, rng, n, mask, gains, done, errors);
}

/* as_batch_play_random, each slot's history (may be NULL) noted too. */
size_t as_batch_play_random_history(int32_t *state, int64_t *facts, uint16_t *history,
                                    const int64_t *seats, uint64_t *rng, size_t n, uint8_t *mask,
                                    int32_t *gains, uint8_t *done, uint8_t *errors)
{
    return play_random(state, facts, history, seats, rng, n, mask, gains, done, errors);
}
