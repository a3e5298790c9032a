#!/usr/bin/python3
"""A loopback HTTP server for the pull tests (Python 3 standard library only).

Serves one file's bytes for any GET path on 127.0.0.1, on an ephemeral port that it prints
(one line) to stdout once it listens. It stops by itself after --max-seconds, so a test that
dies cannot leave it behind for long. Paths under /redirect/ answer 302 to the rest of the
path. Each request appends one JSON line {"path", "range", "if_range"} to --log.

Every 200 and 206 carries the file's validators, ETag (a hash of its bytes) and Last-Modified
(fixed per file), unless --no-validators; "If-Range" is honoured (a validator that is not the
file's own: the Range is ignored, 200 with the whole file) unless --ignore-if-range.
--file2 F --switch-after N serves F (with its own validators) from the (N+1)-th request on: the
file changed on the server. --port P listens on P (a restarted server at the same URL).

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
import hashlib
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--mode", default="range", choices=["range", "norange", "status", "cut", "slow"])
    ap.add_argument("--status", type=int, default=404)
    ap.add_argument("--cut-after", type=int, default=1000)
    ap.add_argument("--cut-times", type=int, default=1)
    ap.add_argument("--sleep", type=float, default=3.0)
    ap.add_argument("--log", default="")
    ap.add_argument("--max-seconds", type=float, default=120.0)
    ap.add_argument("--no-validators", action="store_true")
    ap.add_argument("--ignore-if-range", action="store_true")
    ap.add_argument("--file2", default="")
    ap.add_argument("--switch-after", type=int, default=0)
    ap.add_argument("--port", type=int, default=0)
    return ap.parse_args()


def load(path, day):
    """A served file: its bytes and validators (ETag from the bytes, Last-Modified per file)."""
    with open(path, "rb") as f:
        data = f.read()
    etag = '"%s"' % hashlib.sha256(data).hexdigest()[:20]
    modified = "Mon, %02d Nov 2026 10:00:00 GMT" % day
    return data, etag, modified


class Handler(BaseHTTPRequestHandler):
    """Answers as the server's args say; server.args, server.files, server.state, server.lock."""

    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):  # quiet
        pass

    def record(self):
        if self.server.args.log:
            with self.server.lock, open(self.server.args.log, "a") as out:
                out.write(
                    json.dumps(
                        {
                            "path": self.path,
                            "range": self.headers.get("Range"),
                            "if_range": self.headers.get("If-Range"),
                        }
                    )
                    + "\n"
                )

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

    def answer_empty(self, code, header=None):
        self.send_response(code)
        if header:
            self.send_header(*header)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def answer_status(self, code):
        text = ("status %d\n" % code).encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(text)

    def current_file(self):
        args, state = self.server.args, self.server.state
        with self.server.lock:
            state["requests"] += 1
            switched = args.file2 and state["requests"] > args.switch_after
        return self.server.files[1] if switched else self.server.files[0]

    def byte_range(self, size, etag, modified):
        """(start, end, partial) of the request's Range, or None when it starts past the end."""
        args = self.server.args
        rng, if_range = self.headers.get("Range"), self.headers.get("If-Range")
        if rng and if_range is not None and not args.ignore_if_range:
            # RFC 9110 13.1.5: an entity tag matches only strongly; a date only exactly.
            if if_range.startswith("W/") or if_range not in (etag, modified):
                rng = None
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip()) if rng and args.mode != "norange" else None
        if not m:
            return 0, size - 1, False
        start = int(m.group(1))
        end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        return None if start >= size else (start, end, True)

    def cut_of(self):
        """(limit, pause) of this response's body: the cut and slow modes."""
        args, state = self.server.args, self.server.state
        if args.mode == "cut":
            with self.server.lock:
                if state["cuts"] < args.cut_times:
                    state["cuts"] += 1
                    return args.cut_after, None
        elif args.mode == "slow":
            return args.cut_after, args.sleep
        return None, None

    def do_GET(self):
        self.record()
        args = self.server.args
        body, etag, modified = self.current_file()
        if self.path.startswith("/redirect/"):
            return self.answer_empty(302, ("Location", self.path[len("/redirect") :]))
        if args.mode == "status":
            return self.answer_status(args.status)
        span = self.byte_range(len(body), etag, modified)
        if span is None:
            return self.answer_empty(416, ("Content-Range", "bytes */%d" % len(body)))
        start, end, partial = span
        data = body[start : end + 1]
        self.send_response(206 if partial else 200)
        if partial:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, len(body)))
        if not args.no_validators:
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "none" if args.mode == "norange" else "bytes")
        self.send_header("Connection", "close")
        self.end_headers()
        self.send_bytes(data, *self.cut_of())


def main():
    args = parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.args = args
    server.files = [load(args.file, 2)] + ([load(args.file2, 9)] if args.file2 else [])
    server.lock = threading.Lock()
    server.state = {"cuts": 0, "requests": 0}
    server.daemon_threads = True
    timer = threading.Timer(args.max_seconds, server.shutdown)
    timer.daemon = True
    timer.start()
    print(server.server_address[1], flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
