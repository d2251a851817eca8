/* The YAML writer of adapters/kube/codec.py (_document, _mapping, _sequence, _body,
 * Template.render) in C: the same bytes, several times faster. Optional: codec uses its Python
 * writer when this module is not built, and for every document this one leaves to it.
 *
 * Exact or silent. Only exact dicts, lists, str, int, bool and None (and codec.Shaped documents)
 * are written here. Anything else, a depth past MAX_DEPTH, or codec.Unhandled raised by codec's
 * own _string/_key makes render() stop before that document and return; codec then writes it
 * (the Python writer's bytes, or PyYAML's). Strings are judged here only where _string's answer
 * is plain to read: printable ASCII beginning with a character no typed scalar begins with
 * (codec._UNTYPED_STARTS, given by configure); any other string and every key is rendered by
 * codec's _string/_key once and kept by value. Mappings of SHARED_MIN entries or more, and
 * mappings in lists, are rendered once per object and indentation (by identity, as _body).
 *
 * Build in place: python setup.py build_ext --inplace (pip install . builds it too). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define DEFER (-2)     /* a document this module leaves to codec (no exception set) */
#define MAX_DEPTH 100  /* nesting past this is left to codec */
#define NO_TEMPLATE (-3) /* a Shaped document without its template's parts: left to codec */

typedef struct {
    char *p;
    Py_ssize_t n, cap;
    PyObject *memo, *strings, *keys; /* borrowed from render()'s arguments */
} Writer;

/* Set once by configure(). */
static PyObject *string_fn, *key_fn, *unhandled, *shaped_type, *template_name, *values_name, *prepared_name;
static char untyped[128];
static Py_ssize_t strings_limit, keys_limit, max_plain, shared_min;

static int grow(Writer *w, Py_ssize_t need) {
    if (w->n + need <= w->cap) return 0;
    if (need > PY_SSIZE_T_MAX / 2 - w->n) { PyErr_NoMemory(); return -1; }
    Py_ssize_t cap = w->cap ? w->cap : 1 << 16;
    while (cap < w->n + need) cap *= 2;
    char *p = PyMem_Realloc(w->p, cap);
    if (!p) { PyErr_NoMemory(); return -1; }
    w->p = p;
    w->cap = cap;
    return 0;
}

static int put(Writer *w, const char *s, Py_ssize_t n) {
    if (grow(w, n)) return -1;
    memcpy(w->p + w->n, s, n);
    w->n += n;
    return 0;
}

static int spaces(Writer *w, Py_ssize_t n) {
    if (grow(w, n)) return -1;
    memset(w->p + w->n, ' ', n);
    w->n += n;
    return 0;
}

static int put_bytes(Writer *w, PyObject *bytes) {
    return put(w, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
}

/* codec._block_indicated: an indicator first, "?", ":" or "-" alone or before a space first,
 * ":" or a space last, ": " or " #" anywhere, "---" or "..." first. */
static int block_indicated(const unsigned char *c, Py_ssize_t n) {
    unsigned char first = c[0], last = c[n - 1];
    if (memchr("#,[]{}&*!|>'\"%@` ", first, 17)) return 1;
    if ((first == '?' || first == ':' || first == '-') && (n == 1 || c[1] == ' ')) return 1;
    if (last == ':' || last == ' ') return 1;
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if ((c[i] == ':' && c[i + 1] == ' ') || (c[i] == ' ' && c[i + 1] == '#')) return 1;
    return n >= 3 && (!memcmp(c, "---", 3) || !memcmp(c, "...", 3));
}

/* A string _string renders without PyYAML's resolver: written (1), or not judged here (0). */
static int plain_string(Writer *w, PyObject *s) {
    if (!PyUnicode_IS_ASCII(s)) return 0;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    const unsigned char *c = PyUnicode_1BYTE_DATA(s);
    if (n == 0 || n > max_plain || !untyped[c[0]]) return 0;
    Py_ssize_t quotes = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (c[i] < 0x20 || c[i] > 0x7e) return 0;
        quotes += c[i] == '\'';
    }
    if (!block_indicated(c, n)) return put(w, (const char *)c, n) ? -1 : 1;
    if (grow(w, n + quotes + 2)) return -1;
    char *o = w->p + w->n;
    *o++ = '\'';
    for (Py_ssize_t i = 0; i < n; i++) {
        if (c[i] == '\'') *o++ = '\'';
        *o++ = (char)c[i];
    }
    *o++ = '\'';
    w->n = o - w->p;
    return 1;
}

/* fn(s) (codec's _string or _key) in UTF-8, kept in `cache` by value while it holds < limit. */
static int put_rendered(Writer *w, PyObject *cache, PyObject *fn, PyObject *s, Py_ssize_t limit) {
    PyObject *r = PyDict_GetItemWithError(cache, s);
    if (r) return put_bytes(w, r);
    if (PyErr_Occurred()) return -1;
    PyObject *text = PyObject_CallOneArg(fn, s);
    if (!text) {
        if (!PyErr_ExceptionMatches(unhandled)) return -1;
        PyErr_Clear();
        return DEFER;
    }
    r = PyUnicode_AsUTF8String(text);
    Py_DECREF(text);
    if (!r) return -1;
    int rc = PyDict_GET_SIZE(cache) < limit ? PyDict_SetItem(cache, s, r) : 0;
    if (!rc) rc = put_bytes(w, r);
    Py_DECREF(r);
    return rc;
}

static int string(Writer *w, PyObject *s) {
    int rc = plain_string(w, s);
    return rc ? (rc < 0 ? -1 : 0) : put_rendered(w, w->strings, string_fn, s, strings_limit);
}

/* codec._scalar: str, bool, int, None; anything else is left to codec. */
static int scalar(Writer *w, PyObject *v) {
    if (PyUnicode_CheckExact(v)) return string(w, v);
    if (v == Py_True) return put(w, "true", 4);
    if (v == Py_False) return put(w, "false", 5);
    if (v == Py_None) return put(w, "null", 4);
    if (!PyLong_CheckExact(v)) return DEFER;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (!overflow) {
        char digits[32];
        return put(w, digits, snprintf(digits, sizeof digits, "%lld", x));
    }
    PyObject *text = PyObject_Str(v); /* str(): its limit on digits raises as in codec */
    if (!text) return -1;
    Py_ssize_t n;
    const char *c = PyUnicode_AsUTF8AndSize(text, &n);
    int rc = c ? put(w, c, n) : -1;
    Py_DECREF(text);
    return rc;
}

static int mapping(Writer *w, PyObject *d, Py_ssize_t indent, int depth);
static int sequence(Writer *w, PyObject *items, Py_ssize_t indent, int depth, int first_indented);

/* codec._body: a non-empty mapping's entries, rendered once per object and indentation. */
static int body(Writer *w, PyObject *d, Py_ssize_t indent, int depth) {
    unsigned long long at = (uintptr_t)d;
    /* Held by its container and the caller's reference alone, it stands nowhere else: no memo. */
    if (Py_REFCNT(d) <= 2 || indent >= 1 << 16 || at >> 48) return mapping(w, d, indent, depth);
    PyObject *key = PyLong_FromUnsignedLongLong(at << 16 | (unsigned long long)indent);
    if (!key) return -1;
    PyObject *text = PyDict_GetItemWithError(w->memo, key);
    int rc;
    if (text)
        rc = put_bytes(w, text);
    else if (PyErr_Occurred())
        rc = -1;
    else {
        Py_ssize_t mark = w->n;
        rc = mapping(w, d, indent, depth);
        if (!rc) {
            text = PyBytes_FromStringAndSize(w->p + mark, w->n - mark);
            rc = text ? PyDict_SetItem(w->memo, key, text) : -1;
            Py_XDECREF(text);
        }
    }
    Py_DECREF(key);
    return rc;
}

static int entry(Writer *w, PyObject *key, PyObject *value, Py_ssize_t indent, int depth) {
    int rc = put_rendered(w, w->keys, key_fn, key, keys_limit);
    if (rc) return rc;
    if (PyDict_CheckExact(value)) {
        Py_ssize_t size = PyDict_GET_SIZE(value);
        if (!size) return put(w, ": {}\n", 5);
        if (put(w, ":\n", 2) || spaces(w, indent + 2)) return -1;
        return size < shared_min ? mapping(w, value, indent + 2, depth + 1) : body(w, value, indent + 2, depth + 1);
    }
    if (PyList_CheckExact(value)) {
        if (!PyList_GET_SIZE(value)) return put(w, ": []\n", 5);
        return put(w, ":\n", 2) ? -1 : sequence(w, value, indent, depth + 1, 1);
    }
    if (put(w, ": ", 2)) return -1;
    rc = scalar(w, value);
    return rc ? rc : put(w, "\n", 1);
}

/* codec._mapping: the entries, each line but the first (written by the caller) indented. */
static int mapping(Writer *w, PyObject *d, Py_ssize_t indent, int depth) {
    if (depth > MAX_DEPTH) return DEFER;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    for (int first = 1; PyDict_Next(d, &pos, &key, &value); first = 0) {
        if (!PyUnicode_CheckExact(key)) return DEFER;
        if (!first && spaces(w, indent)) return -1;
        Py_INCREF(key);
        Py_INCREF(value);
        int rc = entry(w, key, value, indent, depth);
        Py_DECREF(key);
        Py_DECREF(value);
        if (rc) return rc;
    }
    return 0;
}

/* codec._sequence: "- " items at `indent`; a list in a list continues its dash's line. */
static int sequence(Writer *w, PyObject *items, Py_ssize_t indent, int depth, int first_indented) {
    if (depth > MAX_DEPTH) return DEFER;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        if ((i || first_indented) && spaces(w, indent)) return -1;
        if (put(w, "- ", 2)) return -1;
        PyObject *item = PyList_GET_ITEM(items, i);
        Py_INCREF(item);
        int rc;
        if (PyDict_CheckExact(item))
            rc = PyDict_GET_SIZE(item) ? body(w, item, indent + 2, depth + 1) : put(w, "{}\n", 3);
        else if (PyList_CheckExact(item))
            rc = PyList_GET_SIZE(item) ? sequence(w, item, indent + 2, depth + 1, 0) : put(w, "[]\n", 3);
        else if (!(rc = scalar(w, item)))
            rc = put(w, "\n", 1);
        Py_DECREF(item);
        if (rc) return rc;
    }
    return 0;
}

/* codec.Template.render from the template's _prepared tuple: (holes' argument positions,
 * scalar heads, mapping heads, mapping indents, tail); DEFER for a value it does not write. */
static int from_template(Writer *w, PyObject *obj) {
    PyObject *template = PyObject_GetAttr(obj, template_name);
    PyObject *shape = template ? PyObject_GetAttr(template, prepared_name) : NULL;
    PyObject *values = shape ? PyObject_GetAttr(obj, values_name) : NULL;
    Py_XDECREF(template);
    int rc = NO_TEMPLATE;
    if (!values) {
        PyErr_Clear(); /* codec's own render says what is missing */
        goto done;
    }
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 5 || !PyTuple_CheckExact(values)) goto done;
    PyObject *order = PyTuple_GET_ITEM(shape, 0), *heads = PyTuple_GET_ITEM(shape, 1),
             *mapping_heads = PyTuple_GET_ITEM(shape, 2), *indents = PyTuple_GET_ITEM(shape, 3),
             *tail = PyTuple_GET_ITEM(shape, 4);
    rc = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(order) && !rc; i++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(order, i));
        if (at < 0 || at >= PyTuple_GET_SIZE(values)) {
            PyErr_Clear();
            rc = DEFER;
            break;
        }
        PyObject *value = PyTuple_GET_ITEM(values, at);
        if (PyDict_CheckExact(value) && PyDict_GET_SIZE(value)) {
            if (put_bytes(w, PyTuple_GET_ITEM(mapping_heads, i))) rc = -1;
            else rc = body(w, value, PyLong_AsSsize_t(PyTuple_GET_ITEM(indents, i)), 1);
        } else if (put_bytes(w, PyTuple_GET_ITEM(heads, i)))
            rc = -1;
        else if (!(rc = scalar(w, value)))
            rc = put(w, "\n", 1);
    }
    if (!rc) rc = put_bytes(w, tail);
done:
    Py_XDECREF(shape);
    Py_XDECREF(values);
    return rc;
}

/* codec._document, after its "---\n". */
static int document(Writer *w, PyObject *obj) {
    if (put(w, "---\n", 4)) return -1;
    Py_ssize_t mark = w->n;
    if ((PyObject *)Py_TYPE(obj) == shaped_type) {
        int rc = from_template(w, obj);
        if (rc != DEFER) return rc == NO_TEMPLATE ? DEFER : rc;
        w->n = mark; /* walked below, as the dict it is */
    } else if (!PyDict_CheckExact(obj))
        return DEFER;
    return PyDict_GET_SIZE(obj) ? mapping(w, obj, 0, 0) : put(w, "{}\n", 3);
}

PyDoc_STRVAR(render_doc,
             "render(objects, start, stop, memo, strings, keys) -> (bytes, end)\n\n"
             "The documents objects[start:stop], each after '---\\n', up to `end`: the first one left\n"
             "to codec's writer (stop when none). memo holds rendered mappings by identity and\n"
             "indentation for the objects' lifetime; strings and keys, rendered strings and keys.");

static PyObject *render(PyObject *self, PyObject *args) {
    PyObject *objects;
    Py_ssize_t start, stop;
    Writer w = {0};
    if (!PyArg_ParseTuple(args, "O!nnO!O!O!", &PyList_Type, &objects, &start, &stop, &PyDict_Type, &w.memo,
                          &PyDict_Type, &w.strings, &PyDict_Type, &w.keys))
        return NULL;
    if (!string_fn) {
        PyErr_SetString(PyExc_RuntimeError, "_yamlout.configure was not called");
        return NULL;
    }
    Py_ssize_t at = start < 0 ? 0 : start;
    for (; at < stop && at < PyList_GET_SIZE(objects); at++) {
        Py_ssize_t mark = w.n;
        PyObject *obj = PyList_GET_ITEM(objects, at);
        Py_INCREF(obj);
        int rc = document(&w, obj);
        Py_DECREF(obj);
        if (rc == DEFER) {
            w.n = mark;
            break;
        }
        if (rc) {
            PyMem_Free(w.p);
            return NULL;
        }
    }
    PyObject *data = PyBytes_FromStringAndSize(w.p ? w.p : "", w.n);
    PyMem_Free(w.p);
    return data ? Py_BuildValue("(Nn)", data, at) : NULL;
}

PyDoc_STRVAR(configure_doc,
             "configure(string, key, unhandled, shaped, untyped_starts, strings_limit, keys_limit,\n"
             "          max_plain, shared_min)\n\n"
             "codec's _string and _key, its Unhandled and Shaped types, the characters a plain string\n"
             "may begin with and read as a string whatever follows, and its bounds.");

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *s, *k, *u, *shaped, *starts;
    Py_ssize_t sl, kl, mp, sm;
    if (!PyArg_ParseTuple(args, "OOOOUnnnn", &s, &k, &u, &shaped, &starts, &sl, &kl, &mp, &sm)) return NULL;
    char table[128] = {0};
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(starts); i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(starts, i);
        if (c >= 0x21 && c < 0x7f) table[c] = 1; /* printable ASCII only: the rest is never judged here */
    }
    if (!template_name) {
        template_name = PyUnicode_InternFromString("_template");
        values_name = PyUnicode_InternFromString("_values");
        prepared_name = PyUnicode_InternFromString("_prepared");
        if (!template_name || !values_name || !prepared_name) return NULL;
    }
    memcpy(untyped, table, sizeof table);
    Py_XSETREF(string_fn, Py_NewRef(s));
    Py_XSETREF(key_fn, Py_NewRef(k));
    Py_XSETREF(unhandled, Py_NewRef(u));
    Py_XSETREF(shaped_type, Py_NewRef(shaped));
    strings_limit = sl;
    keys_limit = kl;
    max_plain = mp;
    shared_min = sm;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS, configure_doc},
    {"render", render, METH_VARARGS, render_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_yamlout", "codec's YAML writer in C (adapters/kube/codec.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__yamlout(void) { return PyModule_Create(&module); }
