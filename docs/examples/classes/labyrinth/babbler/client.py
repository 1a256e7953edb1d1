#!/usr/bin/env python3
"""A client that fails in a known way: once its game starts it sends a command that is not in
the protocol. Expected: "protocol_error"."""

import socket
import sys
import time

host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
server = socket.create_connection((host, port))


def read():
    size = int(server.recv(4, socket.MSG_WAITALL))
    return server.recv(size, socket.MSG_WAITALL).decode()


for command in (f"CLIENT_NAME {name}", "WAIT_GAME "):
    server.sendall(command.encode())
    read()
read()
read()
server.sendall(b"HELLO THERE")
print("babbler: sent HELLO THERE, as the example intends", flush=True)
time.sleep(30)
