/* dungeon._fastcore: the two hot loops of a headless match, in C.
 *
 * maxsat(clauses, switches=0): an exact branch-and-bound MaxSAT solver for trap problems (every
 *   clause soft, weight 1), reading a sequence of int tuples directly. Returns (cost,
 *   assignment): the fewest clauses an assignment can leave false, and an assignment leaving
 *   exactly that many, one bool per variable 1..max(switches, the largest variable named).
 *   Returns None for what it does not handle (more than MAX_VARS variables, more than MAX_CLAUSES
 *   clauses, a clause longer than MAX_WIDTH or naming a variable twice, a literal that is not a
 *   nonzero int): the caller then takes the pure path.
 * hops(indptr, indices, source, out): breadth-first hop counts from source along the rows of a
 *   CSR graph (int32 buffers), written into the int32 buffer out (-1: never reached).
 *
 * The search: depth-first over variables, each node bounded below by the clauses already false
 * plus, for every unassigned variable, min(unit clauses wanting it true, wanting it false) (unit
 * clauses of distinct variables are disjoint, so the bound is sound). The next variable is the
 * one with the most unit clauses, else the one named most often; its value first is the one
 * most unit clauses (then most occurrences) want. Deterministic: the same clauses always give
 * the same model.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_VARS 64
#define MAX_CLAUSES 512
#define MAX_WIDTH 8

typedef struct {
    int nvars, nclauses;
    int lits[MAX_CLAUSES][MAX_WIDTH];
    int width[MAX_CLAUSES];
    int nfalse[MAX_CLAUSES]; /* literals made false so far */
    int nsat[MAX_CLAUSES];   /* literals made true so far */
    /* occurrences of variable v: occ_clause/occ_pos[occ_start[v] .. occ_start[v + 1]) */
    int occ_start[MAX_VARS + 2];
    int occ_clause[MAX_CLAUSES * MAX_WIDTH];
    int occ_pos[MAX_CLAUSES * MAX_WIDTH]; /* 1 if the literal is positive */
    int positive[MAX_VARS + 1];           /* positive occurrences */
    /* unit clauses (none true, all false but one) whose open literal is on v: want[v][sign] */
    int want[MAX_VARS + 1][2];
    signed char value[MAX_VARS + 1]; /* -1 unassigned, 0 false, 1 true */
    signed char best_value[MAX_VARS + 1];
    int cost, best;
    int floor; /* a proven lower bound on the optimum: stop once best reaches it */
    int done;
} Search;

/* One search at a time: every call holds the GIL from start to end and calls no Python code
 * in between, so one static workspace serves them all (no 50 KB to allocate and clear). */
static Search workspace;

/* Count (delta +1) or uncount (-1) unit clause c under its one unassigned literal. */
static inline void count_unit(Search *s, int c, int delta) {
    for (int j = 0; j < s->width[c]; j++) {
        int lit = s->lits[c][j];
        int var = lit > 0 ? lit : -lit;
        if (s->value[var] < 0) {
            s->want[var][lit > 0] += delta;
            return;
        }
    }
}

/* Assigning and unassigning keep nsat, nfalse, cost and want exact; each case below is one
 * clause's change of state (a unit clause is one with no true literal and one open). */
static void assign(Search *s, int var, int val) {
    s->value[var] = (signed char)val;
    for (int k = s->occ_start[var]; k < s->occ_start[var + 1]; k++) {
        int c = s->occ_clause[k], pos = s->occ_pos[k], w = s->width[c];
        if (s->nsat[c] > 0) {
            if (pos == val) {
                s->nsat[c]++;
            } else {
                s->nfalse[c]++;
            }
        } else if (pos == val) {
            if (s->nfalse[c] == w - 1) {
                s->want[var][pos]--; /* a unit clause on var, now true */
            }
            s->nsat[c] = 1;
        } else {
            int nf = ++s->nfalse[c];
            if (nf == w) {
                s->want[var][pos]--; /* a unit clause on var, now false */
                s->cost++;
            } else if (nf == w - 1) {
                count_unit(s, c, 1); /* a new unit clause on its last open literal */
            }
        }
    }
}

static void unassign(Search *s, int var, int val) {
    for (int k = s->occ_start[var]; k < s->occ_start[var + 1]; k++) {
        int c = s->occ_clause[k], pos = s->occ_pos[k], w = s->width[c];
        if (pos == val) {
            if (--s->nsat[c] == 0 && s->nfalse[c] == w - 1) {
                s->want[var][pos]++; /* unit again, var its open literal */
            }
        } else if (s->nsat[c] > 0) {
            s->nfalse[c]--;
        } else {
            int nf = s->nfalse[c]--;
            if (nf == w) {
                s->want[var][pos]++;
                s->cost--;
            } else if (nf == w - 1) {
                count_unit(s, c, -1); /* var still counts as assigned: finds the other */
            }
        }
    }
    s->value[var] = -1;
}

/* The lower bound beyond s->cost, and the next variable to branch on (0: all assigned). */
static int bound(const Search *s, int *next, int *first) {
    int extra = 0, chosen = 0, chosen_units = -1, chosen_occ = -1;
    for (int var = 1; var <= s->nvars; var++) {
        if (s->value[var] >= 0) {
            continue;
        }
        int t = s->want[var][1], f = s->want[var][0];
        extra += t < f ? t : f;
        int units = t + f, occ = s->occ_start[var + 1] - s->occ_start[var];
        if (units > chosen_units || (units == chosen_units && occ > chosen_occ)) {
            chosen = var;
            chosen_units = units;
            chosen_occ = occ;
        }
    }
    *next = chosen;
    if (chosen) {
        int t = s->want[chosen][1], f = s->want[chosen][0];
        *first = t != f ? t > f : 2 * s->positive[chosen] >= chosen_occ;
    }
    return extra;
}

static void search(Search *s) {
    int next = 0, first = 1;
    int lower = s->cost + bound(s, &next, &first);
    if (lower >= s->best) {
        return;
    }
    if (next == 0) {
        s->best = s->cost;
        memcpy(s->best_value, s->value, (size_t)(s->nvars + 1));
        if (s->best <= s->floor) {
            s->done = 1;
        }
        return;
    }
    /* A branch falsifies the unit clauses that want the other value of `next`: skip it when
     * that alone reaches the bound (it would be pruned on entry, at the cost of a node). */
    int t = s->want[next][1], f = s->want[next][0];
    int rest = lower - (t < f ? t : f);
    for (int round = 0; round < 2 && !s->done; round++) {
        int val = round == 0 ? first : !first;
        if (rest + s->want[next][!val] >= s->best) {
            continue;
        }
        assign(s, next, val);
        search(s);
        unassign(s, next, val);
    }
}

/* Read the clauses into s; 0 when they are not something this solver handles. */
static int load(Search *s, PyObject *clauses) {
    PyObject *seq = PySequence_Fast(clauses, "clauses must be a sequence");
    if (seq == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **rows = PySequence_Fast_ITEMS(seq);
    int ok = n <= MAX_CLAUSES;
    s->nclauses = (int)n;
    s->nvars = 0;
    for (Py_ssize_t c = 0; ok && c < n; c++) {
        PyObject *clause = rows[c];
        PyObject *items = clause;
        if (PyTuple_CheckExact(clause)) {
            Py_INCREF(items); /* the common case: a trap is a tuple */
        } else {
            items = PySequence_Fast(clause, "a clause must be a sequence");
            if (items == NULL) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_ssize_t width = PySequence_Fast_GET_SIZE(items);
        PyObject **literals = PySequence_Fast_ITEMS(items);
        ok = width <= MAX_WIDTH;
        int *row = s->lits[c];
        for (Py_ssize_t j = 0; ok && j < width; j++) {
            PyObject *item = literals[j];
            if (!PyLong_CheckExact(item)) {
                ok = 0; /* bools and other int subclasses included */
                break;
            }
            int overflow = 0;
            long lit = PyLong_AsLongAndOverflow(item, &overflow);
            long var = lit > 0 ? lit : -lit;
            if (overflow || lit == 0 || var > MAX_VARS) {
                ok = 0;
                break;
            }
            for (Py_ssize_t k = 0; k < j; k++) {
                if (row[k] == lit || row[k] == -lit) {
                    ok = 0; /* a variable twice in one clause */
                }
            }
            row[j] = (int)lit;
            if (var > s->nvars) {
                s->nvars = (int)var;
            }
        }
        s->width[c] = (int)width;
        Py_DECREF(items);
    }
    Py_DECREF(seq);
    return ok;
}

static PyObject *fast_maxsat(PyObject *self, PyObject *args) {
    PyObject *clauses;
    Py_ssize_t switches = 0;
    if (!PyArg_ParseTuple(args, "O|n", &clauses, &switches)) {
        return NULL;
    }
    Search *s = &workspace;
    int loaded = load(s, clauses);
    if (loaded <= 0) {
        if (loaded < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    int n = s->nvars;
    /* occurrence lists by variable, in clause order: counts, then running starts */
    memset(s->occ_start, 0, sizeof(int) * (size_t)(n + 2));
    memset(s->positive, 0, sizeof(int) * (size_t)(n + 1));
    memset(s->want, 0, sizeof(s->want[0]) * (size_t)(n + 1));
    for (int c = 0; c < s->nclauses; c++) {
        for (int j = 0; j < s->width[c]; j++) {
            int lit = s->lits[c][j];
            s->occ_start[(lit > 0 ? lit : -lit) + 1]++;
        }
    }
    for (int var = 1; var <= n + 1; var++) {
        s->occ_start[var] += s->occ_start[var - 1];
    }
    int fill[MAX_VARS + 1];
    memcpy(fill, s->occ_start, sizeof(int) * (size_t)(n + 1));
    s->cost = 0;
    for (int c = 0; c < s->nclauses; c++) {
        s->nsat[c] = 0;
        s->nfalse[c] = 0;
        for (int j = 0; j < s->width[c]; j++) {
            int lit = s->lits[c][j], var = lit > 0 ? lit : -lit;
            s->occ_clause[fill[var]] = c;
            s->occ_pos[fill[var]++] = lit > 0;
            s->positive[var] += lit > 0;
        }
        if (s->width[c] == 0) {
            s->cost++; /* an empty clause is false whatever the assignment */
        } else if (s->width[c] == 1) {
            int lit = s->lits[c][0];
            s->want[lit > 0 ? lit : -lit][lit > 0]++;
        }
    }
    for (int var = 0; var <= n; var++) {
        s->value[var] = -1;
        s->best_value[var] = 0;
    }
    /* Deepening on the bound: is there an assignment leaving `floor` clauses false? If not,
     * floor + 1? ... Most trap problems are satisfiable, and a search that may leave none
     * false prunes at the first false clause; a failed round proves the optimum is higher. */
    int empty = s->cost;
    for (int floor = empty; floor <= s->nclauses; floor++) {
        s->best = floor + 1;
        s->floor = floor;
        s->done = 0;
        search(s);
        if (s->done) {
            break;
        }
    }
    /* One bool a switch: max(switches, the largest variable named); a switch no clause names
     * comes out false (it never gets assigned). */
    Py_ssize_t size = switches > n ? switches : n;
    PyObject *assignment = PyList_New(size);
    if (assignment == NULL) {
        return NULL;
    }
    for (Py_ssize_t var = 1; var <= size; var++) {
        PyObject *value = var <= n && s->best_value[var] > 0 ? Py_True : Py_False;
        Py_INCREF(value);
        PyList_SET_ITEM(assignment, var - 1, value);
    }
    PyObject *cost = PyLong_FromLong(s->best);
    if (cost == NULL) {
        Py_DECREF(assignment);
        return NULL;
    }
    PyObject *result = PyTuple_New(2);
    if (result == NULL) {
        Py_DECREF(cost);
        Py_DECREF(assignment);
        return NULL;
    }
    PyTuple_SET_ITEM(result, 0, cost);
    PyTuple_SET_ITEM(result, 1, assignment);
    return result;
}

static int int32_buffer(PyObject *obj, Py_buffer *view, int writable) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                          (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return 0;
    }
    const char *format = view->format;
    if (view->itemsize != 4 || format == NULL ||
        !(strcmp(format, "i") == 0 || strcmp(format, "<i") == 0 || strcmp(format, "=i") == 0)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "hops wants int32 buffers");
        return 0;
    }
    return 1;
}

static PyObject *fast_hops(PyObject *self, PyObject *args) {
    PyObject *indptr_obj, *indices_obj, *out_obj;
    Py_ssize_t source;
    if (!PyArg_ParseTuple(args, "OOnO", &indptr_obj, &indices_obj, &source, &out_obj)) {
        return NULL;
    }
    Py_buffer indptr, indices, out;
    if (!int32_buffer(indptr_obj, &indptr, 0)) {
        return NULL;
    }
    if (!int32_buffer(indices_obj, &indices, 0)) {
        PyBuffer_Release(&indptr);
        return NULL;
    }
    if (!int32_buffer(out_obj, &out, 1)) {
        PyBuffer_Release(&indptr);
        PyBuffer_Release(&indices);
        return NULL;
    }
    Py_ssize_t count = out.len / 4, edges = indices.len / 4;
    const int *ptr = indptr.buf, *idx = indices.buf;
    int *hops = out.buf;
    PyObject *result = NULL;
    if (indptr.len / 4 != count + 1 || source < 0 || source >= count) {
        PyErr_SetString(PyExc_ValueError, "hops: indptr, out and source do not agree");
        goto done;
    }
    for (Py_ssize_t u = 0; u <= count; u++) {
        if (ptr[u] < 0 || ptr[u] > edges || (u > 0 && ptr[u] < ptr[u - 1])) {
            PyErr_SetString(PyExc_ValueError, "hops: indptr is not a CSR row index");
            goto done;
        }
    }
    int *queue = PyMem_Malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
    if (queue == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t u = 0; u < count; u++) {
        hops[u] = -1;
    }
    Py_ssize_t head = 0, tail = 0;
    hops[source] = 0;
    queue[tail++] = (int)source;
    while (head < tail) {
        int u = queue[head++];
        int next = hops[u] + 1;
        for (int e = ptr[u]; e < ptr[u + 1]; e++) {
            unsigned v = (unsigned)idx[e]; /* a negative index wraps past count */
            if (v < (unsigned)count && hops[v] < 0) {
                hops[v] = next;
                queue[tail++] = (int)v;
            }
        }
    }
    PyMem_Free(queue);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&indptr);
    PyBuffer_Release(&indices);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"maxsat", fast_maxsat, METH_VARARGS,
     "maxsat(clauses, switches=0) -> (cost, assignment) | None: exact MaxSAT, every clause of "
     "weight 1; one bool a switch."},
    {"hops", fast_hops, METH_VARARGS,
     "hops(indptr, indices, source, out): breadth-first hop counts into out (-1: never)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "dungeon._fastcore",
    "Exact MaxSAT on trap problems and breadth-first hop tables, in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__fastcore(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddIntConstant(m, "MAX_VARS", MAX_VARS) < 0 ||
                      PyModule_AddIntConstant(m, "MAX_CLAUSES", MAX_CLAUSES) < 0 ||
                      PyModule_AddIntConstant(m, "MAX_WIDTH", MAX_WIDTH) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
