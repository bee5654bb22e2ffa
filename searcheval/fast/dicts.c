/* searcheval.fast._dicts: one pass in C over a {query_id: {doc_id: value}} dict.
 *
 * Contract (fast/dicts.py is the Python side, tests/test_dicts_kernel.py holds both to the
 * plain Python way):
 *
 *   flat_scores(run) -> (sizes, scores, all_ascii) or None
 *       sizes: a bytearray of one int64 per query (its entries), in the dict's order;
 *       scores: a bytearray of one float64 per entry, queries in order, each query's
 *       entries in order; all_ascii: whether every doc id is ASCII.
 *   judgments(run, codes) -> a bytearray of one int32 per entry of run, or None
 *       per entry, codes[query][doc] (an int within 32 bits), -1 when the query or the
 *       doc is not in codes.
 *   numbers_only(nested) -> bool
 *       whether nested is a dict of dicts whose every inner value is a number and no
 *       container (what Arrow's type inference may be given: it follows a dict or a list
 *       into its values with no depth limit, so a self-referential or deeply nested
 *       value overflowed the C stack there). A Python or numpy number is one.
 *
 * None means "not for this kernel": a key that is not exactly a str, an inner value that
 * is not exactly a dict, a score that is not a float (or float subclass, as numpy's
 * float64) or an int that is not a bool, a code that is not an int within 32 bits. The
 * caller then takes its Python way, which converts or refuses the entry by name. The run's
 * keys are exact str, so hashing them runs no Python code; comparing one with a codes key
 * that is a str subclass may (its __eq__), so what a pass reads is held while it looks up,
 * and a dict that changed size under it sends the caller its Python way.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static int is_plain_str(PyObject *key)
{
    if (!PyUnicode_CheckExact(key))
        return 0;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(key) < 0) {
        PyErr_Clear();
        return 0;
    }
#endif
    return 1;
}

/* The number of entries of a dict of dicts with str query ids; -1: not such a dict. */
static Py_ssize_t entries(PyObject *nested)
{
    Py_ssize_t pos = 0, total = 0;
    PyObject *query, *docs;
    if (!PyDict_CheckExact(nested))
        return -1;
    while (PyDict_Next(nested, &pos, &query, &docs)) {
        if (!is_plain_str(query) || !PyDict_CheckExact(docs))
            return -1;
        total += PyDict_GET_SIZE(docs);
    }
    return total;
}

static PyObject *flat_scores(PyObject *self, PyObject *run)
{
    (void)self;
    Py_ssize_t total = entries(run), pos = 0, at = 0, q = 0;
    PyObject *query, *docs, *sizes, *scores;
    int all_ascii = 1;
    if (total < 0)
        Py_RETURN_NONE;
    sizes = PyByteArray_FromStringAndSize(NULL, PyDict_GET_SIZE(run) * (Py_ssize_t)sizeof(int64_t));
    scores = PyByteArray_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(double));
    if (sizes == NULL || scores == NULL)
        goto failed;
    int64_t *size = (int64_t *)PyByteArray_AS_STRING(sizes);
    double *score = (double *)PyByteArray_AS_STRING(scores);
    while (PyDict_Next(run, &pos, &query, &docs)) {
        Py_ssize_t inner = 0;
        PyObject *doc, *value;
        size[q++] = PyDict_GET_SIZE(docs);
        while (PyDict_Next(docs, &inner, &doc, &value)) {
            if (!is_plain_str(doc))
                goto not_mine;
            if (!PyUnicode_IS_ASCII(doc))
                all_ascii = 0;
            if (PyFloat_Check(value)) {
                score[at++] = PyFloat_AS_DOUBLE(value);
            } else if (PyLong_CheckExact(value)) {
                double d = PyLong_AsDouble(value);
                if (d == -1.0 && PyErr_Occurred()) {  /* beyond a double: Python says so */
                    PyErr_Clear();
                    goto not_mine;
                }
                score[at++] = d;
            } else {
                goto not_mine;
            }
        }
    }
    return Py_BuildValue("(NNO)", sizes, scores, all_ascii ? Py_True : Py_False);
not_mine:
    Py_DECREF(sizes);
    Py_DECREF(scores);
    Py_RETURN_NONE;
failed:
    Py_XDECREF(sizes);
    Py_XDECREF(scores);
    return NULL;
}

/* One query's codes: 1 done, 0 not for this kernel, -1 an error raised. A key of
 * ``judged`` may be a str subclass whose __eq__ is Python code, run by a lookup: the dicts
 * and the doc are held meanwhile, so that code cannot free them under the pass, and a
 * query whose entries it changed in number is left to the Python way. */
static int judge_query(PyObject *docs, PyObject *judged, int32_t *out, Py_ssize_t expected)
{
    Py_ssize_t inner = 0, at = 0;
    PyObject *doc, *value;
    int status = 1;
    Py_INCREF(docs);
    Py_INCREF(judged);
    while (status == 1 && PyDict_Next(docs, &inner, &doc, &value)) {
        if (!is_plain_str(doc) || at >= expected) {
            status = 0;
            break;
        }
        Py_INCREF(doc);
        PyObject *grade = PyDict_GetItemWithError(judged, doc);
        Py_DECREF(doc);
        if (grade == NULL) {
            if (PyErr_Occurred())
                status = -1;
            else
                out[at++] = -1;
            continue;
        }
        if (!PyLong_CheckExact(grade)) {
            status = 0;
            break;
        }
        long code = PyLong_AsLong(grade);
        if ((code == -1 && PyErr_Occurred()) || code < INT32_MIN || code > INT32_MAX) {
            PyErr_Clear();
            status = 0;
            break;
        }
        out[at++] = (int32_t)code;
    }
    if (status == 1 && (at != expected || PyDict_GET_SIZE(docs) != expected))
        status = 0;
    Py_DECREF(judged);
    Py_DECREF(docs);
    return status;
}

static PyObject *judgments(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *run, *codes, *query, *docs, *found;
    Py_ssize_t total, pos = 0, at = 0;
    if (!PyArg_ParseTuple(args, "OO", &run, &codes))
        return NULL;
    total = entries(run);
    if (total < 0 || !PyDict_CheckExact(codes))
        Py_RETURN_NONE;
    found = PyByteArray_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(int32_t));
    if (found == NULL)
        return NULL;
    int32_t *out = (int32_t *)PyByteArray_AS_STRING(found);
    while (PyDict_Next(run, &pos, &query, &docs)) {
        if (!PyDict_CheckExact(docs) || !is_plain_str(query))
            goto not_mine;  /* replaced by a key's __eq__ since ``entries`` looked */
        Py_ssize_t size = PyDict_GET_SIZE(docs);
        Py_INCREF(query);
        Py_INCREF(docs);
        PyObject *judged = PyDict_GetItemWithError(codes, query);
        int status = 1;
        if (at + size > total || PyDict_GET_SIZE(docs) != size) {
            status = 0;  /* changed by a key's __eq__ */
        } else if (judged == NULL) {
            status = PyErr_Occurred() ? -1 : 1;
            for (Py_ssize_t i = 0; status == 1 && i < size; i++)
                out[at + i] = -1;  /* a query the qrels do not judge */
        } else if (!PyDict_CheckExact(judged)) {
            status = 0;
        } else {
            status = judge_query(docs, judged, out + at, size);
        }
        Py_DECREF(docs);
        Py_DECREF(query);
        if (status < 0)
            goto failed;
        if (status == 0)
            goto not_mine;
        at += size;
    }
    if (at != total)
        goto not_mine;
    return found;
not_mine:
    Py_DECREF(found);
    Py_RETURN_NONE;
failed:
    Py_DECREF(found);
    return NULL;
}

/* A number (it has int, index or float conversion slots) that is no sequence (a numpy
 * array has those slots too) and no dict. Only type slots are read: no Python code runs,
 * so the dicts cannot change under the pass. */
static int plain_number(PyObject *value)
{
    if (PyFloat_CheckExact(value) || PyLong_CheckExact(value))  /* nearly every value */
        return 1;
    return PyNumber_Check(value) && !PySequence_Check(value) && !PyDict_Check(value);
}

static PyObject *numbers_only(PyObject *self, PyObject *nested)
{
    (void)self;
    Py_ssize_t pos = 0;
    PyObject *query, *docs;
    if (!PyDict_Check(nested))
        Py_RETURN_FALSE;
    while (PyDict_Next(nested, &pos, &query, &docs)) {
        Py_ssize_t inner = 0;
        PyObject *doc, *value;
        if (!PyDict_Check(docs))
            Py_RETURN_FALSE;
        while (PyDict_Next(docs, &inner, &doc, &value)) {
            if (!plain_number(value))
                Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"numbers_only", numbers_only, METH_O,
     "Whether every inner value of a {query: {doc: value}} dict is a number, no container."},
    {"flat_scores", flat_scores, METH_O,
     "(sizes, scores, all_ascii) of a {query: {doc: score}} dict, or None."},
    {"judgments", judgments, METH_VARARGS,
     "Per entry of a run dict, its code in a {query: {doc: code}} dict (-1: none), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dicts", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dicts(void)
{
    return PyModule_Create(&module);
}
