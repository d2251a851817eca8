// A MEASUREMENT PROTOTYPE, not part of the product (i20-fleet6, docs/performance.md): the YAML
// writer's walk (adapters/kube/codec.py _mapping, _sequence, _body, Template.render) in C, to
// measure what a compiled writer of exactly our YAML would give. Keys and any string it is not sure
// of are rendered by the Python writer's own _key/_string (cached here by value); a string that
// begins with a letter no typed scalar begins with and is printable ASCII is judged here, as
// _string judges it. Bodies of >= 4 entries memoised by (id, indent), as _body. Unchecked corners
// (a C recursion without a depth bound, a full cache's last answer held in a static) are fine for a
// measurement and not for a product.
// Build: gcc -O2 -shared -fPIC -I$(python -c "import sysconfig;print(sysconfig.get_paths()['include'])") \
//            ywalk.c -o ywalk$(python -c "import sysconfig;print(sysconfig.get_config_var('EXT_SUFFIX'))")
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct { char *p; Py_ssize_t n, cap; } Buf;
static PyObject *string_fn, *key_fn, *unhandled, *tails, *keys, *memo, *shaped_type = NULL, *prepared = NULL;
static Py_ssize_t tails_limit = 1 << 18, keys_limit = 1 << 14;

static int grow(Buf *b, Py_ssize_t need) {
    if (b->n + need <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + need) cap *= 2;
    char *q = PyMem_Realloc(b->p, cap);
    if (!q) { PyErr_NoMemory(); return -1; }
    b->p = q; b->cap = cap; return 0;
}
static inline int put(Buf *b, const char *s, Py_ssize_t n) {
    if (grow(b, n)) return -1; memcpy(b->p + b->n, s, n); b->n += n; return 0;
}
static inline int spaces(Buf *b, int n) {
    if (grow(b, n)) return -1; memset(b->p + b->n, ' ', n); b->n += n; return 0;
}
static int put_bytes(Buf *b, PyObject *bytes) {
    return put(b, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
}
static PyObject *fast_string(PyObject *s);
// rendered text of a str through fn, cached in cache (borrowed reference back)
static PyObject *rendered(PyObject *cache, PyObject *fn, PyObject *s, Py_ssize_t limit) {
    PyObject *r = PyDict_GetItemWithError(cache, s);
    if (r) return r;
    if (PyErr_Occurred()) return NULL;
    r = fn == string_fn ? fast_string(s) : NULL;
    if (!r) {
        if (PyErr_Occurred()) return NULL;
        PyObject *text = PyObject_CallOneArg(fn, s);
        if (!text) return NULL;
        r = PyUnicode_AsUTF8String(text); Py_DECREF(text);
        if (!r) return NULL;
    }
    if (PyDict_GET_SIZE(cache) < limit) { if (PyDict_SetItem(cache, s, r)) { Py_DECREF(r); return NULL; } Py_DECREF(r); return r; }
    // not cached: keep it alive in a small list? simplest: stash in cache anyway under a bound miss
    PyObject *tmp = r; // caller uses immediately; leak-free via a holder
    static PyObject *holder = NULL;
    Py_XDECREF(holder); holder = tmp; return tmp;
}

// codec._string's answer where it is sure without PyYAML: printable ASCII beginning with a letter
// that no implicit resolver (nor go-yaml's typing) starts with; NULL (no error) otherwise.
static int fast_strings = 1;
static PyObject *fast_string(PyObject *s) {
    if (!fast_strings || !PyUnicode_IS_ASCII(s)) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n == 0 || n > 60000) return NULL;
    const unsigned char *c = PyUnicode_1BYTE_DATA(s);
    unsigned char f = c[0];
    if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z')) || strchr("yYnNtTfFoO", f)) return NULL;
    int plain = 1; Py_ssize_t quotes = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char x = c[i];
        if (x < 0x20 || x > 0x7e) return NULL;
        if (x == '\'') quotes++;
        if (x == ':' && (i + 1 == n || c[i + 1] == ' ')) plain = 0;
        if (x == '#' && c[i - 1] == ' ') plain = 0;  // i >= 1: c[0] is a letter
    }
    if (c[n - 1] == ' ') plain = 0;
    if (plain) return PyBytes_FromStringAndSize((const char *)c, n);
    PyObject *r = PyBytes_FromStringAndSize(NULL, n + quotes + 2);
    if (!r) return NULL;
    char *o = PyBytes_AS_STRING(r); *o++ = '\'';
    for (Py_ssize_t i = 0; i < n; i++) { if (c[i] == '\'') *o++ = '\''; *o++ = c[i]; }
    *o = '\'';
    return r;
}
static int mapping(Buf *b, PyObject *d, int indent);
static int sequence(Buf *b, PyObject *items, int indent);

static int scalar(Buf *b, PyObject *v) {
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type) { PyObject *r = rendered(tails, string_fn, v, tails_limit); return r ? put_bytes(b, r) : -1; }
    if (t == &PyBool_Type) return v == Py_True ? put(b, "true", 4) : put(b, "false", 5);
    if (t == &PyLong_Type) {
        PyObject *s = PyObject_Str(v); if (!s) return -1;
        Py_ssize_t n; const char *c = PyUnicode_AsUTF8AndSize(s, &n);
        int rc = c ? put(b, c, n) : -1; Py_DECREF(s); return rc;
    }
    if (v == Py_None) return put(b, "null", 4);
    PyErr_SetNone(unhandled); return -1;
}
static int body(Buf *b, PyObject *d, int indent) {
    PyObject *k = PyLong_FromUnsignedLongLong(((unsigned long long)(uintptr_t)d << 8) | (unsigned)indent);
    if (!k) return -1;
    PyObject *r = PyDict_GetItemWithError(memo, k);
    if (r) { Py_DECREF(k); return put_bytes(b, r); }
    if (PyErr_Occurred()) { Py_DECREF(k); return -1; }
    Buf sub = {0};
    if (mapping(&sub, d, indent)) { PyMem_Free(sub.p); Py_DECREF(k); return -1; }
    r = PyBytes_FromStringAndSize(sub.p, sub.n); PyMem_Free(sub.p);
    if (!r || PyDict_SetItem(memo, k, r)) { Py_XDECREF(r); Py_DECREF(k); return -1; }
    Py_DECREF(k);
    int rc = put_bytes(b, r); Py_DECREF(r); return rc;
}
static int mapping(Buf *b, PyObject *d, int indent) {
    Py_ssize_t pos = 0; PyObject *key, *value; int first = 1;
    while (PyDict_Next(d, &pos, &key, &value)) {
        if (Py_TYPE(key) != &PyUnicode_Type) { PyErr_SetNone(unhandled); return -1; }
        if (!first && spaces(b, indent)) return -1;
        first = 0;
        PyObject *head = rendered(keys, key_fn, key, keys_limit);
        if (!head || put_bytes(b, head)) return -1;
        PyTypeObject *t = Py_TYPE(value);
        if (t == &PyDict_Type) {
            if (PyDict_GET_SIZE(value)) {
                if (put(b, ":\n", 2) || spaces(b, indent + 2)) return -1;
                if ((PyDict_GET_SIZE(value) < 4 ? mapping(b, value, indent + 2) : body(b, value, indent + 2))) return -1;
            } else if (put(b, ": {}\n", 5)) return -1;
        } else if (t == &PyList_Type) {
            if (PyList_GET_SIZE(value)) {
                if (put(b, ":\n", 2) || sequence(b, value, indent)) return -1;
            } else if (put(b, ": []\n", 5)) return -1;
        } else {
            if (put(b, ": ", 2) || scalar(b, value) || put(b, "\n", 1)) return -1;
        }
    }
    return 0;
}
static int sequence(Buf *b, PyObject *items, int indent) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        PyTypeObject *t = Py_TYPE(item);
        if (spaces(b, indent) || put(b, "- ", 2)) return -1;
        if (t == &PyDict_Type) {
            if (!PyDict_GET_SIZE(item)) { if (put(b, "{}\n", 3)) return -1; }
            else if (body(b, item, indent + 2)) return -1;
        } else if (t == &PyList_Type) {
            if (!PyList_GET_SIZE(item)) { if (put(b, "[]\n", 3)) return -1; }
            else {
                Buf sub = {0};
                if (sequence(&sub, item, indent + 2)) { PyMem_Free(sub.p); return -1; }
                int rc = put(b, sub.p + indent + 2, sub.n - indent - 2); PyMem_Free(sub.p);
                if (rc) return -1;
            }
        } else if (scalar(b, item) || put(b, "\n", 1)) return -1;
    }
    return 0;
}

// A Shaped document from its template (codec.Template.render): -1 with Unhandled set where a value
// needs the walk (the caller then walks it as the dict it is).
static PyObject *prepare(PyObject *t) {
    // (order tuple of ints, heads tuple of bytes, mapping heads tuple of bytes, deepers tuple of ints, tail bytes)
    PyObject *order = PyObject_GetAttrString(t, "_order"), *sh = PyObject_GetAttrString(t, "_scalar_heads"),
             *mh = PyObject_GetAttrString(t, "_mapping_heads"), *tail = PyObject_GetAttrString(t, "_tail");
    if (!order || !sh || !mh || !tail) goto fail;
    Py_ssize_t n = PyList_GET_SIZE(order);
    PyObject *o = PyTuple_New(n), *h = PyTuple_New(n), *m = PyTuple_New(n), *d = PyTuple_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTuple_SET_ITEM(o, i, Py_NewRef(PyList_GET_ITEM(order, i)));
        PyTuple_SET_ITEM(h, i, PyUnicode_AsUTF8String(PyList_GET_ITEM(sh, i)));
        PyObject *pair = PyList_GET_ITEM(mh, i);
        PyTuple_SET_ITEM(m, i, PyUnicode_AsUTF8String(PyTuple_GET_ITEM(pair, 0)));
        PyTuple_SET_ITEM(d, i, PyLong_FromSsize_t(PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(pair, 1))));
    }
    PyObject *r = Py_BuildValue("(NNNNN)", o, h, m, d, PyUnicode_AsUTF8String(tail));
    Py_DECREF(order); Py_DECREF(sh); Py_DECREF(mh); Py_DECREF(tail);
    return r;
fail:
    Py_XDECREF(order); Py_XDECREF(sh); Py_XDECREF(mh); Py_XDECREF(tail); return NULL;
}
static int body(Buf *b, PyObject *d, int indent);
static int scalar(Buf *b, PyObject *v);
static int from_template(Buf *b, PyObject *obj) {
    PyObject *t = PyObject_GetAttrString(obj, "_template");
    if (!t) return -1;
    PyObject *k = PyLong_FromVoidPtr(t);
    PyObject *p = PyDict_GetItemWithError(prepared, k);
    if (!p) {
        if (PyErr_Occurred() || !(p = prepare(t)) || PyDict_SetItem(prepared, k, p)) { Py_XDECREF(p); Py_DECREF(k); Py_DECREF(t); return -1; }
        Py_DECREF(p);  // held by prepared (as is the template, by its documents)
    }
    Py_DECREF(k); Py_DECREF(t);
    PyObject *values = PyObject_GetAttrString(obj, "_values");
    if (!values) return -1;
    PyObject *order = PyTuple_GET_ITEM(p, 0), *heads = PyTuple_GET_ITEM(p, 1), *mheads = PyTuple_GET_ITEM(p, 2),
             *deepers = PyTuple_GET_ITEM(p, 3), *tail = PyTuple_GET_ITEM(p, 4);
    int rc = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(order) && !rc; i++) {
        PyObject *v = PyTuple_GET_ITEM(values, PyLong_AsSsize_t(PyTuple_GET_ITEM(order, i)));
        if (Py_TYPE(v) == &PyDict_Type && PyDict_GET_SIZE(v)) {
            rc = put_bytes(b, PyTuple_GET_ITEM(mheads, i)) || body(b, v, (int)PyLong_AsLong(PyTuple_GET_ITEM(deepers, i)));
            continue;
        }
        rc = put_bytes(b, PyTuple_GET_ITEM(heads, i)) || scalar(b, v) || put(b, "\n", 1);
    }
    if (!rc) rc = put_bytes(b, tail);
    Py_DECREF(values);
    return rc ? -1 : 0;
}
static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *s, *k, *u, *tl, *kl, *m;
    PyObject *sht = NULL;
    if (!PyArg_ParseTuple(args, "OOOO!O!O!|iO", &s, &k, &u, &PyDict_Type, &tl, &PyDict_Type, &kl, &PyDict_Type, &m, &fast_strings, &sht)) return NULL;
    Py_XSETREF(shaped_type, Py_XNewRef(sht));
    if (!prepared) prepared = PyDict_New();
    Py_XSETREF(string_fn, Py_NewRef(s)); Py_XSETREF(key_fn, Py_NewRef(k)); Py_XSETREF(unhandled, Py_NewRef(u));
    Py_XSETREF(tails, Py_NewRef(tl)); Py_XSETREF(keys, Py_NewRef(kl)); Py_XSETREF(memo, Py_NewRef(m));
    Py_RETURN_NONE;
}
// documents(objs) -> bytes of "---\n" + body for each (dicts only; Unhandled otherwise)
static PyObject *documents(PyObject *self, PyObject *objs) {
    if (!PyList_Check(objs)) { PyErr_SetString(PyExc_TypeError, "list"); return NULL; }
    Buf b = {0};
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(objs); i++) {
        PyObject *o = PyList_GET_ITEM(objs, i);
        if (put(&b, "---\n", 4)) goto fail;
        if (shaped_type && (PyObject *)Py_TYPE(o) == shaped_type) {
            Py_ssize_t mark = b.n;
            if (!from_template(&b, o)) continue;
            if (!PyErr_ExceptionMatches(unhandled)) goto fail;
            PyErr_Clear(); b.n = mark;  // walked below, as the dict it is
            if (!PyDict_GET_SIZE(o)) { if (put(&b, "{}\n", 3)) goto fail; }
            else if (mapping(&b, o, 0)) goto fail;
            continue;
        }
        if (Py_TYPE(o) != &PyDict_Type) { PyErr_SetNone(unhandled); goto fail; }
        if (!PyDict_GET_SIZE(o)) { if (put(&b, "{}\n", 3)) goto fail; }
        else if (mapping(&b, o, 0)) goto fail;
    }
    PyObject *r = PyBytes_FromStringAndSize(b.p, b.n); PyMem_Free(b.p); return r;
fail:
    PyMem_Free(b.p); return NULL;
}
static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, ""}, {"documents", documents, METH_O, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "ywalk", NULL, -1, methods};
PyMODINIT_FUNC PyInit_ywalk(void) { return PyModule_Create(&mod); }
