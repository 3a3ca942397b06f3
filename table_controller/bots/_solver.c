/* The double-dummy solver of search.py in C: the same search, many times faster.
 *
 * search.py keeps the pure-Python solver as the fallback (a machine without a C compiler)
 * and chooses this one when it is built; tests/test_bots_search.py checks that both give
 * the same answers. Hands are 24-bit masks (bit = card number); the search is alpha-beta
 * over single cards, one card of each run of equivalent cards, with a transposition table
 * at trick boundaries keyed on the cards each seat still holds and the leader.
 *
 * The tables for one trump come from Python (``config``): they are search.py's, so the two
 * solvers cannot disagree about which card wins. The GIL is held throughout but for the
 * clock (a Python function), so one table serves every solve: each solve has a generation
 * of its own and reads only its own entries, rather than clearing the table.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define TT_BITS 18
#define TT_SIZE (1u << TT_BITS)
#define CHECK_EVERY 1023 /* nodes between two looks at the clock */

typedef struct {
    uint64_t k1, k2;
    uint32_t gen;
    int8_t lo, hi;
} Entry;

static Entry *tt;
static uint32_t generation;

/* config: eff[24] strength[24] order[4][8] (255 pads) next[4] trump(255: none) active */
#define CONFIG_LEN (24 + 24 + 32 + 4 + 2)

typedef struct {
    uint8_t eff[24], strength[24], order[4][8], next[4];
    int trump, active;
    uint32_t suitmask[4];
    uint32_t h[4];
    int pseat[32], pcard[32], ply;
    unsigned long nodes;
    PyObject *clock;
    double deadline;
    int stop; /* 1: out of time, 2: the clock raised */
    uint32_t gen; /* this solve's entries: another thread's solve (while the clock, a Python
                     function, let it run) writes entries of its own generation */
} S;

static inline int popcount(uint32_t x) { return __builtin_popcount(x); }

/* A card's claim on the trick led with ``lead``: higher wins, 0 cannot win. */
static inline int claim(const S *s, int c, int lead) {
    int e = s->eff[c];
    if (e == s->trump) return 32 + s->strength[c];
    if (e == s->eff[lead]) return 1 + s->strength[c];
    return 0;
}

static int look_at_clock(S *s) {
    PyObject *now = PyObject_CallNoArgs(s->clock);
    if (now == NULL) {
        s->stop = 2;
        return 1;
    }
    double t = PyFloat_AsDouble(now);
    Py_DECREF(now);
    if (t == -1.0 && PyErr_Occurred()) {
        s->stop = 2;
        return 1;
    }
    if (t > s->deadline) s->stop = 1;
    return s->stop;
}

static inline uint32_t legal_of(const S *s, uint32_t hand, int np) {
    if (np == 0) return hand;
    uint32_t follow = hand & s->suitmask[s->eff[s->pcard[s->ply - np]]];
    return follow ? follow : hand;
}

/* One card of each run of equivalent cards (adjacent in their suit among the cards still
 * out, in one hand), in the order worth trying first. Returns how many (<= 24). */
static int moves_of(const S *s, int seat, int np, uint32_t legal, int *out) {
    uint32_t live = s->h[0] | s->h[1] | s->h[2] | s->h[3];
    for (int i = s->ply - np; i < s->ply; i++) live |= 1u << s->pcard[i];
    uint32_t mine = s->h[seat];
    int n = 0;
    for (int su = 0; su < 4; su++) {
        if (!(legal & s->suitmask[su])) continue;
        int prev = 0;
        for (int i = 0; i < 8; i++) {
            int c = s->order[su][i];
            if (c == 255) break;
            if (!(live >> c & 1)) continue;
            int is_mine = mine >> c & 1;
            if (is_mine && !prev && (legal >> c & 1)) out[n++] = c;
            prev = is_mine;
        }
    }
    /* strongest first (trumps above the rest): insertion sort, n <= 6 */
    int key[24];
    for (int i = 0; i < n; i++) {
        int c = out[i];
        key[i] = (s->eff[c] == s->trump ? 32 : 0) + s->strength[c];
    }
    for (int i = 1; i < n; i++) {
        int c = out[i], k = key[i], j = i - 1;
        while (j >= 0 && key[j] < k) {
            out[j + 1] = out[j];
            key[j + 1] = key[j];
            j--;
        }
        out[j + 1] = c;
        key[j + 1] = k;
    }
    if (np > 0) {
        /* following: who holds the trick so far, and can this seat take it */
        int lead = s->pcard[s->ply - np], best = -1, best_seat = -1;
        for (int i = s->ply - np; i < s->ply; i++) {
            int k = claim(s, s->pcard[i], lead);
            if (k > best) {
                best = k;
                best_seat = s->pseat[i];
            }
        }
        int partner_holds = (best_seat & 1) == (seat & 1);
        int winners = 0;
        for (int i = 0; i < n; i++) winners += claim(s, out[i], lead) > best;
        if (partner_holds || winners == 0) {
            /* the cheapest card first */
            for (int i = 0, j = n - 1; i < j; i++, j--) {
                int t = out[i];
                out[i] = out[j];
                out[j] = t;
            }
        } else if (winners < n) {
            /* the cheapest winner first (the last seat needs no more), then the rest */
            int tmp[24], m = 0;
            for (int i = winners - 1; i >= 0; i--) tmp[m++] = out[i];
            for (int i = n - 1; i >= winners; i--) tmp[m++] = out[i];
            for (int i = 0; i < n; i++) out[i] = tmp[i];
        }
    }
    return n;
}

static inline uint64_t mix(uint64_t k1, uint64_t k2) {
    uint64_t x = k1 * 0x9E3779B97F4A7C15ull ^ k2 * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    return x;
}

static int ab(S *s, int leader, int np, int alpha, int beta) {
    s->nodes++;
    if (s->clock != NULL && !(s->nodes & CHECK_EVERY) && look_at_clock(s)) return 0;
    if (np == s->active) {
        int first = s->ply - np, lead = s->pcard[first], win_seat = -1, win_key = -1;
        for (int i = first; i < s->ply; i++) {
            int k = claim(s, s->pcard[i], lead);
            if (k > win_key) {
                win_key = k;
                win_seat = s->pseat[i];
            }
        }
        int w = (win_seat % 2 == 0) ? 1 : 0;
        if (!s->h[win_seat]) return w;
        return w + ab(s, win_seat, 0, alpha - w, beta - w);
    }
    int seat, a0 = alpha, b0 = beta;
    Entry *e = NULL;
    uint64_t k1 = 0, k2 = 0;
    if (np == 0) {
        int left = popcount(s->h[leader]);
        if (left == 0) return 0;
        if (left == 1) { /* the last trick plays itself */
            int st = leader, lead = -1, win_seat = -1, win_key = -1;
            for (int i = 0; i < s->active; i++) {
                int c = 31 - __builtin_clz(s->h[st]);
                if (lead < 0) lead = c;
                int k = claim(s, c, lead);
                if (k > win_key) {
                    win_key = k;
                    win_seat = st;
                }
                st = s->next[st];
            }
            return win_seat % 2 == 0 ? 1 : 0;
        }
        /* the key: each hand with the cards still out moved to the top of their suit, so
         * positions that differ only in which lower cards are gone share an entry */
        uint32_t norm[4] = {0, 0, 0, 0};
        uint32_t live = s->h[0] | s->h[1] | s->h[2] | s->h[3];
        for (int su = 0; su < 4; su++) {
            int pos = 0;
            for (int i = 0; i < 8; i++) {
                int c = s->order[su][i];
                if (c == 255) break;
                if (!(live >> c & 1)) continue;
                uint32_t to = 1u << s->order[su][pos++];
                for (int st = 0; st < 4; st++)
                    if (s->h[st] >> c & 1) norm[st] |= to;
            }
        }
        k1 = (uint64_t)norm[0] | (uint64_t)norm[1] << 24 | (uint64_t)leader << 48;
        k2 = (uint64_t)norm[2] | (uint64_t)norm[3] << 24;
        e = &tt[mix(k1, k2) >> (64 - TT_BITS)];
        int lo = 0, hi = left;
        if (e->gen == s->gen && e->k1 == k1 && e->k2 == k2) {
            lo = e->lo;
            hi = e->hi;
        }
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
        seat = leader;
    } else {
        seat = s->next[s->pseat[s->ply - 1]];
    }
    uint32_t legal = legal_of(s, s->h[seat], np);
    int maximising = seat % 2 == 0;
    int best = maximising ? -1 : 99;
    int moves[24];
    int n = moves_of(s, seat, np, legal, moves);
    for (int i = 0; i < n; i++) {
        int c = moves[i];
        uint32_t bit = 1u << c;
        s->h[seat] ^= bit;
        s->pseat[s->ply] = seat;
        s->pcard[s->ply] = c;
        s->ply++;
        int v = ab(s, leader, np + 1, alpha, beta);
        s->ply--;
        s->h[seat] ^= bit;
        if (s->stop) return 0;
        if (maximising) {
            if (v > best) {
                best = v;
                if (v > alpha) alpha = v;
            }
        } else if (v < best) {
            best = v;
            if (v < beta) beta = v;
        }
        if (alpha >= beta) break;
    }
    if (e != NULL) {
        int lo = 0, hi = 99;
        if (e->gen == s->gen && e->k1 == k1 && e->k2 == k2) {
            lo = e->lo;
            hi = e->hi;
        }
        if (best <= a0) {
            if (best < hi) hi = best;
        } else if (best >= b0) {
            if (best > lo) lo = best;
        } else {
            lo = hi = best;
        }
        e->k1 = k1;
        e->k2 = k2;
        e->gen = s->gen;
        e->lo = (int8_t)lo;
        e->hi = (int8_t)hi;
    }
    return best;
}

/* The representative of card c in seat's hand: the first card of its run (moves_of's). */
static int representative(S *s, int seat, int np, int c) {
    uint32_t live = s->h[0] | s->h[1] | s->h[2] | s->h[3];
    for (int i = s->ply - np; i < s->ply; i++) live |= 1u << s->pcard[i];
    uint32_t mine = s->h[seat];
    int rep = c, prev = 0, su = s->eff[c];
    for (int i = 0; i < 8; i++) {
        int card = s->order[su][i];
        if (card == 255) break;
        if (!(live >> card & 1)) continue;
        int is_mine = mine >> card & 1;
        if (is_mine && !prev) rep = card;
        if (card == c) return rep;
        prev = is_mine;
    }
    return c;
}

/* Parses the common arguments into s; 0 on success, -1 with an exception set. */
static int setup(S *s, PyObject *args, int *leader, int *extra1, int *extra2, int nextra) {
    const char *config, *plays;
    Py_ssize_t config_len, plays_len;
    unsigned int h0, h1, h2, h3;
    PyObject *clock;
    double deadline;
    int ok;
    if (nextra == 2)
        ok = PyArg_ParseTuple(args, "y#IIIIiy#iiOd", &config, &config_len, &h0, &h1, &h2, &h3,
                              leader, &plays, &plays_len, extra1, extra2, &clock, &deadline);
    else
        ok = PyArg_ParseTuple(args, "y#IIIIiy#Od", &config, &config_len, &h0, &h1, &h2, &h3,
                              leader, &plays, &plays_len, &clock, &deadline);
    if (!ok) return -1;
    if (config_len != CONFIG_LEN || plays_len % 2 || plays_len / 2 >= 4) {
        PyErr_SetString(PyExc_ValueError, "a solver's tables or a trick of the wrong size");
        return -1;
    }
    memcpy(s->eff, config, 24);
    memcpy(s->strength, config + 24, 24);
    memcpy(s->order, config + 48, 32);
    memcpy(s->next, config + 80, 4);
    s->trump = (uint8_t)config[84] == 255 ? -1 : (uint8_t)config[84];
    s->active = (uint8_t)config[85];
    for (int su = 0; su < 4; su++) s->suitmask[su] = 0;
    for (int c = 0; c < 24; c++) s->suitmask[s->eff[c]] |= 1u << c;
    s->h[0] = h0 & 0xFFFFFF;
    s->h[1] = h1 & 0xFFFFFF;
    s->h[2] = h2 & 0xFFFFFF;
    s->h[3] = h3 & 0xFFFFFF;
    s->ply = (int)(plays_len / 2);
    for (int i = 0; i < s->ply; i++) {
        s->pseat[i] = (uint8_t)plays[2 * i] & 3;
        s->pcard[i] = (uint8_t)plays[2 * i + 1] % 24;
    }
    s->nodes = 0;
    s->stop = 0;
    s->deadline = deadline;
    s->clock = isinf(deadline) ? NULL : clock;
    if (tt == NULL) {
        tt = calloc(TT_SIZE, sizeof(Entry));
        if (tt == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    if (++generation == 0) { /* wrapped: the old entries must not match */
        memset(tt, 0, TT_SIZE * sizeof(Entry));
        generation = 1;
    }
    s->gen = generation;
    return 0;
}

/* solve(config, h0, h1, h2, h3, leader, plays, alpha, beta, clock, deadline) -> int
 * North-south's tricks from here with the window (alpha, beta), fail-soft; None when out
 * of time. ``plays``: the trick in play as bytes seat, card, seat, card... */
static PyObject *solve(PyObject *self, PyObject *args) {
    (void)self;
    S s;
    int leader, alpha, beta;
    if (setup(&s, args, &leader, &alpha, &beta, 2) < 0) return NULL;
    int v = s.stop ? 0 : ab(&s, leader & 3, s.ply, alpha, beta);
    if (s.stop == 2) return NULL;
    if (s.stop == 1) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

/* values(config, h0, h1, h2, h3, leader, plays, clock, deadline) -> bytes | None
 * For each card (24 bytes): 255 if the seat to play may not play it, else north-south's
 * tricks from here after it. */
static PyObject *values(PyObject *self, PyObject *args) {
    (void)self;
    S s;
    int leader;
    if (setup(&s, args, &leader, NULL, NULL, 0) < 0) return NULL;
    if (s.stop == 2) return NULL;
    if (s.stop == 1) Py_RETURN_NONE;
    int np = s.ply;
    int seat = np ? s.next[s.pseat[np - 1]] : (leader & 3);
    uint32_t legal = legal_of(&s, s.h[seat], np);
    unsigned char out[24];
    memset(out, 255, 24);
    int moves[24];
    int n = moves_of(&s, seat, np, legal, moves);
    for (int i = 0; i < n; i++) {
        int c = moves[i];
        s.h[seat] ^= 1u << c;
        s.pseat[s.ply] = seat;
        s.pcard[s.ply] = c;
        s.ply++;
        int v = ab(&s, leader & 3, np + 1, -1, 99);
        s.ply--;
        s.h[seat] ^= 1u << c;
        if (s.stop == 2) return NULL;
        if (s.stop == 1) Py_RETURN_NONE;
        out[c] = (unsigned char)v;
    }
    for (int c = 0; c < 24; c++) {
        if (legal >> c & 1 && out[c] == 255) {
            out[c] = out[representative(&s, seat, np, c)];
        }
    }
    return PyBytes_FromStringAndSize((const char *)out, 24);
}

static PyMethodDef methods[] = {
    {"solve", solve, METH_VARARGS, "North-south's tricks from here within a window."},
    {"values", values, METH_VARARGS, "North-south's tricks after each legal card."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_solver", "The double-dummy solver of search.py, compiled.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__solver(void) { return PyModule_Create(&module); }
