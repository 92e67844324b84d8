#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Sends COUNT requests of one scenario, one after the other, over one keep-alive connection, and
# checks every answer; for bench/instructions.sh, which measures the server around it. Requests
# carry what wrk sends (Host, the scenario's headers, Content-Length) and nothing more, so the
# servers compared read the same heads.
#   request_loop.py PORT SCENARIO COUNT [KEY] [QUEUE]
# With REQUEST_LOOP_CAFILE set, the connection is HTTPS, verified against that CA file.
# Scenarios (brokerd): health, publish, consume, leaseack (a lease and its ack: two requests),
# batch (100 messages), fill (publishes COUNT messages for consume/leaseack to take).
# Peers: nginx (GET /), webdis_lpush, webdis_rpop, hello (GET /hello of bench/hello_httpserver).
import json
import os
import socket
import ssl
import sys

PREFIX = '{"message":{"order":12345,"note":"'
SUFFIX = '"}}'
BODY = (PREFIX + "x" * (200 - len(PREFIX) - len(SUFFIX)) + SUFFIX).encode()
BATCH = json.dumps({"messages": [{"order": i, "note": "x" * 170} for i in range(100)]},
                   separators=(",", ":")).encode()


class Connection:
    def __init__(self, port, key):
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cafile = os.environ.get("REQUEST_LOOP_CAFILE")
        if cafile:
            context = ssl.create_default_context(cafile=cafile)
            self.socket = context.wrap_socket(self.socket, server_hostname="127.0.0.1")
        self.host = b"127.0.0.1:%d" % port
        self.key = key.encode()
        self.buffer = b""

    def call(self, method, path, body=b"", want=200):
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n" % (method.encode(), path.encode(), self.host)
        if self.key:
            head += b"X-API-Key: %s\r\n" % self.key
        if body:
            head += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        self.socket.sendall(head + b"\r\n" + body)
        status, data = self.response()
        if status != want:
            sys.exit("%s %s: HTTP %d %s" % (method, path, status, data[:200]))
        return data

    def response(self):
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                lines = self.buffer[:end].split(b"\r\n")
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if len(self.buffer) >= end + 4 + length:
                    data = self.buffer[end + 4:end + 4 + length]
                    self.buffer = self.buffer[end + 4 + length:]
                    return int(lines[0].split()[1]), data
            chunk = self.socket.recv(65536)
            if not chunk:
                sys.exit("the server closed the connection")
            self.buffer += chunk


def main():
    port, scenario, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    key = sys.argv[4] if len(sys.argv) > 4 else ""
    queue = sys.argv[5] if len(sys.argv) > 5 else "bench"
    conn = Connection(port, key)
    for _ in range(count):
        if scenario == "health":
            conn.call("GET", "/health/live")
        elif scenario in ("publish", "fill"):
            conn.call("POST", "/messages/" + queue, BODY)
        elif scenario == "consume":
            conn.call("GET", "/messages/%s?acknowledge=true" % queue)
        elif scenario == "leaseack":
            message = json.loads(conn.call("GET", "/messages/%s?acknowledge=false" % queue))["message"]
            conn.call("PUT", "/messages/%s/%s" % (queue, message["id"]),
                      json.dumps({"receipt": message["receipt"]}).encode())
        elif scenario == "batch":
            conn.call("POST", "/messages/%s/batch" % queue, BATCH)
        elif scenario == "nginx":
            conn.call("GET", "/")
        elif scenario == "hello":
            conn.call("GET", "/hello")
        elif scenario == "webdis_lpush":
            conn.call("GET", "/LPUSH/bench/" + "x" * 200)
        elif scenario == "webdis_rpop":
            conn.call("GET", "/RPOP/bench")
        else:
            sys.exit("unknown scenario " + scenario)


main()
