/* A Penguins player in C (docs/penguins.md: the course's arguments and board file), the C twin
 * of docs/starters/penguins_player.py: it keeps its id in id.txt of its folder between calls,
 * places on the first free one-fish floe, and moves the first penguin that can one step to the
 * first free floe (up, down, left, right).
 *
 *   ./player name | ./player phase=placement penguins=N IN OUT | ./player phase=movement IN OUT
 *
 * Exit codes: 0 moved, 1 cannot move, 2 bad input. Built by its teams file (cc player.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX 64
#define MAX_PLAYERS 9

static int rows, cols, count;
static char board[MAX][MAX][3];
static char ids[MAX_PLAYERS][64];
static int numbers[MAX_PLAYERS], scores[MAX_PLAYERS];

static int read_board(const char *path) {
    FILE *in = fopen(path, "r");
    if (!in || fscanf(in, "%d %d", &rows, &cols) != 2 || rows > MAX || cols > MAX) return 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (fscanf(in, "%2s", board[r][c]) != 1) return 0;
    while (count < MAX_PLAYERS &&
           fscanf(in, "%63s %d %d", ids[count], &numbers[count], &scores[count]) == 3)
        count++;
    fclose(in);
    return 1;
}

static int write_board(const char *path) {
    FILE *out = fopen(path, "w");
    if (!out) return 0;
    fprintf(out, "%d %d\n", rows, cols);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) fprintf(out, "%s%c", board[r][c], c + 1 < cols ? ' ' : '\n');
    for (int p = 0; p < count; p++) fprintf(out, "%s %d %d\n", ids[p], numbers[p], scores[p]);
    return fclose(out) == 0;
}

int main(int argc, char **argv) {
    const char *phase = NULL, *files[2] = {NULL, NULL};
    int penguins = 0, nfiles = 0;
    char ident[64] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "name") == 0) {
            srand((unsigned)time(NULL) ^ (unsigned)getpid());
            FILE *out = fopen("id.txt", "w");
            if (!out) return 2;
            fprintf(out, "cfloe%d", rand() % 1000000);
            fclose(out);
        }
        if (strncmp(argv[i], "phase=", 6) == 0) phase = argv[i] + 6;
        else if (strncmp(argv[i], "penguins=", 9) == 0) penguins = atoi(argv[i] + 9);
        else if (!strchr(argv[i], '=') && strcmp(argv[i], "name") != 0 && nfiles < 2)
            files[nfiles++] = argv[i];
    }
    FILE *id = fopen("id.txt", "r");
    if (!id || fscanf(id, "%63s", ident) != 1) return 2;
    fclose(id);
    if (!phase) { printf("%s\n", ident); return 0; }
    if (nfiles < 1 || !read_board(files[0])) return 2;
    const char *target = files[nfiles - 1];
    int me = -1;
    for (int p = 0; p < count; p++)
        if (strcmp(ids[p], ident) == 0) me = p;
    if (me < 0) {  /* first call: a row of our own, with the lowest free number */
        if (count == MAX_PLAYERS) return 2;
        int number = 1;
        for (int used = 1; used;) {
            used = 0;
            for (int p = 0; p < count; p++)
                if (numbers[p] == number) { used = 1; number++; }
        }
        me = count++;
        strcpy(ids[me], ident);
        numbers[me] = number;
        scores[me] = 0;
    }
    char mark = (char)('0' + numbers[me]);
    if (strcmp(phase, "placement") == 0) {
        int mine = 0;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) mine += board[r][c][1] == mark;
        if (mine >= penguins) return 1;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                if (strcmp(board[r][c], "10") == 0) {
                    board[r][c][0] = '0';
                    board[r][c][1] = mark;
                    scores[me] += 1;
                    return write_board(target) ? 0 : 2;
                }
        return 1;
    }
    static const int dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            if (board[r][c][1] != mark) continue;
            for (int d = 0; d < 4; d++) {
                int nr = r + dr[d], nc = c + dc[d];
                if (nr < 0 || nr >= rows || nc < 0 || nc >= cols) continue;
                if (board[nr][nc][0] == '0' || board[nr][nc][1] != '0') continue;
                scores[me] += board[nr][nc][0] - '0';
                board[nr][nc][0] = '0';
                board[nr][nc][1] = mark;
                strcpy(board[r][c], "00");
                return write_board(target) ? 0 : 2;
            }
        }
    return 1;
}
