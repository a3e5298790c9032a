#!/usr/bin/python3
"""A loopback HTTP server for the pull tests (Python 3 standard library only).

Serves one file's bytes for any GET path on 127.0.0.1, on an ephemeral port that it prints
(one line) to stdout once it listens. It stops by itself after --max-seconds, so a test that
dies cannot leave it behind for long. Paths under /redirect/ answer 302 to the rest of the
path. Each request appends one JSON line {"path", "range"} to --log.

Modes:
  range    honours "Range: bytes=START-[END]" (206, or 416 past the end); the default
  norange  ignores Range: always 200 with the whole file
  status   answers --status (e.g. 404, 500) with a short text body
  cut      like range, but the first --cut-times responses close the connection after
           --cut-after body bytes (Content-Length still announces the whole body)
  slow     like range, but every response sends --cut-after bytes, sleeps --sleep seconds,
           then sends the rest
"""
import argparse
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--mode", default="range", choices=["range", "norange", "status", "cut", "slow"])
    ap.add_argument("--status", type=int, default=404)
    ap.add_argument("--cut-after", type=int, default=1000)
    ap.add_argument("--cut-times", type=int, default=1)
    ap.add_argument("--sleep", type=float, default=3.0)
    ap.add_argument("--log", default="")
    ap.add_argument("--max-seconds", type=float, default=120.0)
    args = ap.parse_args()

    with open(args.file, "rb") as f:
        body = f.read()
    lock = threading.Lock()
    state = {"cuts": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):  # quiet
            pass

        def record(self):
            if args.log:
                with lock, open(args.log, "a") as out:
                    out.write(json.dumps({"path": self.path, "range": self.headers.get("Range")}) + "\n")

        def send_bytes(self, data, limit=None, pause=None):
            try:
                if limit is not None and limit < len(data):
                    self.wfile.write(data[:limit])
                    self.wfile.flush()
                    if pause is None:  # cut: close with the body unfinished
                        self.close_connection = True
                        return
                    time.sleep(pause)
                    self.wfile.write(data[limit:])
                else:
                    self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def do_GET(self):
            self.record()
            if self.path.startswith("/redirect/"):
                self.send_response(302)
                self.send_header("Location", self.path[len("/redirect"):])
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                return
            if args.mode == "status":
                text = ("status %d\n" % args.status).encode()
                self.send_response(args.status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(text)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(text)
                return
            size = len(body)
            start, end, partial = 0, size - 1, False
            rng = self.headers.get("Range")
            if rng and args.mode != "norange":
                m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip())
                if m:
                    start = int(m.group(1))
                    if m.group(2):
                        end = min(int(m.group(2)), size - 1)
                    if start >= size:
                        self.send_response(416)
                        self.send_header("Content-Range", "bytes */%d" % size)
                        self.send_header("Content-Length", "0")
                        self.send_header("Connection", "close")
                        self.end_headers()
                        return
                    partial = True
            data = body[start:end + 1]
            self.send_response(206 if partial else 200)
            if partial:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Accept-Ranges", "none" if args.mode == "norange" else "bytes")
            self.send_header("Connection", "close")
            self.end_headers()
            limit, pause = None, None
            if args.mode == "cut":
                with lock:
                    if state["cuts"] < args.cut_times:
                        state["cuts"] += 1
                        limit = args.cut_after
            elif args.mode == "slow":
                limit, pause = args.cut_after, args.sleep
            self.send_bytes(data, limit, pause)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    timer = threading.Timer(args.max_seconds, server.shutdown)
    timer.daemon = True
    timer.start()
    print(server.server_address[1], flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
