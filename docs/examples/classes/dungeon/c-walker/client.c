/* A dungeon team in C (docs/protocol.md), the C twin of docs/starters/starter.py: six sockets,
 * one thread each; every agent walks a shortest path to its team's shrine and answers each trap
 * problem with a short WalkSAT search. Standard C, POSIX sockets and threads only; the server's
 * messages are flat, so it reads just the fields it needs (a real program would use a JSON
 * library).
 *
 *   ./client HOST PORT TEAM [MATCH [TOKEN]]      Built by its teams file (cc -pthread). */
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define AGENTS 6

static const char *host, *port, *match, *token;
static int team;

typedef struct {
    int number, fd;
    char *buffer;
    size_t used, size;
    unsigned seed;
} Agent;

static void say(Agent *a, const char *text) {
    size_t length = strlen(text), sent = 0;
    while (sent < length) {
        ssize_t n = send(a->fd, text + sent, length - sent, MSG_NOSIGNAL);
        if (n <= 0) return;
        sent += (size_t)n;
    }
}

/* The next line (without its newline; the caller frees it), or NULL at the end. */
static char *line_of(Agent *a) {
    for (;;) {
        char *end = a->used ? memchr(a->buffer, '\n', a->used) : NULL;
        if (end) {
            size_t length = (size_t)(end - a->buffer);
            char *line = malloc(length + 1);
            if (!line) exit(3);
            memcpy(line, a->buffer, length);
            line[length] = '\0';
            memmove(a->buffer, end + 1, a->used - length - 1);
            a->used -= length + 1;
            return line;
        }
        if (a->used + 65536 > a->size) {
            a->size = (a->used + 65536) * 2;
            a->buffer = realloc(a->buffer, a->size);
            if (!a->buffer) exit(3);
        }
        ssize_t n = recv(a->fd, a->buffer + a->used, 65536, 0);
        if (n <= 0) return NULL;
        a->used += (size_t)n;
    }
}

/* Where the value of "key" starts in a flat JSON object, or NULL. */
static const char *field(const char *line, const char *key) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(line, quoted);
    if (!at) return NULL;
    at = strchr(at + strlen(quoted), ':');
    if (!at) return NULL;
    for (at++; *at == ' '; at++) {}
    return at;
}

/* Every integer of the bracketed value at p (at most `most`); how many were found. */
static int ints(const char *p, int *out, int most) {
    int count = 0, depth = 0;
    for (; *p; p++) {
        if (*p == '[') depth++;
        else if (*p == ']') { if (--depth == 0) break; }
        else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char *after;
            long value = strtol(p, &after, 10);
            if (count < most) out[count] = (int)value;
            count++;
            p = after - 1;
        }
    }
    return count;
}

static int same_type(const char *line, const char *type) {
    const char *value = field(line, "type");
    return value && value[0] == '"' && strncmp(value + 1, type, strlen(type)) == 0 &&
           value[1 + strlen(type)] == '"';
}

/* The first node after `from` on a shortest path to `to` avoiding banned nodes, or -1. */
static int next_step(int n, int *first, int *next, int *to_node, int from, int to, const char *banned) {
    int *previous = malloc(sizeof(int) * (size_t)n), *queue = malloc(sizeof(int) * (size_t)n);
    if (!previous || !queue) exit(3);
    for (int i = 0; i < n; i++) previous[i] = -1;
    int head = 0, tail = 0, step = -1;
    previous[from] = from;
    queue[tail++] = from;
    while (head < tail) {
        int node = queue[head++];
        if (node == to) {
            while (previous[node] != from) node = previous[node];
            step = node;
            break;
        }
        for (int e = first[node]; e >= 0; e = next[e]) {
            int other = to_node[e];
            if (previous[other] < 0 && !banned[other]) {
                previous[other] = node;
                queue[tail++] = other;
            }
        }
    }
    free(previous);
    free(queue);
    return from == to ? -1 : step;
}

/* WalkSAT over `count` traps of 3 literals (switches 1..switches); the assignment as JSON. */
static void solve(Agent *a, int switches, const int *lits, int traps, char *out, size_t room) {
    char *value = calloc((size_t)switches + 1, 1), *best = calloc((size_t)switches + 1, 1);
    if (!value || !best) exit(3);
    for (int s = 1; s <= switches; s++) value[s] = (char)(rand_r(&a->seed) % 2);
    int best_active = traps + 1;
    for (int flip = 0; flip < 2000; flip++) {
        int active = 0, pick = -1;
        for (int t = 0; t < traps; t++) {
            int ok = 0;
            for (int k = 0; k < 3; k++) {
                int lit = lits[3 * t + k];
                ok |= value[abs(lit)] == (lit > 0);
            }
            if (!ok && rand_r(&a->seed) % (unsigned)(++active) == 0) pick = t;
        }
        if (active < best_active) {
            best_active = active;
            memcpy(best, value, (size_t)switches + 1);
        }
        if (active == 0) break;
        int lit = lits[3 * pick + (int)(rand_r(&a->seed) % 3)];
        value[abs(lit)] = (char)!value[abs(lit)];
    }
    size_t used = (size_t)snprintf(out, room, "{\"type\":\"solution\",\"assignment\":[");
    for (int s = 1; s <= switches && used + 8 < room; s++)
        used += (size_t)snprintf(out + used, room - used, "%s%s", s > 1 ? "," : "",
                                 best[s] ? "true" : "false");
    snprintf(out + used, room - used, "]}\n");
    free(value);
    free(best);
}

static void *play(void *argument) {
    Agent *a = argument;
    char text[512];
    int at = snprintf(text, sizeof text, "{\"type\":\"start\",\"team\":%d,\"agent\":%d", team,
                      a->number);
    if (*match) at += snprintf(text + at, sizeof text - (size_t)at, ",\"match\":\"%s\"", match);
    if (*token) at += snprintf(text + at, sizeof text - (size_t)at, ",\"token\":\"%s\"", token);
    snprintf(text + at, sizeof text - (size_t)at, "}\n");
    say(a, text);
    char *line;
    while ((line = line_of(a)) != NULL && !same_type(line, "dungeon")) free(line);
    if (!line) return NULL;
    const char *nodes = field(line, "nodes");
    int n = 0;
    for (const char *p = nodes; p && *p && !(p[0] == ']' && p[1] == ']'); p++) n += *p == '[';
    n -= 1; /* the outer bracket */
    const char *edges_at = field(line, "edges");
    int edge_count = ints(edges_at, NULL, 0) / 2;
    int *ends = malloc(sizeof(int) * 2 * (size_t)edge_count + 1);
    int *first = malloc(sizeof(int) * (size_t)n), *next = malloc(sizeof(int) * 4 * (size_t)edge_count + 1);
    int *to_node = malloc(sizeof(int) * 4 * (size_t)edge_count + 1);
    char *banned = calloc((size_t)n, 1);
    if (!ends || !first || !next || !to_node || !banned) exit(3);
    ints(edges_at, ends, 2 * edge_count);
    for (int i = 0; i < n; i++) first[i] = -1;
    for (int e = 0; e < 2 * edge_count; e++) { /* both directions */
        int u = ends[e], v = ends[e ^ 1];
        to_node[e] = v;
        next[e] = first[u];
        first[u] = e;
    }
    int start[2], shrine[2];
    ints(field(line, "start"), start, 2);
    ints(field(line, "shrine"), shrine, 2);
    free(line);
    banned[start[1 - team]] = banned[shrine[1 - team]] = 1;
    int here = start[team], target = shrine[team], pending = 0;
    int *lits = NULL;
    size_t answer_room = 0;
    char *answer = NULL;
    for (;;) {
        if (!pending && here != target) {
            int step = next_step(n, first, next, to_node, here, target, banned);
            if (step >= 0) {
                snprintf(text, sizeof text, "{\"type\":\"move\",\"to\":%d}\n", step);
                say(a, text);
                pending = 1;
            }
        }
        if ((line = line_of(a)) == NULL) break;
        if (same_type(line, "sat")) {
            int switches = atoi(field(line, "switches"));
            int count = ints(field(line, "traps"), NULL, 0);
            lits = realloc(lits, sizeof(int) * (size_t)(count + 3));
            if (!lits) exit(3);
            ints(field(line, "traps"), lits, count);
            if (answer_room < (size_t)switches * 7 + 64) {
                answer_room = (size_t)switches * 7 + 64;
                answer = realloc(answer, answer_room);
                if (!answer) exit(3);
            }
            solve(a, switches, lits, count / 3, answer, answer_room);
            say(a, answer);
        } else if (same_type(line, "moved")) {
            here = atoi(field(line, "location"));
            const char *reason = field(line, "reason");
            if (!reason || strncmp(reason, "\"attacked\"", 10) != 0) pending = 0;
        } else if (same_type(line, "error")) {
            pending = 0;
        } else if (same_type(line, "game_over")) {
            free(line);
            break;
        }
        free(line);
    }
    close(a->fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s HOST PORT TEAM [MATCH [TOKEN]]\n", argv[0]);
        return 2;
    }
    host = argv[1], port = argv[2], team = atoi(argv[3]);
    match = argc > 4 ? argv[4] : "", token = argc > 5 ? argv[5] : "";
    Agent agents[AGENTS] = {0};
    pthread_t threads[AGENTS];
    for (int i = 0; i < AGENTS; i++) {
        struct addrinfo hints = {0}, *found;
        hints.ai_socktype = SOCK_STREAM;
        if (getaddrinfo(host, port, &hints, &found) != 0) return 2;
        agents[i].fd = socket(found->ai_family, SOCK_STREAM, 0);
        if (agents[i].fd < 0 || connect(agents[i].fd, found->ai_addr, found->ai_addrlen) != 0)
            return 2;
        freeaddrinfo(found);
        agents[i].number = i;
        agents[i].seed = (unsigned)(i + 1);
    }
    for (int i = 0; i < AGENTS; i++) pthread_create(&threads[i], NULL, play, &agents[i]);
    for (int i = 0; i < AGENTS; i++) pthread_join(threads[i], NULL);
    printf("team %d: game over\n", team);
    return 0;
}
