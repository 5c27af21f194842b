#!/usr/bin/env python3
"""Loopback HTTP server for the WinHTTP probe test (probe.sh): one fixed
answer per path, written by hand so each can misbehave exactly. Writes its
port to argv[1] and every request line to argv[2]; listens on 127.0.0.1 and,
when the machine has it, on ::1 at the same port (argv[1] gets "PORT V6")."""
import socket
import socketserver
import sys
import threading
import time

BIG = 2 * 1024 * 1024  # twice the probe's bound (EX_MAX_BODY, 1 MiB)
log_lock = threading.Lock()


class Handler(socketserver.BaseRequestHandler):
    def send(self, data):
        try:
            self.request.sendall(data)
        except OSError:
            pass  # the client gave up, as it should on a bound

    def handle(self):
        req = b""
        while b"\r\n\r\n" not in req and len(req) < 65536:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            req += chunk
        line = req.split(b"\r\n", 1)[0].decode("latin-1")
        with log_lock, open(sys.argv[2], "a") as f:
            f.write(line + "\n")
        path = line.split(" ")[1] if line.count(" ") >= 2 else ""
        if path == "/props":
            body = b'{"ok":true}'
            self.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        elif path == "/slots":  # silent: accepts and never answers in time
            time.sleep(10)
        elif path == "/metrics":  # declares more than the bound
            self.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % BIG)
            for _ in range(BIG // 65536):
                self.send(b"#" * 65536)
        elif path == "/v1/models":  # more than the bound, length undeclared
            self.send(b"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n")
            for _ in range(BIG // 65536):
                self.send(b"x" * 65536)
        elif path == "/health":  # a redirect the probe must not follow
            self.send(b"HTTP/1.1 302 Found\r\nLocation: /api/v0/models\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        elif path == "/api/v0/models":
            self.send(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        elif path == "/api/v1/models":  # not HTTP at all
            self.send(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
        else:
            self.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class Server6(Server):
    address_family = socket.AF_INET6


srv = Server(("127.0.0.1", 0), Handler)
port = srv.server_address[1]
v6 = 0
try:
    srv6 = Server6(("::1", port), Handler)
    threading.Thread(target=srv6.serve_forever, daemon=True).start()
    v6 = 1
except OSError:
    pass
with open(sys.argv[1] + ".new", "w") as f:
    f.write("%d %d\n" % (port, v6))
import os
os.rename(sys.argv[1] + ".new", sys.argv[1])
srv.serve_forever()
