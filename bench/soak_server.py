"""Load and soak test of `meadow-mind serve`, loopback only: 16 clients x 1,000 mixed requests
(decisions, chat completions, streamed chats of which half hang up after the first event),
each client on keep-alive connections it reopens after a hang-up. Prints a table and fails
(exit 1) on any failed answer, any worker still busy at the end, or resident memory at the end
more than 10 % above its level after warm-up. Bounded in requests and in time (--seconds), it
stops by itself and stops the server. Standard library only.

    /usr/bin/python3 bench/soak_server.py [--cli build/meadow-mind] [--model nano]
        [--clients 16] [--requests 1000] [--seconds 0] [--warmup 100]

CI runs a 30 s version (--seconds 30); the full run is for a person (docs/measurements.md).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import subprocess
import sys
import threading
import time

RULE = "If the light is red, stop; if it is green, go; otherwise slow down."
OPTIONS = {"A": "stop", "B": "go", "C": "slow down"}
STATES = ["The light is red.", "The light is green.", "The light is yellow.", "A deer crosses."]
KINDS = ("decide", "chat", "stream", "stream-leave")


def start_server(cli: str, model: str) -> tuple[subprocess.Popen, int]:
    args = [cli, "serve", "--model", model, "--port", "0", "--workers", "2", "--queue", "64", "--quiet"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "listening on http://HOST:PORT ..."
    if "http://" not in line:
        proc.kill()
        sys.exit(f"serve did not report its port: {line!r} {proc.stderr.read()}")
    return proc, int(line.split("http://", 1)[1].split()[0].rsplit(":", 1)[1])


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def health(port: int) -> dict:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", "/health")
        return json.loads(c.getresponse().read())
    finally:
        c.close()


class Client:
    """One client's connection; reopened after a hang-up or an error."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def _conn(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        return self.conn

    def drop(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def one(self, kind: str, rng: random.Random) -> str | None:
        """Sends one request; None when the answer is right, else what was wrong."""
        headers = {"Content-Type": "application/json"}
        if kind == "decide":
            body = {"rule": RULE, "options": OPTIONS, "state": rng.choice(STATES)}
            path = "/v1/decide"
        else:
            body = {
                "messages": [{"role": "user", "content": "Say something about " + rng.choice(STATES)}],
                "max_tokens": 8,
                "block_size": 4,
                "stream": kind != "chat",
            }
            path = "/v1/chat/completions"
        c = self._conn()
        c.request("POST", path, json.dumps(body), headers)
        r = c.getresponse()
        if r.status != 200:
            text = r.read()[:200]
            self.drop()
            return f"{kind}: HTTP {r.status} {text!r}"
        if kind == "decide":
            j = json.loads(r.read())
            return None if j.get("letter") in OPTIONS else f"decide: no letter in {j}"
        if kind == "chat":
            j = json.loads(r.read())
            return None if j["choices"][0]["message"]["content"] is not None else "chat: no content"
        if kind == "stream-leave":
            r.fp.readline()  # the first event's line, then hang up mid-stream
            self.drop()
            return None
        data = r.read().decode()
        return None if data.rstrip().endswith("data: [DONE]") else f"stream: no [DONE] in {data[-80:]!r}"


def run_client(port: int, n: int, seed: int, deadline: float, out: dict, lock: threading.Lock) -> None:
    rng = random.Random(seed)
    c = Client(port)
    done, failures = {k: 0 for k in KINDS}, []
    for _ in range(n):
        if deadline and time.monotonic() > deadline:
            break
        kind = rng.choices(KINDS, weights=(4, 2, 1, 1))[0]
        try:
            why = c.one(kind, rng)
        except (OSError, http.client.HTTPException, ValueError, KeyError) as e:
            c.drop()
            why = f"{kind}: {type(e).__name__}: {e}"
        done[kind] += 1
        if why:
            failures.append(why)
    c.drop()
    with lock:
        for k in KINDS:
            out["done"][k] += done[k]
        out["failures"] += failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.environ.get("MEADOW_CLI", "build/meadow-mind"))
    ap.add_argument("--model", default="nano")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--requests", type=int, default=1000, help="per client")
    ap.add_argument("--seconds", type=float, default=0, help="stop sending after this (0: no limit)")
    ap.add_argument("--warmup", type=int, default=100, help="requests per client before measuring memory")
    a = ap.parse_args()
    proc, port = start_server(a.cli, a.model)
    try:
        lock = threading.Lock()
        warm = {"done": {k: 0 for k in KINDS}, "failures": []}
        threads = [
            threading.Thread(target=run_client, args=(port, a.warmup, 1000 + i, 0, warm, lock))
            for i in range(a.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rss_warm = rss_mb(proc.pid)
        out = {"done": {k: 0 for k in KINDS}, "failures": []}
        t0 = time.monotonic()
        deadline = t0 + a.seconds if a.seconds else 0
        n = max(a.requests - a.warmup, 0)
        threads = [
            threading.Thread(target=run_client, args=(port, n, i, deadline, out, lock))
            for i in range(a.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        # Workers freed: streams whose clients left must end by themselves, within seconds.
        h = health(port)
        for _ in range(100):
            if h["running"] == 0 and h["waiting"] == 0:
                break
            time.sleep(0.1)
            h = health(port)
        rss_end = rss_mb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    failures = warm["failures"] + out["failures"]
    total = sum(out["done"].values()) + sum(warm["done"].values())
    growth = (rss_end - rss_warm) / rss_warm * 100 if rss_warm else 0.0
    print(f"soak: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, model {a.model}")
    print(f"{'what':<34} {'value':>12}")
    print(f"{'clients x requests (sent)':<34} {f'{a.clients} x {a.requests} ({total})':>12}")
    for k in KINDS:
        print(f"{'  ' + k:<34} {out['done'][k] + warm['done'][k]:>12}")
    print(f"{'wall s (after warm-up)':<34} {wall:>12.1f}")
    print(f"{'requests/s':<34} {sum(out['done'].values()) / wall if wall else 0:>12.1f}")
    print(f"{'failed answers':<34} {len(failures):>12}")
    print(f"{'workers busy at the end':<34} {h['running'] + h['waiting']:>12}")
    print(f"{'RSS MB after warm-up':<34} {rss_warm:>12.1f}")
    print(f"{'RSS MB at the end':<34} {rss_end:>12.1f}")
    print(f"{'RSS growth %':<34} {growth:>12.1f}")
    for f in failures[:10]:
        print("  failure:", f)
    ok = not failures and h["running"] == 0 and h["waiting"] == 0 and growth <= 10
    print("soak:", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
