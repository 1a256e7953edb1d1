#!/usr/bin/env python3
"""The Fish starter (docs/fish.md: the sign-up server and the referee's calls), standard library
only; copy it and make it smarter. Run: ./fish_client.py HOST PORT NAME. As it stands it signs up
with the name it is given, places on the first free tile in row-major order and moves its first
penguin that can one step, directions in the spec's order."""

import json
import socket
import sys

host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
server = socket.create_connection((host, port))
server.sendall(json.dumps(name).encode())
decoder, buffer = json.JSONDecoder(), ""


def receive():
    global buffer
    while True:
        text = buffer.lstrip()
        if text:
            try:
                value, end = decoder.raw_decode(text)
            except ValueError:
                pass
            else:
                buffer = text[end:]
                return value
        chunk = server.recv(65536)
        if not chunk:
            sys.exit(0)
        buffer += chunk.decode()


def free(state, r, c):
    board = state["board"]
    if not (0 <= r < len(board) and 0 <= c < len(board[r])) or board[r][c] == 0:
        return False
    return all([r, c] not in p["places"] for p in state["players"])


def steps(r, c):
    o, e = (1 if r % 2 else 0), (0 if r % 2 else 1)
    return [(r - 2, c), (r - 1, c + o), (r + 1, c + o), (r + 2, c), (r + 1, c - e), (r - 1, c - e)]


while True:
    call, args = receive()
    if call == "setup":
        state = args[0]
        reply = next(
            [r, c]
            for r, row in enumerate(state["board"])
            for c in range(len(row))
            if free(state, r, c)
        )
    elif call == "take-turn":
        state = args[0]
        reply = next(
            [[r, c], [nr, nc]]
            for r, c in state["players"][0]["places"]
            for nr, nc in steps(r, c)
            if free(state, nr, nc)
        )
    else:
        reply = "void"
    server.sendall(json.dumps(reply).encode())
    if call == "end":
        break
