/* searcheval.fast._pairs: rows with equal (group, key), found group by group in C.
 *
 * Contract (fast/pairs.py is the Python side; tests/test_pairs_kernel.py holds this module
 * to brute-force enumerations and to the numpy ways it stands in for):
 *
 *   A group is an int32 or int64 per row, below num_groups; a row of a negative group
 *   takes no part. A key is a uint64 per row (a doc id's hash). Outputs are writable int64
 *   buffers the caller provides; each function returns how many entries it wrote.
 *
 *   equal_pairs(groups, keys, num_groups, first, second) -> count
 *       first, second: as long as keys. Every row that shares its group and key with an
 *       earlier row is written once, as second[i], with first[i] the earliest such row;
 *       nothing else. (No row repeats another: count 0.)
 *
 *   candidate_pairs(judged_groups, judged_keys, run_groups, run_keys, num_groups,
 *                   judgments, rows) -> count, or -1
 *       Every pair of a judgment and a run row of one group and one key: judgments[i],
 *       rows[i], group by group. -1 when there are more pairs than the outputs hold
 *       (keys that collide wholesale: the caller's exact path).
 *
 *   Both raise ValueError, before writing anything, on buffers of other types or sizes and
 *   on groups not below num_groups.
 *
 * Why C: in numpy the repeat check and the judgment join sort every row's (group, key)
 * and compare neighbours, a dozen passes over all rows with temporaries of their size;
 * on a large run the join alone is a large share of an Arrow table's evaluation. Here the
 * rows are taken group by group (as they lie when each group's rows are one block, as in
 * a TREC file; else in an order made by counting), and each group's keys go into an
 * open-addressing table small enough for the core's cache, one table for all groups: each
 * slot names the group that filled it, so a new group finds it empty without clearing it
 * (clearing would double the time on groups of a hundred rows). The GIL is released while
 * they are found.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"

#define SPREAD 0x9E3779B97F4A7C15ULL /* a key's slot: the top bits of key * SPREAD */

/* One side's rows, group by group: group g's k-th row is row(side, g, k). */
typedef struct {
    const void *groups;
    int wide; /* int64 groups, else int32 */
    Py_ssize_t n;
    Py_ssize_t *first; /* per group: its first row, or where its rows begin in order */
    Py_ssize_t *count; /* per group: its rows */
    Py_ssize_t *order; /* NULL: each group's rows are one block of the side */
} Side;

static inline int64_t group_at(const Side *s, Py_ssize_t i)
{
    return s->wide ? ((const int64_t *)s->groups)[i] : ((const int32_t *)s->groups)[i];
}

static inline Py_ssize_t row(const Side *s, int64_t g, Py_ssize_t k)
{
    return s->order ? s->order[s->first[g] + k] : s->first[g] + k;
}

static void release(Side *s)
{
    free(s->first);
    free(s->count);
    free(s->order);
}

/* Count each group's rows and find where they lie: 0, -1 (no memory) or -2 (a group not
 * below num_groups). */
static int take_side(Side *s, Py_ssize_t num_groups)
{
    s->first = malloc(sizeof(Py_ssize_t) * (num_groups + 1));
    s->count = calloc(num_groups + 1, sizeof(Py_ssize_t));
    s->order = NULL;
    if (s->first == NULL || s->count == NULL)
        return -1;
    for (Py_ssize_t g = 0; g < num_groups; g++)
        s->first[g] = -1;
    int blocks = 1; /* each group's rows one block so far */
    int64_t previous = -1;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        int64_t g = group_at(s, i);
        if (g >= num_groups)
            return -2;
        if (g < 0) {
            previous = g;
            continue;
        }
        if (g != previous) {
            blocks = blocks && s->first[g] < 0;
            s->first[g] = i;
            previous = g;
        }
        s->count[g]++;
    }
    if (blocks) {
        for (Py_ssize_t g = 0; g < num_groups; g++)
            if (s->count[g] == 0)
                s->first[g] = 0; /* no rows: never read */
        return 0;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t g = 0; g < num_groups; g++) {
        s->first[g] = total;
        total += s->count[g];
    }
    s->order = malloc(sizeof(Py_ssize_t) * (total ? total : 1));
    Py_ssize_t *place = malloc(sizeof(Py_ssize_t) * (num_groups ? num_groups : 1));
    if (s->order == NULL || place == NULL) {
        free(place);
        return -1;
    }
    memcpy(place, s->first, sizeof(Py_ssize_t) * num_groups);
    for (Py_ssize_t i = 0; i < s->n; i++) {
        int64_t g = group_at(s, i);
        if (g >= 0)
            s->order[place[g]++] = i;
    }
    free(place);
    return 0;
}

typedef struct {
    uint64_t key;
    Py_ssize_t row;
    Py_ssize_t owner; /* the group whose slot this is (else empty): no reset per group */
} Slot;

/* A table for up to `rows` keys, a power of 2 (>= 16) slots: at most an eighth full while
 * that is within SPARSE_SLOTS (a probe then rarely meets another key, so its branch is
 * rarely mispredicted: at 1,000 rows a group a third faster than half full), else at
 * most half full (a query of millions of rows: 48 bytes a row, not 192). */
#define SPARSE_SLOTS ((Py_ssize_t)1 << 16)

static int table_bits(Py_ssize_t rows)
{
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < 8 * rows && ((Py_ssize_t)1 << bits) < SPARSE_SLOTS)
        bits++;
    while (((Py_ssize_t)1 << bits) < 2 * rows)
        bits++;
    return bits;
}

static inline Py_ssize_t slot_of(uint64_t key, int bits)
{
    return (Py_ssize_t)((key * SPREAD) >> (64 - bits));
}

/* A table for groups of up to `rows` keys, every slot owned by none; NULL: no memory. */
static Slot *empty_table(Py_ssize_t rows)
{
    Py_ssize_t slots = (Py_ssize_t)1 << table_bits(rows);
    Slot *table = malloc(sizeof(Slot) * slots);
    for (Py_ssize_t s = 0; table != NULL && s < slots; s++)
        table[s].owner = -1;
    return table;
}

static Py_ssize_t largest_group(const Side *s, Py_ssize_t num_groups)
{
    Py_ssize_t largest = 0;
    for (Py_ssize_t g = 0; g < num_groups; g++)
        largest = s->count[g] > largest ? s->count[g] : largest;
    return largest;
}

/* Buffers got in order, released together. */
typedef struct {
    Py_buffer views[6];
    int got;
} Held;

static Py_buffer *hold(Held *held, PyObject *obj, int writable, const char *name,
                       const char *formats, Py_ssize_t itemsize, const char *expected)
{
    Py_buffer *view = &held->views[held->got];
    if (get_buffer(obj, view, writable, formats, itemsize, name, expected) < 0)
        return NULL;
    held->got++;
    return view;
}

static void release_held(Held *held)
{
    while (held->got > 0)
        PyBuffer_Release(&held->views[--held->got]);
}

#define GROUPS "ilq", 0, "int32 or int64"
#define KEYS "LQ", 8, "uint64"
#define ROWS "lq", 8, "int64"

static PyObject *failed(int status, const char *wrong)
{
    if (status == -1)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_ValueError, status == -2 ? "groups: not below num_groups" : wrong);
    return NULL;
}

static PyObject *equal_pairs(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objs[4];
    Py_ssize_t num_groups;
    if (!PyArg_ParseTuple(args, "OOnOO", &objs[0], &objs[1], &num_groups, &objs[2], &objs[3]))
        return NULL;
    Held held = {.got = 0};
    Py_buffer *groups = hold(&held, objs[0], 0, "groups", GROUPS);
    Py_buffer *keys = groups ? hold(&held, objs[1], 0, "keys", KEYS) : NULL;
    Py_buffer *first = keys ? hold(&held, objs[2], 1, "first", ROWS) : NULL;
    Py_buffer *second = first ? hold(&held, objs[3], 1, "second", ROWS) : NULL;
    if (second == NULL) {
        release_held(&held);
        return NULL;
    }
    Py_ssize_t n = keys->shape[0];
    if (groups->shape[0] != n || first->shape[0] != n || second->shape[0] != n
        || num_groups < 0) {
        release_held(&held);
        return failed(0, num_groups < 0 ? "num_groups: below 0"
                                        : "groups, keys, first and second: not of one length");
    }
    Side side = {groups->buf, groups->itemsize == 8, n, NULL, NULL, NULL};
    const uint64_t *k = keys->buf;
    int64_t *out_first = first->buf, *out_second = second->buf;
    Py_ssize_t count = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = take_side(&side, num_groups);
    Slot *table = status == 0 ? empty_table(largest_group(&side, num_groups)) : NULL;
    if (status == 0 && table == NULL)
        status = -1;
    for (Py_ssize_t g = 0; status == 0 && g < num_groups; g++) {
        Py_ssize_t size = side.count[g];
        if (size < 2)
            continue;
        int b = table_bits(size);
        Py_ssize_t mask = ((Py_ssize_t)1 << b) - 1;
        for (Py_ssize_t j = 0; j < size; j++) {
            Py_ssize_t r = row(&side, g, j);
            uint64_t key = k[r];
            Py_ssize_t s = slot_of(key, b);
            while (table[s].owner == g && table[s].key != key)
                s = (s + 1) & mask;
            if (table[s].owner == g) { /* an earlier row of this group has this key */
                out_first[count] = table[s].row;
                out_second[count++] = r;
            } else {
                table[s].key = key;
                table[s].row = r;
                table[s].owner = g;
            }
        }
    }
    free(table);
    release(&side);
    Py_END_ALLOW_THREADS
    release_held(&held);
    if (status != 0)
        return failed(status, "");
    return PyLong_FromSsize_t(count);
}

static PyObject *candidate_pairs(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objs[6];
    Py_ssize_t num_groups;
    if (!PyArg_ParseTuple(args, "OOOOnOO", &objs[0], &objs[1], &objs[2], &objs[3],
                          &num_groups, &objs[4], &objs[5]))
        return NULL;
    Held held = {.got = 0};
    Py_buffer *jg = hold(&held, objs[0], 0, "judged_groups", GROUPS);
    Py_buffer *jk = jg ? hold(&held, objs[1], 0, "judged_keys", KEYS) : NULL;
    Py_buffer *rg = jk ? hold(&held, objs[2], 0, "run_groups", GROUPS) : NULL;
    Py_buffer *rk = rg ? hold(&held, objs[3], 0, "run_keys", KEYS) : NULL;
    Py_buffer *jo = rk ? hold(&held, objs[4], 1, "judgments", ROWS) : NULL;
    Py_buffer *ro = jo ? hold(&held, objs[5], 1, "rows", ROWS) : NULL;
    if (ro == NULL) {
        release_held(&held);
        return NULL;
    }
    if (jg->shape[0] != jk->shape[0] || rg->shape[0] != rk->shape[0]
        || jo->shape[0] != ro->shape[0] || num_groups < 0) {
        release_held(&held);
        return failed(0, num_groups < 0 ? "num_groups: below 0"
                                        : "groups and keys of a side, or the outputs: not of one length");
    }
    Side judged = {jg->buf, jg->itemsize == 8, jg->shape[0], NULL, NULL, NULL};
    Side run = {rg->buf, rg->itemsize == 8, rg->shape[0], NULL, NULL, NULL};
    const uint64_t *judged_keys = jk->buf, *run_keys = rk->buf;
    int64_t *out_j = jo->buf, *out_r = ro->buf;
    Py_ssize_t capacity = jo->shape[0], count = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = take_side(&judged, num_groups);
    if (status == 0)
        status = take_side(&run, num_groups);
    Slot *table = status == 0 ? empty_table(largest_group(&judged, num_groups)) : NULL;
    if (status == 0 && table == NULL)
        status = -1;
    for (Py_ssize_t g = 0; status == 0 && count >= 0 && g < num_groups; g++) {
        Py_ssize_t judgments = judged.count[g], rows = run.count[g];
        if (judgments == 0 || rows == 0)
            continue;
        int b = table_bits(judgments);
        Py_ssize_t mask = ((Py_ssize_t)1 << b) - 1;
        for (Py_ssize_t j = 0; j < judgments; j++) {
            Py_ssize_t r = row(&judged, g, j);
            Py_ssize_t s = slot_of(judged_keys[r], b);
            while (table[s].owner == g)
                s = (s + 1) & mask;
            table[s].key = judged_keys[r];
            table[s].row = r;
            table[s].owner = g;
        }
        for (Py_ssize_t i = 0; i < rows && count >= 0; i++) {
            Py_ssize_t r = row(&run, g, i);
            uint64_t key = run_keys[r];
            /* every judgment of this key lies in the run of full slots from its slot */
            for (Py_ssize_t s = slot_of(key, b); table[s].owner == g; s = (s + 1) & mask)
                if (table[s].key == key) {
                    if (count == capacity) {
                        count = -1;
                        break;
                    }
                    out_j[count] = table[s].row;
                    out_r[count++] = r;
                }
        }
    }
    free(table);
    release(&judged);
    release(&run);
    Py_END_ALLOW_THREADS
    release_held(&held);
    if (status != 0)
        return failed(status, "");
    return PyLong_FromSsize_t(count);
}

static PyMethodDef methods[] = {
    {"equal_pairs", equal_pairs, METH_VARARGS, "Rows repeating an earlier row's group and key."},
    {"candidate_pairs", candidate_pairs, METH_VARARGS,
     "Pairs of a judgment and a run row of one group and key."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pairs", NULL, -1, methods};

PyMODINIT_FUNC PyInit__pairs(void)
{
    return PyModule_Create(&module);
}
