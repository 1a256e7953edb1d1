/* A Fish client in C (docs/fish.md: the sign-up server and the referee's calls), the C twin of
 * docs/starters/fish_client.py: it signs up with the name it is given, places on the first free
 * tile in row-major order and moves its first penguin that can one step, directions in the
 * spec's order. Standard C and POSIX sockets only; it reads just the JSON it needs (the board's
 * rows and every player's places).
 *
 *   ./client HOST PORT NAME          Built by its teams file (cc client.c). */
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX 64

static int server;
static char *buffer;
static size_t used, size;
static int rows, widths[MAX], board[MAX][MAX], taken[MAX][MAX];
static int mine[16][2], my_count;

static void say(const char *text) {
    size_t length = strlen(text);
    if (send(server, text, length, 0) != (ssize_t)length) exit(0);
}

/* The length of the first whole JSON value in the buffer (an array, a string, a word), or 0. */
static size_t whole(void) {
    size_t i = 0;
    while (i < used && isspace((unsigned char)buffer[i])) i++;
    int depth = 0, text = 0;
    for (size_t j = i; j < used; j++) {
        char c = buffer[j];
        if (text) {
            if (c == '\\') j++;
            else if (c == '"') { text = 0; if (depth == 0) return j + 1; }
        } else if (c == '"') text = 1;
        else if (c == '[' || c == '{') depth++;
        else if (c == ']' || c == '}') { if (--depth == 0) return j + 1; }
        else if (depth == 0 && j > i && !isalnum((unsigned char)c)) return j;
    }
    return 0;
}

/* The next call, as a string of its own (the caller frees it); exits when the server closes. */
static char *receive(void) {
    size_t end;
    while ((end = whole()) == 0) {
        if (used + 65536 > size) {
            size = (used + 65536) * 2;
            buffer = realloc(buffer, size);
            if (!buffer) exit(3);
        }
        ssize_t n = recv(server, buffer + used, 65536, 0);
        if (n <= 0) exit(0);
        used += (size_t)n;
    }
    char *call = malloc(end + 1);
    if (!call) exit(3);
    memcpy(call, buffer, end);
    call[end] = '\0';
    memmove(buffer, buffer + end, used - end);
    used -= end;
    return call;
}

/* Reads "[[r, c], ...]" at p into pairs (at most `most`); returns how many, `p` moved past. */
static int pairs(const char **p, int out[][2], int most) {
    int count = 0, depth = 0;
    for (; **p; (*p)++) {
        if (**p == '[') depth++;
        else if (**p == ']') { if (--depth == 0) { (*p)++; break; } }
        else if (depth == 2 && (isdigit((unsigned char)**p) || **p == '-')) {
            char *after;
            long r = strtol(*p, &after, 10);
            while (*after == ' ' || *after == ',') after++;
            long c = strtol(after, &after, 10);
            if (count < most) { out[count][0] = (int)r; out[count][1] = (int)c; }
            count++;
            *p = after - 1;
        }
    }
    return count < most ? count : most;
}

static void read_state(const char *call) {
    memset(taken, 0, sizeof taken);
    rows = 0;
    const char *p = strstr(call, "\"board\"");
    if (!p) return;
    p = strchr(p, '[');
    int depth = 0, col = 0;
    for (; p && *p; p++) {
        if (*p == '[') { depth++; col = 0; }
        else if (*p == ']') { if (depth == 2 && rows < MAX) widths[rows++] = col; if (--depth == 0) break; }
        else if (depth == 2 && isdigit((unsigned char)*p)) {
            char *after;
            long fish = strtol(p, &after, 10);
            if (rows < MAX && col < MAX) board[rows][col] = (int)fish;
            col++;
            p = after - 1;
        }
    }
    p = strstr(call, "\"players\"");
    for (int player = 0; p && (p = strstr(p, "\"places\"")) != NULL; player++) {
        p = strchr(p, '[');
        int places[16][2];
        int n = pairs(&p, places, 16);
        for (int i = 0; i < n; i++)
            if (places[i][0] >= 0 && places[i][0] < MAX && places[i][1] >= 0 && places[i][1] < MAX)
                taken[places[i][0]][places[i][1]] = 1;
        if (player == 0) {
            my_count = n;
            memcpy(mine, places, sizeof places);
        }
    }
}

static int free_tile(int r, int c) {
    return r >= 0 && r < rows && c >= 0 && c < widths[r] && board[r][c] != 0 && !taken[r][c];
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s HOST PORT NAME\n", argv[0]);
        return 2;
    }
    struct addrinfo hints = {0}, *found;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(argv[1], argv[2], &hints, &found) != 0) return 2;
    server = socket(found->ai_family, SOCK_STREAM, 0);
    if (server < 0 || connect(server, found->ai_addr, found->ai_addrlen) != 0) return 2;
    freeaddrinfo(found);
    char reply[128];
    snprintf(reply, sizeof reply, "\"%s\"", argv[3]);
    say(reply);
    for (;;) {
        char *call = receive();
        strcpy(reply, "\"void\"");
        if (strstr(call, "\"setup\"")) {
            read_state(call);
            for (int r = 0, done = 0; r < rows && !done; r++)
                for (int c = 0; c < widths[r] && !done; c++)
                    if (free_tile(r, c)) { snprintf(reply, sizeof reply, "[%d,%d]", r, c); done = 1; }
        } else if (strstr(call, "\"take-turn\"")) {
            read_state(call);
            for (int i = 0, done = 0; i < my_count && !done; i++) {
                int r = mine[i][0], c = mine[i][1], o = r % 2 ? 1 : 0, e = r % 2 ? 0 : 1;
                int steps[6][2] = {{r - 2, c}, {r - 1, c + o}, {r + 1, c + o},
                                   {r + 2, c}, {r + 1, c - e}, {r - 1, c - e}};
                for (int d = 0; d < 6 && !done; d++)
                    if (free_tile(steps[d][0], steps[d][1])) {
                        snprintf(reply, sizeof reply, "[[%d,%d],[%d,%d]]", r, c, steps[d][0],
                                 steps[d][1]);
                        done = 1;
                    }
            }
        }
        say(reply);
        int over = strstr(call, "\"end\"") != NULL;
        free(call);
        if (over) return 0;
    }
}
