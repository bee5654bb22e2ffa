/* The buffer checks the compiled modules share (spans.c, strings.c, pairs.c): a Python
 * object's memory taken only when it is what the module reads, so that, say, a float64
 * array is refused where uint64 keys are sorted, instead of being sorted by its bits. */
#ifndef SEARCHEVAL_BUFFERS_H
#define SEARCHEVAL_BUFFERS_H

#include <Python.h>
#include <string.h>

/* A 1-D C-contiguous buffer whose items are of one of the struct `formats` ("lq": int64
 * as numpy gives either code) and of `itemsize` bytes (0: 4 or 8), writable if asked;
 * else ValueError "<name>: expected a 1-D buffer of <expected>", and nothing held. */
static int get_buffer(PyObject *obj, Py_buffer *view, int writable, const char *formats,
                      Py_ssize_t itemsize, const char *name, const char *expected)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0)
        return -1;
    const char *format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=' || *format == '<')
        format++;
    int typed = strlen(format) == 1 && strchr(formats, *format) != NULL;
    int sized = itemsize ? view->itemsize == itemsize
                         : (view->itemsize == 4 || view->itemsize == 8);
    if (view->ndim != 1 || !typed || !sized) {
        PyErr_Format(PyExc_ValueError, "%s: expected a 1-D buffer of %s", name, expected);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#endif
