/* A Labyrinth client in C on the course's C API (labyrinthAPI.h, GameAPI), written from this
 * project's spec (docs/labyrinth.md, spec labyrinth.md) to check that the unmodified API plays
 * on `arena labyrinth serve`. It walks a shortest path to the treasure on the torus and follows
 * every move of both players on its own copy of the maze (rotations carry players and
 * treasure), so it stays right when the opponent rotates.
 *
 *   client HOST PORT NAME "TRAINING OPTIONS" [GAMES]   (one connection, GAMES games in a row)
 *
 * Prints one line per game: "RESULT <game> won|lost <moves>".
 * Build: gcc -std=c99 -D_GNU_SOURCE -I<api dirs> client.c GameAPI.c labyrinthAPI.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "labyrinthAPI.h"

extern int debug;

typedef struct {
    int w, h;
    char *wall;      /* 1 for a wall */
    int px[2], py[2];/* players: 0 starts at the left */
    int tx, ty;      /* treasure */
    int energy[2];
} Game;

static int mod(int a, int n) { return ((a % n) + n) % n; }

static void carry(int *x, int *y, int type, int value, int w, int h) {
    if ((type == ROTATE_LINE_LEFT || type == ROTATE_LINE_RIGHT) && *y == value)
        *x = mod(*x + (type == ROTATE_LINE_LEFT ? -1 : 1), w);
    if ((type == ROTATE_COLUMN_UP || type == ROTATE_COLUMN_DOWN) && *x == value)
        *y = mod(*y + (type == ROTATE_COLUMN_UP ? -1 : 1), h);
}

/* Play `m` for player `p` on our copy. */
static void apply(Game *g, int p, t_move m) {
    static const int dx[] = {0, 0, -1, 1}, dy[] = {-1, 1, 0, 0};
    if (m.type >= MOVE_UP && m.type <= MOVE_RIGHT) {
        g->px[p] = mod(g->px[p] + dx[m.type - MOVE_UP], g->w);
        g->py[p] = mod(g->py[p] + dy[m.type - MOVE_UP], g->h);
        g->energy[p]++;
    } else if (m.type == DO_NOTHING) {
        g->energy[p]++;
    } else {
        int w = g->w, h = g->h, i;
        char *old = malloc((size_t)(w > h ? w : h));
        if (m.type <= ROTATE_LINE_RIGHT) {
            int s = m.type == ROTATE_LINE_LEFT ? -1 : 1;
            for (i = 0; i < w; i++) old[i] = g->wall[m.value * w + i];
            for (i = 0; i < w; i++) g->wall[m.value * w + mod(i + s, w)] = old[i];
        } else {
            int s = m.type == ROTATE_COLUMN_UP ? -1 : 1;
            for (i = 0; i < h; i++) old[i] = g->wall[i * w + m.value];
            for (i = 0; i < h; i++) g->wall[mod(i + s, h) * w + m.value] = old[i];
        }
        free(old);
        for (i = 0; i < 2; i++) carry(&g->px[i], &g->py[i], m.type, m.value, w, h);
        carry(&g->tx, &g->ty, m.type, m.value, w, h);
        g->energy[p] -= 5;
    }
}

/* The first step of a shortest walk from player p to the treasure (breadth first), or
 * DO_NOTHING when there is none. */
static t_move next_step(const Game *g, int p) {
    static const int dx[] = {0, 0, -1, 1}, dy[] = {-1, 1, 0, 0};
    int n = g->w * g->h, head = 0, tail = 0, i;
    int *first = malloc(sizeof(int) * (size_t)n), *queue = malloc(sizeof(int) * (size_t)n);
    t_move move = {DO_NOTHING, 0};
    for (i = 0; i < n; i++) first[i] = -1;
    int start = g->py[p] * g->w + g->px[p];
    first[start] = 8;
    queue[tail++] = start;
    while (head < tail) {
        int cell = queue[head++], x = cell % g->w, y = cell / g->w, k;
        for (k = 0; k < 4; k++) {
            int nx = mod(x + dx[k], g->w), ny = mod(y + dy[k], g->h), next = ny * g->w + nx;
            if (g->wall[next] || first[next] != -1) continue;
            first[next] = cell == start ? MOVE_UP + k : first[cell];
            if (nx == g->tx && ny == g->ty) {
                move.type = (t_typeMove)first[next];
                head = tail;
                break;
            }
            queue[tail++] = next;
        }
    }
    free(first);
    free(queue);
    return move;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s HOST PORT NAME 'TRAINING OPTIONS' [GAMES]\n", argv[0]);
        return 2;
    }
    int games = argc > 5 ? atoi(argv[5]) : 1, round;
    debug = 0;
    connectToServer(argv[1], atoi(argv[2]), argv[3]);
    for (round = 0; round < games; round++) {
        char name[128];
        Game g;
        int me, turn = 0, moves = 0, i;
        t_return_code code = MOVE_OK;
        waitForLabyrinth(argv[4], name, &g.w, &g.h);
        g.wall = malloc((size_t)(g.w * g.h));
        me = getLabyrinth(g.wall);
        for (i = 0; i < g.w * g.h; i++) g.wall[i] = g.wall[i] == 1 || g.wall[i] == '1';
        g.px[0] = 0; g.py[0] = g.h / 2; g.px[1] = g.w - 1; g.py[1] = g.h / 2;
        g.tx = g.w / 2; g.ty = g.h / 2;
        g.energy[0] = 0; g.energy[1] = 1;
        if (round == 0) sendComment("a C client of the arena project");
        while (code == MOVE_OK) {
            t_move m;
            int mover = turn % 2;
            if (mover == me) {
                m = next_step(&g, me);
                code = sendMove(m);
            } else {
                code = getMove(&m);
            }
            if (code == MOVE_OK || code == MOVE_WIN) apply(&g, mover, m);
            moves++;
            turn++;
            if (code != MOVE_OK) {
                int won = (mover == me) == (code == MOVE_WIN);
                printf("RESULT %s %s %d\n", name, won ? "won" : "lost", moves);
                fflush(stdout);
            }
        }
        free(g.wall);
    }
    closeConnection();
    return 0;
}
