/* A Labyrinth client in C (docs/labyrinth.md: the 2017 protocol), the C twin of
 * docs/starters/labyrinth_client.py: it signs up with the name it is given, waits for a game
 * and stays put (DO_NOTHING) every turn. Standard C and POSIX sockets only.
 *
 *   ./client HOST PORT NAME          Built by its teams file (cc client.c). */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int server;
static char *message;

static void exact(char *into, size_t size) {
    for (size_t got = 0; got < size;) {
        ssize_t n = recv(server, into + got, size - got, 0);
        if (n <= 0) exit(0); /* the server closed: the game is over */
        got += (size_t)n;
    }
}

/* One message: four ASCII digits of length, then the text. */
static const char *receive(void) {
    char head[5] = {0};
    exact(head, 4);
    size_t size = (size_t)atoi(head);
    free(message);
    message = malloc(size + 1);
    if (!message) exit(3);
    exact(message, size);
    message[size] = '\0';
    return message;
}

static const char *ask(const char *command) {
    size_t size = strlen(command);
    if (send(server, command, size, 0) != (ssize_t)size) exit(0);
    return receive();
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
    char command[128];
    snprintf(command, sizeof command, "CLIENT_NAME %s", argv[3]);
    ask(command);
    ask("WAIT_GAME ");
    receive(); /* the game's name */
    receive(); /* its size */
    ask("GET_GAME_DATA");
    receive(); /* the maze */
    int my_turn = strcmp(receive(), "0") == 0;
    for (;;) {
        ask(my_turn ? "PLAY_MOVE 8 0" : "GET_MOVE");
        receive();
        const char *code = receive();
        if (strcmp(code, "0") != 0 && code[0] != '\0') break;
        my_turn = !my_turn;
    }
    printf("game over (code %s)\n", message);
    return 0;
}
