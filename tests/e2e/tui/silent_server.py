#!/usr/bin/env python3
"""A stand-in model server that accepts connections on loopback and never
answers. Writes its port to the file named by argv[1], then holds every
connection open until killed, adding a line to argv[1].accepts as it takes
each (so a test knows a probe is waiting on it)."""
import socket
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
log = open(sys.argv[1] + ".accepts", "a")
while True:
    c, _ = s.accept()
    held.append(c)  # read nothing, answer nothing
    log.write("accepted\n")
    log.flush()
