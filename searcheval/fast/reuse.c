/* numpy's arrays, while a library call runs, from blocks the call freed (fast/reuse.py).
 *
 * A numpy memory handler (NEP 49: numpy's PyDataMem_Handler, NumPy 1.22 and later) set in
 * the calling context only: numpy keeps its handler in a context variable, so other
 * threads and contexts keep numpy's own allocator, and nothing of the process changes.
 * While at least one call is inside (enter ... leave), a freed block of LARGE bytes or
 * more is kept, up to KEPT of them, and handed to the next array that fits it; when the
 * last call leaves, the kept blocks go back to the system, and blocks freed later go back
 * at once. Why: every fresh page of a temporary costs the kernel a fault and a zeroing,
 * and numpy's own allocator asks for 2 MiB pages for arrays of 4 MiB and more, which a
 * virtual machine's host may fill 4 KiB at a time; a kept block is already mapped, and
 * the blocks this handler maps are ordinary pages.
 *
 * numpy's headers are not needed: the handler's layout is numpy's ABI (ndarraytypes.h),
 * and PyDataMem_SetHandler is slot 304 of numpy's C API table, which ``bind`` is given
 * (the ``_ARRAY_API`` capsule; the slots of that table never move).
 *
 * Every block carries a head: its capacity (0 for a small block, which is never kept) and
 * the size asked, so that free and realloc know which kind it is. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LARGE ((size_t)1 << 20)
#define KEPT 64
#define SET_HANDLER_SLOT 304

typedef struct {
    void *ctx;
    void *(*malloc)(void *ctx, size_t size);
    void *(*calloc)(void *ctx, size_t nelem, size_t elsize);
    void *(*realloc)(void *ctx, void *ptr, size_t new_size);
    void (*free)(void *ctx, void *ptr, size_t size);
} Allocator;

typedef struct {
    char name[127];
    uint8_t version;
    Allocator allocator;
} Handler;

typedef struct {
    size_t capacity;
    size_t size;
} Head;

static void *kept[KEPT];
static int num_kept = 0;
static int calls_inside = 0;
static PyThread_type_lock lock = NULL;
static PyObject *(*set_handler)(PyObject *) = NULL;

static Head *head_of(void *data) { return (Head *)data - 1; }
static void *data_of(Head *head) { return head + 1; }

/* The smallest kept block that holds `size` bytes and is at most about twice as large
 * (a far larger one waits for an array of its size); on a miss, the kept blocks too small
 * for `size` are let go into `unkept`, so that keeping never adds to the peak. */
static Head *take(size_t size, Head **unkept, int *num_unkept)
{
    int best = -1;
    PyThread_acquire_lock(lock, WAIT_LOCK);
    for (int i = 0; i < num_kept; i++) {
        size_t capacity = ((Head *)kept[i])->capacity;
        if (capacity >= size && capacity <= 2 * size + LARGE
            && (best < 0 || capacity < ((Head *)kept[best])->capacity))
            best = i;
    }
    Head *found = NULL;
    if (best >= 0) {
        found = kept[best];
        kept[best] = kept[--num_kept];
    } else {
        for (int i = num_kept - 1; i >= 0; i--)
            if (((Head *)kept[i])->capacity < size) {
                unkept[(*num_unkept)++] = kept[i];
                kept[i] = kept[--num_kept];
            }
    }
    PyThread_release_lock(lock);
    return found;
}

static void *large_block(size_t size, int zeroed)
{
    Head *unkept[KEPT];
    int num_unkept = 0;
    Head *head = take(size, unkept, &num_unkept);
    for (int i = 0; i < num_unkept; i++)
        free(unkept[i]);
    if (head != NULL) {
        if (zeroed)
            memset(data_of(head), 0, size);
    } else {
        head = zeroed ? calloc(1, sizeof(Head) + size) : malloc(sizeof(Head) + size);
        if (head == NULL)
            return NULL;
        head->capacity = size;
    }
    head->size = size;
    return data_of(head);
}

static void *small_block(size_t size, int zeroed)
{
    Head *head = zeroed ? calloc(1, sizeof(Head) + size) : malloc(sizeof(Head) + size);
    if (head == NULL)
        return NULL;
    head->capacity = 0;
    head->size = size;
    return data_of(head);
}

static void *reuse_malloc(void *ctx, size_t size)
{
    (void)ctx;
    if (size > SIZE_MAX - sizeof(Head))
        return NULL;
    return size >= LARGE ? large_block(size, 0) : small_block(size, 0);
}

static void *reuse_calloc(void *ctx, size_t nelem, size_t elsize)
{
    (void)ctx;
    if (elsize != 0 && nelem > (SIZE_MAX - sizeof(Head)) / elsize)
        return NULL;
    size_t size = nelem * elsize;
    return size >= LARGE ? large_block(size, 1) : small_block(size, 1);
}

static void reuse_free(void *ctx, void *data, size_t size)
{
    (void)ctx;
    (void)size;
    if (data == NULL)
        return;
    Head *head = head_of(data);
    if (head->capacity != 0) {
        PyThread_acquire_lock(lock, WAIT_LOCK);
        if (calls_inside > 0 && num_kept < KEPT) {
            kept[num_kept++] = head;
            head = NULL;
        }
        PyThread_release_lock(lock);
    }
    free(head);
}

static void *reuse_realloc(void *ctx, void *data, size_t size)
{
    if (data == NULL)
        return reuse_malloc(ctx, size);
    if (size > SIZE_MAX - sizeof(Head))
        return NULL;
    Head *head = head_of(data);
    if (head->capacity == 0 && size < LARGE) {
        head = realloc(head, sizeof(Head) + size);
        if (head == NULL)
            return NULL;
        head->size = size;
        return data_of(head);
    }
    if (head->capacity >= size) {
        head->size = size;
        return data;
    }
    void *moved = reuse_malloc(ctx, size);
    if (moved == NULL)
        return NULL;
    memcpy(moved, data, head->size < size ? head->size : size);
    reuse_free(ctx, data, head->size);
    return moved;
}

static Handler handler = {
    "searcheval_reuse", 1,
    {NULL, reuse_malloc, reuse_calloc, reuse_realloc, reuse_free}};

static PyObject *bind(PyObject *self, PyObject *api)
{
    (void)self;
    void **table = PyCapsule_GetPointer(api, NULL);
    if (table == NULL)
        return NULL;
    set_handler = (PyObject *(*)(PyObject *))table[SET_HANDLER_SLOT];
    Py_RETURN_NONE;
}

/* The calling context's numpy handler becomes this one; returns the one it replaced. */
static PyObject *enter(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (set_handler == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "enter: numpy's C API not bound");
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(&handler, "mem_handler", NULL);
    if (capsule == NULL)
        return NULL;
    PyObject *replaced = set_handler(capsule);
    Py_DECREF(capsule);
    if (replaced != NULL) {
        PyThread_acquire_lock(lock, WAIT_LOCK);
        calls_inside++;
        PyThread_release_lock(lock);
    }
    return replaced;
}

/* The calling context's handler back to `replaced`; the last call out lets the kept
 * blocks go. */
static PyObject *leave(PyObject *self, PyObject *replaced)
{
    (void)self;
    PyObject *mine = set_handler(replaced);
    Head *unkept[KEPT];
    int num_unkept = 0;
    PyThread_acquire_lock(lock, WAIT_LOCK);
    if (--calls_inside == 0) {
        memcpy(unkept, kept, sizeof(Head *) * num_kept);
        num_unkept = num_kept;
        num_kept = 0;
    }
    PyThread_release_lock(lock);
    for (int i = 0; i < num_unkept; i++)
        free(unkept[i]);
    if (mine == NULL)
        return NULL;
    Py_DECREF(mine);
    Py_RETURN_NONE;
}

/* How many blocks are kept now (tests). */
static PyObject *kept_blocks(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyThread_acquire_lock(lock, WAIT_LOCK);
    int count = num_kept;
    PyThread_release_lock(lock);
    return PyLong_FromLong(count);
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_O, "bind(api): numpy's _ARRAY_API capsule."},
    {"enter", enter, METH_NOARGS, "enter() -> the numpy handler replaced."},
    {"leave", leave, METH_O, "leave(replaced): that handler back."},
    {"kept_blocks", kept_blocks, METH_NOARGS, "kept_blocks() -> blocks kept now."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_reuse", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__reuse(void)
{
    lock = PyThread_allocate_lock();
    if (lock == NULL)
        return PyErr_NoMemory();
    return PyModule_Create(&module);
}
