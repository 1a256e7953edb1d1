#!/usr/bin/env python3
"""The Labyrinth starter (docs/labyrinth.md: the 2017 protocol), standard library only; copy it and
make it smarter. Run: ./labyrinth_client.py HOST PORT NAME. As it stands it signs up with the name
it is given, waits for a game and stays put (DO_NOTHING) every turn."""

import socket
import sys

host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
server = socket.create_connection((host, port))


def exact(size):
    data = b""
    while len(data) < size:
        chunk = server.recv(size - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def read():
    return exact(int(exact(4))).decode()


def ask(command):
    server.sendall(command.encode())
    return read()


ask(f"CLIENT_NAME {name}")
ask("WAIT_GAME ")
read()  # the game's name
read()  # its size
ask("GET_GAME_DATA")
read()  # the maze
my_turn = read() == "0"
while True:
    if my_turn:
        ask("PLAY_MOVE 8 0")
        read()
        code = read()
    else:
        ask("GET_MOVE")
        read()
        code = read()
    if code not in ("0", ""):
        break
    my_turn = not my_turn
