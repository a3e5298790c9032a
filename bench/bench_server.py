"""Server overhead per /v1/decide request, printed as a table: starts `meadow-mind serve` on
loopback, sends N decisions one after another on one keep-alive connection, and compares the
HTTP round trip with the decision latency the server reports (`lat_ms`). The overhead is the
round trip minus the decision, request by request (parsing, the decision-table lookup, JSON, the
socket). A last row times `meadow-mind decide --json` (the same decision, in process) for
comparison. Standard library only.

    /usr/bin/python3 bench/bench_server.py [--cli build/meadow-mind] [--model nano] [-n 1000]
        [--threads 2] [--warmup 50] [--decide-runs 20]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import time

RULE = "If the light is red, stop; if it is green, go; otherwise slow down."
OPTIONS = {"A": "stop", "B": "go", "C": "slow down"}
STATES = [
    "The light is red.",
    "The light is green.",
    "The light is yellow.",
    "The light just turned red.",
    "The light is green and the road is clear.",
]


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    i = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[i]


def start_server(cli: str, model: str, threads: int) -> tuple[subprocess.Popen, int]:
    args = [cli, "serve", "--model", model, "--port", "0", "--threads", str(threads), "--quiet"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The server prints "listening on http://HOST:PORT ..." on stdout once the socket is bound.
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        sys.exit(f"serve did not report its port: {line!r} {proc.stderr.read()}")
    port = int(line.split("http://", 1)[1].split()[0].rsplit(":", 1)[1])
    return proc, port


def bench_http(port: int, n: int, warmup: int) -> tuple[list[float], list[float]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    rtt, lat = [], []
    headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
    for i in range(warmup + n):
        body = json.dumps({"rule": RULE, "options": OPTIONS, "state": STATES[i % len(STATES)]})
        t0 = time.perf_counter()
        conn.request("POST", "/v1/decide", body, headers)
        r = conn.getresponse()
        data = r.read()
        t1 = time.perf_counter()
        if r.status != 200:
            sys.exit(f"/v1/decide answered {r.status}: {data[:200]!r}")
        if i >= warmup:
            rtt.append((t1 - t0) * 1e3)
            lat.append(json.loads(data)["lat_ms"])
    conn.close()
    return rtt, lat


def bench_cli(cli: str, model: str, threads: int, runs: int) -> list[float]:
    out = []
    for i in range(runs):
        args = [cli, "decide", "--model", model, "--rule", RULE, "--state", STATES[i % len(STATES)]]
        args += [f"--option={k}={v}" for k, v in OPTIONS.items()]
        args += ["--threads", str(threads), "--json"]
        p = subprocess.run(args, capture_output=True, text=True, check=True)
        out.append(json.loads(p.stdout)["lat_ms"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/meadow-mind")
    ap.add_argument("--model", default="nano")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--decide-runs", type=int, default=20)
    a = ap.parse_args()
    if a.n < 1:
        sys.exit("-n must be at least 1")
    proc, port = start_server(a.cli, a.model, a.threads)
    try:
        rtt, lat = bench_http(port, a.n, a.warmup)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    over = [r - d for r, d in zip(rtt, lat)]
    cli = bench_cli(a.cli, a.model, a.threads, a.decide_runs)
    print(
        f"model {a.model}, {a.threads} threads, {platform.machine()} {os.cpu_count()} cores; "
        f"{a.n} sequential /v1/decide requests on one keep-alive connection after {a.warmup} "
        f"warm-up; {a.decide_runs} `meadow-mind decide` processes"
    )
    print("| measure | p50 ms | p95 ms |")
    print("|---|---:|---:|")
    print(f"| HTTP round trip (/v1/decide) | {pct(rtt, 0.5):.3f} | {pct(rtt, 0.95):.3f} |")
    print(f"| decision, as the server reports (lat_ms) | {pct(lat, 0.5):.3f} | {pct(lat, 0.95):.3f} |")
    print(f"| server overhead (round trip - lat_ms) | {pct(over, 0.5):.3f} | {pct(over, 0.95):.3f} |")
    print(f"| `meadow-mind decide` in process (lat_ms) | {pct(cli, 0.5):.3f} | {pct(cli, 0.95):.3f} |")
    print(f"mean overhead {statistics.fmean(over):.3f} ms; target: overhead p50 <= 1 ms")


if __name__ == "__main__":
    main()
