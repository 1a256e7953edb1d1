#!/usr/bin/env python3
"""A client that fails in a known way: it acknowledges start, then answers setup with bytes
that are not JSON. Expected: "protocol_error"."""

import json
import socket
import sys
import time

host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
server = socket.create_connection((host, port))
server.sendall(json.dumps(name).encode())
seen = b""
while b"setup" not in seen:
    chunk = server.recv(65536)
    if not chunk:
        sys.exit(0)
    seen += chunk
    if b"start" in chunk or b"playing" in chunk:
        server.sendall(b'"void"' * (chunk.count(b"start") + chunk.count(b"playing")))
server.sendall(b"} not json")
print("garbler: sent } not json, as the example intends", flush=True)
time.sleep(30)
