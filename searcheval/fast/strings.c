/* searcheval.fast._strings: hashes and byte comparisons of Arrow string columns, in C.
 *
 * Contract (fast/hashing.py is the Python side; tests/test_strings_kernel.py holds this
 * module to hashing.py's numpy code and to Python's own string comparison):
 *
 *   hash_strings(offsets, data, out)
 *       offsets: int32 or int64, n + 1 of them, non-decreasing, within data; data: bytes
 *       (uint8); out: a writable uint64 buffer of n. out[i] becomes the hash of
 *       data[offsets[i]:offsets[i + 1]], the very value fast/hashing._hash_array gives:
 *       the length times LENGTH, then each 8-byte window mixed in, from the start, the
 *       last one ending at the string's end (overlapping the one before); a string of 8
 *       bytes or fewer is one window, zero past its end.
 *
 *   A column read by row (same_strings, descending_order) is given as its chunks, a tuple
 *   of (offsets, data) pairs, and per row two int64 buffers: `which`, the chunk of its
 *   string, and `local`, its row there (a table's column: one chunk, `which` all 0).
 *
 *   same_strings(left_chunks, left_which, left_local, right_chunks, right_which,
 *                right_local, out)
 *       out: a writable bool buffer as long as the rows. out[i] becomes whether the left's
 *       string of row i and the right's are the same bytes.
 *
 *   descending_order(chunks, which, local, groups, out)
 *       groups: int32 or int64 per row, non-decreasing; out: a writable int64 buffer as
 *       long. out becomes the order of the rows by group, then by string descending,
 *       bytes compared as strcmp does (unsigned; a prefix before every longer string it
 *       starts), equal strings in row order: what hashing.descending_order's numpy sort
 *       gives.
 *
 *   All three raise ValueError, before writing anything, on buffers of other types or
 *   sizes, offsets that do not delimit strings of data (by row: of the strings the rows
 *   name), rows past their chunk's strings, or groups that decrease.
 *
 *   irregular_bytes(data, delimiter, begin, end) -> bool
 *       data: any 1-D buffer of bytes (bytes, a memory map, uint8); 0 <= begin <= end <=
 *       len(data). Whether a byte of data[begin:end] is the delimiter followed by the
 *       delimiter, a newline or a \r (the byte after `end` read as the pair's second,
 *       where there is one); a \r not followed by a newline (at the data's end: none
 *       follows); a byte up to \r other than the newline, the delimiter and such a \r;
 *       or, when the delimiter is a tab, a space: io.trec_fast._irregular's slice test.
 *
 * Why C: in numpy a hash costs one pass over all rows per 8-byte window, with gathers
 * and temporaries each time, and a comparison likewise; on small queries the two make a
 * sizeable share of an Arrow table's evaluation. Here each string is read once. The GIL
 * is released while reading.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "buffers.h"

#define LENGTH 0x9E3779B97F4A7C15ULL /* the length's multiplier (hashing._LENGTH) */
#define MIX 0xBF58476D1CE4E5B9ULL    /* hashing._MIX */
#define SHIFT 31                     /* hashing._SHIFT */

static inline uint64_t little_endian(const uint8_t *p, size_t size) /* size <= 8 */
{
    uint64_t word = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&word, p, size);
#else
    for (size_t i = 0; i < size; i++)
        word |= (uint64_t)p[i] << (8 * i);
#endif
    return word;
}

static inline uint64_t mix(uint64_t h, uint64_t word)
{
    h ^= word;
    h *= MIX;
    return h ^ (h >> SHIFT);
}

/* The hash of the `length` bytes at s; `room`: the bytes readable from s (a short string
 * is read as one whole word, masked, where the data goes on that far: a copy of a
 * variable size would be a call to memcpy per string). */
static inline uint64_t hash(const uint8_t *s, int64_t length, int64_t room)
{
    uint64_t h = (uint64_t)length * LENGTH;
    if (length == 0)
        return h;
    if (length <= 8 && room >= 8) /* the first `length` bytes of the word kept */
        return mix(h, little_endian(s, 8) & (~0ULL >> (64 - 8 * length)));
    if (length <= 8)
        return mix(h, little_endian(s, (size_t)length));
    int64_t j = 0;
    for (; j + 8 < length; j += 8)
        h = mix(h, little_endian(s + j, 8));
    return mix(h, little_endian(s + length - 8, 8));
}

/* Offsets of one side, either width. */
typedef struct {
    Py_buffer view;
    int wide; /* int64 offsets, else int32 */
    Py_ssize_t strings;
} Offsets;

static inline int64_t offset_at(const Offsets *o, Py_ssize_t i)
{
    return o->wide ? ((const int64_t *)o->view.buf)[i] : ((const int32_t *)o->view.buf)[i];
}

/* Offsets and data of one side; with `check`, every string's offsets checked to lie
 * within the data, in order (same_strings checks only the strings its rows name). */
static int get_strings(PyObject *offsets_obj, PyObject *data_obj, Offsets *offsets,
                       Py_buffer *data, const char *side, int check)
{
    char name[32];
    snprintf(name, sizeof name, "%soffsets", side);
    if (get_buffer(offsets_obj, &offsets->view, 0, "ilq", 0, name, "int32 or int64") < 0)
        return -1;
    snprintf(name, sizeof name, "%sdata", side);
    if (get_buffer(data_obj, data, 0, "Bbc", 1, name, "bytes") < 0) {
        PyBuffer_Release(&offsets->view);
        return -1;
    }
    offsets->wide = offsets->view.itemsize == 8;
    offsets->strings = offsets->view.shape[0] - 1;
    int valid = offsets->strings >= 0;
    if (valid && !check)
        return 0;
    int64_t previous = valid ? offset_at(offsets, 0) : 0;
    valid = valid && previous >= 0;
    for (Py_ssize_t i = 1; valid && i <= offsets->strings; i++) {
        int64_t next = offset_at(offsets, i);
        valid = next >= previous;
        previous = next;
    }
    if (!valid || previous > data->shape[0]) {
        PyErr_Format(PyExc_ValueError, "%soffsets: not non-decreasing within the data", side);
        PyBuffer_Release(&offsets->view);
        PyBuffer_Release(data);
        return -1;
    }
    return 0;
}

static PyObject *hash_strings(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *offsets_obj, *data_obj, *out_obj;
    Offsets offsets;
    Py_buffer data, out;
    if (!PyArg_ParseTuple(args, "OOO", &offsets_obj, &data_obj, &out_obj))
        return NULL;
    if (get_strings(offsets_obj, data_obj, &offsets, &data, "", 1) < 0)
        return NULL;
    if (get_buffer(out_obj, &out, 1, "LQ", 8, "out", "uint64") < 0) {
        PyBuffer_Release(&offsets.view);
        PyBuffer_Release(&data);
        return NULL;
    }
    int fits = out.shape[0] == offsets.strings;
    if (fits) {
        const uint8_t *bytes = (const uint8_t *)data.buf;
        int64_t size = data.shape[0];
        uint64_t *h = (uint64_t *)out.buf;
        Py_BEGIN_ALLOW_THREADS
        int64_t start = offset_at(&offsets, 0);
        for (Py_ssize_t i = 0; i < offsets.strings; i++) {
            int64_t end = offset_at(&offsets, i + 1);
            h[i] = hash(bytes + start, end - start, size - start);
            start = end;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&offsets.view);
    PyBuffer_Release(&data);
    PyBuffer_Release(&out);
    if (!fits) {
        PyErr_SetString(PyExc_ValueError, "out: not one hash per string");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* A row's string, where it lies; `room`: the bytes readable from its start. */
typedef struct {
    const uint8_t *bytes;
    int64_t length, room;
} Text;

/* A column's chunks, each one's offsets and data, as the caller gave them: a tuple of
 * (offsets, data) pairs. Both functions that read strings by row take a column so, with
 * each row's chunk (`which`) and its row there (`local`). */
typedef struct {
    Py_ssize_t count, got; /* chunks, and those whose buffers are held */
    Offsets *offsets;
    Py_buffer *data;
} Chunks;

static void release_chunks(Chunks *c)
{
    while (c->got > 0) {
        c->got--;
        PyBuffer_Release(&c->offsets[c->got].view);
        PyBuffer_Release(&c->data[c->got]);
    }
    free(c->offsets);
    free(c->data);
}

/* 0, or -1 with the error set (and nothing held); `side`: "left_", "right_" or "". */
static int get_chunks(PyObject *obj, Chunks *c, const char *side)
{
    c->count = c->got = 0;
    c->offsets = NULL;
    c->data = NULL;
    if (!PyTuple_Check(obj)) {
        PyErr_Format(PyExc_ValueError, "%schunks: not (offsets, data) pairs", side);
        return -1;
    }
    c->count = PyTuple_GET_SIZE(obj);
    c->offsets = calloc(c->count ? c->count : 1, sizeof(Offsets));
    c->data = calloc(c->count ? c->count : 1, sizeof(Py_buffer));
    if (c->offsets == NULL || c->data == NULL) {
        release_chunks(c);
        PyErr_NoMemory();
        return -1;
    }
    for (; c->got < c->count; c->got++) {
        PyObject *chunk = PyTuple_GET_ITEM(obj, c->got);
        if (!PyTuple_Check(chunk) || PyTuple_GET_SIZE(chunk) != 2) {
            PyErr_Format(PyExc_ValueError, "%schunks: not (offsets, data) pairs", side);
            release_chunks(c);
            return -1;
        }
        if (get_strings(PyTuple_GET_ITEM(chunk, 0), PyTuple_GET_ITEM(chunk, 1),
                        &c->offsets[c->got], &c->data[c->got], side, 0) < 0) {
            release_chunks(c);
            return -1;
        }
    }
    return 0;
}

/* The string of row `local` of chunk `which`: 0, or -1 when there is no such row or its
 * offsets do not delimit a string of the chunk's data (only the rows read are checked). */
static inline int text_at(const Chunks *c, int64_t which, int64_t local, Text *t)
{
    if (which < 0 || which >= c->count || local < 0 || local >= c->offsets[which].strings)
        return -1;
    int64_t start = offset_at(&c->offsets[which], local);
    int64_t end = offset_at(&c->offsets[which], local + 1), size = c->data[which].shape[0];
    if (start < 0 || end < start || end > size)
        return -1;
    t->bytes = (const uint8_t *)c->data[which].buf + start;
    t->length = end - start;
    t->room = size - start;
    return 0;
}

/* Each row's chunk and its row there, two int64 buffers of one length, held in views[0]
 * and views[1]: 0, or -1 with the error set and nothing held. */
static int get_rows(PyObject *which, PyObject *local, Py_buffer *views, const char *side)
{
    char name[32];
    snprintf(name, sizeof name, "%swhich", side);
    if (get_buffer(which, &views[0], 0, "lq", 8, name, "int64") < 0)
        return -1;
    snprintf(name, sizeof name, "%slocal", side);
    if (get_buffer(local, &views[1], 0, "lq", 8, name, "int64") < 0) {
        PyBuffer_Release(&views[0]);
        return -1;
    }
    return 0;
}

/* Whether every row of a side is a string of its chunks (the strings a comparison reads,
 * and no others, checked: a piece of pairs is not made to read every offset). */
static int rows_within(const Chunks *c, const Py_buffer *views)
{
    const int64_t *which = views[0].buf, *local = views[1].buf;
    Text t;
    for (Py_ssize_t i = 0; i < views[0].shape[0]; i++)
        if (text_at(c, which[i], local[i], &t) < 0)
            return 0;
    return 1;
}

/* What a call returns once it has released what it held: ValueError `wrong`, the error
 * already set (a buffer refused, no memory), or None. */
static PyObject *outcome(const char *wrong)
{
    if (wrong != NULL)
        PyErr_SetString(PyExc_ValueError, wrong);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *same_strings(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objs[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4],
                          &objs[5], &objs[6]))
        return NULL;
    static const char *sides[2] = {"left_", "right_"};
    Chunks chunks[2];
    Py_buffer rows[2][2], out;
    int chunks_got = 0, rows_got = 0, out_got = 0; /* sides held, then the output */
    const char *wrong = NULL;
    for (; chunks_got < 2; chunks_got++)
        if (get_chunks(objs[3 * chunks_got], &chunks[chunks_got], sides[chunks_got]) < 0)
            goto done;
    for (; rows_got < 2; rows_got++)
        if (get_rows(objs[3 * rows_got + 1], objs[3 * rows_got + 2], rows[rows_got],
                     sides[rows_got]) < 0)
            goto done;
    if (get_buffer(objs[6], &out, 1, "?Bb", 1, "out", "bool") < 0)
        goto done;
    out_got = 1;
    Py_ssize_t n = out.shape[0];
    if (rows[0][0].shape[0] != n || rows[0][1].shape[0] != n || rows[1][0].shape[0] != n
        || rows[1][1].shape[0] != n)
        wrong = "rows and out: not of one length";
    else if (!rows_within(&chunks[0], rows[0]) || !rows_within(&chunks[1], rows[1]))
        wrong = "rows: past their side's strings, or strings past its data";
    if (wrong == NULL) {
        const int64_t *lw = rows[0][0].buf, *ll = rows[0][1].buf;
        const int64_t *rw = rows[1][0].buf, *rl = rows[1][1].buf;
        uint8_t *same = (uint8_t *)out.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            Text a = {NULL, 0, 0}, b = {NULL, 0, 0}; /* both found: checked above */
            text_at(&chunks[0], lw[i], ll[i], &a);
            text_at(&chunks[1], rw[i], rl[i], &b);
            if (a.length != b.length)
                same[i] = 0;
            else if (a.length > 0 && a.length <= 8 && a.room >= 8 && b.room >= 8)
                same[i] = ((little_endian(a.bytes, 8) ^ little_endian(b.bytes, 8))
                           & (~0ULL >> (64 - 8 * a.length))) == 0; /* no call to memcmp */
            else
                same[i] = memcmp(a.bytes, b.bytes, (size_t)a.length) == 0;
        }
        Py_END_ALLOW_THREADS
    }
done:
    if (out_got)
        PyBuffer_Release(&out);
    while (rows_got > 0) {
        rows_got--;
        PyBuffer_Release(&rows[rows_got][0]);
        PyBuffer_Release(&rows[rows_got][1]);
    }
    while (chunks_got > 0)
        release_chunks(&chunks[--chunks_got]);
    return outcome(wrong);
}

/* Whether a's string comes before b's in descending byte order. */
static inline int before(const Text *a, const Text *b)
{
    int64_t shorter = a->length < b->length ? a->length : b->length;
    int cmp = shorter ? memcmp(a->bytes, b->bytes, (size_t)shorter) : 0;
    return cmp > 0 || (cmp == 0 && a->length > b->length);
}

/* Sort the rows rows[0..n) by their strings, descending, stably: insertion below 16 rows,
 * else a merge sort through `spare` (room for n rows). */
static void sort_descending(int64_t *rows, int64_t *spare, Py_ssize_t n, const Text *texts)
{
    if (n < 16) {
        for (Py_ssize_t i = 1; i < n; i++) {
            int64_t r = rows[i];
            Py_ssize_t j = i;
            for (; j > 0 && before(&texts[r], &texts[rows[j - 1]]); j--)
                rows[j] = rows[j - 1];
            rows[j] = r;
        }
        return;
    }
    Py_ssize_t half = n / 2;
    sort_descending(rows, spare, half, texts);
    sort_descending(rows + half, spare, n - half, texts);
    memcpy(spare, rows, sizeof(int64_t) * half);
    Py_ssize_t i = 0, j = half, k = 0;
    while (i < half && j < n) /* the left's row first unless the right's comes before it */
        rows[k++] = before(&texts[rows[j]], &texts[spare[i]]) ? rows[j++] : spare[i++];
    while (i < half)
        rows[k++] = spare[i++];
}

static PyObject *descending_order(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objs[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4]))
        return NULL;
    Chunks chunks;
    Py_buffer rows[2], views[2]; /* which and local; groups and out */
    int chunks_got = 0, rows_got = 0, views_got = 0;
    const char *wrong = NULL;
    Text *texts = NULL;
    int64_t *spare = NULL;
    if (get_chunks(objs[0], &chunks, "") < 0)
        goto done;
    chunks_got = 1;
    if (get_rows(objs[1], objs[2], rows, "") < 0)
        goto done;
    rows_got = 1;
    if (get_buffer(objs[3], &views[0], 0, "ilq", 0, "groups", "int32 or int64") < 0)
        goto done;
    views_got = 1;
    if (get_buffer(objs[4], &views[1], 1, "lq", 8, "out", "int64") < 0)
        goto done;
    views_got = 2;
    Py_ssize_t n = rows[0].shape[0];
    if (rows[1].shape[0] != n || views[0].shape[0] != n || views[1].shape[0] != n) {
        wrong = "which, local, groups and out: not of one length";
        goto done;
    }
    const int64_t *which = rows[0].buf, *local = rows[1].buf;
    int wide = views[0].itemsize == 8;
    texts = malloc(sizeof(Text) * (n ? n : 1));
    spare = malloc(sizeof(int64_t) * (n / 2 + 1));
    if (texts == NULL || spare == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n && wrong == NULL; i++)
        if (text_at(&chunks, which[i], local[i], &texts[i]) < 0)
            wrong = "which, local: a row past its chunk's strings, or strings past its data";
    for (Py_ssize_t i = 1; i < n && wrong == NULL; i++)
        if (wide ? ((const int64_t *)views[0].buf)[i] < ((const int64_t *)views[0].buf)[i - 1]
                 : ((const int32_t *)views[0].buf)[i] < ((const int32_t *)views[0].buf)[i - 1])
            wrong = "groups: not non-decreasing";
    if (wrong != NULL)
        goto done;
    int64_t *out = views[1].buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = i;
    for (Py_ssize_t a = 0; a < n;) {
        Py_ssize_t b = a + 1;
        if (wide)
            while (b < n && ((const int64_t *)views[0].buf)[b] == ((const int64_t *)views[0].buf)[a])
                b++;
        else
            while (b < n && ((const int32_t *)views[0].buf)[b] == ((const int32_t *)views[0].buf)[a])
                b++;
        sort_descending(out + a, spare, b - a, texts);
        a = b;
    }
    Py_END_ALLOW_THREADS
done:
    free(texts);
    free(spare);
    while (views_got > 0)
        PyBuffer_Release(&views[--views_got]);
    if (rows_got) {
        PyBuffer_Release(&rows[0]);
        PyBuffer_Release(&rows[1]);
    }
    if (chunks_got)
        release_chunks(&chunks);
    return outcome(wrong);
}

/* irregular_bytes' test of the bytes [begin, stop), each with the byte after it: flags
 * or-ed, with no branch per byte (the compiler vectorizes the loop). */
static int irregular_run(const uint8_t *p, Py_ssize_t begin, Py_ssize_t stop, uint8_t delimiter)
{
    const uint8_t tabs = delimiter == '\t';
    for (Py_ssize_t block = begin; block < stop; block += 1 << 16) {
        Py_ssize_t last = block + (1 << 16) < stop ? block + (1 << 16) : stop;
        uint8_t bad = 0;
        for (Py_ssize_t i = block; i < last; i++) {
            uint8_t c = p[i], n = p[i + 1];
            uint8_t ends = (n == delimiter) | (n == '\n') | (n == '\r');
            bad |= (c == delimiter) & ends;
            bad |= (c == '\r') & (n != '\n');
            bad |= (c <= '\r') & (c != '\n') & (c != delimiter) & (c != '\r');
            bad |= tabs & (c == ' ');
        }
        if (bad)
            return 1;
    }
    return 0;
}

static PyObject *irregular_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *data_obj;
    int delimiter;
    Py_ssize_t begin, end;
    if (!PyArg_ParseTuple(args, "Oinn", &data_obj, &delimiter, &begin, &end))
        return NULL;
    Py_buffer data;
    if (get_buffer(data_obj, &data, 0, "Bbc", 1, "data", "bytes") < 0)
        return NULL;
    Py_ssize_t size = data.shape[0];
    if (begin < 0 || end < begin || end > size || delimiter < 0 || delimiter > 255) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "not 0 <= begin <= end <= len(data), or delimiter "
                                          "not a byte");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)data.buf;
    const uint8_t d = (uint8_t)delimiter;
    int irregular;
    Py_BEGIN_ALLOW_THREADS
    /* every byte but the data's last has a byte after it */
    irregular = irregular_run(p, begin, end < size ? end : size - 1, d);
    if (!irregular && end == size && size > begin) { /* the last byte: nothing follows */
        uint8_t c = p[size - 1];
        irregular = c == '\r' || (c < '\r' && c != '\n' && c != d) || (d == '\t' && c == ' ');
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyBool_FromLong(irregular);
}

static PyMethodDef methods[] = {
    {"hash_strings", hash_strings, METH_VARARGS, "Hash each string of an Arrow string column."},
    {"same_strings", same_strings, METH_VARARGS, "Whether pairs of strings are the same bytes."},
    {"descending_order", descending_order, METH_VARARGS,
     "The order of rows by group, then by string descending."},
    {"irregular_bytes", irregular_bytes, METH_VARARGS,
     "Whether a slice of a TREC file holds what Arrow's CSV reader would misread."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_strings", NULL, -1, methods};

PyMODINIT_FUNC PyInit__strings(void)
{
    return PyModule_Create(&module);
}
