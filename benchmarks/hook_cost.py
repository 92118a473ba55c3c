#!/usr/bin/env python3
"""What `kivgraph hook` costs a client per search: each case's payload piped to the gate 60
times, p50 and p95 of the wall time of the whole process.

    benchmarks/hook_cost.py KIVGRAPH_BIN HOME_WITH_AN_INDEXED_DEFAULT_CONFIG CWD_IN_A_REPOSITORY

The home must hold a default configuration (HOME/.config/kivgraph/config.yaml) whose graph is
published, and CWD a directory of one of its repositories.
"""
import json
import os
import statistics
import subprocess
import sys
import time

kivgraph, home, cwd = sys.argv[1:4]
env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=f"{home}/.config",
           XDG_STATE_HOME=f"{home}/.local/state")
env.pop("KIVGRAPH_DISABLE_HOOK", None)
cases = {
    "a regular expression (allowed before anything is read)": "Serv.*",
    "an identifier declared once (allowed after the lookup)": "retry",
    "an identifier declared 2+ times (refused)": "Server",
    "an identifier declared 15 times (refused)": "Context",
}
for name, pattern in cases.items():
    payload = json.dumps({"cwd": cwd, "tool_name": "Grep",
                          "tool_input": {"pattern": pattern}}).encode()
    times = []
    for _ in range(60):
        started = time.perf_counter()
        result = subprocess.run([kivgraph, "hook"], input=payload, env=env, capture_output=True)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    verdict = "deny" if b'"deny"' in result.stdout else "allow"
    print(f"{name}: p50 {statistics.median(times):.1f} ms, "
          f"p95 {times[int(len(times) * 0.95)]:.1f} ms ({verdict})")
