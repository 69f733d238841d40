#!/usr/bin/env python3
"""Paired runs of go-cty's harness and `ctywire bench` on the same case files.

usage: vs_gocty.py GOCTY CTYWIRE CASE... [--rounds N] [--seconds S]

For each case, round after round, runs `GOCTY bench -case F -time Ss` and
`CTYWIRE bench --case F --seconds S` in turns (which of the two goes first
alternates), so both see the same slow spells of a shared machine. Prints
per case and operation the median time of each over the rounds, and the
median and range of the per-round ratios (go-cty time / ctywire time).
A second CTYWIRE binary may be paired the same way: pass `--base OLD` to
add OLD's times and the per-round ratio OLD / CTYWIRE.
"""
import argparse
import json
import os
import statistics
import subprocess

OPS = ["msgpack_decode", "msgpack_encode", "json_decode", "json_encode"]


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gocty")
    ap.add_argument("ctywire")
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--base")
    a = ap.parse_args()
    print("| payload | bytes | operation | go-cty | ctywire | ratio (range) |"
          + (" base | base/new |" if a.base else ""))
    print("|---|---:|---|---:|---:|---:|" + ("---:|---:|" if a.base else ""))
    for case in a.cases:
        rounds = []
        for r in range(a.rounds):
            cmds = {
                "go": [a.gocty, "bench", "-case", case, "-time", f"{a.seconds}s"],
                "new": [a.ctywire, "bench", "--case", case, "--seconds", str(a.seconds)],
            }
            if a.base:
                cmds["base"] = [a.base, "bench", "--case", case, "--seconds", str(a.seconds)]
            order = list(cmds) if r % 2 == 0 else list(reversed(cmds))
            rounds.append({k: run(cmds[k]) for k in order})
        name = os.path.basename(case).removesuffix(".case")
        size = int(rounds[0]["new"]["bytes"])
        for op in OPS:
            if op not in rounds[0]["new"] or op not in rounds[0]["go"]:
                continue
            go = statistics.median(x["go"][op] for x in rounds)
            new = statistics.median(x["new"][op] for x in rounds)
            ratios = [x["go"][op] / x["new"][op] for x in rounds]
            line = (f"| {name} | {size:,} | {op.replace('_', ' ')} | {fmt(go)} | {fmt(new)} | "
                    f"{statistics.median(ratios):.1f}× ({min(ratios):.1f}–{max(ratios):.1f}) |")
            if a.base:
                base = statistics.median(x["base"][op] for x in rounds)
                br = [x["base"][op] / x["new"][op] for x in rounds]
                line += f" {fmt(base)} | {statistics.median(br):.2f}× |"
            print(line, flush=True)


if __name__ == "__main__":
    main()
