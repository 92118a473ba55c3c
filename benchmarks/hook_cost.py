#!/usr/bin/env python3
"""What `kivgraph hook` costs a client per search: each case's payload piped to the gate 60
times, p50 and p95 of the wall time of the whole process — first with no daemon (the gate
opens the published generation itself), then with a daemon running on the same state
directory (the gate asks it over its socket), side by side in one run.

    benchmarks/hook_cost.py KIVGRAPH_BIN HOME_WITH_AN_INDEXED_DEFAULT_CONFIG CWD_IN_A_REPOSITORY

The home must hold a default configuration (HOME/.config/kivgraph/config.yaml) whose graph is
published, and CWD a directory of one of its repositories. The daemon is started with
`--addr 127.0.0.1:0`, waited for until its first pass leaves it idle, and stopped at the end.
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


def measure():
    rows = {}
    for name, pattern in cases.items():
        payload = json.dumps({"cwd": cwd, "tool_name": "Grep",
                              "tool_input": {"pattern": pattern}}).encode()
        times = []
        for _ in range(60):
            started = time.perf_counter()
            result = subprocess.run([kivgraph, "hook"], input=payload, env=env,
                                    capture_output=True)
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        verdict = "deny" if b'"deny"' in result.stdout else "allow"
        rows[name] = (statistics.median(times), times[int(len(times) * 0.95)], verdict)
    return rows


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


alone = measure()
daemon = subprocess.Popen([kivgraph, "daemon", "--addr", "127.0.0.1:0"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    record = f"{home}/.local/state/kivgraph/daemon.json"
    while not os.path.exists(record):
        time.sleep(0.1)
    # The watcher's first pass reads every repository: wait until a second passes idle.
    before = cpu_ticks(daemon.pid)
    while True:
        time.sleep(1)
        now = cpu_ticks(daemon.pid)
        if now - before < 5:
            break
        before = now
    # The first question maps the generation in the daemon; what follows is the steady state.
    subprocess.run([kivgraph, "hook"], env=env, capture_output=True, input=json.dumps(
        {"cwd": cwd, "tool_name": "Grep", "tool_input": {"pattern": "Server"}}).encode())
    asked = measure()
finally:
    daemon.terminate()
    daemon.wait()

print("| case | no daemon p50 / p95 | daemon p50 / p95 | verdict (both) |")
print("| --- | --- | --- | --- |")
for name in cases:
    (p50, p95, verdict), (d50, d95, dverdict) = alone[name], asked[name]
    assert verdict == dverdict, (name, verdict, dverdict)
    print(f"| {name} | {p50:.1f} / {p95:.1f} ms | {d50:.1f} / {d95:.1f} ms | {verdict} |")
