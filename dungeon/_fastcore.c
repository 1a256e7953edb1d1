/* dungeon._fastcore: the hot loops of a headless match, in C.
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
 * draw_traps(capsule, count, kinds, highest, table): the engine's trap draw (dungeon/traps.py,
 *   _draw_kinds) from a numpy bit generator's capsule: count raw 64-bit outputs, each above
 *   highest replaced in order by the generator's next one that is not, each taken modulo
 *   kinds and looked up in table; returns the tuple of table entries. The same calls of the
 *   same generator function numpy's random_raw makes, so the same traps and the same state.
 * active(traps, assignment): how many clauses the assignment (a sequence of bools, bool i for
 *   variable i + 1) leaves with no true literal; None for what it does not read (an item that
 *   is not a bool, a literal that is not a nonzero int or names no variable of the assignment).
 *
 * The search: depth-first over variables, each node bounded below by the clauses already false
 * plus, for every unassigned variable, min(unit clauses wanting it true, wanting it false) (unit
 * clauses of distinct variables are disjoint, so the bound is sound). The next variable is the
 * one with the most unit clauses, else the one named most often; its value first is the one
 * most unit clauses (then most occurrences) want. Deterministic: the same clauses always give
 * the same model. Each node costs little: the unassigned variables are kept as a set (bound()
 * looks at those alone, each variable's rank a precomputed key), each literal's clauses as
 * their own list (assigning walks the clauses it makes true, then those it makes false), and
 * once no clause is open the leaf the search would reach (every open variable at its first
 * value, the cost unchanged) is recorded at once. Sound pruning never changes which leaf the
 * search finds first, and those shortcuts leave the order of the search as it was: the same
 * model as the plain search gives (tests/test_fastcore.py holds the brute force and pysat
 * figures; the golden match logs the models).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_VARS 64
#define MAX_CLAUSES 512
#define MAX_WIDTH 8

typedef struct {
    int nvars, nclauses;
    int lits[MAX_CLAUSES][MAX_WIDTH];
    int width[MAX_CLAUSES];
    int left[MAX_CLAUSES]; /* literals not made false so far */
    int nsat[MAX_CLAUSES]; /* literals made true so far */
    int nopen;             /* clauses neither true nor false yet */
    /* the clauses where literal v (sign 1) or -v (sign 0) occurs: occ[occ_start[2 v + sign]
     * .. occ_start[2 v + sign + 1]) */
    int occ_start[2 * MAX_VARS + 3];
    int occ[MAX_CLAUSES * MAX_WIDTH];
    signed char free_first[MAX_VARS + 1]; /* the value first tried when no clause decides */
    /* unit clauses (none true, all false but one) whose open literal is on v: want[sign][v] */
    int want[2][MAX_VARS + 1];
    /* the unassigned variables, in free[0 .. nfree), in no particular order: assigning one
     * swaps it to free[nfree - 1] and drops it; the search unassigns in the reverse order of
     * assigning, so each comes back by nfree++ (the set is exact, its order changes) */
    int free[MAX_VARS];
    int free_at[MAX_VARS + 1]; /* v's index in free */
    int nfree;
    /* bound()'s tie-break among variables with as many unit clauses, as a number that is
     * larger for the one to prefer: more occurrences, then the lower variable */
    int tie[MAX_VARS + 1];
    signed char value[MAX_VARS + 1]; /* -1 unassigned, 0 false, 1 true */
    signed char best_value[MAX_VARS + 1];
    int cost, best;
    int floor; /* a proven lower bound on the optimum: stop once best reaches it */
    int done;
} Search;

/* One search at a time: every call holds the GIL from start to end and calls no Python code
 * in between, so one static workspace serves them all (no 50 KB to allocate and clear). */
static Search workspace;

/* tie[v] = occurrences << TIE_SHIFT | (TIE_LAST - v): the low bits give the variable back. */
#define TIE_SHIFT 7
#define TIE_LAST 127
#define UNITS_SHIFT 17 /* above tie's bits: occurrences <= MAX_CLAUSES = 2^9, tie < 2^17 */

/* Count (delta +1) or uncount (-1) unit clause c under its one unassigned literal. */
static inline void count_unit(Search *s, int c, int delta) {
    for (int j = 0; j < s->width[c]; j++) {
        int lit = s->lits[c][j];
        int var = lit > 0 ? lit : -lit;
        if (s->value[var] < 0) {
            s->want[lit > 0][var] += delta;
            return;
        }
    }
}

/* Assigning and unassigning keep nsat, left, nopen, cost and want exact; each case below is
 * one clause's change of state (an open clause has no true literal and one not false at
 * least; a unit clause is an open one with exactly one). A clause names a variable once, so
 * each clause changes once, and the order in which they do does not matter. */
static void assign(Search *s, int var, int val) {
    s->value[var] = (signed char)val;
    int last = s->free[--s->nfree], at = s->free_at[var];
    s->free[at] = last;
    s->free_at[last] = at;
    s->free[s->nfree] = var;
    s->free_at[var] = s->nfree;
    int *nsat = s->nsat, *left = s->left, *occ = s->occ;
    int nopen = s->nopen, cost = s->cost;
    /* the clauses var makes true */
    int k = s->occ_start[2 * var + val], end = s->occ_start[2 * var + val + 1];
    for (; k < end; k++) {
        int c = occ[k];
        if (nsat[c]++ == 0) {
            nopen--;
            if (left[c] == 1) {
                s->want[val][var]--; /* a unit clause on var, now true */
            }
        }
    }
    /* the clauses where var's literal is now false */
    k = s->occ_start[2 * var + !val], end = s->occ_start[2 * var + !val + 1];
    for (; k < end; k++) {
        int c = occ[k], now = --left[c];
        if (nsat[c] == 0) {
            if (now == 0) {
                s->want[!val][var]--; /* a unit clause on var, now false */
                cost++;
                nopen--;
            } else if (now == 1) {
                count_unit(s, c, 1); /* a new unit clause on its last open literal */
            }
        }
    }
    s->nopen = nopen;
    s->cost = cost;
}

static void unassign(Search *s, int var, int val) {
    int *nsat = s->nsat, *left = s->left, *occ = s->occ;
    int nopen = s->nopen, cost = s->cost;
    int k = s->occ_start[2 * var + val], end = s->occ_start[2 * var + val + 1];
    for (; k < end; k++) {
        int c = occ[k];
        if (--nsat[c] == 0) {
            nopen++;
            if (left[c] == 1) {
                s->want[val][var]++; /* unit again, var its open literal */
            }
        }
    }
    k = s->occ_start[2 * var + !val], end = s->occ_start[2 * var + !val + 1];
    for (; k < end; k++) {
        int c = occ[k], was = left[c]++;
        if (nsat[c] == 0) {
            if (was == 0) {
                s->want[!val][var]++;
                cost--;
                nopen++;
            } else if (was == 1) {
                count_unit(s, c, -1); /* var still counts as assigned: finds the other */
            }
        }
    }
    s->nopen = nopen;
    s->cost = cost;
    s->value[var] = -1;
    s->nfree++; /* var is free[nfree]: see free */
}

/* The lower bound beyond s->cost, and the next variable to branch on (0: all assigned): the
 * unassigned one with the most unit clauses, then the most occurrences, then the lowest. */
static int bound(const Search *s, int *next, int *first) {
    int extra = 0, top = 0;
    const int *want_t = s->want[1], *want_f = s->want[0], *tie = s->tie;
    for (int i = 0; i < s->nfree; i++) {
        int var = s->free[i], t = want_t[var], f = want_f[var];
        extra += t < f ? t : f;
        int key = ((t + f) << UNITS_SHIFT) | tie[var];
        top = key > top ? key : top;
    }
    int chosen = top ? TIE_LAST - (top & TIE_LAST) : 0;
    *next = chosen;
    if (chosen) {
        int t = s->want[1][chosen], f = s->want[0][chosen];
        *first = t != f ? t > f : s->free_first[chosen];
    }
    return extra;
}

/* A leaf: the assignment so far, each variable still open taking its free_first value. */
static void record(Search *s) {
    s->best = s->cost;
    for (int var = 0; var <= s->nvars; var++) {
        s->best_value[var] = s->value[var] >= 0 ? s->value[var] : s->free_first[var];
    }
    if (s->best <= s->floor) {
        s->done = 1;
    }
}

static void search(Search *s) {
    if (s->nopen == 0) {
        /* Every clause is settled: no unit clause is left, so from here the search would
         * assign each open variable its free_first value, one node each, in bound()'s order,
         * with the cost unchanged, and reach a leaf with that cost. Record that leaf now. */
        if (s->cost < s->best) {
            record(s);
        }
        return;
    }
    int next = 0, first = 1;
    int lower = s->cost + bound(s, &next, &first);
    if (lower >= s->best) {
        return;
    }
    if (next == 0) { /* not reached: an open clause has an open variable */
        record(s);
        return;
    }
    /* A branch falsifies the unit clauses that want the other value of `next`: skip it when
     * that alone reaches the bound (it would be pruned on entry, at the cost of a node). */
    int t = s->want[1][next], f = s->want[0][next];
    int rest = lower - (t < f ? t : f);
    for (int round = 0; round < 2 && !s->done; round++) {
        int val = round == 0 ? first : !first;
        if (rest + s->want[!val][next] >= s->best) {
            continue;
        }
        assign(s, next, val);
        search(s);
        unassign(s, next, val);
    }
}

/* A literal's value when it is an int of a machine word (1: read), without the general
 * conversion's call for the small ones a trap holds. */
static inline int literal_value(PyObject *item, long *out) {
#if PY_VERSION_HEX < 0x030C0000
    Py_ssize_t size = Py_SIZE(item);
    if (size == 1 || size == -1) {
        long digit = (long)((PyLongObject *)item)->ob_digit[0];
        *out = size < 0 ? -digit : digit;
        return 1;
    }
#else
    if (PyUnstable_Long_IsCompact((PyLongObject *)item)) {
        *out = (long)PyUnstable_Long_CompactValue((PyLongObject *)item);
        return 1;
    }
#endif
    int overflow = 0;
    *out = PyLong_AsLongAndOverflow(item, &overflow);
    return !overflow;
}

/* Read the clauses into s, counting each literal's occurrences (in occ_start[2 v + sign + 1]);
 * 0 when they are not something this solver handles. */
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
    memset(s->occ_start, 0, sizeof(s->occ_start));
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
        uint64_t named = 0; /* the clause's variables so far, bit v - 1 */
        for (Py_ssize_t j = 0; ok && j < width; j++) {
            PyObject *item = literals[j];
            long lit;
            /* bools and other int subclasses are refused */
            if (!PyLong_CheckExact(item) || !literal_value(item, &lit)) {
                ok = 0;
                break;
            }
            long var = lit > 0 ? lit : -lit;
            if (lit == 0 || var > MAX_VARS || (named >> (var - 1) & 1)) {
                ok = 0; /* no literal, beyond MAX_VARS, or a variable twice in one clause */
                break;
            }
            named |= (uint64_t)1 << (var - 1);
            row[j] = (int)lit;
            s->occ_start[2 * var + (lit > 0) + 1]++;
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

static PyObject *fast_maxsat(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "maxsat takes 1 or 2 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t switches = 0;
    if (nargs == 2) {
        switches = PyNumber_AsSsize_t(args[1], PyExc_OverflowError);
        if (switches == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    Search *s = &workspace;
    int loaded = load(s, args[0]);
    if (loaded <= 0) {
        if (loaded < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    int n = s->nvars;
    /* occurrence lists by literal, in clause order: running starts, then filled */
    int lists = 2 * n + 2; /* literals -0, +0 (none), -1, +1, ..., -n, +n */
    for (int i = 1; i <= lists; i++) {
        s->occ_start[i] += s->occ_start[i - 1];
    }
    int fill[2 * MAX_VARS + 2];
    memcpy(fill, s->occ_start, sizeof(int) * (size_t)lists);
    memset(s->want, 0, sizeof(s->want));
    memset(s->nsat, 0, sizeof(int) * (size_t)s->nclauses);
    s->cost = 0;
    s->nopen = 0;
    for (int c = 0; c < s->nclauses; c++) {
        int w = s->width[c];
        s->left[c] = w;
        s->nopen += w > 0;
        for (int j = 0; j < w; j++) {
            int lit = s->lits[c][j], var = lit > 0 ? lit : -lit;
            s->occ[fill[2 * var + (lit > 0)]++] = c;
        }
        if (w == 0) {
            s->cost++; /* an empty clause is false whatever the assignment */
        } else if (w == 1) {
            int lit = s->lits[c][0];
            s->want[lit > 0][lit > 0 ? lit : -lit]++;
        }
    }
    for (int var = 0; var <= n; var++) {
        s->value[var] = -1;
        s->best_value[var] = 0;
    }
    s->free_first[0] = -1;
    s->nfree = n;
    for (int var = 1; var <= n; var++) {
        int negative = s->occ_start[2 * var + 1] - s->occ_start[2 * var];
        int positive = s->occ_start[2 * var + 2] - s->occ_start[2 * var + 1];
        s->free[var - 1] = var;
        s->free_at[var] = var - 1;
        s->tie[var] = (negative + positive) << TIE_SHIFT | (TIE_LAST - var);
        s->free_first[var] = (signed char)(positive >= negative);
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

/* numpy's bit generator interface (numpy/random/bitgen.h), as its capsule "BitGenerator"
 * holds it: documented for C and Cython extensions, declared here so the build needs no numpy
 * headers. */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

#define DRAW_ON_STACK 256

static PyObject *fast_draw_traps(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "draw_traps takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    bitgen_t *bitgen = PyCapsule_GetPointer(args[0], "BitGenerator");
    if (bitgen == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyNumber_AsSsize_t(args[1], PyExc_OverflowError);
    if (count == -1 && PyErr_Occurred()) {
        return NULL;
    }
    uint64_t kinds = PyLong_AsUnsignedLongLong(args[2]);
    if (kinds == (uint64_t)-1 && PyErr_Occurred()) {
        return NULL;
    }
    uint64_t highest = PyLong_AsUnsignedLongLong(args[3]);
    if (highest == (uint64_t)-1 && PyErr_Occurred()) {
        return NULL;
    }
    if (count < 0 || kinds == 0) {
        PyErr_SetString(PyExc_ValueError, "draw_traps: count must be >= 0 and kinds > 0");
        return NULL;
    }
    PyObject *table = PySequence_Fast(args[4], "draw_traps: table must be a sequence");
    if (table == NULL) {
        return NULL;
    }
    if ((uint64_t)PySequence_Fast_GET_SIZE(table) < kinds) {
        Py_DECREF(table);
        PyErr_SetString(PyExc_ValueError, "draw_traps: the table has fewer entries than kinds");
        return NULL;
    }
    uint64_t on_stack[DRAW_ON_STACK];
    uint64_t *words = on_stack;
    if (count > DRAW_ON_STACK) {
        words = PyMem_Malloc(sizeof(uint64_t) * (size_t)count);
        if (words == NULL) {
            Py_DECREF(table);
            return PyErr_NoMemory();
        }
    }
    /* as random_raw(count), then _redraw: every word first, the replacements after */
    for (Py_ssize_t i = 0; i < count; i++) {
        words[i] = bitgen->next_raw(bitgen->state);
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        while (words[i] > highest) {
            words[i] = bitgen->next_raw(bitgen->state);
        }
    }
    PyObject *result = PyTuple_New(count);
    if (result != NULL) {
        PyObject **entries = PySequence_Fast_ITEMS(table);
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *entry = entries[words[i] % kinds];
            Py_INCREF(entry);
            PyTuple_SET_ITEM(result, i, entry);
        }
    }
    if (words != on_stack) {
        PyMem_Free(words);
    }
    Py_DECREF(table);
    return result;
}

static PyObject *fast_active(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "active takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *clauses = PySequence_Fast(args[0], "active: traps must be a sequence");
    if (clauses == NULL) {
        return NULL;
    }
    PyObject *values = PySequence_Fast(args[1], "active: the assignment must be a sequence");
    if (values == NULL) {
        Py_DECREF(clauses);
        return NULL;
    }
    Py_ssize_t nvalues = PySequence_Fast_GET_SIZE(values);
    PyObject **items = PySequence_Fast_ITEMS(values);
    /* truth[l + MAX_VARS]: literal l true (1) or false (0); 2 for a variable not given */
    signed char truth[2 * MAX_VARS + 1];
    memset(truth, 2, sizeof(truth));
    int ok = nvalues <= MAX_VARS;
    for (Py_ssize_t i = 0; ok && i < nvalues; i++) {
        if (items[i] != Py_True && items[i] != Py_False) {
            ok = 0;
            break;
        }
        int on = items[i] == Py_True;
        truth[MAX_VARS + i + 1] = (signed char)on;
        truth[MAX_VARS - i - 1] = (signed char)!on;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(clauses);
    PyObject **rows = PySequence_Fast_ITEMS(clauses);
    long left = 0;
    for (Py_ssize_t c = 0; ok && c < n; c++) {
        PyObject *clause = rows[c];
        if (!PyTuple_CheckExact(clause)) {
            ok = 0; /* the engine's traps are tuples; anything else goes the pure way */
            break;
        }
        Py_ssize_t width = PyTuple_GET_SIZE(clause);
        int any = 0;
        for (Py_ssize_t j = 0; j < width; j++) {
            PyObject *item = PyTuple_GET_ITEM(clause, j);
            long lit;
            if (!PyLong_CheckExact(item) || !literal_value(item, &lit) || lit == 0 ||
                lit > MAX_VARS || lit < -MAX_VARS || truth[MAX_VARS + lit] == 2) {
                ok = 0;
                break;
            }
            any |= truth[MAX_VARS + lit];
        }
        left += !any;
    }
    Py_DECREF(clauses);
    Py_DECREF(values);
    if (!ok) {
        Py_RETURN_NONE;
    }
    return PyLong_FromLong(left);
}

static PyMethodDef methods[] = {
    {"maxsat", (PyCFunction)(void (*)(void))fast_maxsat, METH_FASTCALL,
     "maxsat(clauses, switches=0) -> (cost, assignment) | None: exact MaxSAT, every clause of "
     "weight 1; one bool a switch."},
    {"hops", fast_hops, METH_VARARGS,
     "hops(indptr, indices, source, out): breadth-first hop counts into out (-1: never)."},
    {"draw_traps", (PyCFunction)(void (*)(void))fast_draw_traps, METH_FASTCALL,
     "draw_traps(capsule, count, kinds, highest, table) -> tuple: count table entries, each "
     "at a raw 64-bit output of the bit generator (redrawn above highest) modulo kinds."},
    {"active", (PyCFunction)(void (*)(void))fast_active, METH_FASTCALL,
     "active(traps, assignment) -> int | None: the clauses the bools leave with no true "
     "literal."},
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
