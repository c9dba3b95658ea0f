#!/usr/bin/env python3
"""The load tests' HTTP/1.1 server: one thread per connection, keep-alive,
each path a behaviour a test needs (well-formed or hostile).

    load_server.py PORTFILE

Binds 127.0.0.1 on a port the kernel picks and writes it to PORTFILE once
it listens.  Paths (query ?n=.. etc.):

  /ok?n=N          N bytes of PATTERN (HEAD: the header alone)
  /big?n=N         N zero bytes, streamed in 1 MiB pieces
  /trickle?n=N     a Content-Length of N, then one body byte a second
  /trickle-header  the header itself one byte a second
  /dupcl           two Content-Length headers that differ (5 and 6)
  /samecl          two equal Content-Length headers (5)
  /signed          Content-Length: +5
  /hugeheader?n=N  a header line of N bytes, the response in one send
  /lf              header lines ending in LF alone
  /echo            the body is "METHOD sha256(request body)"
  /hold?c=C        answers only once C requests are inside /hold at once
                   (503 after 10 s): a load that is not truly concurrent
                   fails on the status
  /stall?at=K&ms=M the K-th request to /stall waits M ms first
  /close           answers, then closes the connection
  /nolen?n=N       HTTP/1.0, no Content-Length: N bytes, then closes
  /interim?code=C  an interim C response (100, 103, ...), then /ok's
  /upgrade         101 Switching Protocols, then bytes of another protocol
"""
import hashlib
import os
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

PATTERN = b"benchtui"
HOLD = {}
HOLD_LOCK = threading.Lock()
STALL = {"n": 0}
STALL_LOCK = threading.Lock()


def pattern(n):
    return (PATTERN * (n // len(PATTERN) + 1))[:n]


def head(status, clen, extra=b""):
    return (b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n" % (status, clen) +
            extra + b"\r\n")


class Handler(socketserver.BaseRequestHandler):
    def read_request(self):
        """(method, path, query dict, body) or None at EOF."""
        while b"\r\n\r\n" not in self.buf:
            d = self.request.recv(65536)
            if not d:
                return None
            self.buf += d
        hdr, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = hdr.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        clen = 0
        for line in lines[1:]:
            k, v = line.split(":", 1)
            if k.strip().lower() == "content-length":
                clen = int(v.strip())
        while len(self.buf) < clen:
            d = self.request.recv(65536)
            if not d:
                return None
            self.buf += d
        body, self.buf = self.buf[:clen], self.buf[clen:]
        u = urllib.parse.urlsplit(target)
        q = {k: v[0] for k, v in urllib.parse.parse_qs(u.query).items()}
        return method, u.path, q, body

    def handle(self):
        self.buf = b""
        s = self.request
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while True:
            req = self.read_request()
            if req is None:
                return
            method, path, q, body = req
            n = int(q.get("n", "5"))
            if getattr(self, "do_" + path[1:].replace("-", "_"),
                       None) is None:
                s.sendall(head(404, 0))
                continue
            if getattr(self, "do_" + path[1:].replace("-", "_"))(
                    method, q, n, body) is False:
                return

    def do_ok(self, method, q, n, body):
        data = head(200, n)
        self.request.sendall(data if method == "HEAD" else data + pattern(n))

    def do_big(self, method, q, n, body):
        self.request.sendall(head(200, n))
        block = bytes(1 << 20)
        try:
            while n > 0:
                k = min(n, len(block))
                self.request.sendall(block[:k])
                n -= k
        except OSError:
            return False

    def do_trickle(self, method, q, n, body):
        self.request.sendall(head(200, n))
        try:
            for _ in range(n):
                time.sleep(1)
                self.request.sendall(b"x")
        except OSError:
            return False

    def do_trickle_header(self, method, q, n, body):
        try:
            for b in head(200, 0):
                time.sleep(1)
                self.request.sendall(bytes([b]))
        except OSError:
            return False

    def do_dupcl(self, method, q, n, body):
        self.request.sendall(head(200, 5, b"Content-Length: 6\r\n") +
                             b"hello!")

    def do_samecl(self, method, q, n, body):
        self.request.sendall(head(200, 5, b"Content-Length: 5\r\n") +
                             b"hello")

    def do_signed(self, method, q, n, body):
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: +5\r\n"
                             b"\r\nhello")

    def do_hugeheader(self, method, q, n, body):
        pad = b"X-Pad: " + b"p" * n + b"\r\n"
        self.request.sendall(head(200, 5, pad) + b"hello")

    def do_lf(self, method, q, n, body):
        self.request.sendall(b"HTTP/1.1 200 OK\nContent-Length: %d\n"
                             b"Content-Type: text/plain\n\n" % n + pattern(n))

    def do_echo(self, method, q, n, body):
        out = ("%s %s" % (method, hashlib.sha256(body).hexdigest())).encode()
        self.request.sendall(head(200, len(out)) + out)

    def do_hold(self, method, q, n, body):
        c = int(q.get("c", "2"))
        with HOLD_LOCK:
            b = HOLD.get(c)
            if b is None or b.broken:
                b = HOLD[c] = threading.Barrier(c)
        try:
            b.wait(10)
            self.request.sendall(head(200, 2) + b"ok")
        except threading.BrokenBarrierError:
            self.request.sendall(head(503, 0))

    def do_stall(self, method, q, n, body):
        with STALL_LOCK:
            STALL["n"] += 1
            k = STALL["n"]
        if k == int(q.get("at", "1")):
            time.sleep(int(q.get("ms", "1000")) / 1000)
        self.request.sendall(head(200, n) + pattern(n))

    def do_close(self, method, q, n, body):
        self.request.sendall(head(200, n) + pattern(n))
        return False

    def do_nolen(self, method, q, n, body):
        self.request.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain"
                             b"\r\n\r\n" + pattern(n))
        return False

    def do_interim(self, method, q, n, body):
        code = int(q.get("code", "100"))
        self.request.sendall(b"HTTP/1.1 %d Interim\r\nLink: </s.css>; "
                             b"rel=preload\r\n\r\n" % code)
        time.sleep(0.01)
        self.request.sendall(head(200, n) + pattern(n))

    def do_upgrade(self, method, q, n, body):
        self.request.sendall(b"HTTP/1.1 101 Switching Protocols\r\n"
                             b"Upgrade: echo\r\nConnection: Upgrade\r\n\r\n"
                             b"\x81\x05hello")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
