#!/usr/bin/env python3
"""A webhook receiver for syncscan's tests: http.server on 127.0.0.1:PORT (https with --cert/--key).

Each POST is recorded as one JSON line in DIR/requests.jsonl (path, Idempotency-Key, Authorization,
Content-Type, the status answered, the monotonic and the wall clock's seconds, the body), then answered as DIR/mode says now, so a test
changes the answer by writing that file: "200" (the default, no file), "503", "400", or
"429 SECONDS" (with Retry-After: SECONDS). With --delay SECONDS each answer waits that long (a slow
receiver, bench/webhook.py). Usage: webhook-receiver.py PORT DIR [--cert C --key K] [--delay SECONDS]
"""
import http.server
import json
import os
import ssl
import sys
import time


def mode(directory):
    try:
        with open(os.path.join(directory, "mode")) as f:
            return f.read().split()
    except FileNotFoundError:
        return ["200"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        time.sleep(self.server.delay)
        answer = mode(self.server.directory)
        status = int(answer[0])
        record = {
            "path": self.path,
            "key": self.headers.get("Idempotency-Key"),
            "authorization": self.headers.get("Authorization"),
            "content_type": self.headers.get("Content-Type"),
            "status": status,
            "time": time.monotonic(),
            "wall": time.time(),
            "body": body.decode("utf-8", "replace"),
        }
        with open(os.path.join(self.server.directory, "requests.jsonl"), "a") as f:
            f.write(json.dumps(record) + "\n")
        self.send_response(status)
        if status == 429 and len(answer) > 1:
            self.send_header("Retry-After", answer[1])
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format, *args):
        pass


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.directory = directory
    server.delay = float(sys.argv[sys.argv.index("--delay") + 1]) if "--delay" in sys.argv else 0.0
    if "--cert" in sys.argv:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[sys.argv.index("--cert") + 1], sys.argv[sys.argv.index("--key") + 1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(os.path.join(directory, "listening"), "w") as f:
        f.write(str(port))
    server.serve_forever()


if __name__ == "__main__":
    main()
