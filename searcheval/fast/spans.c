/* searcheval.fast._spans: uint64 keys sorted span by span, in place, in C.
 *
 * Contract (fast/group_sort.py is the Python side; tests/test_spans_kernel.py holds this
 * module to numpy's sorts):
 *
 *   sort_spans(keys, bounds[, payload])
 *       keys: a writable C-contiguous buffer of uint64; bounds: int64, non-decreasing,
 *       within len(keys); payload: None or a writable int64 buffer as long as keys.
 *       Each span keys[bounds[i]:bounds[i + 1]] is sorted ascending in place, and
 *       payload's values move with their keys (equal keys: in any order). Raises
 *       ValueError on bounds that are not such, and returns None.
 *
 *   rank_spans(scores, bounds, order)
 *       scores: float32 or float64; bounds as above, within len(scores); order: a writable
 *       int64 buffer as long as scores. order[bounds[i]:bounds[i + 1]] becomes the row
 *       numbers bounds[i] .. bounds[i + 1] - 1 by score descending (equal scores, -0.0
 *       and 0.0 among them, in any order): the sort_spans of group_sort.descending_keys with
 *       the row numbers as payload, without an array of keys (each span's keys are made
 *       in a buffer of the span's size). Rows outside the spans are not written.
 *
 * Why C: numpy sorts 64-bit keys with a quicksort whose AVX-512 partition step stores with
 * vpcompressq, which some processors run at scalar speed; its sorting networks for the
 * rows of a padded grid avoid that store but slow down as rows grow (group_sort.py says
 * more). A radix sort of each span, most significant bits first, beats both on long
 * spans and needs no padded grid.
 *
 * The sort: a span of a few keys is sorted by insertion; a longer one is bucketed by the
 * next few bits below the highest bit on which its keys differ (so keys that share their
 * top bytes, as floats of one range do, cost no pass), the buckets laid out by counting,
 * and each bucket sorted the same way. Each level consumes at least 3 bits, so no key is
 * moved more than 22 times, whatever the keys. The GIL is released while sorting.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"

#define INSERTION 24 /* spans up to this long are sorted by insertion */

static void insertion(uint64_t *k, int64_t *p, Py_ssize_t n)
{
    for (Py_ssize_t i = 1; i < n; i++) {
        uint64_t key = k[i];
        Py_ssize_t j = i;
        if (p == NULL) {
            while (j > 0 && k[j - 1] > key) {
                k[j] = k[j - 1];
                j--;
            }
            k[j] = key;
        } else {
            int64_t value = p[i];
            while (j > 0 && k[j - 1] > key) {
                k[j] = k[j - 1];
                p[j] = p[j - 1];
                j--;
            }
            k[j] = key;
            p[j] = value;
        }
    }
}

static int bit_length(uint64_t x) /* bits needed for x: 0 for 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && !defined(SEARCHEVAL_PORTABLE_C)
    return x ? 64 - __builtin_clzll(x) : 0;
#else /* MSVC and others: no count-leading-zeros builtin; a few shifts of a 64-bit word */
    int bits = 0;
    if (x >> 32) { bits += 32; x >>= 32; }
    if (x >> 16) { bits += 16; x >>= 16; }
    if (x >> 8) { bits += 8; x >>= 8; }
    if (x >> 4) { bits += 4; x >>= 4; }
    if (x >> 2) { bits += 2; x >>= 2; }
    if (x >> 1) { bits += 1; x >>= 1; }
    return bits + (int)x;
#endif
}

#define MOST_BITS 11 /* buckets a level: up to 2**11 */
#define LEVELS 22     /* each level consumes at least 3 bits of 64 */

/* Per level, the counts and places of its buckets (on the heap: a thread's stack may be
 * small). */
typedef struct {
    Py_ssize_t count[(1 << MOST_BITS) + 1];
    Py_ssize_t place[1 << MOST_BITS];
} Level;

/* Put k[0:n] (and p with it) in buckets of at most INSERTION keys each, the buckets in
 * order, using the scratch buffers tk, tp (n entries each): one insertion pass over the
 * span then finishes it, each key moving only within its bucket. */
static void bucketed(uint64_t *k, int64_t *p, Py_ssize_t n, uint64_t *tk, int64_t *tp,
                     Level *level)
{
    if (n <= INSERTION)
        return;
    uint64_t low = k[0], high = k[0];
    for (Py_ssize_t i = 1; i < n; i++) {
        low = k[i] < low ? k[i] : low;
        high = k[i] > high ? k[i] : high;
    }
    int top = bit_length(low ^ high); /* bits from here up are the same in every key */
    if (top == 0)
        return; /* all equal */
    int bits = bit_length((uint64_t)n) - 1; /* one or two keys a bucket */
    bits = bits < 3 ? 3 : (bits > MOST_BITS ? MOST_BITS : bits);
    int shift = top > bits ? top - bits : 0;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    Py_ssize_t *count = level->count, *place = level->place;
    memset(count, 0, sizeof(Py_ssize_t) * (mask + 2));
    for (Py_ssize_t i = 0; i < n; i++)
        count[((k[i] >> shift) & mask) + 1]++;
    for (uint64_t b = 1; b <= mask + 1; b++)
        count[b] += count[b - 1]; /* count[b]: where bucket b begins */
    memcpy(place, count, sizeof(Py_ssize_t) * (mask + 1));
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t at = place[(k[i] >> shift) & mask]++;
        tk[at] = k[i];
        if (p != NULL)
            tp[at] = p[i];
    }
    memcpy(k, tk, sizeof(uint64_t) * n);
    if (p != NULL)
        memcpy(p, tp, sizeof(int64_t) * n);
    if (shift == 0)
        return; /* the buckets are single key values */
    for (uint64_t b = 0; b <= mask; b++) {
        Py_ssize_t begin = count[b], size = count[b + 1] - begin;
        if (size > INSERTION)
            bucketed(k + begin, p == NULL ? NULL : p + begin, size, tk, tp, level + 1);
    }
}

/* 8-byte integers, unsigned (keys) or signed (bounds, payload, order). */
static int get_integers(PyObject *obj, Py_buffer *view, int writable, int is_unsigned,
                        const char *name)
{
    return get_buffer(obj, view, writable, is_unsigned ? "LQ" : "lq", 8, name,
                      is_unsigned ? "uint64" : "int64");
}

/* A key per score whose integer order is the scores' descending order: the negated
 * double's bits (-0.0 made 0.0), the sign bit flipped for positive values and every bit
 * for negative ones (group_sort.descending_keys). */
static inline uint64_t descending_key(double score)
{
    double negated = -score + 0.0;
    int64_t bits;
    memcpy(&bits, &negated, sizeof bits);
    return (uint64_t)(bits < 0 ? ~bits : bits ^ INT64_MIN);
}

/* What a sorting call returns once its buffers are released: None, or the error `wrong`
 * names ("" for memory that could not be had). */
static PyObject *finished(const char *wrong)
{
    if (wrong == NULL)
        Py_RETURN_NONE;
    if (*wrong)
        PyErr_SetString(PyExc_ValueError, wrong);
    else
        PyErr_NoMemory();
    return NULL;
}

static PyObject *rank_spans(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *scores_obj, *bounds_obj, *order_obj;
    Py_buffer scores, bounds, order;
    if (!PyArg_ParseTuple(args, "OOO", &scores_obj, &bounds_obj, &order_obj))
        return NULL;
    if (get_buffer(scores_obj, &scores, 0, "fd", 0, "scores", "float32 or float64") < 0)
        return NULL;
    if (get_integers(bounds_obj, &bounds, 0, 0, "bounds") < 0) {
        PyBuffer_Release(&scores);
        return NULL;
    }
    if (get_integers(order_obj, &order, 1, 0, "order") < 0) {
        PyBuffer_Release(&scores);
        PyBuffer_Release(&bounds);
        return NULL;
    }
    Py_ssize_t n = scores.shape[0], spans = bounds.shape[0] - 1, widest = 0;
    const int64_t *b = (const int64_t *)bounds.buf;
    const char *wrong = order.shape[0] != n ? "order: not as long as scores" : NULL;
    for (Py_ssize_t i = 0; wrong == NULL && i < spans; i++) {
        if (b[i] < 0 || b[i + 1] < b[i] || b[i + 1] > n)
            wrong = "bounds: not non-decreasing within the scores";
        else if (b[i + 1] - b[i] > widest)
            widest = b[i + 1] - b[i];
    }
    uint64_t *k = NULL, *tk = NULL;
    int64_t *p = NULL, *tp = NULL;
    Level *levels = NULL;
    if (wrong == NULL && widest > 0) {
        k = malloc(sizeof(uint64_t) * widest);
        tk = malloc(sizeof(uint64_t) * widest);
        p = malloc(sizeof(int64_t) * widest);
        tp = malloc(sizeof(int64_t) * widest);
        levels = malloc(sizeof(Level) * LEVELS);
        if (k == NULL || tk == NULL || p == NULL || tp == NULL || levels == NULL)
            wrong = "";
    }
    if (wrong == NULL && widest > 0) {
        int single = scores.itemsize == 4;
        const float *f = (const float *)scores.buf;
        const double *d = (const double *)scores.buf;
        int64_t *out = (int64_t *)order.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < spans; i++) {
            Py_ssize_t begin = b[i], size = b[i + 1] - b[i];
            for (Py_ssize_t j = 0; j < size; j++) {
                k[j] = descending_key(single ? (double)f[begin + j] : d[begin + j]);
                p[j] = begin + j;
            }
            bucketed(k, p, size, tk, tp, levels);
            insertion(k, p, size);
            memcpy(out + begin, p, sizeof(int64_t) * size);
        }
        Py_END_ALLOW_THREADS
    }
    free(k);
    free(tk);
    free(p);
    free(tp);
    free(levels);
    PyBuffer_Release(&scores);
    PyBuffer_Release(&bounds);
    PyBuffer_Release(&order);
    return finished(wrong);
}

static PyObject *sort_spans(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *keys_obj, *bounds_obj, *payload_obj = Py_None;
    Py_buffer keys, bounds, payload = {0};
    if (!PyArg_ParseTuple(args, "OO|O", &keys_obj, &bounds_obj, &payload_obj))
        return NULL;
    if (get_integers(keys_obj, &keys, 1, 1, "keys") < 0)
        return NULL;
    if (get_integers(bounds_obj, &bounds, 0, 0, "bounds") < 0) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    int with_payload = payload_obj != Py_None;
    if (with_payload && get_integers(payload_obj, &payload, 1, 0, "payload") < 0) {
        PyBuffer_Release(&keys);
        PyBuffer_Release(&bounds);
        return NULL;
    }
    Py_ssize_t n = keys.shape[0], spans = bounds.shape[0] - 1, widest = 0;
    const int64_t *b = (const int64_t *)bounds.buf;
    const char *wrong = NULL;
    if (with_payload && payload.shape[0] != n)
        wrong = "payload: not as long as keys";
    for (Py_ssize_t i = 0; wrong == NULL && i < spans; i++) {
        if (b[i] < 0 || b[i + 1] < b[i] || b[i + 1] > n)
            wrong = "bounds: not non-decreasing within the keys";
        else if (b[i + 1] - b[i] > widest)
            widest = b[i + 1] - b[i];
    }
    uint64_t *tk = NULL;
    int64_t *tp = NULL;
    Level *levels = NULL;
    if (wrong == NULL && widest > INSERTION) {
        tk = malloc(sizeof(uint64_t) * widest);
        tp = with_payload ? malloc(sizeof(int64_t) * widest) : NULL;
        levels = malloc(sizeof(Level) * LEVELS);
        if (tk == NULL || (with_payload && tp == NULL) || levels == NULL)
            wrong = "";
    }
    if (wrong == NULL) {
        uint64_t *k = (uint64_t *)keys.buf;
        int64_t *p = with_payload ? (int64_t *)payload.buf : NULL;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < spans; i++)
            if (b[i + 1] - b[i] > 1) {
                bucketed(k + b[i], p == NULL ? NULL : p + b[i], b[i + 1] - b[i], tk, tp,
                         levels);
                insertion(k + b[i], p == NULL ? NULL : p + b[i], b[i + 1] - b[i]);
            }
        Py_END_ALLOW_THREADS
    }
    free(tk);
    free(tp);
    free(levels);
    PyBuffer_Release(&keys);
    PyBuffer_Release(&bounds);
    if (with_payload)
        PyBuffer_Release(&payload);
    return finished(wrong);
}

static PyMethodDef methods[] = {
    {"sort_spans", sort_spans, METH_VARARGS, "Sort each span of uint64 keys in place."},
    {"rank_spans", rank_spans, METH_VARARGS, "Each span's row numbers by score descending."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_spans", NULL, -1, methods};

PyMODINIT_FUNC PyInit__spans(void)
{
    return PyModule_Create(&module);
}
